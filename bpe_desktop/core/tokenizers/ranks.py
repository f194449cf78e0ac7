"""Rank-based byte-level encoding, the way tiktoken does it: a table ``token bytes -> rank`` is the tokenizer.

:class:`RankTokenizer` offers the same public methods as :class:`~.tokenizer.Tokenizer`, so the GUI and
the CLI can use either.  Within each pre-tokenized piece it follows tiktoken's ``byte_pair_merge``: if the
whole piece is a token, that is the answer; otherwise start from single bytes and repeatedly merge the
adjacent pair whose *concatenation* has the lowest rank (leftmost on ties).  Ids are the ranks.  Results
are cached per piece, and a text is encoded by one ``findall`` plus dictionary look-ups, which is what makes
a pure-Python encoder fast enough to compete with tiktoken on real text.

``upto=k`` means "only the tokens of rank below ``256 + k``": the tokenizer after ``k`` merges.  The merge
list itself is recovered from the ranks only when asked (:func:`recover_merges`, :attr:`RankTokenizer.model`),
as tiktoken's educational module does: the merge that made the token of rank ``r`` is the pair that
byte-pair encoding with ranks below ``r`` leaves.

This module does not read files (:mod:`.formats.tiktoken_file`) and does not train.  Rank-based encoding
equals merge-list replay (:class:`~.tokenizer.Tokenizer`) for tables trained by BPE except on rare inputs
where a token can be formed from a different split than the one that created it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from itertools import chain
from typing import Literal

import regex

from ..choices import Mode
from ..errors import ConfigError, FormatError
from ..text.ascii_twins import ascii_splitter
from ..text.byte_level import bytes_to_text
from ..text.pretokenize import CL100K_PATTERN, Pretokenizer
from ..text.regex_budget import RegexBudget
from ..text.specials import EncodesSpecials, split_specials
from .model import BPEModel
from .rank_bpe import byte_pair_ranks, piece_ids
from .tokenizer import TokenSpan

_CACHE_LIMIT = 500_000

#: Faster patterns with the same matches.  cl100k's possessive quantifiers only forbid backtracking, and
#: in cl100k no alternative can succeed by backtracking into them (each is followed by nothing, by ``$``
#: after a whitespace run that already ends the text, or is an optional non-letter before letters), so
#: the greedy forms split identically -- about 20% faster with the ``regex`` module.  Checked against
#: tiktoken and against the original pattern by the tests (tests/core/tokenizers/test_ranks.py).
EQUIVALENT_PATTERNS: dict[str, str] = {
    CL100K_PATTERN: (
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
        r"""|\s+$|\s*[\r\n]|\s+(?!\S)|\s"""
    ),
}


def recover_merges(ranks: Mapping[bytes, int]) -> tuple[list[bytes], list[tuple[int, int]]]:
    """The base bytes (ranks 0-255) and the merge list, as rank pairs, that a rank table implies.

    Raises :class:`FormatError` if the ranks are not 0..n-1, the first 256 are not the single bytes, or a
    token cannot be made by merging two tokens of lower rank.

    >>> recover_merges({**{bytes([b]): b for b in range(256)}, b"ab": 256, b"abc": 257})[1]
    [(97, 98), (256, 99)]
    """
    base, merges, outside = recover_merges_prefix(ranks)
    if outside:
        r = outside[0]
        raise FormatError(
            f"the token of rank {r} ({bytes_to_text(_by_rank(ranks)[r])!r}) is not the merge of two tokens of "
            "lower rank -- the file is not a BPE merge table"
        )
    return base, merges


def _by_rank(ranks: Mapping[bytes, int]) -> list[bytes]:
    by_rank: list[bytes | None] = [None] * len(ranks)
    for tok, r in ranks.items():
        if not 0 <= r < len(by_rank) or by_rank[r] is not None:
            raise FormatError(f"the ranks are not 0..{len(ranks) - 1} without gaps or repeats (rank {r}) -- a "
                              "merge list cannot be recovered from this table (encoding with it still works)")
        by_rank[r] = tok
    return by_rank  # type: ignore[return-value]


def recover_merges_prefix(
    ranks: Mapping[bytes, int], progress: Callable[[int, int], None] | None = None,
) -> tuple[list[bytes], list[tuple[int, int]], list[int]]:
    """As :func:`recover_merges`, but the last ranks may be tokens that are no merge of lower ranks
    (Whisper's multilingual file ends with the empty token): they are returned apart, as the third item,
    and the merge list stops before them, so every id stays the file's.  A non-merge followed by a merge
    is still refused (the list would have to skip an id).  *progress(done, total)* is called every
    :data:`PROGRESS_EVERY` ranks (and may raise to stop the work).

    >>> base, merges, outside = recover_merges_prefix({**{bytes([b]): b for b in range(256)}, b"ab": 256, b"": 257})
    >>> merges, outside
    ([(97, 98)], [257])
    """
    by_rank = _by_rank(ranks)
    base = by_rank[:256]
    if len(base) < 256 or sorted(base) != [bytes([b]) for b in range(256)]:
        raise FormatError("ranks 0-255 must be the 256 single bytes -- this is not a byte-level BPE rank file")
    merges: list[tuple[int, int]] = []
    outside: list[int] = []
    total = len(by_rank) - 256
    for r in range(256, len(by_rank)):
        if progress is not None and r % PROGRESS_EVERY == 0:
            progress(r - 256, total)
        tok = by_rank[r]
        parts = byte_pair_ranks(ranks, tok, r)
        if len(parts) == 2 and not outside:
            merges.append((ranks[parts[0]], ranks[parts[1]]))
        elif len(parts) == 2:
            first = outside[0]
            raise FormatError(
                f"the token of rank {first} ({bytes_to_text(by_rank[first])!r}) is not the merge of two tokens of "
                f"lower rank, but rank {r} is -- the file is not a BPE merge table (encoding with it still works)"
            )
        else:
            outside.append(r)
    return base, merges, outside


#: how many ranks :func:`recover_merges_prefix` recovers between two progress calls
PROGRESS_EVERY = 2048


def _bounded(caches: dict[int, dict], key: int) -> dict:
    """The cache for *key*, emptied when it grows past the limit (few keys kept)."""
    cache = caches.get(key)
    if cache is None:
        if len(caches) > 8:
            caches.clear()
        cache = caches[key] = {}
    elif len(cache) > _CACHE_LIMIT:
        cache.clear()
    return cache


class RankTokenizer(EncodesSpecials):
    """A byte-level tokenizer defined by a rank table (tiktoken's ``mergeable_ranks``).

    >>> ranks = {bytes([b]): i for i, b in enumerate(range(256))}
    >>> ranks.update({b"lo": 256, b"low": 257, b" low": 258})
    >>> tok = RankTokenizer(ranks, "gpt2", {"<|end|>": 300})
    >>> tok.encode("low lowlo")
    [257, 258, 256]
    >>> tok.encode("low", upto=1)
    [256, 119]
    >>> tok.decode(tok.encode("<|end|>low", allowed_special="all"))
    '<|end|>low'
    """

    mode: Mode = Mode.BYTES
    unknown = "error"
    piecewise = True  # each pre-tokenizer piece is encoded on its own (see AnyTokenizer.piecewise)

    def __init__(
        self, ranks: dict[bytes, int], pretokenizer: str = "gpt2", specials: Mapping[str, int] | None = None,
        *, name: str = "",
    ) -> None:
        self._rank_of = ranks  # token bytes -> rank (= id)
        self._end = max(ranks.values(), default=-1) + 1  # ranks are below this (tiktoken allows gaps)
        self.pretokenizer = Pretokenizer.from_spec(pretokenizer)
        fast = EQUIVALENT_PATTERNS.get(self.pretokenizer.pattern or "")
        self._fast = fast is not None
        # (on ASCII text through the standard library's twin of the pattern, when it has one: same pieces)
        self._split = (ascii_splitter(self.pretokenizer.pattern or "", regex.compile(fast).findall) if fast
                       else self.pretokenizer.split)
        self._specials = dict(specials or {})
        self._special_by_id = {i: s for s, i in self._specials.items()}
        self.name = name
        self._by_rank: list[bytes] | None = None
        self._model: BPEModel | None = None
        self._ids: frozenset[int] | None = None  # the ranks, as a set (made on first use)
        self._outside: list[int] = []  # trailing ranks that are no merge (known once the model is built)
        self._caches: dict[int, dict[str, list[int]]] = {}  # max rank -> piece -> ids
        self._text_caches: dict[int, dict[str, str]] = {}  # max rank -> piece -> "id id ..."

    # -- vocabulary ---------------------------------------------------------------------------------
    @property
    def ranks(self) -> dict[bytes, int]:
        """The rank table (token bytes -> id); do not modify."""
        return self._rank_of

    @property
    def _tokens(self) -> list[bytes]:
        if self._by_rank is None:
            by_rank = [b""] * self._end
            for t, r in self._rank_of.items():
                if 0 <= r < len(by_rank):
                    by_rank[r] = t
            self._by_rank = by_rank
        return self._by_rank

    @property
    def n_vocab(self) -> int:
        return max(self._end, max(self._special_by_id, default=-1) + 1)

    @property
    def n_merges(self) -> int:
        """Ranks above the 256 bytes (a gap counts as a step, as ``upto`` does)."""
        return max(0, self._end - 256)

    @property
    def special_tokens(self) -> dict[str, int]:
        return dict(self._specials)

    @property
    def model(self) -> BPEModel:
        """The merge list recovered from the ranks (computed on first use; seconds for 100k ranks).

        Special tokens keep their names; a :class:`BPEModel` numbers them after the last token, so their
        ids there may differ from :attr:`special_tokens`.
        """
        return self.recover()

    def recover(self, progress: Callable[[int, int], None] | None = None) -> BPEModel:
        """:attr:`model`, recovering it now if needed with *progress* as :func:`recover_merges_prefix` takes
        it (a caller off the GUI thread shows it; if *progress* raises, nothing is kept)."""
        if self._model is None:
            base, merges, outside = recover_merges_prefix(self._rank_of, progress)
            model = BPEModel(
                mode=Mode.BYTES, base=list(base), merges=merges, pretokenizer=self.pretokenizer.spec,
                specials=tuple(sorted(self._specials, key=self._specials.__getitem__)),
            )
            self._model, self._outside = model, outside
        return self._model

    @property
    def has_model(self) -> bool:
        """Whether the merge list is already recovered (reading :attr:`model` is then instant)."""
        return self._model is not None

    @property
    def outside_merges(self) -> list[int]:
        """The last ranks that are no merge of lower ranks, so not in :attr:`model` (Whisper's empty token)."""
        _ = self.model
        return list(self._outside)

    def token_bytes(self, i: int) -> bytes:
        """The bytes a token id stands for."""
        s = self._special_by_id.get(i)
        if s is not None:
            return s.encode("utf-8")
        tokens = self._tokens
        if not 0 <= i < len(tokens):
            return "\ufffd".encode()
        return tokens[i]

    def token_str(self, i: int) -> str:
        """Display text of a token id (bytes shown through GPT-2's mapping)."""
        s = self._special_by_id.get(i)
        if s is not None:
            return s
        return bytes_to_text(self.token_bytes(i))

    # -- encoding -----------------------------------------------------------------------------------
    def _max_rank(self, upto: int | None) -> int:
        if upto is None:
            return self._end
        if upto < 0:
            raise ConfigError(f"upto must be 0 or more, not {upto}")
        return min(256 + upto, self._end)

    def _cache(self, max_rank: int) -> dict[str, list[int]]:
        return _bounded(self._caches, max_rank)

    def _encode_bytes(self, data: bytes, max_rank: int) -> list[int]:
        ranks = self._rank_of
        r = ranks.get(data)
        if r is not None and r < max_rank:
            return [r]
        return piece_ids(ranks, data, max_rank)

    def encode_piece(self, piece: str, upto: int | None = None) -> list[int]:
        """Encode one pre-tokenized piece (no cache)."""
        return self._encode_bytes(piece.encode("utf-8", "surrogateescape"), self._max_rank(upto))

    def encode_ordinary(self, text: str, upto: int | None = None, *, budget: RegexBudget | None = None) -> list[int]:
        """Encode *text*, treating special-token strings as ordinary text (a custom pattern runs under
        *budget*, see :mod:`.regex_budget`)."""
        max_rank = self._max_rank(upto)
        cache = self._cache(max_rank)
        pieces = self._split(text) if budget is None or self._fast else self.pretokenizer.split(text, budget)
        lookup = cache.__getitem__
        try:
            return list(chain.from_iterable(map(lookup, pieces)))
        except KeyError:
            pass
        enc = self._encode_bytes
        for p in set(pieces).difference(cache):
            cache[p] = enc(p.encode("utf-8", "surrogateescape"), max_rank)
        return list(chain.from_iterable(map(lookup, pieces)))

    def encode_bytes(self, data: bytes, upto: int | None = None, *, budget: RegexBudget | None = None) -> list[int]:
        """Encode any bytes as tiktoken's ``Encoding._encode_bytes`` does (special-token text is ordinary).

        Valid UTF-8 is ``encode_ordinary``.  Otherwise the valid prefix is encoded, its last piece (with the
        all-whitespace tokens before it, tiktoken's ``_increase_last_piece_token_len``) is taken back, and
        those bytes plus the rest are byte-pair encoded as one piece.

        >>> tok = RankTokenizer({bytes([b]): b for b in range(256)} | {b"ab": 256, bytes([98, 255]): 257}, "gpt2")
        >>> tok.encode_bytes(b"ab"), tok.encode_bytes(bytes([97, 98, 255]))
        ([256], [256, 255])
        """
        try:
            return self.encode_ordinary(data.decode("utf-8"), upto, budget=budget)
        except UnicodeDecodeError as e:
            valid = e.start
        max_rank = self._max_rank(upto)
        text = data[:valid].decode("utf-8")
        pieces = self._split(text) if budget is None or self._fast else self.pretokenizer.split(text, budget)
        tokens: list[int] = []
        last = 0  # tokens of the last piece
        for piece in pieces:
            ids = self._encode_bytes(piece.encode("utf-8"), max_rank)
            tokens.extend(ids)
            last = len(ids)
        space = frozenset(b" \n\t")

        def all_space(i: int) -> bool:
            return all(c in space for c in self.token_bytes(i))

        if last and all_space(tokens[-last]):
            while last < len(tokens) and all_space(tokens[-last - 1]):
                last += 1
        unstable = data[valid:]
        if tokens and last:
            unstable = self.decode_bytes(tokens[-last:]) + unstable
            del tokens[-last:]
        if unstable:
            tokens.extend(self._encode_bytes(unstable, max_rank))
        return tokens

    def has_id(self, i: int) -> bool:
        """Whether *i* is the id of a token (a rank of the file, or a special token's id)."""
        if i in self._special_by_id:
            return True
        if self._ids is None:
            self._ids = frozenset(self._rank_of.values())
        return i in self._ids

    def encode_ids_text(
        self,
        text: str,
        *,
        upto: int | None = None,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
        budget: RegexBudget | None = None,
    ) -> str:
        """``" ".join(map(str, encode(text)))``, built from per-piece cached strings (what ``encode --ids``
        prints; about twice as fast as formatting a million ints).

        >>> RankTokenizer({bytes([b]): b for b in range(256)}, "gpt2").encode_ids_text("hi you")
        '104 105 32 121 111 117'
        """
        parts = (
            split_specials(text, self._specials, allowed_special, disallowed_special)
            if self._specials else [(text, None)]
        )
        max_rank = self._max_rank(upto)
        budget = budget or RegexBudget(what="encoding")
        out = [str(sid) if sid is not None else self._ids_text_ordinary(seg, max_rank, budget) for seg, sid in parts]
        return " ".join(o for o in out if o)

    def _ids_text_ordinary(self, text: str, max_rank: int, budget: RegexBudget) -> str:
        scache = _bounded(self._text_caches, max_rank)
        pieces = self._split(text) if self._fast else self.pretokenizer.split(text, budget)
        lookup = scache.__getitem__
        try:
            return " ".join(map(lookup, pieces))
        except KeyError:
            pass
        cache = self._cache(max_rank)
        enc = self._encode_bytes
        for p in set(pieces).difference(scache):
            ids = cache.get(p)
            if ids is None:
                ids = cache[p] = enc(p.encode("utf-8", "surrogateescape"), max_rank)
            scache[p] = " ".join(map(str, ids))
        return " ".join(map(lookup, pieces))

    def encode_with_offsets(
        self,
        text: str,
        *,
        upto: int | None = None,
        allowed_special: Literal["all"] | Collection[str] = "all",
        budget: RegexBudget | None = None,
    ) -> list[TokenSpan]:
        """Encode and give each token's byte span in ``text.encode()`` (for visualisation)."""
        budget = budget or RegexBudget(what="encoding")
        spans: list[TokenSpan] = []
        pos = 0
        parts = split_specials(text, self._specials, allowed_special, ()) if self._specials else [(text, None)]
        tokens = self._tokens
        pre = self.pretokenizer
        for segment, sid in parts:
            data = segment.encode("utf-8", "surrogateescape")
            if sid is not None:
                spans.append(TokenSpan(sid, pos, pos + len(data)))
                pos += len(data)
                continue
            char_at = 0  # walk the pieces, advancing a byte cursor over any text a piece skips
            byte_at = pos
            for start, piece in pre.spans(segment, budget):
                byte_at += len(segment[char_at:start].encode("utf-8", "surrogateescape"))
                for i in self.encode_ordinary(piece, upto, budget=budget):
                    n = len(tokens[i])
                    spans.append(TokenSpan(i, byte_at, byte_at + n))
                    byte_at += n
                char_at = start + len(piece)
            pos += len(data)
        return spans

    # -- decoding -----------------------------------------------------------------------------------
    def decode_bytes(self, ids: Sequence[int] | Iterable[int]) -> bytes:
        """The bytes of a token sequence."""
        return b"".join(map(self.token_bytes, ids))

    def decode(self, ids: Sequence[int], errors: str = "replace") -> str:
        """Decode ids to text; invalid UTF-8 becomes U+FFFD unless *errors* says otherwise."""
        return self.decode_bytes(ids).decode("utf-8", errors)
