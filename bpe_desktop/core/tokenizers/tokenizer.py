"""Encoding and decoding text with a trained merge list, at any timeline step.

``Tokenizer(model).encode(text, upto=k)`` uses only the first ``k`` merges: the tokenizer as it was at
step ``k`` of training.  Within each pre-tokenized piece the merges are replayed in learned order: the
lowest-ranked pair present is merged everywhere (left to right, no overlaps), then the next rank above it,
and so on (:mod:`.replay`).  This is exactly "replay the merge list in order" (the seeds' definition) and equals how the
trainer left its own words.  Results are cached per piece and per step; a piece missing from a step's
cache continues from the nearest earlier step cached (replaying only the merges in between: a step's
segmentation is an exact intermediate state of every later one), and :meth:`Tokenizer.follow_model` takes
in merges appended to the model while keeping those caches -- so a view following a run, or playback,
re-encodes its rows by a handful of merges, not from the characters up.

Special tokens follow tiktoken: :meth:`Tokenizer.encode_ordinary` treats them as text; :meth:`encode`
refuses text that contains one unless the caller allows it.

This module does not read tokenizer files (:mod:`.formats`) and does not train.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from ..choices import Mode
from ..errors import ConfigError
from ..text.pretokenize import Pretokenizer
from ..text.regex_budget import RegexBudget
from ..text.specials import EncodesSpecials, split_specials
from .model import BPEModel, base_symbols, text_token
from .replay import replay

#: id given to a character the chars-mode alphabet lacks (only with ``unknown="keep"``)
UNKNOWN_ID = -1
_CACHE_LIMIT = 200_000


@dataclass(frozen=True, slots=True)
class TokenSpan:
    """One token of an encoded text: its id and its byte span in the UTF-8 encoding of the text."""

    id: int
    start: int
    end: int


class Tokenizer(EncodesSpecials):
    """Encoder/decoder for a :class:`BPEModel`.

    >>> from bpe_desktop.core import TrainConfig, train
    >>> model, _ = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, TrainConfig(merges=7))
    >>> tok = Tokenizer(model)
    >>> [tok.token_str(i) for i in tok.encode("lowest")]
    ['low', 'est</w>']
    >>> [tok.token_str(i) for i in tok.encode("lowest", upto=3)]
    ['l', 'o', 'w', 'est</w>']
    >>> tok.decode(tok.encode("newest low"))
    'newest low'
    """

    piecewise = True  # each pre-tokenizer piece is encoded on its own (see AnyTokenizer.piecewise)

    def __init__(self, model: BPEModel, *, unknown: Literal["error", "keep"] = "error") -> None:
        self.model = model
        self.mode = model.mode
        self.pretokenizer = Pretokenizer.from_spec(model.pretokenizer)
        self.unknown = unknown
        self._ranks: dict[tuple[int, int], tuple[int, int]] = {}  # (left id, right id) -> (rank, new id)
        self._n_indexed = 0  # merges of the model in _ranks
        self.follow_model()
        self._base_ids = {t: i for i, t in enumerate(model.base)}
        self._byte_ids = [self._base_ids[bytes([b])] for b in range(256)] if self.mode == Mode.BYTES else []
        # values are tuples of ints: the garbage collector untracks them, however many pieces are cached
        self._caches: dict[int, dict[str, tuple[int, ...]]] = {}
        self._marker = model.end_of_word
        self._glue = model.glue_marker

    def follow_model(self) -> None:
        """Take in merges appended to the model since (``BPEModel.extend_merges``); the cached encodings of
        earlier steps stay, since step k is the first k merges whatever comes after.

        >>> from bpe_desktop.core.tokenizers.model import BPEModel
        >>> m = BPEModel(mode="chars", base=["a", "b"])
        >>> tok = Tokenizer(m)
        >>> tok.encode("abab")
        [0, 1, 0, 1]
        >>> m.extend_merges([(0, 1)]); tok.follow_model(); tok.encode("abab")
        [2, 2]
        """
        model = self.model
        self._tokens = tokens = model.tokens
        self._n_tokens = len(tokens)
        merges, ids = model.merges, model.merge_token_ids
        for r in range(self._n_indexed, len(merges)):
            self._ranks.setdefault(merges[r], (r, ids[r]))
        self._n_indexed = len(merges)
        self._specials = dict(model.special_ids)  # (their ids follow the last token's)
        self._special_by_id = {i: s for s, i in self._specials.items()}

    # -- vocabulary ---------------------------------------------------------------------------------
    @property
    def n_vocab(self) -> int:
        return self._n_tokens + len(self._specials)

    @property
    def n_merges(self) -> int:
        return len(self.model.merges)

    @property
    def special_tokens(self) -> dict[str, int]:
        return dict(self._specials)

    def token_str(self, i: int) -> str:
        """Display text of a token id (bytes shown through GPT-2's mapping)."""
        if i == UNKNOWN_ID:
            return "<unk>"
        return self.model.token_str(i)

    def token_bytes(self, i: int) -> bytes:
        """The bytes a token stands for in the text (chars mode: UTF-8, end-of-word marker removed)."""
        if i in self._special_by_id:
            return self._special_by_id[i].encode("utf-8")
        if i == UNKNOWN_ID or not 0 <= i < self._n_tokens:
            return "\ufffd".encode()
        t = self._tokens[i]
        if isinstance(t, bytes):
            return t
        if self._marker and t.endswith(self._marker):
            t = t[: -len(self._marker)] + (" " if self.pretokenizer.drops_whitespace else "")
        return t.encode("utf-8", "surrogateescape")

    # -- encoding -----------------------------------------------------------------------------------
    def _limit(self, upto: int | None) -> int:
        n = len(self.model.merges)
        if upto is None:
            return n
        if upto < 0:
            raise ConfigError(f"upto must be 0 or more, not {upto}")
        return min(upto, n)

    def _symbols(self, piece: str) -> list[int]:
        if self.mode == Mode.BYTES:
            table = self._byte_ids
            return [table[b] for b in piece.encode("utf-8", "surrogateescape")]
        ids = self._base_ids
        syms = base_symbols(piece, Mode.CHARS, self._marker, self._glue)
        out = []
        for s in syms:
            i = ids.get(s)
            if i is None:
                if self.unknown == "keep":
                    i = UNKNOWN_ID
                else:
                    raise ConfigError(
                        f"the character {s!r} is not in this chars-mode tokenizer's alphabet -- train on "
                        "text that contains it, or use bytes mode, which can encode any text"
                    )
            out.append(i)
        return out

    def encode_piece(self, piece: str, upto: int | None = None) -> list[int]:
        """Encode one pre-tokenized piece, replaying the first *upto* merges in order (no cache)."""
        return self._bpe(self._symbols(piece), self._limit(upto))

    def _bpe(self, ids: list[int], limit: int, last: int = -1) -> list[int]:
        """Replay the merges ranked ``last + 1 .. limit - 1`` on *ids* (which the merges up to *last* have
        already been replayed on): :func:`.replay.replay`."""
        return replay(self._ranks, ids, limit, last)

    def _cache(self, limit: int) -> dict[str, tuple[int, ...]]:
        cache = self._caches.get(limit)
        if cache is None:
            if len(self._caches) > 8:  # keep the nearest earlier step: the new one continues from it
                below = max((k for k in self._caches if k < limit), default=None)
                self._caches = {} if below is None else {below: self._caches[below]}
            cache = self._caches[limit] = {}
        elif len(cache) > _CACHE_LIMIT:
            cache.clear()
        return cache

    def _encoder(self, limit: int) -> tuple[dict[str, tuple[int, ...]], Callable[[str], tuple[int, ...]]]:
        """The cache of step *limit* and the function that fills a miss: it continues from the piece's
        encoding at the nearest earlier step cached, else starts from the piece's symbols."""
        cache = self._cache(limit)
        below = max((k for k in self._caches if k < limit and self._caches[k]), default=None)
        earlier = self._caches[below] if below is not None else {}
        after = (below or 0) - 1

        def encode(piece: str) -> tuple[int, ...]:
            prev = earlier.get(piece)
            ids = self._bpe(list(prev), limit, after) if prev is not None else self._bpe(self._symbols(piece), limit)
            out = cache[piece] = tuple(ids)
            return out

        return cache, encode

    def encode_ordinary(self, text: str, upto: int | None = None, *, budget: RegexBudget | None = None) -> list[int]:
        """Encode *text*, treating special-token strings as ordinary text (a custom pattern runs under
        *budget*, one per call when ``None``: see :mod:`.regex_budget`).

        >>> from bpe_desktop.core.tokenizers.model import BPEModel, BYTE_BASE
        >>> Tokenizer(BPEModel("bytes", list(BYTE_BASE), pretokenizer="gpt2")).encode_ordinary("hi")[:2]
        [71, 72]
        """
        cache, fill = self._encoder(self._limit(upto))
        out: list[int] = []
        extend = out.extend
        for piece in self.pretokenizer.split(text, budget):
            ids = cache.get(piece)
            extend(ids if ids is not None else fill(piece))
        return out

    def encode_with_offsets(
        self,
        text: str,
        *,
        upto: int | None = None,
        allowed_special: Literal["all"] | Collection[str] = "all",
        budget: RegexBudget | None = None,
    ) -> list[TokenSpan]:
        """Encode and give each token's byte span in ``text.encode()`` (for visualisation).

        Spaces dropped by the ``whitespace`` pre-tokenizer belong to no token.  A custom pattern runs
        under *budget* (one for the whole call when ``None``).
        """
        budget = budget or RegexBudget(what="encoding")
        spans: list[TokenSpan] = []
        cache, fill = self._encoder(self._limit(upto))
        byte_pos = 0
        parts = split_specials(text, self._specials, allowed_special, ()) if self._specials else [(text, None)]
        for segment, sid in parts:
            seg_bytes = len(segment.encode("utf-8", "surrogateescape"))
            if sid is not None:
                spans.append(TokenSpan(sid, byte_pos, byte_pos + seg_bytes))
                byte_pos += seg_bytes
                continue
            prefix: list[int] | None = None  # char index -> byte offset, only for non-ASCII text
            if not segment.isascii():
                prefix = [0]
                for ch in segment:
                    prefix.append(prefix[-1] + len(ch.encode("utf-8", "surrogateescape")))

            def byte_of(c: int, base: int = byte_pos, prefix: list[int] | None = prefix) -> int:
                return base + (c if prefix is None else prefix[c])

            for start_char, piece in self.pretokenizer.spans(segment, budget):
                ids = cache.get(piece)
                if ids is None:
                    ids = fill(piece)
                if self.mode == Mode.BYTES:
                    b = byte_of(start_char)
                    for i in ids:
                        n = len(self._tokens[i])
                        spans.append(TokenSpan(i, b, b + n))
                        b += n
                else:
                    c = start_char
                    for i in ids:
                        n = 1 if i == UNKNOWN_ID else self._char_len(i)
                        spans.append(TokenSpan(i, byte_of(c), byte_of(c + n)))
                        c += n
            byte_pos += seg_bytes
        return spans

    def _char_len(self, i: int) -> int:
        """How many characters of the text a chars-mode token covers (its marker covers none)."""
        t = text_token(self._tokens[i])
        n = len(t)
        if self._marker and t.endswith(self._marker):
            n -= len(self._marker)
        return n

    # -- decoding -----------------------------------------------------------------------------------
    def decode_bytes(self, ids: Sequence[int]) -> bytes:
        """The bytes of a token sequence."""
        data = b"".join(self.token_bytes(i) for i in ids)
        if self.mode == Mode.CHARS and self._marker and self.pretokenizer.drops_whitespace and data.endswith(b" "):
            data = data[:-1]
        return data

    def decode(self, ids: Sequence[int], errors: str = "replace") -> str:
        """Decode ids to text (bytes mode: invalid UTF-8 becomes U+FFFD unless *errors* says otherwise).

        ``decode(encode(s)) == s`` for any text in bytes mode.
        """
        data = self.decode_bytes(ids)
        if self.mode == Mode.BYTES and errors == "replace":
            return data.decode("utf-8", "replace")
        return data.decode("utf-8", "surrogateescape" if self.mode == Mode.CHARS else errors)
