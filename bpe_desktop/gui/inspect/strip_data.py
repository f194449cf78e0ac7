"""What the inspector's token strips draw, without Qt: one tokenizer's tokens over the head of a log.

:class:`StripData` holds a tokenizer's token ids and byte offsets (as the worker recorded them) and a
label per id; :meth:`StripData.segments` cuts out the tokens of one line as
:class:`~bpe_desktop.core.views.segmentation.Segment` s (offsets relative to the line, gaps no token covers as
``id None``; at most *limit* tokens, then a note of how many more), which
:class:`~bpe_desktop.gui.compare.strip.TokenStrip` draws.  A token belongs to the line
of its first byte.  :func:`line_starts` indexes the lines of a head; :func:`occurrences` finds where a
differing span of :class:`~bpe_desktop.core.logs.boundaries.Differences` occurs.  Nothing here tokenizes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from ...core.logs.boundaries import Differences
from ...core.tokenizers.tokenizer import UNKNOWN_ID
from ...core.views.labels import bytes_label
from ...core.views.segmentation import Segment


def position(sorted_array: np.ndarray, value: int, side: Literal["left", "right"] = "left") -> int:
    """``np.searchsorted`` for one Python int, cast to the array's dtype first: numpy would otherwise convert
    a whole int32 array to int64 on every call (for a big log's offsets,
    which made building a window of strips stall the GUI thread).

    >>> position(np.array([0, 3, 7], dtype=np.int32), 4)
    2
    """
    return int(sorted_array.searchsorted(sorted_array.dtype.type(value), side=side))


@dataclass(frozen=True)
class StripData:
    """Tokens of one tokenizer over the first bytes of the text: ``ids[i]`` covers ``starts[i]:ends[i]``."""

    name: str
    ids: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    labels: dict[int, str]
    n_base: int = 256

    def cut(self, n_bytes: int) -> StripData:
        """Only the tokens that start before *n_bytes*."""
        k = position(self.starts, n_bytes)
        return StripData(self.name, self.ids[:k], self.starts[:k], self.ends[:k], self.labels, self.n_base)

    def segments(self, head: bytes, start: int, end: int, limit: int | None = None) -> list[Segment]:
        """The tokens that start in ``head[start:end]`` and the gaps between them, offsets from *start*.

        >>> s = StripData("t", np.array([7, 8]), np.array([0, 3]), np.array([3, 4]), {7: "abc", 8: "↵"})
        >>> [(g.id, g.start, g.end, g.label) for g in s.segments(b"abc\\n", 0, 4)]
        [(7, 0, 3, 'abc'), (8, 3, 4, '↵')]
        """
        a, b = position(self.starts, start), position(self.starts, end)
        more = 0
        if limit is not None and b - a > limit:  # a huge line: its first tokens, then how many are left out
            more, b = b - a - limit, a + limit
            end = int(self.starts[b])
        out: list[Segment] = []
        pos = start
        for i, s, e in zip(self.ids[a:b].tolist(), self.starts[a:b].tolist(), self.ends[a:b].tolist(), strict=True):
            if s > pos:
                out.append(Segment(None, pos - start, s - start, bytes_label(head[pos:s])))
            label = self.labels.get(i) if i != UNKNOWN_ID else None
            if label is None:
                label = bytes_label(head[s:e])
            out.append(Segment(i, s - start, e - start, label))
            pos = max(pos, e)
        if pos < end and b == len(self.starts):  # trailing gap at the end of what the tokens cover
            out.append(Segment(None, pos - start, end - start, bytes_label(head[pos:end])))
        if more:
            out.append(Segment(None, end - start, end - start, f"… {more:,} more tokens on this line"))
        return out


def line_starts(head: bytes) -> np.ndarray:
    """Byte offset where each line of *head* starts, and ``len(head)`` at the end (a line owns its ``\\n``).

    >>> line_starts(b"a\\nbc\\n").tolist(), line_starts(b"a\\nb").tolist()
    ([0, 2, 5], [0, 2, 3])
    """
    nl = np.flatnonzero(np.frombuffer(head, dtype=np.uint8) == 10) + 1
    starts = np.concatenate([[0], nl]).astype(np.int64)
    if len(starts) > 1 and starts[-1] == len(head):
        return starts
    return np.concatenate([starts, [len(head)]]).astype(np.int64)


def occurrences(diffs: Differences, text: str, head: bytes) -> np.ndarray:
    """Indices of the differing regions whose bytes are *text* (a group's), among those inside *head*.

    >>> from bpe_desktop.core.logs.boundaries import Differences
    >>> d = Differences(("a", "b"), np.array([0, 4]), np.array([3, 7]), np.zeros((2, 2), dtype=int))
    >>> occurrences(d, "abc", b"abc abc").tolist()
    [0, 1]
    """
    key = np.frombuffer(text.encode("utf-8", "surrogateescape"), dtype=np.uint8)
    inside = np.flatnonzero((diffs.ends <= len(head)) & (diffs.ends - diffs.starts == len(key)))
    if not len(inside) or not len(key):
        return inside.astype(np.int64)
    data = np.frombuffer(head, dtype=np.uint8)
    out = []
    for part in np.array_split(inside, max(1, len(inside) * len(key) // 4_000_000 + 1)):  # bounded memory
        window = data[diffs.starts[part][:, None] + np.arange(len(key))]
        out.append(part[(window == key).all(axis=1)])
    return np.concatenate(out).astype(np.int64)
