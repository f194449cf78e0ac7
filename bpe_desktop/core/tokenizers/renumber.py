"""A tokenizer that speaks a file's own id numbering: :class:`~.tokenizer.Tokenizer` plus an id table.

Our ids are derived from the merge order, with specials last; files written by other programs may number
tokens otherwise (HF's trainer gives the special tokens ids 0, 1, ...).  Encoding depends only on the merge
order, so :class:`RenumberedTokenizer` encodes with our tokenizer and translates ids on the way out (and
back in for decoding).  ``model`` keeps our numbering: the window shows derived ids.  This module does not
read files (see :mod:`.formats`).  The inner tokenizer may also be a :class:`~.ranks.RankTokenizer`
(Mistral's tekken files number their special tokens first, then the ranks).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Literal

from ..choices import Mode
from ..text.pretokenize import Pretokenizer
from ..text.regex_budget import RegexBudget
from .model import BPEModel
from .ranks import RankTokenizer
from .tokenizer import UNKNOWN_ID, Tokenizer, TokenSpan


class RenumberedTokenizer:
    """``to_file[our id]`` is the file's id; same public methods as :class:`Tokenizer`.

    >>> from bpe_desktop.core import TrainConfig, train
    >>> model, _ = train({"ab": 3}, TrainConfig(end_of_word="", merges=1, specials=("<s>",)))
    >>> tok = RenumberedTokenizer(Tokenizer(model), [1, 2, 3, 0])  # the file puts <s> first
    >>> tok.encode("ab <s>", allowed_special="all"), tok.token_str(3), tok.special_tokens
    ([3, 0], 'ab', {'<s>': 0})
    """

    def __init__(self, inner: Tokenizer | RankTokenizer, to_file: Sequence[int]) -> None:
        self.inner = inner
        self._to = [*to_file, UNKNOWN_ID]  # index -1 (UNKNOWN_ID) maps to itself
        self._from = {f: i for i, f in enumerate(to_file)}

    @property
    def model(self) -> BPEModel:
        return self.inner.model

    @property
    def mode(self) -> Mode:
        return self.inner.mode

    @property
    def pretokenizer(self) -> Pretokenizer:
        return self.inner.pretokenizer

    @property
    def piecewise(self) -> bool:
        return self.inner.piecewise

    @property
    def unknown(self) -> str:
        return self.inner.unknown

    @property
    def n_vocab(self) -> int:
        return max(self._to) + 1

    @property
    def n_merges(self) -> int:
        return self.inner.n_merges

    @property
    def special_tokens(self) -> dict[str, int]:
        return {s: self._to[i] for s, i in self.inner.special_tokens.items()}

    def file_id(self, ours: int) -> int:
        """The file's id of one of our ids."""
        return self._to[ours]

    def _ours(self, i: int) -> int:
        return self._from.get(i, UNKNOWN_ID if i == UNKNOWN_ID else -2)

    def token_str(self, i: int) -> str:
        return self.inner.token_str(self._ours(i))

    def token_bytes(self, i: int) -> bytes:
        return self.inner.token_bytes(self._ours(i))

    def _map(self, ids: list[int]) -> list[int]:
        to = self._to
        return [to[i] for i in ids]

    def encode_piece(self, piece: str, upto: int | None = None) -> list[int]:
        return self._map(self.inner.encode_piece(piece, upto))

    def encode_ordinary(self, text: str, upto: int | None = None, *, budget: RegexBudget | None = None) -> list[int]:
        return self._map(self.inner.encode_ordinary(text, upto, budget=budget))

    def encode(
        self,
        text: str,
        *,
        upto: int | None = None,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
        budget: RegexBudget | None = None,
    ) -> list[int]:
        return self._map(self.inner.encode(text, upto=upto, allowed_special=allowed_special,
                                           disallowed_special=disallowed_special, budget=budget))

    def encode_with_offsets(
        self, text: str, *, upto: int | None = None, allowed_special: Literal["all"] | Collection[str] = "all",
        budget: RegexBudget | None = None,
    ) -> list[TokenSpan]:
        to = self._to
        return [TokenSpan(to[s.id], s.start, s.end)
                for s in self.inner.encode_with_offsets(text, upto=upto, allowed_special=allowed_special,
                                                        budget=budget)]

    def decode_bytes(self, ids: Sequence[int]) -> bytes:
        return self.inner.decode_bytes([self._ours(i) for i in ids])

    def decode(self, ids: Sequence[int], errors: str = "replace") -> str:
        return self.inner.decode([self._ours(i) for i in ids], errors)
