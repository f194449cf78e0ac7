"""The GUI's Qt-free parts, without a window: the worker protocol, the drain backlog, the follow-newest and
animation timing policies (driven by a hand-moved clock), the token stream's row source and layout, the
GC policy, and why a run stopped."""

from __future__ import annotations

import gc
import multiprocessing as mp
import pickle
import subprocess
import sys

import pytest

from bpe_desktop.core import CorpusSource, TrainConfig, Trainer
from bpe_desktop.core.stopping import StopReason
from bpe_desktop.gui.stream.animation import MIN_ANIMATION_MS, AnimationTiming
from bpe_desktop.gui.stream.layout import GAP_Y, layout_row
from bpe_desktop.gui.stream.rows import RowSource
from bpe_desktop.gui.training import worker
from bpe_desktop.gui.training.backlog import Backlog
from bpe_desktop.gui.training.follow import FollowPolicy
from bpe_desktop.gui.training.protocol import (
    Command,
    Finished,
    More,
    Progress,
    Records,
    StateChanged,
    TrainingState,
    row_of,
)
from bpe_desktop.gui.widgets.gc_policy import GcPolicy
from support import SEED_000


def test_the_worker_and_its_protocol_load_no_qt() -> None:
    code = ("import sys, bpe_desktop.gui.training.worker, bpe_desktop.gui.training.protocol; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_messages_and_commands_cross_a_pipe_as_their_types() -> None:
    a, b = mp.Pipe(duplex=True)
    sent = [Progress("counting", 3, 10), StateChanged(TrainingState.PAUSED), Records([(1, "a")]),
            Finished(StopReason.MERGES, "reached 5 merges"), Command.STEP, More(7)]
    for m in sent:
        a.send(m)
    got = [b.recv() for _ in sent]
    assert got == sent and [type(g) for g in got] == [type(m) for m in sent]
    assert got[1].state is TrainingState.PAUSED and got[3].reason is StopReason.MERGES  # identity survives pickling
    assert pickle.loads(pickle.dumps(TrainingState.TRAINING)) is TrainingState.TRAINING


def test_worker_commands_pause_step_more_and_stop() -> None:
    a, b = mp.Pipe(duplex=True)
    cmds = worker.Commands(b, paused=False)
    a.send(Command.STEP)  # ignored unless paused
    a.send(Command.PAUSE)
    a.send(Command.STEP)
    a.send(More(12))
    cmds.poll()
    assert cmds.paused and cmds.steps == 1 and cmds.more == 12
    a.send(Command.RESUME)
    cmds.poll()
    assert not cmds.paused
    a.send(Command.STOP)
    with pytest.raises(worker.StopRequested):
        cmds.poll()


@pytest.mark.parametrize(("config", "reason", "text"), [
    (TrainConfig(merges=3), StopReason.MERGES, "reached 3 merges"),
    (TrainConfig(merges=None, vocab_size=12), StopReason.VOCAB_SIZE, "reached vocabulary size 12"),
    (TrainConfig(merges=None), StopReason.NO_PAIR, "no pair left to merge"),
    (TrainConfig(merges=None, min_frequency=7), StopReason.MIN_FREQUENCY, "below the minimum frequency 7"),
])
def test_the_trainer_says_why_it_stopped_as_a_value(config: TrainConfig, reason: StopReason, text: str) -> None:
    t = Trainer(SEED_000, config)
    t.run()
    assert t.stopped_by is reason and text in (t.stop_reason or "")
    assert reason.can_continue == (reason in (StopReason.MERGES, StopReason.VOCAB_SIZE))
    t.set_limits(merges=t.n_merges + 1)
    assert t.stopped_by is None


def test_backlog_reads_within_its_limit_and_hands_on_records_and_messages_in_order() -> None:
    a, b = mp.Pipe(duplex=True)
    recs = Trainer(SEED_000, TrainConfig(merges=7)).run()
    rows = [row_of(r) for r in recs]
    a.send(Records(rows[:3]))
    a.send(StateChanged(TrainingState.PAUSED))
    a.send(Records(rows[3:]))
    backlog = Backlog()
    assert backlog.read(b, deadline=float("inf"), limit=100) is False
    assert len(backlog) == 8  # 7 rows and one message
    first = list(backlog.take(limit=5))  # 3 records, the message, then 2 of the next 4
    assert first[0] == recs[:3] and first[1] == StateChanged(TrainingState.PAUSED) and first[2] == recs[3:5]
    assert list(backlog.take(limit=5)) == [recs[5:]] and len(backlog) == 0
    a.close()
    assert backlog.read(b, deadline=float("inf"), limit=100) is True  # the worker's end closed


def test_follow_policy_moves_at_once_then_at_most_every_interval(clock) -> None:
    f = FollowPolicy(every_ms=100, clock=clock)
    assert f.at_end(step=0, n_steps=0)
    assert f.due_in_ms(step=0, training=True) == 0 and f.catch_up(step=0)  # the first move is immediate
    clock.advance(0.03)
    assert f.due_in_ms(step=10, training=True) == 70  # 30 ms after the last move: wait the rest
    assert f.at_end(step=10, n_steps=20)  # a move is pending from step 10
    assert f.due_in_ms(step=10, training=False) == 0  # paused or finished: at once
    clock.advance(0.2)
    assert not f.catch_up(step=4)  # the user scrubbed to step 4 meanwhile: no move, stop following
    assert not f.at_end(step=4, n_steps=30)


def test_animation_timing_shrinks_to_fit_fast_steps_and_skips_jumps(clock) -> None:
    t = AnimationTiming(clock=clock)
    t.duration_ms = 400
    clock.advance(10)
    assert t.step_changed(0, 1) == 400  # after a pause: the whole animation
    clock.advance(0.2)
    assert t.step_changed(1, 2) == 170  # 200 ms later: 85 % of the interval
    clock.advance(0.01)
    assert t.step_changed(2, 3) == 0  # faster than MIN_ANIMATION_MS: redrawn
    assert int(10 * 0.85) < MIN_ANIMATION_MS
    clock.advance(10)
    assert t.step_changed(3, 9) == 0 and t.step_changed(9, 8, enabled=False) == 0  # a jump; animations off
    t.set_play_speed(2)
    assert t.duration_ms == 425


def test_row_source_reads_text_tables_and_edited_text() -> None:
    rows = RowSource()
    cfg = TrainConfig()
    rows.load(CorpusSource.from_text("one two\nthree\n"), cfg)
    assert rows.kind == "text" and rows.lines == ["one two\n", "three\n"] and rows.n_rows == 2
    rows.load(CorpusSource.from_text("low 5\nlower 2", word_counts=True), cfg)
    assert rows.kind == "words" and rows.words == [("low", 5), ("lower", 2)] and rows.row_text(1) == "lower"
    rows.load(CorpusSource.from_text("x"), cfg, display_text="edited text", trained=False)
    assert rows.n_rows == 0 and "Train" in rows.note
    table = CorpusSource.from_text("x 1", word_counts=True)
    rows.load(table, cfg, display_text="low 5", display_word_counts=True)
    assert rows.words == [("low", 5)] and not rows.note
    rows.load(table, cfg, display_text="low five", display_word_counts=True)  # mid-edit, does not parse:
    assert rows.words == [("low", 5)] and rows.note  # the last good rows stay, the note says why


def test_layout_wraps_boxes_to_the_width() -> None:
    segs = (1, 0, 1, "aaaa", 2, 1, 2, "bbbb", 3, 2, 3, "cccc")
    width_of = lambda s: 10.0 * len(s)
    one_line = layout_row(segs, 0.0, 1000, 20.0, width_of)
    assert one_line[0] == 20.0 and one_line[2][1::3] == (0.0, 0.0, 0.0)
    wrapped = layout_row(segs, 0.0, 110, 20.0, width_of)  # room for two 48 px boxes per line
    assert wrapped[2][1::3] == (0.0, 0.0, 20.0 + GAP_Y) and wrapped[0] == 2 * 20.0 + GAP_Y
    assert wrapped[1] is segs  # the segments themselves, not a copy


def test_gc_policy_pauses_and_restores_the_collector(clock) -> None:
    assert gc.isenabled()
    g = GcPolicy(every_s=0.5, clock=clock)
    try:
        g.pause()
        assert not gc.isenabled() and g.paused
        frozen = gc.get_freeze_count()
        garbage = [[] for _ in range(100)]
        g.tick()  # not yet due
        assert gc.get_freeze_count() == frozen
        clock.advance(1.0)
        g.tick()
        assert gc.get_freeze_count() >= frozen + len(garbage)
    finally:
        g.resume()
        gc.unfreeze()
    assert gc.isenabled() and not g.paused
