"""Build a model from a file's vocabulary (token -> id) and merge list, and map our ids to the file's.

Shared by the GPT-2 and HF readers.  Our ids are derived from the merges (base symbols, then merged tokens
in creation order, then specials); a file may number its tokens otherwise (HF's trainer puts the special
tokens first).  Encoding only depends on the merge order, so such a file is read as our model plus the
table ``to_file[our id] = file id`` (see :class:`bpe_desktop.core.tokenizers.renumber.RenumberedTokenizer`).  It
does not parse any file format itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..choices import Mode
from ..errors import FormatError
from ..tokenizers.model import BYTE_BASE, BPEModel, Token, joined, token_text


def model_from_vocab(
    mode: Mode,
    vocab: Mapping[Token, int],
    pairs: Iterable[tuple[Token, Token]],
    source: str,
    specials: Iterable[str] = (),
    **settings: object,
) -> tuple[BPEModel, list[int] | None]:
    """The model and ``to_file`` (``None`` when the file's ids are ours).

    Base = the vocabulary entries no merge makes (bytes mode: the 256 bytes in GPT-2's order; chars mode:
    in the file's id order); specials = *specials* plus, in bytes mode, entries that are not single bytes
    and no merge makes (GPT-2's ``<|endoftext|>``).

    >>> m, to_file = model_from_vocab("chars", {"a": 0, "b": 1, "ab": 2}, [("a", "b")], "x")
    >>> m.tokens, m.merges, to_file
    (['a', 'b', 'ab'], [(0, 1)], None)
    >>> m, to_file = model_from_vocab("chars", {"<s>": 0, "a": 1, "b": 2, "ab": 3}, [("a", "b")], "x", ["<s>"])
    >>> m.specials, to_file
    (('<s>',), [1, 2, 3, 0])
    """
    pairs = list(pairs)
    made = {joined(a, b) for a, b in pairs}
    special_set = set(specials)
    base = sorted((t for t in vocab if t not in made and t not in special_set), key=vocab.__getitem__)
    if mode == Mode.BYTES:
        extra = [t for t in base if not (isinstance(t, bytes) and len(t) == 1)]
        special_set.update(token_text(t) for t in extra)  # e.g. GPT-2's <|endoftext|>
        if len(base) - len(extra) != 256:
            raise FormatError(
                f"{source}: a byte-level vocabulary must hold all 256 single bytes, this one has "
                f"{len(base) - len(extra)}"
            )
        base = list(BYTE_BASE)
    model = BPEModel.from_token_pairs(mode, base, pairs, **settings)
    text_vocab = {token_text(t): i for t, i in vocab.items()}
    model.specials = tuple(sorted(special_set, key=lambda s: text_vocab.get(s, 1 << 62)))
    to_file: list[int] = []
    for t in model.tokens:
        i = vocab.get(t)
        if i is None:
            raise FormatError(f"{source}: the merges make the token {token_text(t)!r}, which the vocabulary "
                              "lacks -- the vocabulary and merges files do not belong together")
        to_file.append(i)
    next_id = max([*vocab.values(), -1]) + 1
    for s in model.specials:
        if s in text_vocab:
            to_file.append(text_vocab[s])
        else:
            to_file.append(next_id)
            next_id += 1
    if len(set(to_file)) != len(to_file):
        raise FormatError(f"{source}: two tokens share one id -- every token needs its own id")
    return model, (None if to_file == list(range(len(to_file))) else to_file)
