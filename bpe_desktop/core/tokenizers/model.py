"""The BPE model: base symbols plus the ordered merge list, and everything derived from them.

The ordered merge list is the single source of truth.  Token ids are derived from it: the base symbols
first (in ``bytes`` mode the 256 bytes in GPT-2's order, or by byte value with ``byte_ids="raw"`` as minbpe
and rustbpe number them; in ``chars`` mode the alphabet by code point, then
the end-of-word symbols), then each merge's new token in creation order (a merge that recreates an
existing token string reuses its id), then the special tokens.  The state at timeline step ``k`` is simply
"the first k merges"; nothing else is stored.

This module does not encode text (see :mod:`.tokenizer`) nor read or write files (see :mod:`.formats`).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..choices import ByteIds, Mode, TieBreak
from ..config import MODES, TIE_BREAKS, TrainConfig
from ..errors import ConfigError, FormatError
from ..text.byte_level import GPT2_BYTE_ORDER, bytes_to_text

Token = str | bytes  # chars-mode tokens are str, bytes-mode tokens are bytes

BYTE_BASE: tuple[bytes, ...] = tuple(bytes([b]) for b in GPT2_BYTE_ORDER)
#: the base bytes numbered by their value (minbpe, rustbpe, nanochat): id = byte
RAW_BYTE_BASE: tuple[bytes, ...] = tuple(bytes([b]) for b in range(256))


def chars_base(chars: Iterable[str], end_of_word: str, glue_marker: bool) -> list[str]:
    """The chars-mode base symbols for an alphabet: chars by code point, then the marker symbol(s)."""
    alphabet = sorted(set(chars))
    if not end_of_word:
        return alphabet
    if glue_marker:
        return alphabet + [c + end_of_word for c in alphabet]
    return [*alphabet, end_of_word]


def joined(a: Token, b: Token) -> Token:
    """The token a merge of *a* and *b* makes (both str in chars mode, both bytes in bytes mode).

    >>> joined("es", "t</w>"), joined(b" t", b"he")
    ('est</w>', b' the')
    """
    if isinstance(a, str) and isinstance(b, str):
        return a + b
    if isinstance(a, bytes) and isinstance(b, bytes):
        return a + b
    raise TypeError(f"a merge joins two tokens of one mode, not {a!r} and {b!r}")


def text_token(token: Token) -> str:
    """A chars-mode token, typed as the ``str`` it is (``TypeError`` for a bytes-mode token)."""
    if isinstance(token, str):
        return token
    raise TypeError(f"{token!r} is a bytes-mode token, not a chars-mode one")


def bytes_token(token: Token) -> bytes:
    """A bytes-mode token, typed as the ``bytes`` it is (``TypeError`` for a chars-mode token)."""
    if isinstance(token, bytes):
        return token
    raise TypeError(f"{token!r} is a chars-mode token, not a bytes-mode one")


def base_symbols(word: str, mode: Mode, end_of_word: str = "", glue_marker: bool = False) -> list[Token]:
    """The base symbols of one word (piece): its UTF-8 bytes, or its characters and the end-of-word marker
    (a symbol of its own, or glued to the last character).

    >>> base_symbols("low", "chars", "</w>"), base_symbols("low", "chars", "</w>", True)
    (['l', 'o', 'w', '</w>'], ['l', 'o', 'w</w>'])
    >>> base_symbols("é", "bytes")
    [b'\\xc3', b'\\xa9']
    """
    if mode == Mode.BYTES:
        data = word.encode("utf-8", "surrogateescape")
        return [data[i : i + 1] for i in range(len(data))]
    syms: list[Token] = list(word)
    if end_of_word:
        if glue_marker:
            if syms:
                syms[-1] = joined(syms[-1], end_of_word)
        else:
            syms.append(end_of_word)
    return syms


def token_text(token: Token) -> str:
    """How a token is written in text files and shown: bytes through GPT-2's mapping."""
    return bytes_to_text(token) if isinstance(token, bytes) else token


@dataclass
class BPEModel:
    """Settings, base symbols and ordered merges (pairs of token ids)."""

    mode: Mode
    base: list[Token]  # base symbols in id order
    merges: list[tuple[int, int]] = field(default_factory=list)  # (left id, right id), in learned order
    pretokenizer: str = "whitespace"  # spec of Pretokenizer
    end_of_word: str = ""  # chars mode only
    glue_marker: bool = False
    specials: tuple[str, ...] = ()
    tie_break: TieBreak | None = None  # how it was trained, informational

    def __post_init__(self) -> None:
        # a file reader passes text ("bytes"); any other value stays for formats.check_model to refuse
        if isinstance(self.mode, str) and self.mode in MODES:
            self.mode = Mode(self.mode)
        if isinstance(self.tie_break, str) and self.tie_break in TIE_BREAKS:
            self.tie_break = TieBreak(self.tie_break)
        if self.mode == Mode.BYTES:
            self.end_of_word = ""

    # -- construction -----------------------------------------------------------------------------
    @classmethod
    def empty(cls, config: TrainConfig, alphabet: Iterable[str] = ()) -> BPEModel:
        base: list[Token] = (
            list(RAW_BYTE_BASE if config.byte_ids == ByteIds.RAW else BYTE_BASE)
            if config.mode == Mode.BYTES
            else list(chars_base(alphabet, config.end_of_word, config.glue_marker))
        )
        return cls(
            mode=config.mode, base=base, pretokenizer=config.pretokenizer, end_of_word=config.marker,
            glue_marker=config.glue_marker, specials=tuple(config.specials), tie_break=config.tie_break,
        )

    @classmethod
    def from_token_pairs(
        cls, mode: Mode, base: Sequence[Token], pairs: Iterable[tuple[Token, Token]], **settings: Any
    ) -> BPEModel:
        """Build from merges given as token pairs (as files store them); unknown tokens are an error."""
        model = cls(mode=mode, base=list(base), **settings)
        ids = {t: i for i, t in enumerate(model.base)}
        n = len(model.base)
        merges = []
        for k, (a, b) in enumerate(pairs, 1):
            try:
                pair = (ids[a], ids[b])
            except KeyError as e:
                raise FormatError(
                    f"merge {k} ({token_text(a)} {token_text(b)}) uses the token {token_text(e.args[0])!r}, "
                    "which is neither a base symbol nor made by an earlier merge -- the merge list is "
                    "out of order or belongs to another alphabet"
                ) from None
            merges.append(pair)
            new = joined(a, b)
            if new not in ids:
                ids[new] = n
                n += 1
        model.merges = merges
        return model

    def with_byte_ids(self, byte_ids: str) -> BPEModel:
        """The same bytes-mode tokenizer with its 256 base bytes numbered ``"gpt2"`` or ``"raw"`` (by value);
        merges are kept as token pairs, so every token keeps its bytes and only ids change.

        >>> m = BPEModel("bytes", list(BYTE_BASE), [(BYTE_BASE.index(b"a"), BYTE_BASE.index(b"b"))])
        >>> raw = m.with_byte_ids("raw")
        >>> raw.merges, raw.tokens[256], raw.byte_ids
        ([(97, 98)], b'ab', 'raw')
        """
        if self.mode != Mode.BYTES:
            raise ConfigError("byte ids apply to bytes mode only -- this is a chars-mode tokenizer")
        base = {"gpt2": BYTE_BASE, "raw": RAW_BYTE_BASE}.get(byte_ids)
        if base is None:
            raise ConfigError(f"unknown byte numbering {byte_ids!r} -- use gpt2 or raw")
        t = self.tokens
        return BPEModel.from_token_pairs(
            Mode.BYTES, base, [(t[a], t[b]) for a, b in self.merges], pretokenizer=self.pretokenizer,
            specials=self.specials, tie_break=self.tie_break)

    @property
    def byte_ids(self) -> str | None:
        """``"gpt2"`` or ``"raw"``: how the base bytes are numbered (None in chars mode or any other order)."""
        if self.mode != Mode.BYTES:
            return None
        base = tuple(self.base)
        return "gpt2" if base == BYTE_BASE else "raw" if base == RAW_BYTE_BASE else None

    # -- derived ----------------------------------------------------------------------------------
    def symbols_of(self, word: str) -> list[Token]:
        """The base symbols of *word* (a piece) the way this model was trained (:func:`base_symbols`)."""
        return base_symbols(word, self.mode, self.end_of_word, self.glue_marker)

    @cached_property
    def _derived(self) -> tuple[list[Token], dict[Token, int], list[int]]:
        tokens: list[Token] = list(self.base)
        ids = {t: i for i, t in enumerate(tokens)}
        merge_ids: list[int] = []  # id of the token each merge produces
        for a, b in self.merges:
            new = joined(tokens[a], tokens[b])
            i = ids.get(new)
            if i is None:
                i = ids[new] = len(tokens)
                tokens.append(new)
            merge_ids.append(i)
        return tokens, ids, merge_ids

    def invalidate(self) -> None:
        """Call after changing ``merges`` in place."""
        self.__dict__.pop("_derived", None)
        self.__dict__.pop("_creation_rank", None)  # derived from _derived: stale too

    def extend_merges(self, pairs: Iterable[tuple[int, int]]) -> None:
        """Append merges; same result as ``merges.extend(pairs); invalidate()``, in O(new merges).

        The derived tables, when already built, are copied (C-speed) and extended instead of rebuilt
        from the first merge, so a view appending merges in batches while training stays cheap.

        >>> m = BPEModel(mode="chars", base=["a", "b"])
        >>> m.vocab_size
        2
        >>> m.extend_merges([(0, 1), (2, 2)])
        >>> [m.token_str(i) for i in m.merge_token_ids], m.vocab_size
        (['ab', 'abab'], 4)
        """
        new = list(pairs)
        derived = self.__dict__.get("_derived")
        ranks = self.__dict__.get("_creation_rank")
        self.merges.extend(new)
        self.invalidate()
        if derived is None:
            return
        tokens, ids, merge_ids = list(derived[0]), dict(derived[1]), list(derived[2])
        ranks = list(ranks) if ranks is not None else None
        for a, b in new:
            tok = joined(tokens[a], tokens[b])
            i = ids.get(tok)
            if i is None:
                i = ids[tok] = len(tokens)
                tokens.append(tok)
                if ranks is not None:
                    ranks.append(len(merge_ids))
            merge_ids.append(i)
        self.__dict__["_derived"] = (tokens, ids, merge_ids)
        if ranks is not None:
            self.__dict__["_creation_rank"] = ranks

    @property
    def tokens(self) -> list[Token]:
        """Every non-special token, indexed by id."""
        return self._derived[0]

    @property
    def token_ids(self) -> dict[Token, int]:
        return self._derived[1]

    @property
    def merge_token_ids(self) -> list[int]:
        """``merge_token_ids[r]`` is the id of the token made by merge ``r`` (0-based)."""
        return self._derived[2]

    @property
    def n_base(self) -> int:
        return len(self.base)

    @property
    def special_ids(self) -> dict[str, int]:
        n = len(self.tokens)
        return {s: n + i for i, s in enumerate(self.specials)}

    @property
    def vocab_size(self) -> int:
        return len(self.tokens) + len(self.specials)

    def vocab_size_at(self, step: int) -> int:
        """Vocabulary size with only the first *step* merges (specials included), in O(log merges).

        Tokens are created in merge order, so the merges that made a new token are ``_creation_rank``,
        ascending: the tokens made within the first *step* merges are those ranks below *step*.

        >>> m = BPEModel(mode="chars", base=["a", "b"], merges=[(0, 1), (0, 1), (2, 2)])
        >>> [m.vocab_size_at(k) for k in range(4)]  # the second merge recreates "ab": no new token
        [2, 3, 3, 4]
        """
        if step <= 0:
            return self.n_base + len(self.specials)
        return self.n_base + bisect.bisect_left(self._creation_rank, step) + len(self.specials)

    def token_str(self, i: int) -> str:
        """Display text of any id, specials included."""
        tokens = self.tokens
        if i < len(tokens):
            return token_text(tokens[i])
        return self.specials[i - len(tokens)]

    def merge_rank_of(self, token_id: int) -> int | None:
        """0-based rank of the merge that first made *token_id*, ``None`` for base symbols/specials."""
        k = token_id - self.n_base
        if k < 0 or token_id >= len(self.tokens):
            return None
        return self._creation_rank[k]

    @cached_property
    def _creation_rank(self) -> list[int]:
        first: dict[int, int] = {}
        for r, t in enumerate(self.merge_token_ids):
            first.setdefault(t, r)
        return [first[i] for i in range(self.n_base, len(self.tokens))]

    def truncated(self, k: int) -> BPEModel:
        """The model at timeline step *k* (first *k* merges)."""
        return BPEModel(
            mode=self.mode, base=list(self.base), merges=list(self.merges[:k]),
            pretokenizer=self.pretokenizer, end_of_word=self.end_of_word, glue_marker=self.glue_marker,
            specials=self.specials, tie_break=self.tie_break,
        )

    def merge_pairs_text(self) -> list[tuple[str, str]]:
        """The merges as display-text pairs."""
        t = self.tokens
        return [(token_text(t[a]), token_text(t[b])) for a, b in self.merges]

    def derivation(self, token_id: int) -> tuple[int, ...] | None:
        """The pair of ids whose merge first made *token_id* (``None`` for base symbols)."""
        r = self.merge_rank_of(token_id)
        return None if r is None else self.merges[r]

    def same_as(self, other: BPEModel) -> bool:
        """Equal merges, base and settings that change encoding (``tie_break`` is ignored)."""
        return self.merges == other.merges and self.base_key() == other.base_key()

    def base_key(self) -> tuple[object, ...]:
        """Everything the encoding at step 0 depends on: two models with equal keys cut any text into the same
        base symbols with the same ids, whatever their merges.

        >>> a = BPEModel(mode="chars", base=["a", "b"], merges=[(0, 1)])
        >>> a.base_key() == BPEModel(mode="chars", base=["a", "b"]).base_key() != BPEModel("chars", ["b"]).base_key()
        True
        """
        return (self.mode, tuple(self.base), self.pretokenizer, self.end_of_word, self.glue_marker, self.specials)
