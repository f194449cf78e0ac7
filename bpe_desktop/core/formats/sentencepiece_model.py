"""Reading a SentencePiece ``.model`` file (Llama 2, Mistral...) as a :class:`~..tokenizers.spm.SpmTokenizer`.

Only BPE models are read: a Unigram (or word, char) model is refused with its type named, since its
segmentation is not a merge list.  The normalization the model records is applied as SentencePiece applies
it (:mod:`..text.spm_normalize`); a model whose normalization cannot be reproduced exactly -- a named rule
set without its compiled charsmap, or decoding rules (a denormalizer) -- is refused naming the rule set.
Nothing is guessed.  Parsing the protobuf is :mod:`.sentencepiece_proto`'s job; this module does not write
``.model`` files.
"""

from __future__ import annotations

import os

from ..errors import FormatError
from ..text.spm_normalize import Charsmap, SpmNormalizer
from ..tokenizers.spm import BYTE, USER_DEFINED, SpmPiece, SpmTokenizer
from .sentencepiece_proto import parse


def _varint(data: bytes, k: int) -> tuple[int, int]:
    """The varint at *data[k]* and the position after it ((-1, k) if cut short or too long)."""
    n, shift = 0, 0
    while k < len(data) and shift < 35:
        b = data[k]
        n |= (b & 0x7F) << shift
        shift += 7
        k += 1
        if not b & 0x80:
            return n, k
    return -1, k


def looks_like_model(head: bytes) -> bool:
    """Whether *head* (a file's first bytes) starts like a serialized SentencePiece model: a ``pieces``
    entry (field 1) holding a UTF-8 piece text (field 1) followed by its score (field 2), its type (field 3)
    or the next entry.

    >>> looks_like_model(bytes.fromhex("0a0b0a05") + b"<unk>" + bytes.fromhex("15000000001802"))
    True
    >>> looks_like_model(b"\\n\\n\\nhello world")
    False
    """
    if len(head) < 4 or head[0] != 0x0A:
        return False
    entry, k = _varint(head, 1)
    entry_end = k + entry
    if entry <= 0 or k >= len(head) or head[k] != 0x0A:
        return False
    size, k = _varint(head, k + 1)
    if size <= 0 or size >= entry or k + size >= len(head):
        return False
    try:
        head[k : k + size].decode("utf-8")
    except UnicodeDecodeError:
        return False
    return head[k + size] in (0x15, 0x18) or (k + size == entry_end and head[k + size] == 0x0A)


def load(path: str | os.PathLike[str]) -> SpmTokenizer:
    """Read a SentencePiece BPE model."""
    source = os.fspath(path)
    with open(source, "rb") as f:
        data = f.read()
    proto = parse(data, source)
    if proto.model_type != "bpe":
        kind = "Unigram" if proto.model_type == "unigram" else proto.model_type
        raise FormatError(f"{source}: a SentencePiece {kind} model, not BPE -- only BPE models (merges by "
                          "score) can be opened here; train one with --model_type=bpe")
    if not proto.pieces:
        raise FormatError(f"{source}: the SentencePiece model has no pieces -- the file is damaged")
    name = proto.normalizer_name or "identity"
    if proto.denormalizer_rules:
        raise FormatError(f"{source}: the model has decoding (denormalizer) rules, which are not supported "
                          "-- export the model without them")
    if not proto.precompiled_charsmap and name not in ("identity", ""):
        raise FormatError(f"{source}: normalization {name!r} is recorded without its compiled rules "
                          "(precompiled_charsmap), so it cannot be reproduced -- not supported")
    try:
        charsmap = Charsmap(proto.precompiled_charsmap)
    except FormatError as e:
        raise FormatError(f"{source}: normalization {name!r}: {e} -- the file is damaged") from None
    user = [p.encode("utf-8") for p, _, t in proto.pieces if t == USER_DEFINED]
    normalizer = SpmNormalizer(
        charsmap, add_dummy_prefix=proto.add_dummy_prefix, remove_extra_whitespaces=proto.remove_extra_whitespaces,
        escape_whitespaces=proto.escape_whitespaces, treat_whitespace_as_suffix=proto.treat_whitespace_as_suffix,
        user_defined=user,
    )
    pieces = []
    for k, (p, score, t) in enumerate(proto.pieces):
        if not p:
            raise FormatError(f"{source}: piece {k} is empty -- the file is damaged")
        if t == BYTE and not (len(p) == 6 and p.startswith("<0x") and p.endswith(">")):
            raise FormatError(f"{source}: byte piece {k} is {p!r:.20}, not <0xXX> -- the file is damaged")
        if t not in (1, 2, 3, 4, 5, 6):
            raise FormatError(f"{source}: piece {k} has the unknown type {t} -- not supported")
        pieces.append(SpmPiece(p, score, t))
    try:
        return SpmTokenizer(pieces, normalizer, byte_fallback=proto.byte_fallback, unk_surface=proto.unk_surface,
                            name=os.path.basename(source))
    except FormatError as e:
        raise FormatError(f"{source}: {e}") from None
