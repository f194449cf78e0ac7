"""The training controller's per-wake-up budget and the throttles that keep the GUI thread's ticks short.

No worker process here: the test writes the worker's messages into a pipe itself and calls the drain the way
the socket notifier does, counting what each wake-up hands to the session (never timing it).
"""

from __future__ import annotations

import multiprocessing as mp

import pytest
from PySide6 import QtCore, QtWidgets

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.training.trainer import Trainer
from bpe_desktop.gui.panes import why as why_mod
from bpe_desktop.gui.panes.merge_list import MergeListPane
from bpe_desktop.gui.panes.status_bar import StatusBar
from bpe_desktop.gui.panes.timeline import TimelinePane
from bpe_desktop.gui.panes.why import WhyPanel
from bpe_desktop.gui.session import Session
from bpe_desktop.gui.training import controller as controller_mod
from bpe_desktop.gui.training.controller import TrainingController
from bpe_desktop.gui.training.protocol import Finished, Records, StateChanged, StopReason, TrainingState, row_of
from bpe_desktop.gui.widgets.elided_label import ElidedLabel


@pytest.fixture
def trained(topics_text: str):
    t = Trainer({w: 1 for w in topics_text.split()[:20_000]}, TrainConfig(merges=700))
    return t, t.run()


def _wired(qtbot, trained):
    t, recs = trained
    s = Session()
    s.set_counted(s.word_counts, t.initial_symbols, s.held_out)
    s.reset_model(t.model.truncated(0))
    s.set_state(TrainingState.TRAINING)
    ctl = TrainingController(s)
    parent, child = mp.Pipe(duplex=True)
    ctl.connect_pipe(parent)  # what start() sets up, without a worker process
    return s, ctl, parent, child, recs


def test_a_drain_hands_at_most_its_budget_of_records_and_keeps_their_order(qtbot, trained, monkeypatch) -> None:
    monkeypatch.setattr(controller_mod, "MAX_RECORDS_PER_DRAIN", 100)
    monkeypatch.setattr(controller_mod, "DRAIN_BUDGET_S", 10.0)  # only the record budget limits a wake-up
    s, ctl, parent, child, recs = _wired(qtbot, trained)
    batches: list[tuple[int, int]] = []
    s.recordsAppended.connect(lambda a, b: batches.append((a, b)))
    for i in range(0, 600, 150):  # a backlog: four batches of 150 rows queued before the GUI thread wakes up
        child.send(Records([row_of(r) for r in recs[i : i + 150]]))
    child.send(StateChanged(TrainingState.PAUSED))
    for i in range(600, len(recs), 37):
        child.send(Records([row_of(r) for r in recs[i : i + 37]]))
    child.send(Finished(StopReason.MERGES, "reached 700 merges"))

    handed: list[int] = []
    ctl.drain()
    handed.append(ctl.drained)
    while ctl.backlog or parent.poll(0):
        ctl.drain()  # what the next event-loop turns do (the controller's own zero-timer or the notifier)
        handed.append(ctl.drained)
        assert len(handed) < 100
    assert max(handed) == 100 and all(n <= 100 for n in handed)
    assert sum(handed) == len(recs)
    assert [r.rank for r in s.records] == list(range(1, len(recs) + 1))
    assert s.records == recs  # every record, in order, unchanged
    assert all(b - a + 1 <= 100 for a, b in batches)
    # the paused message was handled between ranks 600 and 601, and the end state is the plain one
    assert s.state is TrainingState.FINISHED and s.stop_reason is StopReason.MERGES
    assert s.stop_text == "reached 700 merges"
    assert s.step == len(recs)  # it followed the newest merge to the end
    assert not ctl.backlog


def test_following_the_newest_merge_is_throttled_while_training_but_ends_at_the_end(qtbot, trained) -> None:
    s, ctl, _, child, recs = _wired(qtbot, trained)
    steps: list[int] = []
    s.stepChanged.connect(steps.append)
    for i in range(0, 600, 20):  # 30 wake-ups in quick succession while training
        child.send(Records([row_of(r) for r in recs[i : i + 20]]))
        ctl.drain()
    assert len(s.records) == 600
    assert len(steps) < 30  # not one step change per wake-up
    qtbot.waitUntil(lambda: s.step == 600, timeout=2000)  # ... but the step catches up by itself
    # scrubbing back stops following: later records do not pull the step forward
    s.set_step(100)
    child.send(Records([row_of(r) for r in recs[600:650]]))
    ctl.drain()
    qtbot.wait(controller_mod.FOLLOW_EVERY_MS + 50)
    assert s.step == 100
    s.set_step(s.n_steps)  # back at the end: following again; the end of the run shows the last merge
    child.send(Records([row_of(r) for r in recs[650:]]))
    child.send(Finished(StopReason.MERGES, "reached 700 merges"))
    ctl.drain()
    # the run's end (every pane reacts, the window repaints) waits for the next turn of the event loop
    assert s.state is TrainingState.TRAINING and s.n_steps == len(recs) and ctl.backlog == 1
    qtbot.waitUntil(lambda: s.state is TrainingState.FINISHED)  # the controller's own zero-timer
    assert s.step == len(recs) == s.n_steps and not ctl.backlog


def test_batches_of_a_followed_run_show_their_count_with_the_followed_step(qtbot, trained) -> None:
    """While the step follows a streaming run, a batch of records alone changes no label (each one cost a window
    repaint): the timeline, the status line and the progress show the count when the followed step moves."""
    s, ctl, _, child, recs = _wired(qtbot, trained)
    host = QtWidgets.QWidget()
    qtbot.addWidget(host)
    bar, tl = StatusBar(s, host), TimelinePane(s, host)
    counts: list[int] = []
    progress: list[int] = []
    s.countChanged.connect(lambda: counts.append(s.n_steps))
    s.progressChanged.connect(lambda _stage, done, _total: progress.append(done))
    child.send(Records([row_of(r) for r in recs[0:20]]))
    ctl.drain()  # the first batch: the step moves at once (nothing was followed for a while)
    assert s.step == 20 and counts == [20] and tl.slider.maximum() == 20
    for i in range(20, 200, 20):  # more batches within the follow interval
        child.send(Records([row_of(r) for r in recs[i : i + 20]]))
        ctl.drain()
    assert len(s.records) == 200 and s.step == 20  # recorded, not yet shown ...
    assert counts == [20] and tl.slider.maximum() == 20 and "20/20" in bar.step_label.text()
    assert progress[-1] == 20
    qtbot.waitUntil(lambda: s.step == 200, timeout=2000)  # ... shown together with the followed step
    assert counts == [20, 200] and tl.slider.maximum() == 200 and "200/200" in bar.step_label.text()
    assert progress[-1] == 200
    s.set_step(50)  # scrubbed back: not following, so each batch shows its count at once
    child.send(Records([row_of(r) for r in recs[200:230]]))
    ctl.drain()
    assert counts[-1] == 230 and tl.slider.maximum() == 230 and progress[-1] == 230 and s.step == 50


def test_why_panel_refreshes_at_most_once_per_burst_while_training(qtbot, trained) -> None:
    t, recs = trained
    s = Session()
    s.reset_model(t.model.truncated(0))
    why = WhyPanel(s)
    qtbot.addWidget(why)
    s.set_state(TrainingState.TRAINING)
    before = why.refreshes
    for i in range(0, 300, 10):
        s.append_records(recs[i : i + 10])
        s.set_step(s.n_steps)
    assert why.refreshes == before  # nothing yet: the burst waits for the timer
    qtbot.waitUntil(lambda: why.refreshes == before + 1, timeout=2 * why_mod.TRAINING_EVERY_MS + 1000)
    assert why.title.text().startswith("Merge 300:")
    s.set_step(120)
    s.set_state(TrainingState.FINISHED)  # the end of the run shows the step at once
    assert why.title.text().startswith("Merge 120:")
    s.set_step(5)  # not training: at once
    assert why.title.text().startswith("Merge 5:")


def test_streaming_labels_have_fixed_sizes(qtbot, trained) -> None:
    """A label whose size is not fixed both ways relayouts the window whenever its text changes."""
    t, recs = trained
    s = Session()
    s.set_counted(s.word_counts, t.initial_symbols, s.held_out)
    s.reset_model(t.model.truncated(0))
    host = QtWidgets.QWidget()
    qtbot.addWidget(host)
    bar, tl, ml = StatusBar(s, host), TimelinePane(s, host), MergeListPane(s, host)
    s.set_state(TrainingState.TRAINING)
    for i in range(0, len(recs), 70):
        s.append_records(recs[i : i + 70])
        s.set_step(s.n_steps)
    labels = [bar.step_label, bar.vocab_label, bar.tokens_label, bar.ratio_label, bar.rate_label,
              tl.label, tl.low_label, tl.high_label, tl.jump, ml.count_label]
    for w in labels:  # fixed both ways, or an elided label whose size hint does not follow its text
        assert w.minimumSize() == w.maximumSize() or (isinstance(w, ElidedLabel) and not w.relayouts_on_text), w
    for w in (tl.label, tl.low_label, tl.high_label, ml.count_label):  # and the text still fits (or is elided
        if isinstance(w, ElidedLabel):  # with the whole text in its tooltip)
            assert w.shown_text() == w.text() or w.text() in w.toolTip(), w.text()
            continue
        assert w.fontMetrics().horizontalAdvance(w.text()) <= w.width(), w.text()
    assert ml.count_label.text() == f"{len(recs):,} merges"
    assert tl.label.text().startswith(f"step {len(recs):,} / {len(recs):,}")


def test_merge_view_goes_through_the_filter_proxy_only_while_filtering(qtbot, trained) -> None:
    t, recs = trained
    s = Session()
    s.reset_model(t.model.truncated(0))
    pane = MergeListPane(s)
    qtbot.addWidget(pane)
    s.append_records(recs)
    s.set_step(40)
    assert pane.view.model() is pane.table_model and pane.view.currentIndex().row() == 39
    token = pane.table_model.index(39, 3).data(QtCore.Qt.ItemDataRole.UserRole)
    pane.set_filter(token)
    assert pane.view.model() is pane.proxy
    shown = [pane.proxy.mapToSource(pane.proxy.index(r, 0)).row() for r in range(pane.proxy.rowCount())]
    assert 39 in shown and all(token.lower() in pane.table_model.index(r, 3).data(QtCore.Qt.ItemDataRole.UserRole)
                               .lower() for r in shown)
    assert pane.proxy.mapToSource(pane.view.currentIndex()).row() == 39  # the step's row stays selected
    pane.view.selectRow(0)
    assert s.step == shown[0] + 1
    pane.set_filter("")
    assert pane.view.model() is pane.table_model and pane.view.currentIndex().row() == shown[0]
    pane.view.selectRow(9)  # selecting still moves the timeline
    assert s.step == 10


def test_plot_step_marks_move_with_the_next_refresh_while_training(qtbot, trained) -> None:
    from bpe_desktop.gui.plots.panel import PlotsPanel

    t, recs = trained
    s = Session()
    s.set_counted(s.word_counts, t.initial_symbols, s.held_out)
    s.reset_model(t.model.truncated(0), recs)
    panel = PlotsPanel(s)
    qtbot.addWidget(panel)
    panel.show()
    s.set_step(30)  # not training: at once
    assert panel.compression.step_line.value() == 30
    s.set_state(TrainingState.TRAINING)
    s.set_step(300)
    assert panel.compression.step_line.value() == 30  # left to the throttled refresh ...
    qtbot.waitUntil(lambda: panel.compression.step_line.value() == 300, timeout=2000)  # ... which moves it
    assert panel.compression.step_line_bottom.value() == 300



def test_merge_rows_are_inserted_in_batches_while_training(qtbot, trained) -> None:
    """Inserting rows repaints the whole table: while training, the records of TRAINING_ROWS_EVERY_MS become rows
    together and the newest is selected with them (the count says the truth meanwhile); after the run, at once."""
    from bpe_desktop.gui.panes.merge_list import MergeListPane

    t, recs = trained
    s = Session()
    s.reset_model(t.model.truncated(0))
    s.set_state(TrainingState.TRAINING)
    pane = MergeListPane(s)
    qtbot.addWidget(pane)
    inserted: list[tuple[int, int]] = []
    pane.table_model.rowsInserted.connect(lambda _p, a, b: inserted.append((a, b)))
    for i in range(0, 300, 30):  # ten batches, as the worker streams them
        s.append_records(recs[i:i + 30])
    assert pane.table_model.rowCount() == 0 and pane.count_label.text() == "300 merges"
    qtbot.waitUntil(lambda: pane.table_model.rowCount() == 300, timeout=2000)
    assert inserted == [(0, 299)]  # one insertion for the ten batches
    s.append_records(recs[300:330])
    s.set_step(330)  # the followed step: its row is selected with the next batch ...
    assert pane.table_model.rowCount() == 300
    qtbot.waitUntil(lambda: pane.table_model.rowCount() == 330 and pane.view.currentIndex().row() == 329,
                    timeout=2000)
    s.set_state(TrainingState.FINISHED)
    s.set_step(100)  # ... and at once when no run streams
    assert pane.view.currentIndex().row() == 99
    s.append_records(recs[330:340])
    assert pane.table_model.rowCount() == 340
