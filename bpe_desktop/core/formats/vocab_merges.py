"""Build a model from a file's vocabulary (token -> id) and merge list, checking the file's ids are ours.

Shared by the GPT-2 and HF readers.  Our ids are derived from the merges (base symbols, then merged tokens
in creation order, then specials); a file whose ids follow another order is refused with a clear error
rather than silently renumbered.  It does not parse any file format itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..errors import FormatError
from ..model import BPEModel, Token, token_text


def model_from_vocab(
    mode: str,
    vocab: Mapping[Token, int],
    pairs: Iterable[tuple[Token, Token]],
    source: str,
    specials: Iterable[str] = (),
    **settings: object,
) -> BPEModel:
    """Base = the vocabulary entries no merge makes (in id order); specials = *specials* plus the leftovers.

    >>> m = model_from_vocab("chars", {"a": 0, "b": 1, "ab": 2}, [("a", "b")], "x", pretokenizer="whitespace")
    >>> m.tokens, m.merges
    (['a', 'b', 'ab'], [(0, 1)])
    """
    pairs = list(pairs)
    made = {a + b for a, b in pairs}  # type: ignore[operator]
    special_set = set(specials)
    base = sorted((t for t in vocab if t not in made and t not in special_set), key=vocab.__getitem__)
    if mode == "bytes":
        extra = [t for t in base if not (isinstance(t, bytes) and len(t) == 1)]
        base = [t for t in base if t not in extra]
        special_set.update(token_text(t) for t in extra)  # e.g. GPT-2's <|endoftext|>
        if len(base) != 256:
            raise FormatError(
                f"{source}: a byte-level vocabulary must hold all 256 single bytes, this one has {len(base)}"
            )
    model = BPEModel.from_token_pairs(mode, base, pairs, **settings)
    for t, i in vocab.items():
        if token_text(t) in special_set:
            continue
        if model.token_ids.get(t) != i:
            raise FormatError(
                f"{source}: token {token_text(t)!r} has id {i} in the file but {model.token_ids.get(t)} by "
                "merge order -- this program numbers tokens base symbols first, then merges in order, then "
                "specials; files numbered otherwise (e.g. specials first) are not supported"
            )
    text_vocab = {token_text(t): i for t, i in vocab.items()}
    ordered = sorted(special_set, key=lambda s: text_vocab.get(s, 1 << 62))
    model.specials = tuple(ordered)
    want = model.special_ids
    for s in ordered:
        if s in text_vocab and text_vocab[s] != want[s]:
            raise FormatError(
                f"{source}: special token {s!r} has id {text_vocab[s]} but would get {want[s]} here -- "
                "special tokens must come right after the last ordinary token"
            )
    return model
