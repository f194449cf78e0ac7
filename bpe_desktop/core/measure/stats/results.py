"""The statistics' result types and how to get them without a history: Zipf data (pairs by rank with a
fitted log-log slope) from a pair-count table, what a plot draws of it (:class:`ZipfView`), the compression
curve and the vocabulary trade-off, each with its CSV columns and rows.  It leaves out computing pair counts at
a step (:mod:`.history`, :mod:`.replayed`) and writing files.
"""

from __future__ import annotations

import bisect
import heapq
import math
import operator
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from ...records import MergeRecord
from ...tokenizers.model import Token
from .slicing import Job

Pair = tuple[int, int]

ZIPF_COLUMNS = ("rank", "left", "right", "count")
CURVE_COLUMNS = ("step", "symbols", "merged")
TRADEOFF_COLUMNS = ("step", "vocab_size", "tokens_per_word", "bytes_per_token")
EVERY_RANK_UP_TO, TAIL_RANKS = 1000, 1500  # the ranks drawn: each of the first ones, then log-spaced ones
TOP_PAIRS = 5  # the top pairs a view spells out


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
        return list(self.iter_rows())

    def iter_rows(self) -> Iterator[tuple[int, str, str, int]]:
        """:meth:`rows` one at a time (a table of millions of pairs is not copied)."""
        return ((i, a, b, c) for i, ((a, b), c) in enumerate(zip(self.labels, self.counts, strict=True), 1))

    def view(self, next_pair: Pair | None = None) -> ZipfView:
        """What a plot draws of this table (:class:`ZipfView`), with *next_pair*'s rank."""
        r = self.rank_of(next_pair) if next_pair is not None else None
        ranks = drawn_ranks(len(self.counts))
        return ZipfView(self.step, len(self.counts), ranks, [self.counts[i - 1] for i in ranks],
                        self.labels[:TOP_PAIRS], self.slope, self.intercept, next_pair, r,
                        self.counts[r - 1] if r else 0, self.labels[r - 1] if r else None)


@dataclass(frozen=True)
class ZipfView:
    """What a Zipf plot draws of one step's :class:`ZipfData`, exact at every rank it names -- not the table.

    *n_pairs* is the table's length (every pair at the step); ``counts[i]`` is the count at the 1-based rank
    ``ranks[i]`` (:func:`drawn_ranks`); ``top`` the labels of ranks 1..``len(top)``; the fit is the table's;
    *next_rank* is *next_pair*'s rank (``None``: no such pair, or none asked), *next_count*/*next_label* its
    count and labels.  It has no rows: a CSV of the step is made from the whole table (``ZipfData.rows``).
    """

    step: int
    n_pairs: int
    ranks: list[int]
    counts: list[int]
    top: list[tuple[str, str]]
    slope: float
    intercept: float
    next_pair: Pair | None = None
    next_rank: int | None = None
    next_count: int = 0
    next_label: tuple[str, str] | None = None


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


def drawn_ranks(n: int) -> list[int]:
    """The 1-based ranks of *n* pairs a plot draws: each of the first :data:`EVERY_RANK_UP_TO`, then
    :data:`TAIL_RANKS` spaced evenly on the log axis, and the last.  On a log axis the tail's thousands of ranks
    share a few pixels, and counts never rise with rank, so the line looks the same as through every rank.

    >>> drawn_ranks(5)
    [1, 2, 3, 4, 5]
    >>> r = drawn_ranks(100_000); r[999], r[1000] > 1000, r[-1], len(r) < 2_600
    (1000, True, 100000, True)
    """
    if n <= EVERY_RANK_UP_TO + TAIL_RANKS:
        return list(range(1, n + 1))
    lo, span = math.log(EVERY_RANK_UP_TO + 1), math.log(n) - math.log(EVERY_RANK_UP_TO + 1)
    tail = {min(n, int(math.exp(lo + span * i / (TAIL_RANKS - 1)))) for i in range(TAIL_RANKS)}
    return sorted(set(range(1, EVERY_RANK_UP_TO + 1)) | tail | {n})


def compression_from_records(initial_symbols: int, records: Sequence[MergeRecord]) -> CompressionCurve:
    """The compression curve from the trainer's records (steps ``0..len(records)``).

    >>> from bpe_desktop.core.config import TrainConfig
    >>> from bpe_desktop.core.training.trainer import Trainer
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


def zipf_from_counts(step: int, counts: Mapping[Pair, int], token: Callable[[int], Token],
                     text: Callable[[int], str], chunk: int = 512) -> Job[ZipfData]:
    """The :class:`ZipfData` of the pair-count table *counts* (every count > 0) at *step*, as a job yielding after
    about *chunk* pairs of work: highest count first, equal counts by (left, right) in token order (*token*: an
    id's token), labels by *text*.  *counts* must not change while the job runs.

    >>> from bpe_desktop.core.measure.stats.slicing import finish
    >>> toks = ["a", "b", "c"]
    >>> finish(zipf_from_counts(0, {(1, 2): 3, (0, 1): 3, (2, 0): 5}, toks.__getitem__, toks.__getitem__)).rows()
    [(1, 'c', 'a', 5), (2, 'a', 'b', 3), (3, 'b', 'c', 3)]
    """
    blocks: list[list[tuple[int, Token, Token, Pair]]] = []
    block: list[tuple[int, Token, Token, Pair]] = []
    for p, c in counts.items():
        block.append((-c, token(p[0]), token(p[1]), p))
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
    for n, (negc, _a, _b, p) in enumerate(heapq.merge(*blocks) if len(blocks) > 1 else block, 1):
        if n % (2 * chunk) == 0:
            yield
        pairs.append(p)
        values.append(-negc)
        labels.append((text(p[0]), text(p[1])))
    slope, intercept = fit_zipf(values)
    return ZipfData(step, pairs, values, labels, slope, intercept)


def view_from_counts(step: int, counts: Mapping[Pair, int], token: Callable[[int], Token],
                     text: Callable[[int], str], next_pair: Pair | None = None,
                     chunk: int = 512) -> Job[ZipfView]:
    """``zipf_from_counts(...).view(next_pair)`` without ordering every pair: the counts alone are sorted (the
    ranks' counts and the fit need no more), the pairs are ordered only among the top counts, and *next_pair*'s
    rank is the number of pairs before it in the same order.  A job yielding after about *chunk* pairs of work.

    >>> from bpe_desktop.core.measure.stats.slicing import finish
    >>> toks = ["a", "b", "c"]
    >>> v = finish(view_from_counts(0, {(1, 2): 3, (0, 1): 3, (2, 0): 5}, toks.__getitem__, toks.__getitem__, (1, 2)))
    >>> v.n_pairs, v.counts, v.top, v.next_rank, v.next_label
    (3, [5, 3, 3], [('c', 'a'), ('a', 'b'), ('b', 'c')], 3, ('b', 'c'))
    """
    yield
    values = sorted(counts.values(), reverse=True)  # (ints: fast even for millions of pairs)
    yield
    n = len(values)
    ranks = drawn_ranks(n)
    slope, intercept = fit_zipf(values)
    least = values[min(TOP_PAIRS, n) - 1] if n else 0
    c_next = counts.get(next_pair, 0) if next_pair is not None else 0
    key_next = (token(next_pair[0]), token(next_pair[1]), next_pair) if c_next > 0 and next_pair else None
    tops: list[tuple[int, Token, Token, Pair]] = []
    tied_before = 0  # pairs of next_pair's count before it in the table's order
    for i, (p, c) in enumerate(counts.items(), 1):
        if i % (4 * chunk) == 0:
            yield
        if c >= least:
            tops.append((-c, token(p[0]), token(p[1]), p))
        if key_next is not None and c == c_next and (token(p[0]), token(p[1]), p) < key_next:
            tied_before += 1
    top = [(text(p[0]), text(p[1])) for *_, p in heapq.nsmallest(TOP_PAIRS, tops)]
    rank = None
    if key_next is not None and next_pair is not None:
        rank = bisect.bisect_left(values, -c_next, key=operator.neg) + tied_before + 1
    return ZipfView(step, n, ranks, [values[r - 1] for r in ranks], top, slope, intercept, next_pair, rank,
                    c_next if rank else 0, (text(next_pair[0]), text(next_pair[1])) if rank and next_pair else None)
