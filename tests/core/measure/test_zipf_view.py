"""What a Zipf plot draws of a step (ZipfView): computed without ordering every pair, it equals the whole table's
same ranks (the oracle: ``ZipfData.view`` over ``zipf_from_counts``'s table, itself checked against a recount
from scratch in test_stats.py): the counts at the drawn ranks, the top pairs, the fit and the next pair's rank,
with many equal counts, tables longer than the ranks drawn, and a next pair absent from the table."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig
from bpe_desktop.core.measure.stats import SegmentationHistory, drawn_ranks, finish
from bpe_desktop.core.measure.stats.replayed import ReplayedCounts
from bpe_desktop.core.measure.stats.results import EVERY_RANK_UP_TO, TAIL_RANKS, view_from_counts, zipf_from_counts
from bpe_desktop.core.training.kernel_trainer import kernel_built
from bpe_desktop.core.training.trainer import Trainer
from support import gpt2_bytes_run

TOKENS = [chr(ord("a") + i % 26) * (1 + i // 26) for i in range(80)]  # (distinct tokens, not in id order)
TOKENS.reverse()


def same(a: object, b: object) -> bool:
    return repr(a) == repr(b)  # (a fit of too few ranks is nan, never == itself)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(counts=st.dictionaries(st.tuples(st.integers(0, 79), st.integers(0, 79)), st.integers(1, 4), max_size=300),
       data=st.data())
def test_a_view_of_a_table_is_the_whole_table_s_same_ranks(counts, data) -> None:
    whole = finish(zipf_from_counts(3, counts, TOKENS.__getitem__, TOKENS.__getitem__))
    absent = (80, 80)
    nxt = data.draw(st.sampled_from([None, absent, *sorted(counts)[:50]]))
    got = finish(view_from_counts(3, counts, TOKENS.__getitem__, TOKENS.__getitem__, nxt, chunk=2))
    assert same(got, whole.view(nxt))
    if nxt is not None and nxt in counts:
        assert whole.pairs[got.next_rank - 1] == nxt and got.next_count == counts[nxt]
    else:
        assert got.next_rank is None and got.next_label is None


def test_a_long_table_is_drawn_through_fewer_ranks_and_they_are_exact() -> None:
    n = 6_000
    counts = {(i % 80, i // 80): 1 + (n - i) // 7 for i in range(n)}  # (runs of equal counts)
    whole = finish(zipf_from_counts(0, counts, TOKENS.__getitem__, TOKENS.__getitem__))
    for nxt in [whole.pairs[0], whole.pairs[4_321], whole.pairs[-1], (99, 99)]:
        got = finish(view_from_counts(0, counts, TOKENS.__getitem__, TOKENS.__getitem__, nxt))
        assert same(got, whole.view(nxt))
    ranks = drawn_ranks(n)
    assert got.n_pairs == n and len(ranks) < EVERY_RANK_UP_TO + TAIL_RANKS + 1 < n
    assert ranks[:EVERY_RANK_UP_TO] == list(range(1, EVERY_RANK_UP_TO + 1)) and ranks[-1] == n
    assert got.counts == [whole.counts[r - 1] for r in ranks] and ranks == sorted(set(ranks))
    assert finish(view_from_counts(0, {}, TOKENS.__getitem__, TOKENS.__getitem__, (1, 2))).n_pairs == 0


def test_the_history_s_view_is_its_table_s(topics_text) -> None:
    counts, t = gpt2_bytes_run(topics_text[:20_000], 50)
    h = SegmentationHistory(counts, t.model)
    for k in (50, 0, 17, 49, 3):
        nxt = t.model.merges[k] if k < 50 else None
        assert same(finish(h.view_steps(k, nxt, chunk=3)), h.zipf(k).view(nxt)), k


@pytest.mark.skipif(not kernel_built(), reason="the compiled kernel is not built")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpus=st.dictionaries(st.text(alphabet="abcé d", min_size=1, max_size=8), st.integers(1, 6), min_size=1,
                              max_size=14),
       mode=st.sampled_from(["chars", "bytes"]), tie=st.sampled_from(["hf", "lexical", "subword-nmt"]),
       data=st.data())
def test_the_replayed_counts_view_is_the_history_s_forwards_and_backwards(corpus, mode, tie, data) -> None:
    cfg = TrainConfig(mode=mode, tie_break=tie, merges=12)
    t = Trainer(dict(corpus), cfg, pure=True)
    t.run()
    model = t.model
    oracle = SegmentationHistory(corpus, model)
    grown = model.truncated(0)
    r = ReplayedCounts(corpus, grown)
    assert finish(r.building()) is True
    grown.extend_merges(model.merges)
    finish(r.extending())
    last = len(model.merges)
    for k in [last, 0, *data.draw(st.lists(st.integers(0, last), max_size=4)), last // 2, last]:
        nxt = model.merges[k] if k < last else data.draw(st.sampled_from([None, (0, 1), (10**6, 1)]))
        assert same(finish(r.view_steps(k, nxt, chunk=2)), oracle.zipf(k).view(nxt)), k


@settings(max_examples=30, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(), st.text(max_size=4), st.floats(allow_nan=False)), max_size=30),
       every=st.integers(1, 40))
def test_a_csv_written_in_pieces_is_the_csv_text(rows, every) -> None:
    """The process writes an export's CSV in pieces (csv_chunks); joined they are csv_text's, quoting and all."""
    from bpe_desktop.core.io.csv_table import csv_chunks, csv_text

    chunks = list(csv_chunks(("a", "b", "c"), rows, every))
    assert "".join(chunks) == csv_text(("a", "b", "c"), rows)
    assert len(chunks) == max(1, -(-len(rows) // every))  # (a piece per *every* rows, the header with the first)
