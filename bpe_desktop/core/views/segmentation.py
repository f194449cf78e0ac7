"""A line or a word cut into labelled tokens at timeline step k, without Qt: what a token view shows.

:func:`segment_line` / :func:`segment_word` cut a text line or a word-count table's word into
:class:`Segment` s (tokens and the uncovered gaps between them) with ``upto=k``;
:func:`segment_line_packed` / :func:`segment_word_packed` give the same as one flat tuple of ints, str and
None (:data:`PackedSegments`), which the garbage collector stops tracking: what long-lived caches of many
rows should hold (:func:`unpack_segments` turns it back into :class:`Segment` s).

It leaves out labels (:mod:`.labels`), derivations (:mod:`.derivation`), drawing, layout in pixels and
animation (``bpe_desktop.gui.stream``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..choices import Mode
from ..text.regex_budget import RegexBudget
from ..tokenizers.model import BPEModel
from ..tokenizers.tokenizer import UNKNOWN_ID, Tokenizer
from .labels import bytes_label, id_label, visible_text


@dataclass(frozen=True, slots=True)
class Segment:
    """A token (``id`` set) or an uncovered gap (``id`` None) of a line, with its byte span and label."""

    id: int | None
    start: int
    end: int
    label: str


#: a row's segments as one flat tuple ``(id, start, end, label) * n`` (id None for a gap).  It holds only
#: atomic values, so the garbage collector untracks it at its first collection: a cache of thousands of
#: rows adds nothing to what a full collection scans (``gc.is_tracked`` says False), unlike a list of
#: :class:`Segment` objects (each one tracked).
PackedSegments = tuple
#: fields per segment in a :data:`PackedSegments` tuple
PACK = 4


def unpack_segments(packed: PackedSegments) -> list[Segment]:
    """The :class:`Segment` s of a :data:`PackedSegments` tuple.

    >>> unpack_segments((7, 0, 3, "low", None, 3, 4, "·"))
    [Segment(id=7, start=0, end=3, label='low'), Segment(id=None, start=3, end=4, label='·')]
    """
    return [Segment(*packed[j : j + PACK]) for j in range(0, len(packed), PACK)]


def segment_line_packed(
    tokenizer: Tokenizer, line: str, upto: int, labels: dict[int, str] | None = None,
    budget: RegexBudget | None = None,
) -> PackedSegments:
    """:func:`segment_line` as a flat tuple ``(id, start, end, label, ...)`` (see :data:`PackedSegments`).

    >>> from bpe_desktop.core import TrainConfig, train
    >>> model, _ = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, TrainConfig(merges=7))
    >>> packed = segment_line_packed(Tokenizer(model, unknown="keep"), "lowest low", 7)
    >>> packed[3::4], packed[1:3]
    (('low', 'est</w>', '·', 'low', '</w>'), (0, 3))
    """
    if labels is None:
        labels = {}
    data = line.encode("utf-8", "surrogateescape")
    out: list[int | str | None] = []
    add = out.extend
    pos = 0
    model = tokenizer.model
    for span in tokenizer.encode_with_offsets(line, upto=upto, budget=budget):
        start, end, i = span.start, span.end, span.id
        if start > pos:
            add((None, pos, start, bytes_label(data[pos:start])))
        if i == UNKNOWN_ID:
            label = bytes_label(data[start:end])
        else:
            cached = labels.get(i)
            if cached is None:
                cached = labels[i] = id_label(model, i)
            label = cached
        add((i, start, end, label))
        if end > pos:
            pos = end
    if pos < len(data):
        add((None, pos, len(data), bytes_label(data[pos:])))
    return tuple(out)


def segment_line(
    tokenizer: Tokenizer, line: str, upto: int, labels: dict[int, str] | None = None,
    budget: RegexBudget | None = None,
) -> list[Segment]:
    """Cut *line* into tokens at step *upto*, plus the gaps the pre-tokenizer drops (visible text).

    *labels* is an optional id -> label cache shared between calls.

    >>> from bpe_desktop.core import TrainConfig, train
    >>> model, _ = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, TrainConfig(merges=7))
    >>> [s.label for s in segment_line(Tokenizer(model, unknown="keep"), "lowest low", 7)]
    ['low', 'est</w>', '·', 'low', '</w>']
    """
    return unpack_segments(segment_line_packed(tokenizer, line, upto, labels, budget))


def segment_word_packed(
    tokenizer: Tokenizer, word: str, upto: int, labels: dict[int, str] | None = None
) -> PackedSegments:
    """:func:`segment_word` as a flat tuple ``(id, start, end, label, ...)`` (see :data:`PackedSegments`).

    >>> from bpe_desktop.core import TrainConfig, train
    >>> model, _ = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, TrainConfig(merges=7))
    >>> segment_word_packed(Tokenizer(model), "newest", 3)[-4:]
    (13, 3, 7, 'est</w>')
    """
    if labels is None:
        labels = {}
    model = tokenizer.model
    out: list[int | str | None] = []
    add = out.extend
    pos = 0
    for i in tokenizer.encode_piece(word, upto):
        n = base_length(model, i)
        if i == UNKNOWN_ID:  # chars mode: base symbols are the word's characters (then the marker)
            label = visible_text(word[pos]) if pos < len(word) else "<unk>"
        else:
            cached = labels.get(i)
            if cached is None:
                cached = labels[i] = id_label(model, i)
            label = cached
        add((i, pos, pos + n, label))
        pos += n
    return tuple(out)


def segment_word(
    tokenizer: Tokenizer, word: str, upto: int, labels: dict[int, str] | None = None
) -> list[Segment]:
    """Cut one word of a word-count table (already a piece: no pre-tokenization) at step *upto*.

    Spans count base symbols here, not bytes.

    >>> from bpe_desktop.core import TrainConfig, train
    >>> model, _ = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, TrainConfig(merges=7))
    >>> " ".join(s.label for s in segment_word(Tokenizer(model), "newest", 3))
    'n e w est</w>'
    """
    return unpack_segments(segment_word_packed(tokenizer, word, upto, labels))


def base_length(model: BPEModel, token_id: int) -> int:
    """How many base symbols a token is made of (1 for base symbols, unknowns and specials)."""
    if token_id < model.n_base or token_id >= len(model.tokens):
        return 1
    if model.mode == Mode.BYTES:
        return len(model.tokens[token_id])
    n = 0
    stack = [token_id]
    while stack:
        t = stack.pop()
        d = model.derivation(t)
        if d is None:
            n += 1
        else:
            stack.extend(d)
    return n
