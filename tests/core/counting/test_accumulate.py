"""The compiled counting loop (``_accumulate.c``) against the Python loop it replaces in
``WordsFirst._count``: the same table in the same first-seen order, the same cache of known units (up to its
room), errors passed through; its field counter against ``Counter.update(text.split(" "))``; and a whole
count with and without it."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig
from bpe_desktop.core.counting import word_first
from bpe_desktop.core.counting.sources import CorpusSource, count_source

pytestmark = pytest.mark.skipif(word_first._accumulate is None, reason="the compiled counting loop is not built")

units = st.dictionaries(st.text("ab ç\n", max_size=6), st.integers(1, 10**20), max_size=15)


def _split(unit: str) -> list[str]:
    return unit.split(" ") if unit else []


def python_loop(counted, known, into, room):
    w = word_first.WordsFirst(_split)
    saved, word_first._accumulate = word_first._accumulate, None
    try:
        old = word_first.CACHE_FIELDS
        word_first.CACHE_FIELDS = room + len(known)
        w._count(counted, known, _split, into)
    finally:
        word_first._accumulate, word_first.CACHE_FIELDS = saved, old


@settings(max_examples=80, deadline=None)
@given(counted=units, start=st.dictionaries(st.text("ab ç", max_size=3), st.integers(1, 5), max_size=5),
       cached=st.lists(st.text("ab ç\n", max_size=6), max_size=4), room=st.integers(0, 6))
def test_the_compiled_loop_equals_the_python_loop(counted, start, cached, room) -> None:
    known = {u: ["cached", u] for u in cached}  # known units use their cached pieces, not a fresh split
    a_into, a_known = dict(start), dict(known)
    left = word_first._accumulate.accumulate(Counter(counted), a_known, _split, a_into, room)
    b_into, b_known = dict(start), dict(known)
    python_loop(Counter(counted), b_known, b_into, room)
    assert list(a_into.items()) == list(b_into.items())
    assert a_known == b_known and left == room - (len(a_known) - len(known))


def test_errors_of_the_split_pass_through() -> None:
    def boom(unit: str) -> list[str]:
        raise ValueError(unit)

    with pytest.raises(ValueError, match="x"):
        word_first._accumulate.accumulate({"x": 1}, {}, boom, {}, 5)
    with pytest.raises(TypeError):
        word_first._accumulate.accumulate({"x": 1}, {}, lambda u: 7, {}, 5)


def test_a_whole_count_is_the_same_without_it(tmp_path, monkeypatch) -> None:
    log = tmp_path / "log.txt"
    log.write_text("".join(f"[{i % 7}] robot  {i * 37 % 1000} moved to x={i}; ok\tç\n" for i in range(3000)),
                   encoding="utf-8")
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2")
    fast = count_source(CorpusSource.from_files([str(log)]), cfg).counts
    monkeypatch.setattr(word_first, "_accumulate", None)
    slow = count_source(CorpusSource.from_files([str(log)]), cfg).counts
    assert list(fast.items()) == list(slow.items())


@settings(max_examples=120, deadline=None)
@given(text=st.text(st.sampled_from(" ab\x00\x01ç\u20ac\U0001f600\udc80"), max_size=40),
       start=st.dictionaries(st.text(" ab\x00ç", max_size=3), st.integers(1, 10**20), max_size=5),
       repeat=st.integers(1, 300))
def test_counting_the_fields_equals_counter_update_of_split(text, start, repeat) -> None:
    # repeat: enough distinct fields to make the C hash table grow past its first size
    text = " ".join(f"{text}{i % repeat}" for i in range(repeat)) if repeat > 1 else text
    got, want = Counter(start), Counter(start)
    word_first._accumulate.count_fields(text, got)
    want.update(text.split(" "))
    assert list(got.items()) == list(want.items())  # the same counts, new fields in first-seen order


def test_counting_the_fields_refuses_what_is_not_text() -> None:
    with pytest.raises(TypeError):
        word_first._accumulate.count_fields(b"a b", {})
    with pytest.raises(TypeError):
        word_first._accumulate.count_fields("a b", [])
