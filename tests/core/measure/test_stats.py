"""core.measure.stats: pair counts at any step equal a from-scratch recount; compression and trade-off numbers."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig, Trainer, count_text, train
from bpe_desktop.core.measure.stats import (
    SegmentationHistory,
    Sliced,
    compression_from_records,
    csv_text,
    finish,
    fit_zipf,
    recount_pairs,
)
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer
from bpe_desktop.core.training.naive import merge_word
from support import SEED_000, SEED_001


def naive_pairs(word_counts: dict[str, int], model, k: int) -> dict:
    """Segment every word by replaying the first k merges (token pairs, textbook loop); count pairs."""
    toks = model.tokens
    merges = [(toks[a], toks[b]) for a, b in model.merges[:k]]
    seg = []
    for w, c in word_counts.items():
        s = tuple(model.symbols_of(w))
        for m in merges:
            s = merge_word(s, m)
        seg.append((s, c))
    return recount_pairs(seg)


def tokenizer_pairs(word_counts: dict[str, int], model, k: int) -> dict:
    """Segment every distinct piece with Tokenizer.encode_piece(upto=k); count pairs as token values."""
    tok = Tokenizer(model)
    toks = model.tokens
    return recount_pairs(([toks[i] for i in tok.encode_piece(w, upto=k)], c) for w, c in word_counts.items())


def as_tokens(h: SegmentationHistory, counts: dict) -> dict:
    return {(h.tokens[a], h.tokens[b]): c for (a, b), c in counts.items()}


@pytest.mark.parametrize("tie_break", ["lexical", "first-seen", "hf"])
@pytest.mark.parametrize("corpus", [SEED_000, SEED_001])
def test_seed_pair_counts_equal_naive_replay_at_every_step(corpus, tie_break) -> None:
    model, recs = train(corpus, TrainConfig(tie_break=tie_break))
    h = SegmentationHistory(corpus, model)
    assert h.n_merges == len(recs) > 5
    for k in range(len(recs) + 1):
        assert as_tokens(h, h.pair_counts(k)) == naive_pairs(corpus, model, k), k


def test_seed_000_zipf_at_step_0_and_compression() -> None:
    model, recs = train(SEED_000, TrainConfig(merges=7))
    h = SegmentationHistory(SEED_000, model)
    z = h.zipf(0)
    # three pairs tie at 9 and come in token order, as the seed lists them
    assert z.rows()[:4] == [(1, "e", "s", 9), (2, "s", "t", 9), (3, "t", "</w>", 9), (4, "w", "e", 8)]
    assert sum(z.counts) == sum((len(w) + 1 - 1) * c for w, c in SEED_000.items())
    assert h.compression().symbols == [95, 86, 77, 68, 61, 54, 48, 42]
    assert h.compression() == compression_from_records(95, recs)
    assert h.next_pair(0) == model.merges[0] and h.next_pair(7) is None


def test_pair_counts_equal_the_trainers_live_counts_at_every_step() -> None:
    wc = count_text("the cat sat on the mat; the cats sat on the mats, that is that " * 3, TrainConfig())
    t = Trainer(wc, TrainConfig(tie_break="first-seen"))
    h = SegmentationHistory(wc, t.model)
    while True:
        h.extend()
        assert h.pair_counts(h.n_merges) == {p: c for p, c in t.pair_counts.items() if c > 0}
        if t.step() is None:
            break
    assert h.n_merges == t.n_merges > 10


@pytest.fixture(scope="module")
def topics_chars(topics_text):
    cfg = TrainConfig(merges=300)
    wc = count_text(topics_text, cfg)
    model, recs = train(wc, cfg)
    return wc.counts, model, recs


@pytest.fixture(scope="module")
def topics_bytes(topics_text):
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=300)
    wc = count_text(topics_text, cfg)
    model, recs = train(wc, cfg)
    return wc.counts, model, recs


@pytest.mark.parametrize("which", ["topics_chars", "topics_bytes"])
def test_real_text_pair_counts_equal_tokenizer_recount(which, request) -> None:
    counts, model, recs = request.getfixturevalue(which)
    h = SegmentationHistory(counts, model)
    for k in (0, 1, 37, 150, 299, 300):
        assert as_tokens(h, h.pair_counts(k)) == tokenizer_pairs(counts, model, k), k
    assert h.compression() == compression_from_records(recs[0].symbols_before, recs)


def test_nearby_steps_are_updated_incrementally_and_still_exact(topics_chars) -> None:
    counts, model, _ = topics_chars
    h = SegmentationHistory(counts, model)
    h.pair_counts(150)
    for k in (151, 149, 152, 140):
        near = h._from_nearby(k)
        assert near is not None  # a few merges away: the delta path is taken
        assert near == h._count(k)
        assert h.pair_counts(k) == h._count(k)


def test_lexical_zipf_rank_one_is_the_next_merge(topics_chars) -> None:
    counts, model, _ = topics_chars
    h = SegmentationHistory(counts, model)
    for k in range(0, 300, 23):
        z = h.zipf(k)
        assert z.pairs[0] == model.merges[k] == h.next_pair(k)
        assert z.counts == sorted(z.counts, reverse=True)
        assert z.rank_of(model.merges[k]) == 1


def test_growing_merge_list_matches_a_history_built_at_once(topics_bytes) -> None:
    counts, model, _ = topics_bytes
    grow = model.truncated(0)
    h = SegmentationHistory(counts, grow)
    for n in (5, 6, 120, 300):
        grow.merges[:] = model.merges[:n]
        grow.invalidate()
        while h.pending:  # in slices, as the window does
            assert 0 < h.extend(limit=7) <= 7
        assert h.n_merges == n
    full = SegmentationHistory(counts, model)
    for k in (0, 5, 77, 300):
        assert h.pair_counts(k) == full.pair_counts(k)
    assert h.segmentation(300) == full.segmentation(300)


def test_tradeoff_numbers(topics_chars) -> None:
    counts, model, recs = topics_chars
    h = SegmentationHistory(counts, model)
    tr = h.tradeoff()
    assert tr.vocab_sizes[0] == model.vocab_size_at(0)
    assert tr.vocab_sizes[1:] == [r.vocab_size for r in recs]
    n_words = sum(counts.values())
    n_bytes = sum(len(w.encode()) * c for w, c in counts.items())
    for k in (0, 100, 300):
        symbols = recs[k - 1].symbols_after if k else recs[0].symbols_before
        assert tr.tokens_per_word[k] == pytest.approx(symbols / n_words)
        assert tr.bytes_per_token[k] == pytest.approx(n_bytes / symbols)
    assert tr.tokens_per_word == sorted(tr.tokens_per_word, reverse=True)


def test_chars_missing_from_the_alphabet_still_count() -> None:
    model, _ = train({"ab": 3}, TrainConfig(merges=1))
    h = SegmentationHistory({"abz": 2, "ab": 1}, model)
    z = h.zipf(1)
    assert set(z.rows()) == {(1, "ab", "z", 2), (2, "z", "</w>", 2), (3, "ab", "</w>", 1)}


def test_fit_zipf_recovers_a_power_law() -> None:
    counts = [round(1e7 * r**-1.5) for r in range(1, 2001)]
    slope, intercept = fit_zipf(counts)
    assert slope == pytest.approx(-1.5, abs=0.01)
    assert intercept == pytest.approx(7, abs=0.05)
    assert all(math.isnan(v) for v in fit_zipf([3, 3][:1]))


def test_csv_text_quotes_tokens() -> None:
    text = csv_text(("rank", "left", "right", "count"), [(1, 'a,"', "\n", 2)])
    assert text == 'rank,left,right,count\n1,"a,""","\n",2\n'


words = st.text(alphabet="abcde", min_size=1, max_size=7)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    corpus=st.dictionaries(words, st.integers(1, 5), min_size=1, max_size=12),
    mode=st.sampled_from(["chars", "bytes"]),
    tie=st.sampled_from(["lexical", "first-seen", "hf"]),
    data=st.data(),
)
def test_property_pair_counts_at_random_step_equal_recount(corpus, mode, tie, data) -> None:
    model, _ = train(corpus, TrainConfig(mode=mode, tie_break=tie, pretokenizer="none"))
    h = SegmentationHistory(corpus, model)
    ks = data.draw(st.lists(st.integers(0, len(model.merges)), min_size=1, max_size=4))
    for k in ks:  # several in a row, so the cached/incremental paths are exercised too
        assert as_tokens(h, h.pair_counts(k)) == naive_pairs(corpus, model, k)


# -- the same work in small units (what the plots pane runs between event-loop turns) -----------------------
def test_history_built_and_extended_in_small_units_equals_one_built_at_once(topics_bytes) -> None:
    counts, model, _ = topics_bytes
    grow = model.truncated(0)
    build = SegmentationHistory.building(counts, grow, chunk=50)
    units = 0
    while True:  # one unit at a time; nothing is visible until the build returns
        try:
            next(build)
            units += 1
        except StopIteration as stop:
            h = stop.value
            break
    assert units >= len(counts) // 50 - 1 and h.n_merges == 0
    grow.merges[:] = model.merges[:120]
    grow.invalidate()
    job = h.extending(chunk=3)
    n_units = 0
    for _ in job:
        n_units += 1
        k = h.n_merges  # between units (even in the middle of a merge) every applied step is exact
        if n_units % 97 == 0:
            assert as_tokens(h, h.pair_counts(k)) == tokenizer_pairs(counts, model, k), k
            assert h.pair_counts(k) == h._count(k)  # the live table equals a recount from the snapshots
    assert h.n_merges == 120 and n_units > 2 * 120  # big merges were cut into several units
    full = SegmentationHistory(counts, model)
    for k in (0, 1, 60, 120):
        assert h.pair_counts(k) == full.pair_counts(k)
        assert h.zipf(k) == full.zipf(k)
    assert h.compression() == full.compression(120)


def test_zipf_in_units_equals_zipf_even_while_merges_are_applied_between_them(topics_chars) -> None:
    counts, model, _ = topics_chars
    full = SegmentationHistory(counts, model)
    for k in (0, 37, 149, 150):
        grow = model.truncated(150)
        h = SegmentationHistory(counts, grow)
        h.pair_counts(min(k + 3, 150))  # a cached neighbour for some, a full recount for others
        grow.merges[:] = model.merges  # 150 more merges arrive
        grow.invalidate()
        zjob = h.zipf_steps(k, chunk=16)
        ext = h.extending(chunk=5)
        z = None
        while z is None:  # interleave one unit of each, as the pane's slices can
            try:
                next(zjob)
            except StopIteration as stop:
                z = stop.value
            next(ext, None)
        assert z == full.zipf(k)
        assert sorted(z.counts) == sorted(tokenizer_pairs(counts, model, k).values())
        finish(ext)
        assert h.n_merges == 300 and h.zipf(300) == full.zipf(300)


def test_sliced_runs_at_least_one_unit_and_keeps_the_result() -> None:
    def job():
        for _ in range(5):
            yield
        return "r"

    s = Sliced(job())
    assert s.run(0.0) is False and s.units == 1  # a zero budget still makes progress
    while not s.run(0.0):
        pass
    assert s.done and s.result == "r" and s.units == 6
    assert s.run(0.0) is True


def test_releasing_empties_the_history_in_units(topics_bytes) -> None:
    counts, model, _ = topics_bytes
    h = SegmentationHistory(counts, model)
    h.zipf(10)
    units = sum(1 for _ in h.releasing(chunk=50))
    assert units > len(counts) // 50  # several units, not one big deallocation
    assert not (h._segs or h._ranks or h._changed or h._where or h._live or h._cache or h.wcounts)


def test_dropping_empties_only_what_nothing_else_holds() -> None:
    from bpe_desktop.core.measure.stats.slicing import dropping

    freed: list[str] = []

    class Item:
        def __init__(self, name: str) -> None:
            self.name = name

        def __del__(self) -> None:
            freed.append(self.name)

    shared = [Item("shared") for _ in range(6)]
    run = {"records": shared}  # e.g. a run that keeps its records after the session let go of them
    del shared
    objs: list[object] = [run["records"], {i: Item("dict") for i in range(6)}, Item("alone")]
    units = sum(1 for _ in dropping(objs, n=4))
    assert objs == []
    assert sorted(freed) == ["alone"] + ["dict"] * 6  # the lone dict emptied, the lone object freed
    assert len(run["records"]) == 6  # held elsewhere: let go of, never emptied
    assert units == 1 + (2 + 1) + 1  # the shared list, the dict in two chunks, the object


def test_dropping_frees_a_lone_list_a_chunk_at_a_time() -> None:
    from bpe_desktop.core.measure.stats.slicing import dropping

    seen: list[int] = []

    class Item:
        def __del__(self) -> None:
            seen.append(1)

    objs: list[object] = [[Item() for _ in range(10)]]
    job = dropping(objs, n=4)
    freed_per_unit = []
    for _ in job:
        freed_per_unit.append(len(seen))
    assert freed_per_unit[:3] == [4, 8, 10]  # 4 + 4 + 2 items, one chunk a unit
    assert len(seen) == 10
