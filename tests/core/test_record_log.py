"""RecordLog, the compact store of a run's records: what comes out is what went in, field for field (indexing,
negative indexes, slices, the columns the native file writes), also for numbers beyond int64; and it is smaller
than the records themselves."""

from __future__ import annotations

import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig, train
from bpe_desktop.core.records import MergeRecord, RecordLog

texts = st.text(st.sampled_from("ab\u0120\U0001f600\udc80 "), max_size=4)
ints = st.one_of(st.integers(-5, 300), st.integers(-(2**70), 2**70))
records = st.builds(
    MergeRecord, ints, texts, texts, texts, ints, ints, ints, ints, ints, ints, ints, ints,
    st.lists(st.tuples(texts, texts, ints), max_size=7).map(tuple),
)
FIELDS = ("rank", "left", "right", "token", "left_id", "right_id", "token_id", "count", "merged", "symbols_after",
          "vocab_size", "words_touched", "contenders")


@settings(max_examples=60, deadline=None)
@given(recs=st.lists(records, max_size=12), cut=st.tuples(st.integers(-14, 14), st.integers(-14, 14),
                                                          st.sampled_from([None, 1, 2, -1, 3])))
def test_records_come_back_field_for_field(recs, cut) -> None:
    log = RecordLog(recs)
    assert len(log) == len(recs) and list(log) == recs
    assert all(log[i] == recs[i] and log[-1 - i] == recs[-1 - i] for i in range(len(recs)))
    a, b, step = cut
    assert log[a:b:step] == recs[a:b:step]
    for name in FIELDS:
        start, stop = max(a, 0), max(b, 0)
        assert log.column(name, start, stop) == [getattr(r, name) for r in recs[start:stop]]
    with pytest.raises(IndexError):
        log[len(recs)]
    with pytest.raises(IndexError):
        log[-len(recs) - 1]


def test_a_real_run_comes_back_and_is_held_in_a_fraction_of_the_memory() -> None:
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", merges=300)
    words = {f" w{i % 97}x{i % 13}y{i % 7}": 1 + i % 5 for i in range(3000)}
    _, recs = train(words, cfg)
    assert len(recs) == 300 and sum(len(r.contenders) for r in recs) > 1000
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        log = RecordLog(recs)
        held = tracemalloc.get_traced_memory()[0] - base
        base = tracemalloc.get_traced_memory()[0]
        rebuilt = list(log)  # the records as objects again: what a list of them holds
        as_objects = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert rebuilt == recs
    assert held < as_objects / 2
