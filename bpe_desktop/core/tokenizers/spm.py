"""A SentencePiece BPE model as a tokenizer: :class:`SpmTokenizer`, with SentencePiece's own ids.

Encoding follows ``bpe_model.cc``: the text is normalized (:mod:`..text.spm_normalize`), cut into
characters (a user-defined symbol is one frozen symbol), and the adjacent pair whose concatenation is the
highest-scoring piece is merged first (on equal scores the leftmost), until no pair is a piece; a piece of
type UNUSED that resulted is split back into the two it was made of.  A symbol that is not a piece is the
unknown id or, with byte fallback, one ``<0xXX>`` piece per UTF-8 byte.  Decoding joins the pieces, turns
``▁`` into spaces and drops the dummy-prefix space, as ``DecodeIds`` does; a run of symbols that are not
pieces is one unknown id (without byte fallback), as in SentencePiece.

As SentencePiece does, control pieces (``<s>``, ``</s>``) are never cut out of a text: a text containing
"<s>" is encoded character by character.  :meth:`SpmTokenizer.encode` cuts out the ones the caller allows.

``upto=k`` allows only the first ``k`` merged pieces in priority order (score, then id): the merge list
:attr:`SpmTokenizer.model` recovers, as a chars-mode :class:`BPEModel` numbered our way.  This module does
not read files (:mod:`..formats.sentencepiece_model`) and does not train.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from ..choices import Mode
from ..errors import ConfigError, FormatError
from ..text.pretokenize import Pretokenizer
from ..text.regex_budget import RegexBudget
from ..text.specials import split_specials
from ..text.spm_normalize import SPACE, SpmNormalizer
from .model import BPEModel
from .tokenizer import TokenSpan

# piece types (sentencepiece_model.proto)
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
_CACHE_LIMIT = 200_000


@dataclass(frozen=True)
class SpmPiece:
    """One vocabulary entry: its text, score and type."""

    piece: str
    score: float
    type: int


class SpmTokenizer:
    """Encode and decode as SentencePiece does with a BPE model.

    >>> from bpe_desktop.core.text.spm_normalize import Charsmap
    >>> pieces = [SpmPiece("<unk>", 0, UNKNOWN), SpmPiece("▁l", -1, NORMAL), SpmPiece("▁lo", -2, NORMAL),
    ...           SpmPiece("▁", -3, NORMAL), SpmPiece("l", -4, NORMAL), SpmPiece("o", -5, NORMAL)]
    >>> tok = SpmTokenizer(pieces, SpmNormalizer(Charsmap(b"")))
    >>> tok.encode("lo lol"), tok.decode(tok.encode("lo lol"))
    ([2, 2, 4], 'lo lol')
    >>> tok.encode("lox")  # x is not a piece
    [2, 0]
    """

    mode = Mode.CHARS
    unknown = "keep"
    piecewise = False  # the normalizer reads the whole text (a dummy prefix, collapsed spaces)

    def __init__(self, pieces: Sequence[SpmPiece], normalizer: SpmNormalizer, *, byte_fallback: bool = False,
                 unk_surface: str = " \u2047 ", name: str = "") -> None:
        self.pieces = list(pieces)
        self.normalizer = normalizer
        self.byte_fallback = byte_fallback
        self.unk_surface = unk_surface
        self.name = name
        self.pretokenizer = Pretokenizer.from_spec("none")
        self._piece_id: dict[bytes, int] = {}  # NORMAL, USER_DEFINED and UNUSED pieces: what merges may make
        self._reserved: dict[bytes, int] = {}  # UNKNOWN, CONTROL and BYTE pieces
        self._score: list[float] = []
        self._bytes: list[bytes] = []
        self.unk_id = -1
        for i, p in enumerate(self.pieces):
            b = p.piece.encode("utf-8")
            self._bytes.append(b)
            self._score.append(p.score)
            table = self._piece_id if p.type in (NORMAL, USER_DEFINED, UNUSED) else self._reserved
            if b in table or (b in self._piece_id) or (b in self._reserved):
                raise FormatError(f"the piece {p.piece!r} is listed twice")
            table[b] = i
            if p.type == UNKNOWN and self.unk_id < 0:
                self.unk_id = i
        if self.unk_id < 0:
            raise FormatError("the model has no unknown piece (<unk>) -- it is not a usable SentencePiece model")
        self._byte_ids: list[int] = []
        if byte_fallback:
            try:
                self._byte_ids = [self._reserved[f"<0x{b:02X}>".encode()] for b in range(256)]
            except KeyError as e:
                raise FormatError(f"byte fallback is on but the byte piece {e.args[0].decode()} is missing") from None
        # merge rank of each multi-character piece: priority order (higher score first, then lower id)
        multi = [i for b, i in self._piece_id.items()
                 if self.pieces[i].type != USER_DEFINED and len(b.decode("utf-8")) > 1]
        multi.sort(key=lambda i: (-self._score[i], i))
        self._rank = dict.fromkeys(range(len(self.pieces)), -1)
        self._rank.update({i: r for r, i in enumerate(multi)})
        self._n_merges = len(multi)
        self._specials = {p.piece: i for i, p in enumerate(self.pieces) if p.type == CONTROL}
        self._glued = self._glued_chars()
        self._caches: dict[int, dict[bytes, tuple[tuple[int, int, int], ...]]] = {}
        self._model: BPEModel | None = None

    def _glued_chars(self) -> set[bytes]:
        """The characters some piece holds right before a ``▁`` (suffix mode: right after one).  A cut
        before (after) a ``▁`` next to any other character is crossed by no piece, so the text's chunks
        between such cuts encode independently, each with SentencePiece's own order."""
        glued: set[bytes] = set()
        for b in self._piece_id:
            s = b.decode("utf-8")
            for i, ch in enumerate(s):
                if ch == "\u2581":
                    j = i + 1 if self.normalizer.suffix else i - 1
                    if 0 <= j < len(s):
                        glued.add(s[j].encode())
        return glued

    # -- vocabulary ---------------------------------------------------------------------------------
    @property
    def n_vocab(self) -> int:
        return len(self.pieces)

    @property
    def n_merges(self) -> int:
        return self._n_merges

    @property
    def special_tokens(self) -> dict[str, int]:
        return dict(self._specials)

    def token_str(self, i: int) -> str:
        """The piece as the model writes it (``▁`` for a space, ``<0x0A>`` for a byte)."""
        return self.pieces[i].piece if 0 <= i < len(self.pieces) else "\ufffd"

    def token_bytes(self, i: int) -> bytes:
        """The bytes the piece stands for in a text (a control piece: none; unknown: the unk surface)."""
        if not 0 <= i < len(self.pieces):
            return "\ufffd".encode()
        t = self.pieces[i].type
        if t == CONTROL:
            return b""
        if t == UNKNOWN:
            return self.unk_surface.encode()
        if t == BYTE:
            return bytes([int(self.pieces[i].piece[3:5], 16)])
        return self._bytes[i].replace(SPACE, b" ")

    # -- encoding -----------------------------------------------------------------------------------
    def _limit(self, upto: int | None) -> int:
        if upto is None:
            return self._n_merges
        if upto < 0:
            raise ConfigError(f"upto must be 0 or more, not {upto}")
        return min(upto, self._n_merges)

    def _symbols(self, data: bytes) -> list[tuple[int, int, bool]]:
        """(start, end, frozen) of each initial symbol of normalized *data*."""
        out = []
        i, n = 0, len(data)
        user = self.normalizer.user_symbol_at
        while i < n:
            k = user(data, i)
            frozen = k > 0
            if not frozen:
                b = data[i]
                k = 1 if b < 0x80 else 2 if b < 0xE0 else 3 if b < 0xF0 else 4
            out.append((i, min(i + k, n), frozen))
            i += k
        return out

    def _bpe(self, data: bytes, limit: int) -> tuple[tuple[int, int, int], ...]:
        """(id, start, end) in *data* of each token of one normalized chunk."""
        segments, rev = self._merge(data, limit)
        out: list[tuple[int, int, int]] = []
        unk = self.unk_id
        for s, e in segments:
            n = len(out)
            self._emit(data, s, e, rev, out)
            if n and len(out) == n + 1 and out[n][0] == unk == out[n - 1][0] and out[n - 1][2] == s:
                out[n - 1 : n + 1] = [(unk, out[n - 1][1], e)]  # a run of unknown symbols is one unknown
        return tuple(out)

    def _merge(self, data: bytes, limit: int, skip: int = -1
               ) -> tuple[list[tuple[int, int]], dict[bytes, tuple[int, int, int]]]:
        """The (start, end) symbols of *data* once no adjacent pair makes a piece, and the UNUSED pieces
        made on the way (piece -> its left start, split point, right end)."""
        syms = self._symbols(data)
        n = len(syms)
        start = [s for s, _, _ in syms]
        end = [e for _, e, _ in syms]
        frozen = [f for _, _, f in syms]
        prev = list(range(-1, n - 1))
        nxt = [*range(1, n), -1]
        alive = [True] * n
        pid, rank, score = self._piece_id, self._rank, self._score
        heap: list[tuple[float, int, int, int]] = []
        rev: dict[bytes, tuple[int, int, int]] = {}  # UNUSED piece -> (left end, split point, right end)

        def add(left: int, right: int) -> None:
            if left < 0 or right < 0 or frozen[left] or frozen[right]:
                return
            i = pid.get(data[start[left] : end[right]])
            if i is None or rank[i] >= limit or i == skip:
                return
            heapq.heappush(heap, (-score[i], left, right, end[right] - start[left]))

        for k in range(1, n):
            add(k - 1, k)
        while heap:
            _, left, right, size = heapq.heappop(heap)
            if not (alive[left] and alive[right]) or end[right] - start[left] != size or nxt[left] != right:
                continue
            piece = data[start[left] : end[right]]
            i = pid[piece]
            if self.pieces[i].type == UNUSED:
                rev[piece] = (start[left], end[left], end[right])
            end[left] = end[right]
            alive[right] = False
            nxt[left] = nxt[right]
            if nxt[right] >= 0:
                prev[nxt[right]] = left
            add(prev[left], left)
            add(left, nxt[left])
        segments: list[tuple[int, int]] = []
        k = 0 if n else -1
        while k != -1:
            segments.append((start[k], end[k]))
            k = nxt[k]
        return segments, rev

    def _emit(self, data: bytes, s: int, e: int, rev: Mapping[bytes, tuple[int, int, int]],
              out: list[tuple[int, int, int]]) -> None:
        piece = data[s:e]
        i = self._reserved.get(piece, self._piece_id.get(piece, -1))
        if i >= 0 and self.pieces[i].type == UNUSED and piece in rev:
            a, m, _ = rev[piece]
            self._emit(data, s, s + m - a, rev, out)
            self._emit(data, s + m - a, e, rev, out)
            return
        if i >= 0:
            out.append((i, s, e))
        elif self.byte_fallback:
            out.extend((self._byte_ids[b], s + j, s + j + 1) for j, b in enumerate(piece))
        else:
            out.append((self.unk_id, s, e))

    def _chunks(self, data: bytes) -> list[int]:
        """Where the normalized text can be cut into independently encoded chunks (see :meth:`_glued_chars`)."""
        cuts = [0]
        step, n, glued, suffix = len(SPACE), len(data), self._glued, self.normalizer.suffix
        at = data.find(SPACE, 1)
        while at > 0:
            if suffix:
                cut = at + step
                k = cut + 1
                while k < n and 0x80 <= data[k] < 0xC0:
                    k += 1
                neighbour = data[cut:k]
            else:
                cut = k = at
                while k > 0 and 0x80 <= data[k - 1] < 0xC0:
                    k -= 1
                neighbour = data[k - 1 : cut] if k > 0 else b""
            if 0 < cut < n and neighbour not in glued:
                cuts.append(cut)
            at = data.find(SPACE, at + step)
        cuts.append(n)
        return sorted(set(cuts))

    def _encode_normalized(self, data: bytes, limit: int) -> list[tuple[int, int, int]]:
        cache = self._caches.setdefault(limit, {})
        if len(cache) > _CACHE_LIMIT:
            cache.clear()
        out: list[tuple[int, int, int]] = []
        cuts = self._chunks(data)
        for a, b in itertools.pairwise(cuts):
            chunk = data[a:b]
            toks = cache.get(chunk)
            if toks is None:
                toks = cache[chunk] = self._bpe(chunk, limit)
            out.extend((i, a + s, a + e) for i, s, e in toks)
        return out

    def encode_piece(self, piece: str, upto: int | None = None) -> list[int]:
        """Encode one text as a whole (SentencePiece does not pre-tokenize)."""
        return self.encode_ordinary(piece, upto)

    def encode_ordinary(self, text: str, upto: int | None = None, *, budget: RegexBudget | None = None) -> list[int]:
        """Encode *text* as ``SentencePieceProcessor.encode`` does (no BOS/EOS)."""
        data, _ = self.normalizer.normalize(text.encode("utf-8", "surrogateescape"))
        return [i for i, _, _ in self._encode_normalized(data, self._limit(upto))]

    def encode(
        self,
        text: str,
        *,
        upto: int | None = None,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
        budget: RegexBudget | None = None,
    ) -> list[int]:
        """Encode *text*; the control pieces named in *allowed_special* are cut out as their ids, any other
        is ordinary text (SentencePiece's own rule: it never looks for control pieces in a text)."""
        if not allowed_special:
            return self.encode_ordinary(text, upto)
        out: list[int] = []
        for segment, sid in split_specials(text, self._specials, allowed_special, ()):
            out.extend(self.encode_ordinary(segment, upto) if sid is None else [sid])
        return out

    def encode_with_offsets(
        self,
        text: str,
        *,
        upto: int | None = None,
        allowed_special: Literal["all"] | Collection[str] = "all",
        budget: RegexBudget | None = None,
    ) -> list[TokenSpan]:
        """Encode and give each token's byte span in ``text.encode()``; a token made by normalization
        (the dummy-prefix ``▁``, a rule's output) spans the original bytes it came from, possibly none."""
        spans: list[TokenSpan] = []
        pos = 0
        parts = split_specials(text, self._specials, allowed_special, ()) if allowed_special else [(text, None)]
        for segment, sid in parts:
            raw = segment.encode("utf-8", "surrogateescape")
            if sid is not None:
                spans.append(TokenSpan(sid, pos, pos + len(raw)))
            else:
                data, orig = self.normalizer.normalize(raw)
                for i, s, e in self._encode_normalized(data, self._limit(upto)):
                    a, b = orig[s], orig[e]
                    spans.append(TokenSpan(i, pos + a, pos + max(a, b)))
            pos += len(raw)
        return spans

    # -- decoding -----------------------------------------------------------------------------------
    def decode_bytes(self, ids: Sequence[int]) -> bytes:
        """The text of *ids* as ``DecodeIds`` gives it, in UTF-8 (bytes of byte pieces as they are)."""
        out = bytearray()
        first = True  # still at the start of the text: the dummy prefix's space is dropped there
        strip = self.normalizer.add_dummy_prefix and not self.normalizer.suffix
        squeeze = self.normalizer.remove_extra_whitespaces  # then every space before the first text goes
        for i in ids:
            b = self.token_bytes(i)
            t = self.pieces[i].type if 0 <= i < len(self.pieces) else NORMAL
            if first and t != CONTROL:
                if strip and t in (NORMAL, USER_DEFINED, UNUSED):
                    b = b.lstrip(b" ") if squeeze else b.removeprefix(b" ")
                first = squeeze and not b
            out += b
        return bytes(out)

    def decode(self, ids: Sequence[int], errors: str = "replace") -> str:
        """Decode ids to text; invalid UTF-8 from byte pieces becomes U+FFFD unless *errors* says otherwise."""
        return self.decode_bytes(ids).decode("utf-8", errors)

    # -- the merge list ---------------------------------------------------------------------------
    @property
    def model(self) -> BPEModel:
        """The merge list the pieces imply (chars mode, our numbering; computed on first use).

        The merge that makes a piece is the split that encoding with only the pieces ranked before it
        leaves.  A piece scored above the pieces it is made of (Llama's runs of ``▁``, added by hand) is
        split by encoding with every other piece, and its merge is listed once both parts exist; replaying
        this list is then not always SentencePiece's encoding, which :meth:`encode` keeps doing by score.
        """
        if self._model is None:
            self._model = self._recover()
        return self._model

    def _recover(self) -> BPEModel:
        by_rank = sorted((r, i) for i, r in self._rank.items() if r >= 0)
        chars = sorted({c for i, p in enumerate(self.pieces) if self._rank[i] >= 0 or
                        (p.type == NORMAL and len(p.piece) == 1) for c in p.piece})
        ids = {c.encode(): k for k, c in enumerate(chars)}
        merges: list[tuple[int, int]] = []
        waiting: dict[bytes, list[tuple[bytes, bytes, bytes]]] = {}  # a missing part -> merges that need it

        def made(data: bytes, a: bytes, b: bytes) -> None:
            merges.append((ids[a], ids[b]))
            ids[data] = len(chars) + len(merges) - 1
            for w in waiting.pop(data, []):
                if w[1] in ids and w[2] in ids and w[0] not in ids:
                    made(*w)

        for r, i in by_rank:
            data = self._bytes[i]
            segments, _ = self._merge(data, r)
            if len(segments) != 2:
                segments, _ = self._merge(data, self._n_merges, skip=i)
            if len(segments) != 2:
                raise FormatError(f"the piece {self.pieces[i].piece!r} is not the merge of two other pieces "
                                  "-- cannot list this model's merges")
            (a0, a1), (b0, b1) = segments
            a, b = data[a0:a1], data[b0:b1]
            if a in ids and b in ids:
                made(data, a, b)
            else:
                for part in {a, b} - ids.keys():
                    waiting.setdefault(part, []).append((data, a, b))
        if waiting:
            piece = next(iter(waiting.values()))[0][0].decode()
            raise FormatError(f"the piece {piece!r} is made of pieces that are never made -- cannot list this "
                              "model's merges")
        return BPEModel(mode=Mode.CHARS, base=list(chars), merges=merges, pretokenizer="none",
                        specials=tuple(self._specials))
