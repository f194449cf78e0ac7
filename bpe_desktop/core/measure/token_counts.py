"""Token frequencies of a text at any merge step, from its step-0 counts and what each merge replaced.

A merge ``(a, b) -> t`` that replaces ``m`` occurrences (left to right, no overlaps) takes ``m`` from the
count of ``a``, ``m`` from that of ``b`` and gives ``m`` to ``t`` -- nothing else changes.  So the whole
frequency table at step ``k`` follows from the table at step 0 and the per-merge occurrence counts the
trainer records (``MergeRecord.merged``) or a :class:`~.stats.SegmentationHistory` gives
(``compression().merged``): :class:`TokenCounts` moves a table to any step, forward or back, in O(1)
per merge crossed, keeping the :class:`~.quality.Sums` the metrics need up to date on the way.

This replays merge-list semantics (the trainer's and :class:`~.tokenizer.Tokenizer`'s); it does not
tokenize, and it does not know about tiktoken's rank rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from ..config import TrainConfig
from ..records import MergeRecord
from ..tokenizers.model import BPEModel
from ..tokenizers.tokenizer import UNKNOWN_ID
from ..training.trainer import word_symbols
from .quality import Sums
from .stats import Job, finish

#: the running float sums are recomputed exactly once they fell below this share of their largest value
#: since the last recount: subtracting from a large sum leaves rounding error of the large sum's size, so
#: this bounds the error to about 1e-12 of the value (a recount costs one pass over the tokens in use)
RESYNC_SHARE = 1e-4


class MergeEffect(NamedTuple):
    """What merge ``k`` (1-based: after it the timeline is at step ``k``) did to a text's token counts."""

    left: int
    right: int
    new: int  # the id the merge makes
    merged: int  # occurrences replaced in that text


def effects_from(model: BPEModel, merged: Sequence[int], start: int = 0) -> list[MergeEffect]:
    """The effects of merges ``start + 1, start + 2, ..`` given the occurrences each replaced (``merged[i]``
    for merge ``start + i + 1``; as many as both the model and *merged* hold).

    >>> effects_from(BPEModel("chars", ["a", "b"], merges=[(0, 1), (2, 2)]), [2], start=1)
    [MergeEffect(left=2, right=2, new=3, merged=2)]
    """
    ids = model.merge_token_ids
    n = max(0, min(len(model.merges) - start, len(merged)))
    return [MergeEffect(*model.merges[start + i], ids[start + i], merged[i]) for i in range(n)]


def effects_from_records(model: BPEModel, records: Sequence[MergeRecord]) -> list[MergeEffect]:
    """The effects on the training text, from the trainer's records (each knows its merge's rank)."""
    ids = model.merge_token_ids
    n = len(model.merges)
    return [MergeEffect(*model.merges[r.rank - 1], ids[r.rank - 1], r.merged) for r in records if r.rank <= n]


def initial_counts(word_counts: Mapping[str, int], model: BPEModel) -> dict[int, int]:
    """Token frequencies at step 0: every piece split into base symbols, weighted by its count.

    A character the chars-mode alphabet lacks counts under :data:`~.tokenizer.UNKNOWN_ID`.

    >>> m = BPEModel("chars", ["l", "o", "w", "</w>"], end_of_word="</w>")
    >>> initial_counts({"low": 2, "ow": 1}, m)
    {0: 2, 1: 3, 2: 3, 3: 3}
    """
    return finish(initial_counting(word_counts, model, 1 << 30))


def initial_counting(word_counts: Mapping[str, int], model: BPEModel, chunk: int = 256) -> Job[dict[int, int]]:
    """:func:`initial_counts` in small units: yields after every *chunk* pieces, returns the table."""
    cfg = TrainConfig(mode=model.mode, end_of_word=model.end_of_word or "", glue_marker=model.glue_marker)
    ids = model.token_ids
    n_base = model.n_base
    counts: dict[int, int] = {}
    for n, (w, c) in enumerate(word_counts.items(), 1):
        if n % chunk == 0:
            yield
        if c <= 0 or not w:
            continue
        for s in word_symbols(w, cfg):
            i = ids.get(s, UNKNOWN_ID)
            if i >= n_base:
                i = UNKNOWN_ID
            counts[i] = counts.get(i, 0) + c
    return dict(sorted(counts.items()))


class TokenCounts:
    """A text's token frequency table, movable to any step of the merges whose effects it was given.

    >>> m = BPEModel("chars", ["a", "b"], merges=[(0, 1), (2, 2)])
    >>> tc = TokenCounts({0: 4, 1: 4}, effects_from(m, [4, 2]), alpha=2.0)
    >>> tc.seek(1); tc.counts, tc.sums.n
    ({2: 4}, 4)
    >>> tc.seek(2); tc.frequencies(4), tc.sums.used
    ([0, 0, 0, 2], 1)
    >>> tc.seek(0); tc.counts == {0: 4, 1: 4}
    True
    """

    def __init__(self, initial: Mapping[int, int], effects: Iterable[MergeEffect] = (), alpha: float = 2.5) -> None:
        self.counts: dict[int, int] = {i: c for i, c in initial.items() if c}  # id -> count > 0 at :attr:`step`
        self.effects: list[MergeEffect] = list(effects)  # effects[r] belongs to merge r + 1
        self.step = 0
        self.alpha = alpha
        self.sums = Sums.of(self.counts, alpha)
        self._peak = self.sums

    @property
    def n_steps(self) -> int:
        """The last step reachable (merges whose effects are known)."""
        return len(self.effects)

    def extend(self, effects: Iterable[MergeEffect]) -> None:
        """Append the effects of further merges (while training runs)."""
        self.effects.extend(effects)

    def get(self, token_id: int) -> int:
        return self.counts.get(token_id, 0)

    def _add(self, token_id: int, delta: int) -> None:
        old = self.counts.get(token_id, 0)
        new = old + delta
        if new:
            self.counts[token_id] = new
        else:
            del self.counts[token_id]
        self.sums = self.sums.changed(token_id, old, new)

    def _apply(self, e: MergeEffect, sign: int) -> None:
        m = e.merged * sign
        if m:
            self._add(e.left, -m)
            self._add(e.right, -m)
            self._add(e.new, m)
            self.sums, self._peak = kept_exact(self.sums, self._peak, self.counts)

    def resync(self) -> None:
        """Recompute the sums exactly from the table (done by itself when rounding error could matter)."""
        self.sums = self._peak = Sums.of(self.counts, self.alpha)

    def advance(self) -> bool:
        """Move one step forward; False at the last known step."""
        if self.step >= len(self.effects):
            return False
        self._apply(self.effects[self.step], 1)
        self.step += 1
        return True

    def seek(self, k: int) -> None:
        """Move to step *k* (clamped to ``0..n_steps``), applying or undoing the merges in between."""
        k = max(0, min(int(k), len(self.effects)))
        while self.step < k:
            self._apply(self.effects[self.step], 1)
            self.step += 1
        while self.step > k:
            self.step -= 1
            self._apply(self.effects[self.step], -1)

    def frequencies(self, size: int) -> list[int]:
        """The counts of ids ``0..size-1`` at the current step, as a list."""
        out = [0] * size
        for i, c in self.counts.items():
            if 0 <= i < size and c:
                out[i] = c
        return out


def kept_exact(sums: Sums, peak: Sums, counts: Mapping[int, int]) -> tuple[Sums, Sums]:
    """The running *sums* of *counts* and their largest values since the last recount, after a change: recounted
    exactly (:meth:`Sums.of`) once a sum fell below :data:`RESYNC_SHARE` of its peak."""
    if sums.power > peak.power or sums.xlogx > peak.xlogx:
        return sums, Sums(sums.n, sums.used, max(sums.xlogx, peak.xlogx), max(sums.power, peak.power), sums.alpha)
    if sums.power < peak.power * RESYNC_SHARE or sums.xlogx < peak.xlogx * RESYNC_SHARE:
        exact = Sums.of(counts, sums.alpha)
        return exact, exact
    return sums, peak
