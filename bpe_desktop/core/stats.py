"""Statistics of a merge list over a corpus: pair frequencies at any step, compression, vocabulary trade-off.

The heart is :class:`SegmentationHistory`: for every distinct word of the corpus it keeps the segmentation
after each merge that changed it (a word of *n* symbols changes at most *n - 1* times), plus an index from
each pair to the words whose latest segmentation contains it.  New merges are applied like the trainer does
(only the indexed words are rewritten, left to right, without overlaps), so it follows a growing merge list
cheaply while training runs.  Then, for any step ``k``:

* :meth:`SegmentationHistory.pair_counts` -- the weighted count of every adjacent pair in the corpus
  segmented by the first ``k`` merges (overlaps counted, the seeds' formula) -- exactly what counting pairs
  from scratch gives.  It is rebuilt from the per-word snapshots, or updated from a nearby cached step
  using the "words changed by merge r" lists when that touches fewer words;
* :meth:`SegmentationHistory.zipf` -- those pairs by rank, highest count first, ties broken by the
  smallest ``(left, right)`` in token order (string order in chars mode, bytes order in bytes mode: the
  ``lexical`` rule's order), with a fitted log-log slope (:func:`fit_zipf`);
* :meth:`SegmentationHistory.compression` and :meth:`SegmentationHistory.tradeoff` -- total symbols and
  occurrences merged per step, and vocabulary size vs tokens per word and bytes per token.
  :func:`compression_from_records` gives the same curve from the trainer's records alone.

CSV text for all of these comes from :func:`csv_text` and the ``*_rows`` helpers (shared by the CLI and the
window's export).

The history also keeps the pair counts of its latest step up to date as merges apply (so the Zipf data of
the step being trained needs no recount).  For an event loop, the expensive work also comes cut into small
units: :meth:`SegmentationHistory.building`, :meth:`~SegmentationHistory.extending` (a merge that rewrites
thousands of words is cut too), :meth:`~SegmentationHistory.zipf_steps` and
:meth:`~SegmentationHistory.releasing` are generators that ``yield`` between units of well under a
millisecond and ``return`` their result; :class:`Sliced` runs one for a time budget, :func:`finish` to its
end.  Between units every step already applied stays exact.  (The units bound the work, not the pauses of
Python's cyclic garbage collector, which the caller has to manage.)

This module does not train, draw or read files; it is pure Python and never imports Qt.
"""

from __future__ import annotations

import bisect
import csv
import heapq
import io
import itertools
import math
import time
from collections.abc import Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from .config import TrainConfig
from .corpus import WordCounts
from .model import BPEModel, Token, token_text
from .records import MergeRecord
from .trainer import word_symbols

Pair = tuple[int, int]

ZIPF_COLUMNS = ("rank", "left", "right", "count")
CURVE_COLUMNS = ("step", "symbols", "merged")
TRADEOFF_COLUMNS = ("step", "vocab_size", "tokens_per_word", "bytes_per_token")


# -- plain results ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ZipfData:
    """Every adjacent pair at one step, highest count first.

    ``pairs[i]`` is ``(left id, right id)`` of rank ``i + 1``, ``counts[i]`` its count and ``labels[i]``
    its display text ``(left, right)``.  ``slope``/``intercept`` fit ``log10 count = intercept + slope *
    log10 rank`` (see :func:`fit_zipf`); both are ``nan`` with fewer than two distinct ranks.
    """

    step: int
    pairs: list[Pair]
    counts: list[int]
    labels: list[tuple[str, str]]
    slope: float
    intercept: float

    @property
    def ranks(self) -> list[int]:
        return list(range(1, len(self.counts) + 1))

    def rank_of(self, pair: Pair) -> int | None:
        """1-based rank of *pair*, or ``None`` if it does not occur at this step."""
        try:
            return self.pairs.index(pair) + 1
        except ValueError:
            return None

    def rows(self) -> list[tuple[int, str, str, int]]:
        """Rows of :data:`ZIPF_COLUMNS`."""
        return [(i, a, b, c) for i, ((a, b), c) in enumerate(zip(self.labels, self.counts, strict=True), 1)]


@dataclass(frozen=True)
class CompressionCurve:
    """``symbols[k]`` = total symbols after the first ``k`` merges (``steps = 0..K``); ``merged[k]`` =
    occurrences replaced by merge ``k`` (``merged[0] == 0``), so ``symbols[k] = symbols[k-1] - merged[k]``.
    """

    steps: list[int]
    symbols: list[int]
    merged: list[int]

    def rows(self) -> list[tuple[int, int, int]]:
        """Rows of :data:`CURVE_COLUMNS`."""
        return list(zip(self.steps, self.symbols, self.merged, strict=True))


@dataclass(frozen=True)
class TradeOff:
    """Per step: vocabulary size, average tokens per word, average bytes (of the pieces) per token."""

    steps: list[int]
    vocab_sizes: list[int]
    tokens_per_word: list[float]
    bytes_per_token: list[float]

    def rows(self) -> list[tuple[int, int, float, float]]:
        """Rows of :data:`TRADEOFF_COLUMNS`."""
        return list(zip(self.steps, self.vocab_sizes, self.tokens_per_word, self.bytes_per_token, strict=True))


# -- pure helpers -----------------------------------------------------------------------------------------
def fit_zipf(counts: Sequence[int], samples: int = 60) -> tuple[float, float]:
    """Least-squares line through ``(log10 rank, log10 count)`` for counts sorted highest first.

    The points are taken at up to *samples* log-spaced ranks, so each decade of ranks weighs the same (a
    plain fit over every rank is dominated by the long tail of pairs seen once).  Returns
    ``(slope, intercept)``; ``(nan, nan)`` with fewer than two distinct sampled ranks.

    >>> s, b = fit_zipf([round(10**6 / r) for r in range(1, 1001)])
    >>> round(s, 2), round(b, 2)
    (-1.0, 6.0)
    >>> fit_zipf([5])
    (nan, nan)
    """
    n = len(counts)
    if n < 2:
        return math.nan, math.nan
    ranks = sorted({round(n ** (i / (samples - 1))) for i in range(samples)} | {1, n})
    pts = [(math.log10(r), math.log10(counts[r - 1])) for r in ranks if counts[r - 1] > 0]
    if len(pts) < 2:
        return math.nan, math.nan
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    if sxx == 0:
        return math.nan, math.nan
    slope = sum((x - mx) * (y - my) for x, y in pts) / sxx
    return slope, my - slope * mx


def compression_from_records(initial_symbols: int, records: Sequence[MergeRecord]) -> CompressionCurve:
    """The compression curve from the trainer's records (steps ``0..len(records)``).

    >>> from bpe_desktop.core.trainer import Trainer
    >>> t = Trainer({"low": 5, "lower": 2, "newest": 6, "widest": 3}, TrainConfig(merges=3))
    >>> compression_from_records(t.initial_symbols, t.run()).symbols
    [95, 86, 77, 68]
    """
    symbols = [initial_symbols] + [r.symbols_after for r in records]
    merged = [0] + [r.merged for r in records]
    return CompressionCurve(list(range(len(symbols))), symbols, merged)


def tradeoff_from(curve: CompressionCurve, vocab_sizes: Sequence[int], n_words: int, n_bytes: int) -> TradeOff:
    """The trade-off from a compression curve, the vocabulary size at each of its steps and corpus totals.

    >>> t = tradeoff_from(CompressionCurve([0, 1], [8, 6], [0, 2]), [4, 5], n_words=2, n_bytes=6)
    >>> t.tokens_per_word, t.bytes_per_token
    ([4.0, 3.0], [0.75, 1.0])
    """
    n = min(len(curve.steps), len(vocab_sizes))
    symbols = curve.symbols[:n]
    tpw = [s / n_words if n_words else 0.0 for s in symbols]
    bpt = [n_bytes / s if s else 0.0 for s in symbols]
    return TradeOff(curve.steps[:n], list(vocab_sizes[:n]), tpw, bpt)


def csv_text(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """CSV text (``\\n`` line ends, quoted where needed; floats with 6 significant digits).

    >>> csv_text(("a", "b"), [(1, 0.5), ("x,y", 2.0)])
    'a,b\\n1,0.5\\n"x,y",2\\n'
    """
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for row in rows:
        w.writerow([f"{v:.6g}" if isinstance(v, float) else v for v in row])
    return buf.getvalue()


def symbol_config(model: BPEModel) -> TrainConfig:
    """The settings :func:`~.trainer.word_symbols` needs to split words the way *model* was trained."""
    return TrainConfig(mode=model.mode, end_of_word=model.end_of_word or "", glue_marker=model.glue_marker)  # type: ignore[arg-type]


# -- small units of work ---------------------------------------------------------------------------------
T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")

#: a generator of units of work: ``yield`` (nothing) between units, ``return`` a *T* at the end
Job = Generator[None, None, T]


def finish(job: Job[T]) -> T:
    """Run a generator of units of work to its end and return its result.

    >>> def job():
    ...     yield
    ...     return 42
    >>> finish(job())
    42
    """
    while True:
        try:
            next(job)
        except StopIteration as stop:
            return stop.value


class Sliced(Generic[T]):
    """A generator of units of work (``yield`` between units, ``return`` the result) run a slice at a time:
    :meth:`run` does units until a time budget is spent, so an event loop can run between slices.

    >>> def job():
    ...     for _ in range(3):
    ...         yield
    ...     return "done"
    >>> s = Sliced(job())
    >>> s.run(0.0), s.units, s.result
    (False, 1, None)
    >>> s.run(1.0), s.units, s.result
    (True, 4, 'done')
    """

    def __init__(self, job: Job[T]) -> None:
        self.job = job
        self.done = False
        self.result: T | None = None
        self.units = 0  # units run so far

    def run(self, budget_s: float) -> bool:
        """Run units until *budget_s* seconds have passed (at least one unit); True once the job ended."""
        if self.done:
            return True
        end = time.perf_counter() + budget_s
        job = self.job
        while True:
            self.units += 1
            try:
                next(job)
            except StopIteration as stop:
                self.done, self.result = True, stop.value
                return True
            if time.perf_counter() >= end:
                return False


def _emptying(d: dict[K, V], n: int) -> Job[None]:
    """Empty *d* in units of *n* items (``popitem``, so the last inserted go first)."""
    while d:
        for _ in range(min(len(d), n)):
            d.popitem()
        yield


# -- the segmentation history -----------------------------------------------------------------------------
class SegmentationHistory:
    """Every distinct word's segmentation after each merge of a (growing) merge list.

    >>> from bpe_desktop.core.trainer import train
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

        >>> job = Sliced(SegmentationHistory.building({"low": 5, "lower": 2}, BPEModel("chars", list("elorw</>")), 1))
        >>> job.run(1.0), job.result.n_words
        (True, 7)
        """
        h = cls.__new__(cls)
        yield from h._build(word_counts, model, chunk)
        return h

    def _build(self, word_counts: WordCounts | Mapping[str, int], model: BPEModel, chunk: int) -> Job[None]:
        counts = word_counts.counts if isinstance(word_counts, WordCounts) else dict(word_counts)
        self.model = model
        cfg = symbol_config(model)
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
            for s in word_symbols(w, cfg):
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
        yield from _emptying(self._where, 8 * chunk)
        for counts in self._cache.values():
            yield from _emptying(counts, 8 * chunk)
        yield from _emptying(self._live, 8 * chunk)
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
        new_tok = ta + tb  # type: ignore[operator]
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
            old = segs[right(ranks, k0) - 1]
            new = segs[right(ranks, k) - 1]
            for p in itertools.pairwise(old):
                v = counts[p] - c
                if v:
                    counts[p] = v
                else:
                    del counts[p]
            for p in itertools.pairwise(new):
                counts[p] = counts.get(p, 0) + c
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
        tok = self._token
        blocks: list[list[tuple[int, Token, Token, Pair]]] = []
        block: list[tuple[int, Token, Token, Pair]] = []
        for p, c in counts.items():  # the table is never mutated, so iterating across yields is safe
            block.append((-c, tok(p[0]), tok(p[1]), p))
            if len(block) >= 4 * chunk:
                block.sort()
                blocks.append(block)
                block = []
                yield
        block.sort()
        blocks.append(block)
        pairs: list[Pair] = []
        values: list[int] = []
        labels: list[tuple[str, str]] = []
        text = self.token_text
        for n, (negc, _a, _b, p) in enumerate(heapq.merge(*blocks) if len(blocks) > 1 else block, 1):
            if n % (2 * chunk) == 0:
                yield
            pairs.append(p)
            values.append(-negc)
            labels.append((text(p[0]), text(p[1])))
        slope, intercept = fit_zipf(values)
        return ZipfData(k, pairs, values, labels, slope, intercept)

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


def recount_pairs(segmentation: Iterable[tuple[Sequence[Token], int]]) -> dict[tuple[Token, Token], int]:
    """Count adjacent pairs of an explicit segmentation from scratch (the definition; for checks).

    >>> recount_pairs([(("a", "b", "a", "b"), 2)])
    {('a', 'b'): 4, ('b', 'a'): 2}
    """
    counts: dict[tuple[Token, Token], int] = {}
    for seg, c in segmentation:
        for p in itertools.pairwise(seg):
            counts[p] = counts.get(p, 0) + c  # type: ignore[index]
    return counts
