"""The segmentation history: every distinct word's segmentation after each merge of a growing merge list.

For every word it keeps the segmentation after each merge that changed it (a word of *n* symbols changes at
most *n - 1* times), plus an index from each pair to the words whose latest segmentation contains it.  New
merges are applied as the trainer applies them (only the indexed words are rewritten, left to right,
without overlaps), so it follows a merge list cheaply while training runs.  For any step ``k`` it gives
:meth:`~SegmentationHistory.pair_counts` (exactly what counting from scratch gives: :func:`recount_pairs`),
:meth:`~SegmentationHistory.zipf`, :meth:`~SegmentationHistory.compression` and
:meth:`~SegmentationHistory.tradeoff`; the counts of its latest step stay up to date as merges apply.  Its
expensive work also comes as jobs for :class:`~.slicing.Sliced` (``building``, ``extending``,
``zipf_steps``, ``releasing``); between units every step already applied stays exact.

It leaves out training, drawing, files, and the result types (:mod:`.results`).
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Mapping, Sequence

from ...counting.parted import PartedCounts
from ...counting.pieces import WordCounts
from ...tokenizers.model import BPEModel, Token, joined, token_text
from .results import (
    CompressionCurve,
    Pair,
    TradeOff,
    ZipfData,
    ZipfView,
    tradeoff_from,
    view_from_counts,
    zipf_from_counts,
)
from .slicing import Job, emptying, finish


class SegmentationHistory:
    """Every distinct word's segmentation after each merge of a (growing) merge list.

    >>> from bpe_desktop.core.config import TrainConfig
    >>> from bpe_desktop.core.training.trainer import train
    >>> model, recs = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, TrainConfig(merges=3))
    >>> h = SegmentationHistory({"low": 5, "lower": 2, "newest": 6, "widest": 3}, model)
    >>> z = h.zipf(0)
    >>> z.rows()[:3]
    [(1, 'e', 's', 9), (2, 's', 't', 9), (3, 't', '</w>', 9)]
    >>> h.zipf(3).rows()[:2]
    [(1, 'l', 'o', 7), (2, 'o', 'w', 7)]
    >>> h.compression().symbols
    [95, 86, 77, 68]
    """

    _CACHE = 6  # pair-count tables kept (steps recently asked for)

    def __init__(self, word_counts: WordCounts | Mapping[str, int], model: BPEModel) -> None:
        finish(self._build(word_counts, model, 1 << 30))
        self.extend()

    @classmethod
    def building(cls, word_counts: WordCounts | Mapping[str, int], model: BPEModel,
                 chunk: int = 256) -> Job[SegmentationHistory]:
        """Build a history in small units of work: a generator that yields after every *chunk* words and
        returns the history (with no merge applied; call :meth:`extending` next).  Drive it with
        :class:`Sliced` so an event loop can run between the units.

        >>> from bpe_desktop.core.measure.stats.slicing import Sliced
        >>> job = Sliced(SegmentationHistory.building({"low": 5, "lower": 2}, BPEModel("chars", list("elorw</>")), 1))
        >>> job.run(1.0), job.result.n_words
        (True, 7)
        """
        h = cls.__new__(cls)
        yield from h._build(word_counts, model, chunk)
        return h

    def _build(self, word_counts: WordCounts | Mapping[str, int], model: BPEModel, chunk: int) -> Job[None]:
        counts = word_counts.counts if isinstance(word_counts, WordCounts) else word_counts
        if not isinstance(counts, dict | PartedCounts):  # (read across yields: a copy, unless read-only)
            counts = dict(counts)
        self.model = model
        self.tokens: list[Token] = list(model.base)  # id -> token (grows with the merges)
        ids: dict[Token, int] = {t: i for i, t in enumerate(self.tokens)}
        self._ids = ids
        self._unknown: dict[int, str] = {}  # negative ids for chars the model's alphabet lacks
        self.wcounts: list[int] = []
        self.n_bytes = 0  # bytes of all pieces (what is tokenized), counted with multiplicity
        self.n_words = 0
        self.initial_symbols = 0
        self._ranks: list[list[int]] = []  # per word: steps at which its segmentation changed (first 0)
        self._segs: list[list[tuple[int, ...]]] = []  # per word: the segmentation from each of those steps
        self._where: dict[Pair, set[int]] = {}  # pair -> words whose latest segmentation has it
        self._live: dict[Pair, int] = {}  # pair counts after every merge applied so far (step n_merges)
        self._changed: list[list[int]] = []  # _changed[r-1]: words rewritten by merge r
        self._merged: list[int] = []  # _merged[r-1]: occurrences replaced by merge r
        self._new_ids: list[int] = []  # _new_ids[r-1]: id made by merge r
        self._cache: dict[int, dict[Pair, int]] = {}
        where, live = self._where, self._live
        for n, (w, c) in enumerate(counts.items(), 1):
            if n % chunk == 0:
                yield
            if c <= 0 or not w:
                continue
            seg = []
            for s in model.symbols_of(w):
                i = ids.get(s)
                if i is None:
                    i = ids[s] = -1 - len(self._unknown)
                    self._unknown[i] = token_text(s)
                seg.append(i)
            wi = len(self.wcounts)
            self.wcounts.append(c)
            self.n_words += c
            self.n_bytes += len(w.encode("utf-8", "surrogateescape")) * c
            self.initial_symbols += len(seg) * c
            self._ranks.append([0])
            self._segs.append([tuple(seg)])
            for p in itertools.pairwise(seg):
                live[p] = live.get(p, 0) + c
                ws = where.get(p)
                if ws is None:
                    where[p] = {wi}
                else:
                    ws.add(wi)

    # -- following the merge list -------------------------------------------------------------------
    @property
    def n_merges(self) -> int:
        return len(self._changed)

    def extend(self, model: BPEModel | None = None, limit: int | None = None) -> int:
        """Apply the merges of *model* (default: the one given at construction) not applied yet.

        At most *limit* of them if given.  Returns how many were applied.  The merge list may only grow;
        build a new history otherwise.  (:meth:`extending` does the same in units small enough for an
        event loop: a merge that rewrites thousands of words is cut into pieces.)
        """
        if model is not None:
            self.model = model
        merges = self.model.merges
        start = self.n_merges
        end = len(merges) if limit is None else min(len(merges), start + max(0, limit))
        for r in range(start, end):
            finish(self._apply(merges[r], r + 1, 1 << 30))
        return end - start

    def extending(self, chunk: int = 48) -> Job[None]:
        """Apply pending merges of ``self.model`` (re-read after every unit, so it may grow meanwhile),
        yielding after every *chunk* words rewritten; ends when none is pending.

        Between units every query (:meth:`pair_counts`, :meth:`zipf`, ...) stays exact for the steps
        ``0..n_merges`` already applied.  Do not run two of these (or :meth:`extend`) at once.
        """
        while self.pending:
            r = self.n_merges
            yield from self._apply(self.model.merges[r], r + 1, chunk)
            yield

    def releasing(self, chunk: int = 400) -> Job[None]:
        """Empty the history in small units (dropping a history of a large corpus at once takes ~20 ms of
        deallocation); it is unusable afterwards.

        >>> h = SegmentationHistory({"low": 5, "lower": 2}, BPEModel("chars", list("elorw</>")))
        >>> finish(h.releasing(1)), h.wcounts
        (None, [])
        """
        for table in (self._segs, self._ranks, self._changed):
            while table:
                del table[-chunk:]
                yield
        yield from emptying(self._where, 8 * chunk)
        for counts in self._cache.values():
            yield from emptying(counts, 8 * chunk)
        yield from emptying(self._live, 8 * chunk)
        self._cache.clear()
        self.wcounts.clear()
        self._merged.clear()
        self._new_ids.clear()

    @property
    def pending(self) -> int:
        """Merges of the model not applied yet."""
        return len(self.model.merges) - self.n_merges

    def _apply(self, pair: Pair, rank: int, chunk: int) -> Job[None]:
        a, b = pair
        ta, tb = self._token(a), self._token(b)
        new_tok = joined(ta, tb)
        c = self._ids.get(new_tok)
        if c is None:
            c = self._ids[new_tok] = len(self.tokens)
            self.tokens.append(new_tok)
        where = self._where
        changed: list[int] = []
        delta: dict[Pair, int] = {}  # applied to _live at the end, so it is exact between the units
        merged = 0
        todo = sorted(where.pop(pair, ()))
        for n, wi in enumerate(todo, 1):
            if n % chunk == 0:
                yield
            seg = self._segs[wi][-1]
            out: list[int] = []
            i, n_sym, hits = 0, len(seg), 0
            while i < n_sym:
                if i + 1 < n_sym and seg[i] == a and seg[i + 1] == b:
                    out.append(c)
                    hits += 1
                    i += 2
                else:
                    out.append(seg[i])
                    i += 1
            if not hits:
                continue
            wc = self.wcounts[wi]
            old_list = list(itertools.pairwise(seg))
            new_list = list(itertools.pairwise(out))
            for p in old_list:
                delta[p] = delta.get(p, 0) - wc
            for p in new_list:
                delta[p] = delta.get(p, 0) + wc
            old_pairs = set(old_list)
            old_pairs.discard(pair)
            new_pairs = set(new_list)
            for p in old_pairs - new_pairs:
                s = where.get(p)
                if s is not None:
                    s.discard(wi)
                    if not s:
                        del where[p]
            for p in new_pairs - old_pairs:
                s = where.get(p)
                if s is None:
                    where[p] = {wi}
                else:
                    s.add(wi)
            self._ranks[wi].append(rank)
            self._segs[wi].append(tuple(out))
            changed.append(wi)
            merged += hits * wc
        live = self._live
        for p, d in delta.items():
            if d:
                v = live.get(p, 0) + d
                if v:
                    live[p] = v
                else:
                    del live[p]
        self._changed.append(changed)
        self._merged.append(merged)
        self._new_ids.append(c)

    def _token(self, i: int) -> Token:
        if i < 0:
            return self._unknown[i]
        return self.tokens[i]

    def token_text(self, i: int) -> str:
        """Display text of an id (bytes through GPT-2's mapping; a char the alphabet lacks as itself)."""
        if i < 0:
            return self._unknown[i]
        return token_text(self.tokens[i])

    def _clamp(self, k: int) -> int:
        return max(0, min(int(k), self.n_merges))

    # -- per-step views -----------------------------------------------------------------------------
    def segmentation(self, k: int) -> list[tuple[tuple[int, ...], int]]:
        """Every distinct word as ids after the first *k* merges, with its count (first-seen order)."""
        k = self._clamp(k)
        return [
            (segs[bisect.bisect_right(ranks, k) - 1], c)
            for ranks, segs, c in zip(self._ranks, self._segs, self.wcounts, strict=True)
        ]

    def pair_counts(self, k: int) -> dict[Pair, int]:
        """Weighted count of every adjacent pair after the first *k* merges (a fresh dict; counts > 0)."""
        return dict(finish(self._counts_at(self._clamp(k), 1 << 30)))

    def _counts_at(self, k: int, chunk: int) -> Job[dict[Pair, int]]:
        """Generator returning the (shared, do not mutate) pair-count table at step *k*, cached."""
        cached = self._cache.get(k)
        if cached is None:
            if k == self.n_merges:
                cached = dict(self._live)
            else:
                cached = yield from self._from_nearby_steps(k, chunk)
                if cached is None:
                    cached = yield from self._count_steps(k, chunk)
            if len(self._cache) >= self._CACHE:
                self._cache.pop(next(iter(self._cache)))
            self._cache[k] = cached
        return cached

    def _count(self, k: int) -> dict[Pair, int]:
        return finish(self._count_steps(k, 1 << 30))

    def _count_steps(self, k: int, chunk: int) -> Job[dict[Pair, int]]:
        counts: dict[Pair, int] = {}
        get = counts.get
        right = bisect.bisect_right
        for n, (ranks, segs, c) in enumerate(zip(self._ranks, self._segs, self.wcounts, strict=True), 1):
            if n % chunk == 0:
                yield
            seg = segs[-1] if ranks[-1] <= k else segs[right(ranks, k) - 1]
            for p in itertools.pairwise(seg):
                counts[p] = get(p, 0) + c
        return counts

    def _from_nearby(self, k: int) -> dict[Pair, int] | None:
        return finish(self._from_nearby_steps(k, 1 << 30))

    def _from_nearby_steps(self, k: int, chunk: int) -> Job[dict[Pair, int] | None]:
        """Update the table of the nearest known step (cached, or the live one) by the words the merges
        between them changed; ``None`` if that would touch more than a third of the words."""
        bases = dict(self._cache)
        bases.setdefault(self.n_merges, self._live)
        k0 = min(bases, key=lambda s: abs(s - k))
        lo, hi = min(k0, k), max(k0, k)
        work = 0
        for r in range(lo, hi):
            work += len(self._changed[r])
            if work * 3 > len(self.wcounts):
                return None
        counts = dict(bases[k0])
        words = {wi for r in range(lo, hi) for wi in self._changed[r]}
        right = bisect.bisect_right
        for n, wi in enumerate(words, 1):
            if n % chunk == 0:
                yield
            ranks, segs, c = self._ranks[wi], self._segs[wi], self.wcounts[wi]
            moved(counts, segs[right(ranks, k0) - 1], segs[right(ranks, k) - 1], c)
        return counts

    def sort_key(self, pair: Pair, count: int) -> tuple[int, Token, Token]:
        """Zipf order: highest count first, then the smallest (left, right) in token order."""
        return (-count, self._token(pair[0]), self._token(pair[1]))

    def zipf(self, k: int) -> ZipfData:
        """The pairs at step *k* by rank (see :class:`ZipfData`)."""
        return finish(self.zipf_steps(k, 1 << 30))

    def zipf_steps(self, k: int, chunk: int = 512) -> Job[ZipfData]:
        """:meth:`zipf` in small units: a generator yielding after about *chunk* words or pairs of work and
        returning the :class:`ZipfData` (drive it with :class:`Sliced`).  It reads only steps already
        applied, so :meth:`extending` may run between its units; its result is the same as :meth:`zipf`'s.
        """
        k = self._clamp(k)
        counts = yield from self._counts_at(k, chunk)
        return (yield from zipf_from_counts(k, counts, self._token, self.token_text, chunk))

    def view_steps(self, k: int, next_pair: Pair | None = None, chunk: int = 512) -> Job[ZipfView]:
        """What a plot draws of :meth:`zipf`'s table (``zipf(k).view(next_pair)``), as a job, without ordering
        every pair (:func:`~.results.view_from_counts`)."""
        k = self._clamp(k)
        counts = yield from self._counts_at(k, chunk)
        return (yield from view_from_counts(k, counts, self._token, self.token_text, next_pair, chunk))

    def next_pair(self, k: int) -> Pair | None:
        """The pair merge ``k + 1`` merges (the one "about to be merged" at step *k*), if any."""
        merges = self.model.merges
        return merges[k] if 0 <= k < min(len(merges), self.n_merges) else None

    def symbols_at(self, k: int) -> int:
        """Total symbols in the corpus after the first *k* merges."""
        return self.initial_symbols - sum(self._merged[: self._clamp(k)])

    def compression(self, upto: int | None = None) -> CompressionCurve:
        """Total symbols and occurrences merged for steps ``0..upto`` (default: every merge applied)."""
        n = self.n_merges if upto is None else self._clamp(upto)
        symbols = [self.initial_symbols]
        for m in self._merged[:n]:
            symbols.append(symbols[-1] - m)
        return CompressionCurve(list(range(n + 1)), symbols, [0, *self._merged[:n]])

    def vocab_sizes(self, upto: int | None = None) -> list[int]:
        """Vocabulary size (specials included) after each of the first ``0..upto`` merges."""
        n = self.n_merges if upto is None else self._clamp(upto)
        base = len(self.model.base)
        extra = len(self.model.specials)
        top = base - 1
        out = [base + extra]
        for new in self._new_ids[:n]:
            top = max(top, new)
            out.append(top + 1 + extra)
        return out

    def tradeoff(self, upto: int | None = None) -> TradeOff:
        """Vocabulary size vs average tokens per word and bytes per token, for steps ``0..upto``.

        Words are the corpus's pieces counted with multiplicity; bytes are those of the pieces (an
        end-of-word marker adds a token but no byte).  Empty corpus: zeros.
        """
        return tradeoff_from(self.compression(upto), self.vocab_sizes(upto), self.n_words, self.n_bytes)


def moved(counts: dict[Pair, int], old: Sequence[int], new: Sequence[int], c: int) -> None:
    """Move a word of count *c* in the pair table *counts* from segmentation *old* to *new* (no zeros kept)."""
    for p in itertools.pairwise(old):
        v = counts[p] - c
        if v:
            counts[p] = v
        else:
            del counts[p]
    for p in itertools.pairwise(new):
        counts[p] = counts.get(p, 0) + c


def recount_pairs(segmentation: Iterable[tuple[Sequence[Token], int]]) -> dict[tuple[Token, Token], int]:
    """Count adjacent pairs of an explicit segmentation from scratch (the definition; for checks).

    >>> recount_pairs([(("a", "b", "a", "b"), 2)])
    {('a', 'b'): 4, ('b', 'a'): 2}
    """
    counts: dict[tuple[Token, Token], int] = {}
    for seg, c in segmentation:
        for p in itertools.pairwise(seg):
            counts[p] = counts.get(p, 0) + c
    return counts
