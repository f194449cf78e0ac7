"""Where tokenizers cut a text differently: compare their token boundaries as sets of byte offsets.

A tokenizer's boundary set is every offset where one of its tokens starts or ends, plus the start and
the end of the text.  The offsets in *every* set are the common boundaries; consecutive common
boundaries delimit regions, and a region *differs* when some tokenizer has a boundary strictly inside it
(then at least one other lacks it, or it would be common).  Each tokenizer's tokens nest inside the
regions, so a region's token counts ("``_controller``: 1 token vs 2") sum to the totals; a token that
covers no text (a chars-mode end-of-word marker) counts in the region of the byte before it, as
:mod:`.log_inspect` attributes it, so a chunk boundary there changes nothing.

:func:`differing_regions` works on one chunk of offsets (numpy arrays); :class:`DiffCollector` adds up
chunks into :class:`Differences`: every differing region (for highlighting) and the regions grouped by
their text, biggest token difference first (for listing).  This module does not tokenize or classify.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import reduce

import numpy as np


@dataclass(frozen=True)
class RegionChunk:
    """Differing regions of one chunk: byte ``starts``/``ends`` and ``counts[t, r]``, tokens of tokenizer
    ``t`` in region ``r``."""

    starts: np.ndarray
    ends: np.ndarray
    counts: np.ndarray


def boundary_set(starts: np.ndarray, ends: np.ndarray, n_bytes: int) -> np.ndarray:
    """Sorted distinct offsets where a token starts or ends, plus 0 and *n_bytes*."""
    return np.union1d(np.union1d(starts, ends), np.array([0, n_bytes], dtype=np.int64))


def differing_regions(offsets: Sequence[tuple[np.ndarray, np.ndarray]], n_bytes: int) -> RegionChunk:
    """The regions of a text of *n_bytes* bytes that the tokenizers (``(starts, ends)`` per tokenizer)
    cut differently.

    >>> a = (np.array([0, 3]), np.array([3, 6]))        # "abc|def"
    >>> b = (np.array([0, 1, 3]), np.array([1, 3, 6]))  # "a|bc|def"
    >>> r = differing_regions([a, b], 6)
    >>> r.starts.tolist(), r.ends.tolist(), r.counts.tolist()
    ([0], [3], [[1], [2]])
    """
    sets = [boundary_set(s, e, n_bytes) for s, e in offsets]
    common = reduce(np.intersect1d, sets)
    n_regions = len(common) - 1
    differ = np.zeros(max(n_regions, 0), dtype=bool)
    counts = np.zeros((len(offsets), max(n_regions, 0)), dtype=np.int64)
    if n_regions <= 0:
        return RegionChunk(common[:0], common[:0], counts)
    for t, (b, (starts, ends)) in enumerate(zip(sets, offsets, strict=True)):
        inner = np.setdiff1d(b, common, assume_unique=True)
        differ[np.searchsorted(common, inner, side="right") - 1] = True
        if len(starts):
            # a token that covers no text (an end-of-word marker) counts where the byte before it is
            at = np.where((ends <= starts) & (starts > 0), starts - 1, starts)
            region = np.searchsorted(common, at, side="right") - 1
            counts[t] = np.bincount(np.minimum(region, n_regions - 1), minlength=n_regions)
    idx = np.flatnonzero(differ)
    return RegionChunk(common[idx], common[idx + 1], counts[:, idx])


@dataclass(frozen=True)
class DiffGroup:
    """Every differing region with the same text: how often it occurs and its token count per tokenizer."""

    text: str
    occurrences: int
    tokens_each: tuple[int, ...]  # tokens per occurrence, per tokenizer (the first occurrence's)

    def describe(self, names: Sequence[str] | None = None) -> str:
        """``"`_controller`: 1 token vs 2 (x2053)"``."""
        parts = [f"{n} token{'s' if n != 1 else ''}" if i == 0 else str(n) for i, n in enumerate(self.tokens_each)]
        who = f" ({' vs '.join(names)})" if names else ""
        return f"`{self.text}`: {' vs '.join(parts)}{who} (x{self.occurrences})"


@dataclass
class Differences:
    """All differing regions of a text, in byte offsets of the whole text, and their groups by text."""

    names: tuple[str, ...]
    starts: np.ndarray  # byte offset of each differing region
    ends: np.ndarray
    counts: np.ndarray  # counts[t, r]: tokens of tokenizer t in region r
    groups: list[DiffGroup] = field(default_factory=list)  # biggest total token difference first

    @property
    def n_regions(self) -> int:
        return len(self.starts)

    def top(self, n: int = 20) -> list[DiffGroup]:
        return self.groups[:n]

    def to_dict(self, top: int = 20) -> dict[str, object]:
        return {
            "regions": self.n_regions,
            "bytes": int((self.ends - self.starts).sum()),
            "region_tokens": [int(c) for c in self.counts.sum(axis=1)] if self.counts.size else [0] * len(self.names),
            "spans": [{"text": g.text, "occurrences": g.occurrences, "tokens": list(g.tokens_each)}
                      for g in self.top(top)],
        }


@dataclass
class _Group:
    occurrences: int
    tokens_each: tuple[int, ...]
    difference: int  # sum over occurrences of (most tokens - fewest tokens)


class DiffCollector:
    """Adds up :class:`RegionChunk` s of consecutive chunks into :class:`Differences`."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = tuple(names)
        self._chunks: list[RegionChunk] = []
        self._groups: dict[bytes, _Group] = {}

    def add(self, chunk: RegionChunk, data: bytes, base: int) -> None:
        """Add the regions of the chunk whose bytes are *data*, starting at byte *base* of the whole text."""
        self._chunks.append(RegionChunk(chunk.starts + base, chunk.ends + base, chunk.counts))
        groups = self._groups
        cols = chunk.counts.T.tolist()
        for s, e, c in zip(chunk.starts.tolist(), chunk.ends.tolist(), cols, strict=True):
            key = data[s:e]
            g = groups.get(key)
            if g is None:
                groups[key] = _Group(1, tuple(c), max(c) - min(c))
            else:
                g.occurrences += 1
                g.difference += max(c) - min(c)

    def result(self) -> Differences:
        k = len(self.names)
        if self._chunks:
            starts = np.concatenate([c.starts for c in self._chunks])
            ends = np.concatenate([c.ends for c in self._chunks])
            counts = np.concatenate([c.counts for c in self._chunks], axis=1)
        else:
            starts = ends = np.zeros(0, dtype=np.int64)
            counts = np.zeros((k, 0), dtype=np.int64)
        ranked = sorted(self._groups.items(), key=lambda kv: (-kv[1].difference, -kv[1].occurrences, kv[0]))
        groups = [DiffGroup(key.decode("utf-8", "replace"), v.occurrences, v.tokens_each) for key, v in ranked]
        return Differences(self.names, starts, ends, counts, groups)
