"""A big corpus's word counts cross the worker's pipe in parts, unpickled a part at a time between the GUI thread's
other work, and the session gets them whole, in the corpus's order, with the run's ``Started`` (never a part).

The controller tests write the worker's messages into a pipe themselves and call the drain as the socket notifier
does, counting what each wake-up did (never timing it); one test runs the real worker process on a corpus of more
distinct pieces than travel inside ``Started``.
"""

from __future__ import annotations

import multiprocessing as mp
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.counting.parted import PartedCounts
from bpe_desktop.core.counting.pieces import WordCounts
from bpe_desktop.core.counting.sources import CorpusSource, count_source
from bpe_desktop.core.training.trainer import Trainer
from bpe_desktop.gui.session import Session
from bpe_desktop.gui.training import controller as controller_mod
from bpe_desktop.gui.training import counts_parts
from bpe_desktop.gui.training.controller import TrainingController
from bpe_desktop.gui.training.counts_parts import Assembly, CountsPart, split
from bpe_desktop.gui.training.protocol import Finished, Records, Started, StopReason, TrainingState, row_of

counts_dicts = st.dictionaries(st.text(min_size=1, max_size=6), st.integers(1, (1 << 63) - 1), max_size=60)


@settings(max_examples=40, deadline=None)
@given(counts_dicts, st.integers(0, 70), st.integers(1, 9))
def test_the_parts_put_together_are_the_counts_in_their_order(counts, inline, size) -> None:
    words = WordCounts(dict(counts), 123)
    parts = list(split(words, inline, size))
    if len(counts) <= inline:
        assert parts == []
        return
    assert len(parts) == -(-len(counts) // size)  # every part full but the last
    assert all(len(pickle.loads(p.blob)) == size for p in parts[:-1])
    a = Assembly()
    for p in parts:
        a.add(p)
    rounds = 0
    while not a.decode(deadline=-1.0, clock=lambda: 0.0):  # a deadline already past: one part per call
        rounds += 1
    assert rounds == len(parts) - 1
    got = a.take(words.bytes_read)
    assert got == words and list(got.counts) == list(counts)  # equal, and in the corpus's order
    assert isinstance(got.counts, PartedCounts) and got.counts.n_parts == len(parts)  # (kept as the parts)
    assert len(a) == 0 and a.decode(0.0) is True  # it starts empty again


def test_a_half_unpickled_assembly_refuses_to_hand_its_counts_over() -> None:
    a = Assembly()
    for p in split(WordCounts({"a": 1, "b": 2, "c": 3}), inline=0, size=1):
        a.add(p)
    a.decode(deadline=-1.0, clock=lambda: 0.0)
    with pytest.raises(RuntimeError, match="not all unpickled"):
        a.take(0)


@pytest.fixture
def trained(topics_text: str):
    words = {w: i % 7 + 1 for i, w in enumerate(dict.fromkeys(topics_text.split()))}
    t = Trainer(dict(words), TrainConfig(merges=120))
    return WordCounts(words, 99), t, t.run()


def test_started_waits_for_its_parts_and_brings_the_whole_counts(qtbot, trained, monkeypatch) -> None:
    words, t, recs = trained
    monkeypatch.setattr(controller_mod, "COUNTS_BUDGET_S", -1.0)  # each wake-up unpickles one part, at most
    monkeypatch.setattr(controller_mod, "MAX_RECORDS_PER_DRAIN", 20)
    monkeypatch.setattr(controller_mod, "DRAIN_BUDGET_S", 10.0)  # only the item limit stops a read
    s = Session()
    s.set_state(TrainingState.COUNTING)
    ctl = TrainingController(s)
    parent, child = mp.Pipe(duplex=True)
    ctl.connect_pipe(parent)
    parts = list(split(words, inline=0, size=500))
    assert len(parts) >= 4
    for p in parts:
        child.send(p)
    child.send(Started(t.model.truncated(0), t.initial_symbols, WordCounts({}, words.bytes_read), False, None,
                       len(parts)))
    for i in range(0, len(recs), 10):
        child.send(Records([row_of(r) for r in recs[i : i + 10]]))
    child.send(Finished(StopReason.MERGES, "reached 120 merges"))
    resets: list[int] = []
    s.modelReset.connect(lambda: resets.append(len(s.word_counts.counts) if s.word_counts else -1))
    wakeups = most_waiting = 0
    started_turn = False
    while s.state is not TrainingState.FINISHED:
        ctl.drain()  # (what the notifier and the controller's own zero-timer call)
        wakeups += 1
        assert wakeups < 100
        if s.word_counts is None:  # until the counts are whole, the run has not started for the session
            assert not s.records and s.state is TrainingState.COUNTING
            most_waiting = max(most_waiting, ctl.backlog)
        elif not started_turn:  # Started's turn (every pane's reset) hands on no records: they wait for the next
            started_turn = True
            assert not s.records and ctl.backlog
    # meanwhile the pipe was read on, far past one wake-up's records (the worker is not held up by a full pipe)
    assert most_waiting >= len(recs) > 5 * controller_mod.MAX_RECORDS_PER_DRAIN
    assert wakeups >= len(parts) and started_turn
    assert resets == [len(words.counts)]  # the model was reset once, with the counts already there
    assert s.word_counts == words and list(s.word_counts.counts) == list(words.counts)
    assert s.initial_symbols == t.initial_symbols
    assert s.records == recs and s.step == len(recs)


def test_a_part_count_that_does_not_match_is_refused(qtbot, trained) -> None:
    words, t, _ = trained
    s = Session()
    ctl = TrainingController(s)
    parent, child = mp.Pipe(duplex=True)
    ctl.connect_pipe(parent)
    parts = list(split(words, inline=0, size=5000))
    for p in parts[1:]:  # one part lost
        child.send(p)
    child.send(Started(t.model.truncated(0), t.initial_symbols, WordCounts({}, 0), False, None, len(parts)))
    with pytest.raises(RuntimeError, match="parts of word counts came"):
        for _ in range(20):
            ctl.drain()
    assert s.word_counts is None


def test_the_worker_sends_a_big_corpus_s_counts_in_parts(qtbot, tmp_path) -> None:
    """A real worker process on more distinct pieces than travel inside Started: the window gets them whole."""
    n = counts_parts.INLINE_PIECES + 3 * counts_parts.PART_PIECES // 2
    path = tmp_path / "many.txt"
    path.write_text("\n".join(f"w{i} w{i % 97}" for i in range(n)), encoding="utf-8")
    config = TrainConfig(mode="bytes", pretokenizer="gpt2", merges=5)
    source = CorpusSource.from_files([str(path)])
    s = Session()
    ctl = TrainingController(s)
    seen: list[object] = []
    real = ctl._counts.add
    ctl._counts.add = lambda part: (seen.append(part), real(part))  # type: ignore[method-assign]
    ctl.start(source, config)
    try:
        qtbot.waitUntil(lambda: s.state is TrainingState.FINISHED, timeout=60_000)
    finally:
        ctl.shutdown()
    expected = count_source(source, config)
    assert len(expected.counts) > counts_parts.INLINE_PIECES
    assert len(seen) == -(-len(expected.counts) // counts_parts.PART_PIECES)
    assert all(isinstance(p, CountsPart) for p in seen)
    assert s.word_counts == expected and list(s.word_counts.counts) == list(expected.counts)
    assert s.records == Trainer(expected, config).run()  # (its trainer emptied the table it took: same merges)
