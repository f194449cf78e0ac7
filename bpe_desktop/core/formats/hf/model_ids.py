""":class:`PipelineTokenizer`: a ``tokenizer.json``'s whole pipeline at step *k*, speaking the model's (our) ids.

The window shows a merge list step by step with one :class:`~bpe_desktop.core.tokenizers.tokenizer.Tokenizer`
in the model's ids (labels, colours, tooltips and the merge list index tokens by them).  A file whose pipeline
our pre-tokenizers cannot express (a normalizer, Metaspace, ``ByteLevel(add_prefix_space)``, ``byte_fallback``,
``continuing_subword_prefix``...) is encoded by its :class:`~.pipeline.HFTokenizer` instead, which gives the
file's ids; this class is that tokenizer with every id mapped back to ours (the file's id table is a
bijection onto our tokens and specials), so every caller of a ``Tokenizer`` gets the file's segmentation
with the first *k* merges, unchanged.  ``encode_piece`` runs the whole pipeline on the piece (a word of a
word-count table is text to that file).  It adds no encoding rule of its own and does not read the file.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Literal

from ...text.regex_budget import RegexBudget
from ...tokenizers.tokenizer import UNKNOWN_ID, Tokenizer, TokenSpan
from .pipeline import HFTokenizer, ModelIdEncoder


class PipelineTokenizer(Tokenizer):
    """*pipeline* (unknown characters kept as id -1) in the model's ids; ``pipeline`` keeps the file's."""

    def __init__(self, pipeline: HFTokenizer) -> None:
        super().__init__(pipeline.model, unknown="keep")
        pipeline.unknown = "keep"
        self.pipeline = pipeline
        self.pretokenizer = pipeline.pretokenizer
        self._ours = {pipeline.file_id(i): i for i in range(len(pipeline.model.tokens) + len(pipeline.model.specials))}
        self._ours[UNKNOWN_ID] = UNKNOWN_ID

    def piece_encoder(self) -> ModelIdEncoder:
        """The model on one pre-tokenized piece, in our ids (what reachability and frequencies take)."""
        return ModelIdEncoder(self.pipeline)

    def ours(self, file_id: int) -> int:
        """Our id for the file's id *file_id*."""
        return self._ours[file_id]

    def encode_ordinary(self, text: str, upto: int | None = None, *, budget: RegexBudget | None = None) -> list[int]:
        ours = self._ours
        return [ours[i] for i in self.pipeline.encode_ordinary(text, upto, budget=budget)]

    def encode(
        self,
        text: str,
        *,
        upto: int | None = None,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
        budget: RegexBudget | None = None,
    ) -> list[int]:
        """The file's ``encode(text, add_special_tokens=False)`` in our ids (added tokens always cut out)."""
        return self.encode_ordinary(text, upto, budget=budget)

    def encode_piece(self, piece: str, upto: int | None = None) -> list[int]:
        return self.encode_ordinary(piece, upto)

    def encode_with_offsets(
        self,
        text: str,
        *,
        upto: int | None = None,
        allowed_special: Literal["all"] | Collection[str] = "all",
        budget: RegexBudget | None = None,
    ) -> list[TokenSpan]:
        ours = self._ours
        return [TokenSpan(ours[s.id], s.start, s.end)
                for s in self.pipeline.encode_with_offsets(text, upto=upto, budget=budget)]

    def token_bytes(self, i: int) -> bytes:
        """What our token *i* stands for in a text, by the file's decoder (Metaspace's ``▁`` is a space)."""
        if i == UNKNOWN_ID:
            return "\ufffd".encode()
        return self.pipeline.token_bytes(self.pipeline.file_id(i))

    def decode(self, ids: list[int] | tuple[int, ...], errors: str = "replace") -> str:  # type: ignore[override]
        fid = self.pipeline.file_id
        return self.pipeline.decode([fid(i) for i in ids], errors)
