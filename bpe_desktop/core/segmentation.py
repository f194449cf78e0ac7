"""What a token view shows, without Qt: a line or a word cut into labelled tokens at timeline step k.

* :func:`visible_text` makes whitespace visible without changing the width of the text (one glyph per
  character: ``·`` space, ``→`` tab, ``↵`` newline, ``␍`` carriage return, other control characters as
  ``␀``-style symbols);
* :func:`token_label` renders a token: chars-mode tokens as their text, bytes-mode tokens as UTF-8 when
  they hold whole characters and as hex (``⟨e2 80⟩``) for the bytes that do not;
* :func:`segment_line` / :func:`segment_word` cut a text line or a word-count table's word into
  :class:`Segment` s (tokens and the uncovered gaps between them) with ``upto=k``;
  :func:`segment_line_packed` / :func:`segment_word_packed` give the same as one flat tuple of ints, str
  and None (:data:`PackedSegments`), which the garbage collector stops tracking: what long-lived caches
  of many rows should hold (:func:`unpack_segments` turns it back into :class:`Segment` s);
* :func:`derivation_tree` unfolds which merges built a token, down to the base symbols;
* :func:`token_hue` gives a stable colour (a hue in [0, 1)) per token id;
* :func:`read_display_text` reads the head of large corpus files for display.

It leaves out drawing, layout in pixels and animation (``bpe_desktop.gui.stream.view`` and its canvas).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from .model import BPEModel, Token
from .tokenizer import UNKNOWN_ID, Tokenizer

#: the display limit for corpora given as files (the view reads only this much of them)
DISPLAY_LIMIT_BYTES = 4 << 20

_VISIBLE = {" ": "·", "\t": "→", "\n": "↵", "\r": "␍", "\x00": "␀", "\x7f": "␡", "\u00a0": "⍽"}
_VISIBLE_TABLE = str.maketrans(
    {**{chr(c): chr(0x2400 + c) for c in range(32)}, **_VISIBLE}
)


def visible_text(text: str) -> str:
    """Replace whitespace and control characters by one visible glyph each (same length).

    >>> visible_text("a b\\tc\\n")
    'a·b→c↵'
    """
    return text.translate(_VISIBLE_TABLE)


def bytes_label(data: bytes) -> str:
    """Show bytes as text where they are whole UTF-8 characters, as hex where they are not.

    >>> bytes_label(" é".encode())
    '·é'
    >>> bytes_label("é".encode()[:1])
    '⟨c3⟩'
    >>> bytes_label(b"a\\xe2\\x80")
    'a⟨e2 80⟩'
    """
    out: list[str] = []
    pos = 0
    n = len(data)
    while pos < n:
        try:
            out.append(visible_text(data[pos:].decode("utf-8")))
            break
        except UnicodeDecodeError as e:
            if e.start:
                out.append(visible_text(data[pos : pos + e.start].decode("utf-8")))
            bad_end = pos + max(e.end, e.start + 1)
            bad = data[pos + e.start : bad_end]
            # swallow following stray bytes into the same hex group
            while bad_end < n:
                try:
                    data[bad_end:].decode("utf-8")
                    break
                except UnicodeDecodeError as e2:
                    if e2.start != 0:
                        break
                    bad += data[bad_end : bad_end + max(e2.end, 1)]
                    bad_end += max(e2.end, 1)
            out.append("⟨" + " ".join(f"{b:02x}" for b in bad) + "⟩")
            pos = bad_end
    return "".join(out)


def token_label(token: Token) -> str:
    """The label of a token: visible text (chars mode) or :func:`bytes_label` (bytes mode).

    >>> token_label("est</w>"), token_label(b" the"), token_label(b"\\xe2\\x80")
    ('est</w>', '·the', '⟨e2 80⟩')
    """
    if isinstance(token, bytes):
        return bytes_label(token)
    return visible_text(token)


def id_label(model: BPEModel, token_id: int) -> str:
    """Label of any id of *model* (specials as written; ``<unk>`` for :data:`UNKNOWN_ID`)."""
    if token_id == UNKNOWN_ID:
        return "<unk>"
    tokens = model.tokens
    if 0 <= token_id < len(tokens):
        return token_label(tokens[token_id])
    return model.token_str(token_id)


_GOLDEN = 0.6180339887498949


def token_hue(token_id: int) -> float:
    """A stable hue in [0, 1) per token id; neighbouring ids get far-apart hues.

    >>> token_hue(0), round(token_hue(1), 3), token_hue(7) == token_hue(7)
    (0.0, 0.618, True)
    """
    return (token_id * _GOLDEN) % 1.0


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
    tokenizer: Tokenizer, line: str, upto: int, labels: dict[int, str] | None = None
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
    for span in tokenizer.encode_with_offsets(line, upto=upto):
        start, end, i = span.start, span.end, span.id
        if start > pos:
            add((None, pos, start, bytes_label(data[pos:start])))
        if i == UNKNOWN_ID:
            label = bytes_label(data[start:end])
        else:
            label = labels.get(i)  # type: ignore[assignment]
            if label is None:
                label = labels[i] = id_label(model, i)
        add((i, start, end, label))
        if end > pos:
            pos = end
    if pos < len(data):
        add((None, pos, len(data), bytes_label(data[pos:])))
    return tuple(out)


def segment_line(
    tokenizer: Tokenizer, line: str, upto: int, labels: dict[int, str] | None = None
) -> list[Segment]:
    """Cut *line* into tokens at step *upto*, plus the gaps the pre-tokenizer drops (visible text).

    *labels* is an optional id -> label cache shared between calls.

    >>> from bpe_desktop.core import TrainConfig, train
    >>> model, _ = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, TrainConfig(merges=7))
    >>> [s.label for s in segment_line(Tokenizer(model, unknown="keep"), "lowest low", 7)]
    ['low', 'est</w>', '·', 'low', '</w>']
    """
    return unpack_segments(segment_line_packed(tokenizer, line, upto, labels))


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
            label = labels.get(i)  # type: ignore[assignment]
            if label is None:
                label = labels[i] = id_label(model, i)
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
    if model.mode == "bytes":
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


@dataclass
class DerivationNode:
    """A token in a derivation tree: made by merge ``rank`` (1-based) from ``children``, or a base symbol."""

    id: int
    label: str
    rank: int | None  # 1-based merge rank, None for base symbols
    children: list[DerivationNode] = field(default_factory=list)

    def leaves(self) -> list[str]:
        """Labels of the base symbols, left to right."""
        out: list[str] = []
        stack = [self]
        while stack:
            n = stack.pop()
            if n.children:
                stack.extend(reversed(n.children))
            else:
                out.append(n.label)
        return out

    def ranks(self) -> list[int]:
        """The merge ranks used, in the order the merges happened."""
        out: list[int] = []
        stack = [self]
        while stack:
            n = stack.pop()
            if n.rank is not None:
                out.append(n.rank)
            stack.extend(n.children)
        return sorted(out)


def derivation_tree(model: BPEModel, token_id: int, max_nodes: int = 4096) -> DerivationNode:
    """Unfold which merges built *token_id*, down to base symbols (iterative; at most *max_nodes* nodes).

    >>> from bpe_desktop.core import TrainConfig, train
    >>> model, _ = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, TrainConfig(merges=7))
    >>> tree = derivation_tree(model, model.token_ids["est</w>"])
    >>> tree.rank, [c.label for c in tree.children], tree.leaves(), tree.ranks()
    (3, ['est', '</w>'], ['e', 's', 't', '</w>'], [1, 2, 3])
    """

    def node(i: int) -> DerivationNode:
        r = model.merge_rank_of(i)
        return DerivationNode(i, id_label(model, i), None if r is None else r + 1)

    root = node(token_id)
    stack = [root]
    count = 1
    while stack and count < max_nodes:
        n = stack.pop()
        d = model.derivation(n.id)
        if d is None:
            continue
        n.children = [node(d[0]), node(d[1])]
        count += 2
        stack.extend(n.children)
    return root


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
    unvisible = query.translate({ord(v): k for k, v in _VISIBLE.items()})
    if model.mode == "bytes":
        candidates = [query.encode("utf-8", "surrogateescape"), unvisible.encode("utf-8", "surrogateescape")]
        try:
            from .byte_level import text_to_bytes

            candidates.append(text_to_bytes(query))
        except KeyError:
            pass
    else:
        candidates.append(unvisible)
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


def split_lines(text: str) -> list[str]:
    """Lines that keep their ``\\n`` (the unit the trainer counted and the view encodes).

    >>> split_lines("a\\nb\\n"), split_lines("a\\nb")
    (['a\\n', 'b\\n'], ['a\\n', 'b'])
    """
    lines = text.splitlines(keepends=True)
    # str.splitlines also breaks on \r, \v, \x1c...; keep the trainer's unit: only \n ends a line
    if any(not ln.endswith("\n") for ln in lines[:-1]):
        parts = text.split("\n")
        lines = [p + "\n" for p in parts[:-1]]
        if parts[-1]:
            lines.append(parts[-1])
    return lines


def read_display_text(
    paths: Sequence[str], mode: str, limit: int = DISPLAY_LIMIT_BYTES
) -> tuple[str, bool]:
    """Read at most *limit* bytes from the head of *paths* (cut at a line end); returns (text, truncated).

    Bytes mode keeps undecodable bytes (``surrogateescape``); chars mode shows them as U+FFFD.
    """
    chunks: list[bytes] = []
    left = limit
    truncated = False
    for p in paths:
        if left <= 0:
            truncated = True
            break
        try:
            size = os.path.getsize(p)
            with open(p, "rb") as f:
                data = f.read(left)
        except OSError:
            continue
        if size > len(data):
            truncated = True
            cut = data.rfind(b"\n") + 1
            if cut > 0:
                data = data[:cut]
        chunks.append(data)
        left -= len(data)
    raw = b"".join(chunks)
    errors = "surrogateescape" if mode == "bytes" else "replace"
    return raw.decode("utf-8", errors), truncated
