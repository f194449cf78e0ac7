"""Quality metrics against the reference implementation (tokenization-scorer, Zouhar et al.) and the
quality curves against the metrics of a from-scratch encode at the same step."""

from __future__ import annotations

import math
from collections import Counter

import pytest
import tokenization_scorer
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig, count_text, train
from bpe_desktop.core.errors import ConfigError
from bpe_desktop.core.measure.quality import Sums, TextTotals, measure
from bpe_desktop.core.measure.quality_curves import HeldOutCurves, QualityCurveBuilder
from bpe_desktop.core.measure.stats import Sliced, finish
from bpe_desktop.core.measure.token_counts import TokenCounts, effects_from_records, initial_counts
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer

ALPHAS = [0.5, 1.0, 2.0, 2.5, 3.0, 7.5]


def _scorer(ids: list[int], metric: str, vocab: int, alpha: float | None = None) -> float:
    if alpha == 1.0:  # the scorer's renyi at power 1 re-reads its exhausted input and gives -0.0: ask Shannon
        metric, alpha = "shannon_efficiency", None
    text = " ".join(f"t{i}" for i in ids)  # one "word" per token: the scorer counts whitespace-split items
    kwargs = {"vocab": vocab} if alpha is None else {"vocab": vocab, "power": alpha}
    return float(tokenization_scorer.score(text, metric=metric, **kwargs))


def _encode_lines(tok: Tokenizer, text: str, k: int) -> list[int]:
    """A from-scratch encode the way training reads text: line by line, a line keeping its newline."""
    out: list[int] = []
    for line in text.splitlines(keepends=True):
        out.extend(tok.encode_ordinary(line, upto=k))
    return out


@pytest.fixture(scope="module")
def trained(topics_text: str, trained_on):
    t = trained_on(topics_text[:120_000], TrainConfig(mode="bytes", pretokenizer="gpt2", merges=400))
    return t.text, t.words, t.model, t.records


@pytest.mark.parametrize("k", [0, 37, 400])
def test_efficiencies_equal_tokenization_scorer_on_real_text(trained, k: int) -> None:
    text, _words, model, _records = trained
    ids = Tokenizer(model).encode_ordinary(text[:40_000], upto=k)
    vocab = model.vocab_size_at(k)
    for alpha in ALPHAS:
        m = measure(ids, TextTotals.of_text(text[:40_000]), vocab, alpha)
        assert m.renyi_efficiency == pytest.approx(_scorer(ids, "renyi", vocab, alpha), rel=1e-9), alpha
        assert m.shannon_efficiency == pytest.approx(_scorer(ids, "shannon_efficiency", vocab), rel=1e-9)
        assert m.tokens == len(ids)
        assert m.utilization == len(set(ids)) / vocab


@settings(max_examples=60, deadline=None)
@given(ids=st.lists(st.integers(0, 30), min_size=1, max_size=200), alpha=st.floats(0.1, 9.0))
def test_efficiencies_equal_tokenization_scorer_on_random_sequences(ids: list[int], alpha: float) -> None:
    m = measure(ids, TextTotals(1, 1), 64, alpha)
    assert m.renyi_efficiency == pytest.approx(_scorer(ids, "renyi", 64, alpha), rel=1e-7, abs=1e-12)
    assert m.shannon_efficiency == pytest.approx(_scorer(ids, "shannon_efficiency", 64), rel=1e-9, abs=1e-12)


def test_incremental_sums_equal_exact_sums() -> None:
    counts = Counter({1: 7, 2: 3, 5: 1})
    s = Sums.of(counts, 2.5)
    for tid, delta in [(1, -4), (9, 4), (2, -3), (5, 2)]:
        s = s.changed(tid, counts[tid], counts[tid] + delta)
        counts[tid] += delta
        exact = Sums.of(counts, 2.5)
        assert (s.n, s.used) == (exact.n, exact.used)
        assert s.xlogx == pytest.approx(exact.xlogx) and s.power == pytest.approx(exact.power)


def test_undefined_values_are_nan_and_bad_alpha_is_refused() -> None:
    empty = measure([], TextTotals(0, 0), 10)
    assert empty.tokens == 0 and math.isnan(empty.bytes_per_token) and math.isnan(empty.renyi_efficiency)
    assert math.isnan(measure([0, 0], TextTotals(2, 1), 1).shannon_efficiency)  # log2 |V| = 0
    for bad in (0, -1, float("nan"), float("inf")):
        with pytest.raises(ConfigError, match="alpha"):
            measure([1], TextTotals(1, 1), 4, bad)


def _direct(tok: Tokenizer, text: str, k: int, alpha: float):
    ids = _encode_lines(tok, text, k)
    return measure(ids, TextTotals.of_text(text), tok.model.vocab_size_at(k), alpha)


def _same(a, b) -> None:
    assert a.tokens == b.tokens and a.used == b.used and a.vocab_size == b.vocab_size
    for name in ("bytes_per_token", "fertility", "utilization", "shannon_efficiency", "renyi_efficiency"):
        assert getattr(a, name) == pytest.approx(getattr(b, name), rel=1e-9), name


def test_training_curve_equals_metrics_of_a_fresh_encode(trained) -> None:
    text, words, model, records = trained
    tok = Tokenizer(model)
    for alpha in (2.5, 1.0, 0.7):
        curve = QualityCurveBuilder.for_training(words.counts, model, records, TextTotals.of_text(text), alpha).curve
        assert curve.steps == list(range(len(records) + 1))
        for k in (0, 1, 99, 250, 400):
            _same(curve.at(k), _direct(tok, text, k, alpha))


def test_token_counts_at_step_k_equal_a_fresh_encode(trained) -> None:
    text, words, model, records = trained
    tok = Tokenizer(model)
    tc = TokenCounts(initial_counts(words.counts, model), effects_from_records(model, records))
    for k in (400, 3, 180, 0, 399):  # forwards and backwards
        tc.seek(k)
        fresh = Counter(_encode_lines(tok, text, k))
        assert {i: c for i, c in tc.counts.items() if c} == dict(fresh)


def test_curve_in_small_units_while_merges_arrive(trained) -> None:
    text, words, model, records = trained
    whole = QualityCurveBuilder.for_training(words.counts, model, records, TextTotals.of_text(text)).curve
    start = Sliced(QualityCurveBuilder.starting(words.counts, model, TextTotals.of_text(text)))
    while not start.run(0.0):
        pass
    assert start.units > 1
    b = start.result
    assert b is not None
    units = 0
    for start in range(0, len(records), 64):  # records arrive in batches, the curve follows in units
        b.extend(effects_from_records(model, records[start : start + 64]))
        job = Sliced(b.computing(chunk=16))
        while not job.run(0.0):
            units += 1
    assert units > len(records) // 16 - 30
    assert b.curve.rows() == whole.rows()


def test_held_out_curve_equals_metrics_of_a_fresh_encode(trained, topics_text: str) -> None:
    _text, _words, model, _records = trained
    held = topics_text[-30_000:]
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2")
    h = HeldOutCurves(count_text(held, cfg).counts, TextTotals.of_text(held), model)
    job = Sliced(h.following())
    while not job.run(0.0):
        pass
    tok = Tokenizer(model)
    for k in (0, 5, 200, 400):
        _same(h.curve.at(k), _direct(tok, held, k, 2.5))
    h.with_alpha(4.0)
    curve = finish(h.following())
    _same(curve.at(123), _direct(tok, held, 123, 4.0))


def test_held_out_curve_follows_a_growing_model(topics_text: str) -> None:
    text = topics_text[:60_000]
    cfg = TrainConfig(mode="chars", merges=150)
    model, _ = train(count_text(text, cfg), cfg)
    held = topics_text[-20_000:]
    growing = model.truncated(60)
    h = HeldOutCurves(count_text(held, cfg).counts, TextTotals.of_text(held), growing)
    assert len(finish(h.following())) == 61
    growing.extend_merges(model.merges[60:])
    curve = finish(h.following())
    assert len(curve) == 151
    tok = Tokenizer(model, unknown="keep")
    _same(curve.at(150), _direct(tok, held, 150, 2.5))
    _same(curve.at(42), _direct(tok, held, 42, 2.5))
