""":class:`RankRuleTokenizer`: a merge list whose tokens are ranks, encoded by tiktoken's rank rule, in the model's ids.

The window steps through a merge list with one :class:`~.tokenizer.Tokenizer` (the model's ids index labels,
colours and the merge list).  For most merge lists replaying the merges *is* the encoding; for a rank table
extended with new ranks (:mod:`bpe_desktop.core.extend`: cl100k + merges) it is not -- tiktoken merges the
adjacent pair whose *concatenated bytes* have the lowest rank, so a new token beside a neighbour can make an
original token the merge list makes from two other parts.  This class is a :class:`~.tokenizer.Tokenizer` whose
replay step is that rule over the model's ids (token *i* of the model has rank *i*: every merge makes a new
token, so ranks and ids both grow with the merge order), with tiktoken's whole-piece shortcut (a piece that
is a token below the step's limit is that token).  State at step ``k`` is still "the first k merges": the ranks
below ``n_base + k``; an encoding at an earlier step is continued, since the rule takes every lower rank first
(:func:`~.rank_bpe.byte_pair_continue`).  It adds no pre-tokenizer or special-token rule of its own.
"""

from __future__ import annotations

from typing import Literal

from ..choices import Mode
from ..errors import ConfigError
from .model import BPEModel, bytes_token
from .rank_bpe import byte_pair_continue
from .tokenizer import Tokenizer


class RankRuleTokenizer(Tokenizer):
    """*model* (bytes mode, each merge a new token) encoded by tiktoken's rank rule at each step.

    >>> from bpe_desktop.core.tokenizers.model import RAW_BYTE_BASE
    >>> m = BPEModel("bytes", list(RAW_BYTE_BASE), [(98, 99), (97, 98), (257, 99)], pretokenizer="none")
    >>> tok = RankRuleTokenizer(m)  # ab (257) then c: "abc" (258) -- replay would never merge a + bc
    >>> tok.encode("abc", upto=1), tok.encode("abc", upto=2), tok.encode("abc")
    ([97, 256], [97, 256], [258])
    """

    def __init__(self, model: BPEModel, *, unknown: Literal["error", "keep"] = "error") -> None:
        if model.mode != Mode.BYTES or len(set(model.merge_token_ids)) != len(model.merges):
            raise ConfigError("tiktoken's rank rule needs a bytes-mode merge list in which every merge makes a "
                              "new token -- this one is replayed merge by merge")
        super().__init__(model, unknown=unknown)

    def follow_model(self) -> None:
        super().follow_model()
        self._rank_of = {bytes_token(t): i for i, t in enumerate(self._tokens)}
        self._n_base = self.model.n_base

    def _bpe(self, ids: list[int], limit: int, last: int = -1) -> list[int]:
        """The rank rule with the ranks below ``n_base + limit``, from *ids* (a state of it at a lower limit)."""
        ranks, tokens, end = self._rank_of, self._tokens, self._n_base + limit
        parts = [bytes_token(tokens[i]) for i in ids]
        whole = ranks.get(b"".join(parts))
        if whole is not None and whole < end:  # tiktoken: a piece that is a token is that token
            return [whole]
        return [ranks[p] for p in byte_pair_continue(ranks, parts, end)]
