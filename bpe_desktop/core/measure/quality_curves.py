"""Quality curves over merges ``k = 0..M``: the :mod:`.quality` metrics of a text at every step.

Bytes per token, fertility, vocabulary utilization, Shannon and Rényi efficiency at each step, with
``|V_k|`` the vocabulary size at step ``k`` (:meth:`BPEModel.vocab_size_at`, specials included).  Nothing
is re-encoded: a :class:`~.token_counts.TokenCounts` table walks the steps, each merge changing three
counts and the running sums (O(1) per step), so a curve of 8,000 merges costs a few milliseconds and is
cut into small units for an event loop (:meth:`QualityCurveBuilder.computing` is a
:data:`~.stats.Job`: drive it with :class:`~.stats.Sliced`, as the other plots are).

Two texts:

* the training text -- the per-merge occurrence counts come from the trainer's records
  (:func:`~.token_counts.effects_from_records`), free while training runs;
* a held-out text -- :class:`HeldOutCurves` follows the (growing) merge list with a
  :class:`~.stats.SegmentationHistory` of that text, built and extended in small units, and feeds the
  occurrences it replaced to a builder;
* a text whose segmentation at each step is given (:class:`~.stats.Rewrites`: an extension's corpus, which
  tiktoken's rank rule may re-encode beyond the merged pair) -- :class:`RewrittenCurves` moves its token counts
  by what each step rewrote.

Changing α rebuilds a curve from the stored effects (:meth:`QualityCurveBuilder.with_alpha`).  This
module does not draw and does not choose the held-out text (see :mod:`.holdout`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..records import MergeRecord
from ..tokenizers.model import BPEModel
from .quality import DEFAULT_ALPHA, QualityMetrics, Sums, TextTotals, check_alpha, metrics_from_sums
from .stats import Job, Rewrites, SegmentationHistory, finish
from .token_counts import (
    MergeEffect,
    TokenCounts,
    effects_from,
    effects_from_records,
    initial_counting,
    initial_counts,
    kept_exact,
)

#: columns of a curve's CSV rows (:meth:`QualityCurve.rows`)
QUALITY_COLUMNS = (
    "step", "vocab_size", "tokens", "bytes_per_token", "fertility", "utilization", "shannon_efficiency",
    "renyi_efficiency",
)


@dataclass
class QualityCurve:
    """The metrics at steps ``0..len(steps)-1``, one list per metric (what a plot's ``setData`` takes)."""

    alpha: float
    steps: list[int] = field(default_factory=list)
    vocab_sizes: list[int] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)
    bytes_per_token: list[float] = field(default_factory=list)
    fertility: list[float] = field(default_factory=list)
    utilization: list[float] = field(default_factory=list)
    shannon_efficiency: list[float] = field(default_factory=list)
    renyi_efficiency: list[float] = field(default_factory=list)
    used: list[int] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.steps)

    def append(self, step: int, m: QualityMetrics) -> None:
        self.steps.append(step)
        self.vocab_sizes.append(m.vocab_size)
        self.tokens.append(m.tokens)
        self.bytes_per_token.append(m.bytes_per_token)
        self.fertility.append(m.fertility)
        self.utilization.append(m.utilization)
        self.shannon_efficiency.append(m.shannon_efficiency)
        self.renyi_efficiency.append(m.renyi_efficiency)
        self.used.append(m.used)

    def at(self, k: int) -> QualityMetrics:
        """The metrics at step *k* (an index into the curve; ``IndexError`` past its end)."""
        return QualityMetrics(
            self.tokens[k], self.bytes_per_token[k], self.fertility[k], self.utilization[k],
            self.shannon_efficiency[k], self.renyi_efficiency[k], self.alpha, self.vocab_sizes[k], self.used[k],
        )

    def rows(self) -> list[tuple[object, ...]]:
        """Rows of :data:`QUALITY_COLUMNS`."""
        return list(zip(
            self.steps, self.vocab_sizes, self.tokens, self.bytes_per_token, self.fertility, self.utilization,
            self.shannon_efficiency, self.renyi_efficiency, strict=True,
        ))


class QualityCurveBuilder:
    """Builds a :class:`QualityCurve` from a text's step-0 counts and the effects of the merges on it.

    >>> from bpe_desktop.core import TrainConfig, train
    >>> words = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    >>> model, records = train(words, TrainConfig(merges=3))
    >>> b = QualityCurveBuilder.for_training(words, model, records, TextTotals.of_word_counts(words))
    >>> curve = b.curve
    >>> curve.tokens, [round(x, 3) for x in curve.fertility]
    ([95, 86, 77, 68], [5.938, 5.375, 4.812, 4.25])
    """

    def __init__(
        self, initial: Mapping[int, int], totals: TextTotals, model: BPEModel,
        effects: Iterable[MergeEffect] = (), alpha: float = DEFAULT_ALPHA,
    ) -> None:
        self.alpha = check_alpha(alpha)
        self.model = model  # for |V_k|; may grow while training
        self.totals = totals
        self._initial = dict(initial)
        self._counts = TokenCounts(self._initial, effects, self.alpha)
        self.curve = QualityCurve(self.alpha)
        self._record()

    @classmethod
    def for_training(
        cls, word_counts: Mapping[str, int], model: BPEModel, records: Sequence[MergeRecord],
        totals: TextTotals, alpha: float = DEFAULT_ALPHA,
    ) -> QualityCurveBuilder:
        """The curve of the training text, computed to the last record (use :meth:`computing` instead to
        cut the work into units)."""
        b = cls(initial_counts(word_counts, model), totals, model, effects_from_records(model, records), alpha)
        finish(b.computing())
        return b

    @classmethod
    def starting(
        cls, word_counts: Mapping[str, int], model: BPEModel, totals: TextTotals, alpha: float = DEFAULT_ALPHA
    ) -> Job[QualityCurveBuilder]:
        """A builder at step 0, its step-0 counts made in small units (then :meth:`extend` it with
        :func:`~.token_counts.effects_from_records` as records arrive, and run :meth:`computing`).

        >>> b = finish(QualityCurveBuilder.starting({"ab": 3}, BPEModel("chars", ["a", "b"]), TextTotals(6, 3)))
        >>> b.curve.tokens, b.curve.fertility
        ([6], [2.0])
        """
        initial = yield from initial_counting(word_counts, model)
        return cls(initial, totals, model, (), alpha)

    @property
    def n_steps(self) -> int:
        """Steps whose effects are known (the curve reaches this step once :meth:`computing` ran)."""
        return self._counts.n_steps

    @property
    def pending(self) -> int:
        return self._counts.n_steps - self._counts.step

    def extend(self, effects: Iterable[MergeEffect]) -> None:
        """Append the effects of the next merges (e.g. from new training records)."""
        self._counts.extend(effects)

    def extend_merged(self, merged: list[int]) -> None:
        """Append the effects of merges ``n_steps + 1 ..`` of :attr:`model` from the occurrences each replaced
        (``merged[r]`` for merge ``r + 1``, e.g. ``SegmentationHistory.compression().merged[1:]``)."""
        self.extend(effects_from(self.model, merged[self.n_steps :], self.n_steps))

    def _record(self) -> None:
        k = self._counts.step
        m = metrics_from_sums(self._counts.sums, self.totals, self.model.vocab_size_at(k))
        self.curve.append(k, m)

    def computing(self, chunk: int = 64) -> Job[QualityCurve]:
        """Compute the pending steps, yielding after every *chunk* steps; returns the curve.

        Between units the curve is exact for the steps it holds; new effects may be added meanwhile.
        """
        counts = self._counts
        n = 0
        while counts.advance():
            self._record()
            n += 1
            if n % chunk == 0:
                yield
        return self.curve

    def with_alpha(self, alpha: float) -> QualityCurveBuilder:
        """A builder for another Rényi order over the same effects (its curve still to compute)."""
        return QualityCurveBuilder(self._initial, self.totals, self.model, self._counts.effects, alpha)


class HeldOutCurves:
    """Quality curves on a held-out text, following a merge list that may still grow.

    >>> from bpe_desktop.core import TrainConfig, train
    >>> model, _ = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, TrainConfig(merges=3))
    >>> h = HeldOutCurves({"lowest": 1}, TextTotals(6, 1), model)
    >>> finish(h.following()).tokens
    [7, 6, 5, 4]
    """

    def __init__(
        self, word_counts: Mapping[str, int], totals: TextTotals, model: BPEModel, alpha: float = DEFAULT_ALPHA,
        initial: Mapping[int, int] | None = None,
    ) -> None:
        self.word_counts = dict(word_counts)
        self.totals = totals
        self.model = model
        self.history: SegmentationHistory | None = None
        if initial is None:
            initial = initial_counts(self.word_counts, model)
        self.builder = QualityCurveBuilder(initial, totals, model, (), alpha)

    @classmethod
    def starting(
        cls, word_counts: Mapping[str, int], totals: TextTotals, model: BPEModel, alpha: float = DEFAULT_ALPHA
    ) -> Job[HeldOutCurves]:
        """The same object, its step-0 counts made in small units (*initial* of the constructor: the
        table :func:`~.token_counts.initial_counts` gives)."""
        initial = yield from initial_counting(word_counts, model)
        return cls(word_counts, totals, model, alpha, initial)

    @property
    def curve(self) -> QualityCurve:
        return self.builder.curve

    def following(self) -> Job[QualityCurve]:
        """Apply the merges not applied yet to the held-out text and extend the curve, in small units
        (each of the history's units and the builder's; drive it with :class:`~.stats.Sliced`)."""
        if self.history is None:
            self.history = yield from SegmentationHistory.building(self.word_counts, self.model)
        h = self.history
        yield from h.extending()
        yield
        merged = h.compression().merged  # merged[r]: occurrences replaced by merge r (merged[0] == 0)
        b = self.builder
        while b.n_steps < len(merged) - 1:
            yield
            n = b.n_steps
            block = effects_from(self.model, merged[1 + n : 1 + n + 1024], n)
            if not block:  # the merge list shrank: build a new HeldOutCurves for another model
                break
            b.extend(block)
        return (yield from b.computing())

    def with_alpha(self, alpha: float) -> None:
        """Switch the Rényi order (the curve is recomputed by the next :meth:`following`)."""
        self.builder = self.builder.with_alpha(alpha)


class RewrittenCurves:
    """Quality curves of a text given as :class:`~.stats.Rewrites` (its pieces at step 0 and what each step
    rewrote), with ``vocab_sizes[k]`` the vocabulary size |V| at step *k*.

    >>> r = Rewrites([(3, 2), (0, 2)], [2, 1], [[(0, (4,))]], n_words=3, n_bytes=8)
    >>> c = finish(RewrittenCurves(r, TextTotals(8, 3), [4, 5]).computing())
    >>> c.tokens, c.used, c.fertility
    ([6, 4], [3, 3], [2.0, 1.3333333333333333])
    """

    def __init__(self, rewrites: Rewrites, totals: TextTotals, vocab_sizes: Sequence[int],
                 alpha: float = DEFAULT_ALPHA) -> None:
        if len(vocab_sizes) < len(rewrites.steps) + 1:
            raise ValueError("a vocabulary size per step")
        self.rewrites, self.totals, self.vocab_sizes = rewrites, totals, vocab_sizes
        self.alpha = check_alpha(alpha)
        self.curve = QualityCurve(self.alpha)

    def computing(self, chunk: int = 256) -> Job[QualityCurve]:
        """The curve from step 0 to the last, yielding after every *chunk* pieces (and every step)."""
        rw, totals, sizes = self.rewrites, self.totals, self.vocab_sizes
        self.curve = curve = QualityCurve(self.alpha)
        counts: dict[int, int] = {}
        for n, (w, c) in enumerate(zip(rw.words, rw.counts, strict=True), 1):
            if n % chunk == 0:
                yield
            for t in w:
                counts[t] = counts.get(t, 0) + c
        sums = peak = Sums.of(counts, self.alpha)
        curve.append(0, metrics_from_sums(sums, totals, sizes[0]))
        segs = list(rw.words)
        for r, step in enumerate(rw.steps, 1):
            delta: dict[int, int] = {}
            for n, (wi, seg) in enumerate(step, 1):
                if n % chunk == 0:
                    yield
                c = rw.counts[wi]
                for t in segs[wi]:
                    delta[t] = delta.get(t, 0) - c
                for t in seg:
                    delta[t] = delta.get(t, 0) + c
                segs[wi] = seg
            for t, d in delta.items():
                if d:
                    old = counts.get(t, 0)
                    if old + d:
                        counts[t] = old + d
                    else:
                        del counts[t]
                    sums = sums.changed(t, old, old + d)
                    sums, peak = kept_exact(sums, peak, counts)
            curve.append(r, metrics_from_sums(sums, totals, sizes[r]))
            yield
        return curve

    def with_alpha(self, alpha: float) -> RewrittenCurves:
        """The same text for another Rényi order (its curve still to compute)."""
        return RewrittenCurves(self.rewrites, self.totals, self.vocab_sizes, alpha)
