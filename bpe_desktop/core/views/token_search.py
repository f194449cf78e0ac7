"""Finding a token by what a user types: its label (``·the``), its raw text (`` the``) or its GPT-2 form
(``Ġthe``), among the tokens that exist at a step.  It leaves out showing the result (the token view).
"""

from __future__ import annotations

from ..choices import Mode
from ..tokenizers.model import BPEModel, Token
from .labels import unvisible


def find_token(model: BPEModel, query: str, upto: int | None = None) -> int | None:
    """Find a token by what the user types: label (``·the``), raw text (`` the``) or GPT-2 form (``Ġthe``).

    Only tokens that exist at step *upto* are found (base symbols always).

    >>> from bpe_desktop.core import TrainConfig, train
    >>> model, _ = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, TrainConfig(merges=7))
    >>> find_token(model, "est</w>") == model.token_ids["est</w>"], find_token(model, "est</w>", upto=2)
    (True, None)
    """
    if not query:
        return None
    ids = model.token_ids
    candidates: list[Token] = [query]
    plain = unvisible(query)
    if model.mode == Mode.BYTES:
        candidates = [query.encode("utf-8", "surrogateescape"), plain.encode("utf-8", "surrogateescape")]
        try:
            from ..text.byte_level import text_to_bytes

            candidates.append(text_to_bytes(query))
        except KeyError:
            pass
    else:
        candidates.append(plain)
    limit = model.vocab_size_at(upto) if upto is not None else model.vocab_size
    for c in candidates:
        i = ids.get(c)
        if i is not None and i < limit and (upto is None or _exists_at(model, i, upto)):
            return i
    for s, i in model.special_ids.items():
        if s == query:
            return i
    return None


def _exists_at(model: BPEModel, token_id: int, upto: int) -> bool:
    r = model.merge_rank_of(token_id)
    return r is None or r < upto
