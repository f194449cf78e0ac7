"""What every tokenizer callers use interchangeably offers: :class:`AnyTokenizer`, a ``typing.Protocol``.

:class:`~.tokenizer.Tokenizer` (a merge list), :class:`~.ranks.RankTokenizer` (tiktoken's rank table) and
:class:`~.renumber.RenumberedTokenizer` (a file's own ids over our merges) all satisfy it, so the CLI, the
formats and the compare pane take any of them.  It leaves out what only one of them has (e.g. the rank
table's ``encode_ids_text``) and how each encodes.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Literal, Protocol

from ..choices import Mode
from ..text.pretokenize import Pretokenizer
from ..text.regex_budget import RegexBudget
from .model import BPEModel
from .tokenizer import TokenSpan


class AnyTokenizer(Protocol):
    """Encode text to ids (optionally with only the first ``upto`` merges) and decode ids back."""

    @property
    def model(self) -> BPEModel: ...
    @property
    def mode(self) -> Mode: ...
    @property
    def pretokenizer(self) -> Pretokenizer: ...
    @property
    def n_vocab(self) -> int: ...
    @property
    def n_merges(self) -> int: ...
    @property
    def special_tokens(self) -> dict[str, int]: ...
    @property
    def piecewise(self) -> bool:
        """True when ``encode_ordinary`` (and ``encode_with_offsets`` with no special allowed) encode each
        piece of ``pretokenizer.split(text)`` on its own -- no normalizer, no added prefix, special strings
        read as text or cut out whole and holding no whitespace -- so a cut between two pieces that stay
        the same changes no token (what :mod:`..logs.log_chunks` relies on)."""
        ...

    def token_str(self, i: int) -> str: ...
    def token_bytes(self, i: int) -> bytes: ...
    def encode_piece(self, piece: str, upto: int | None = None) -> list[int]: ...
    def encode_ordinary(
        self, text: str, upto: int | None = None, *, budget: RegexBudget | None = None
    ) -> list[int]: ...
    def encode(
        self,
        text: str,
        *,
        upto: int | None = None,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
        budget: RegexBudget | None = None,
    ) -> list[int]: ...
    def encode_with_offsets(
        self,
        text: str,
        *,
        upto: int | None = None,
        allowed_special: Literal["all"] | Collection[str] = "all",
        budget: RegexBudget | None = None,
    ) -> list[TokenSpan]: ...
    def decode_bytes(self, ids: Sequence[int]) -> bytes: ...
    def decode(self, ids: Sequence[int], errors: str = "replace") -> str: ...
