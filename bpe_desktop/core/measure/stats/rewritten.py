"""A segmentation history whose steps are given, not replayed: an extension's corpus at each of its new merges.

:class:`SegmentationHistory` follows a merge list by replaying each merge (a pair replaced left to right).  An
extension of a rank table is encoded by tiktoken's rank rule, under which a new token beside a neighbour can make
an original one, so no replay of merges gives its segmentation; the extension trainer
(:class:`~...training.extend.ExtendTrainer`, ``history=True``) knows it, as the words it rewrote at each merge.
:class:`Rewrites` holds that (the corpus's distinct pieces as the original segments them, in the model's ids, and
per new merge the pieces rewritten); :class:`RewriteHistory` is a :class:`SegmentationHistory` built from it, so
the pair counts, Zipf data, compression and trade-off at any step of the extension are the same queries -- step 0
is the original (the model's first *start* merges), step *k* the original and the first *k* new merges.

It leaves out where the rewrites come from (the trainer) and the quality curves
(:class:`~..quality_curves.RewrittenCurves`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from ...tokenizers.model import BPEModel
from .history import SegmentationHistory, moved
from .slicing import Job

#: one step: the pieces a merge rewrote, as (piece index, its segmentation after the merge)
Step = Sequence[tuple[int, tuple[int, ...]]]


@dataclass(frozen=True)
class Rewrites:
    """A corpus's distinct pieces segmented at step 0, their counts, and what each later step rewrote."""

    words: Sequence[tuple[int, ...]]  # every distinct piece as ids at step 0
    counts: Sequence[int]  # its count in the corpus
    steps: Sequence[Step]  # steps[r]: the pieces merge r + 1 rewrote
    n_words: int  # pieces of the corpus, with multiplicity (the trade-off's "words")
    n_bytes: int  # their UTF-8 bytes, with multiplicity

    def __post_init__(self) -> None:
        if len(self.words) != len(self.counts):
            raise ValueError("one count per piece")


class RewriteHistory(SegmentationHistory):
    """The segmentation history of :class:`Rewrites`: steps ``0..len(steps)`` counted from *start* merges of
    *model* (whose ids the pieces are in); it never grows (:attr:`pending` is 0).

    >>> m = BPEModel("chars", ["a", "b", "c"], merges=[(0, 1), (3, 2)])
    >>> r = Rewrites([(3, 2), (0, 2)], [2, 1], [[(0, (4,))]], n_words=3, n_bytes=8)
    >>> h = RewriteHistory.of(r, m, start=1)
    >>> h.zipf(0).rows(), h.zipf(1).rows(), h.compression().symbols, h.vocab_sizes()
    ([(1, 'ab', 'c', 2), (2, 'a', 'c', 1)], [(1, 'a', 'c', 1)], [6, 4], [4, 5])
    """

    start = 0

    @classmethod
    def of(cls, rewrites: Rewrites, model: BPEModel, start: int) -> RewriteHistory:
        h = cls.__new__(cls)
        for _ in h._fill(rewrites, model, start, 1 << 30):
            pass
        return h

    @classmethod
    def from_rewrites(cls, rewrites: Rewrites, model: BPEModel, start: int, chunk: int = 256) -> Job[RewriteHistory]:
        """:meth:`of` in small units: yields after every *chunk* pieces (drive it with :class:`~.slicing.Sliced`)."""
        h = cls.__new__(cls)
        yield from h._fill(rewrites, model, start, chunk)
        return h

    def _fill(self, rw: Rewrites, model: BPEModel, start: int, chunk: int) -> Job[None]:
        self.model, self.start = model, start
        self.tokens = model.tokens  # (shared: a history of rewrites never adds a token)
        self._ids, self._unknown = {}, {}
        self.wcounts = list(rw.counts)
        self.n_words, self.n_bytes = rw.n_words, rw.n_bytes
        self._ranks, self._segs = [], []
        self._where = {}  # (only replaying merges needs it)
        live: dict[tuple[int, int], int] = {}
        self._live = live
        self._changed, self._merged, self._new_ids, self._cache = [], [], [], {}
        symbols = 0
        for n, (w, c) in enumerate(zip(rw.words, rw.counts, strict=True), 1):
            if n % chunk == 0:
                yield
            self._ranks.append([0])
            self._segs.append([tuple(w)])
            symbols += len(w) * c
            for p in itertools.pairwise(w):
                live[p] = live.get(p, 0) + c
        self.initial_symbols = symbols
        made = model.merge_token_ids
        for r, step in enumerate(rw.steps, 1):
            changed: list[int] = []
            merged = 0
            for n, (wi, seg) in enumerate(step, 1):
                if n % chunk == 0:
                    yield
                old, c = self._segs[wi][-1], self.wcounts[wi]
                merged += (len(old) - len(seg)) * c
                moved(live, old, seg, c)
                self._ranks[wi].append(r)
                self._segs[wi].append(seg)
                changed.append(wi)
            self._changed.append(changed)
            self._merged.append(merged)
            self._new_ids.append(made[start + r - 1])
            yield

    @property
    def pending(self) -> int:
        return 0

    def extend(self, model: BPEModel | None = None, limit: int | None = None) -> int:
        return 0

    def extending(self, chunk: int = 48) -> Job[None]:
        yield from ()

    def next_pair(self, k: int) -> tuple[int, int] | None:
        merges = self.model.merges
        i = self.start + k
        return merges[i] if 0 <= k < self.n_merges and i < len(merges) else None

    def vocab_sizes(self, upto: int | None = None) -> list[int]:
        """The model's vocabulary size (specials included) at steps ``0..upto`` counted from *start*."""
        n = self.n_merges if upto is None else self._clamp(upto)
        return [self.model.vocab_size_at(self.start + k) for k in range(n + 1)]
