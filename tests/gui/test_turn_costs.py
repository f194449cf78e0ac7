"""Issue 24's window rule while a big log trains: the work a turn of the GUI thread does, counted, never timed.

- The token canvas encodes a new screen's rows and draws its box pictures ahead, at most ``ROWS_PER_TURN`` rows
  and ``PICTURES_PER_TURN`` pictures a turn, and paints it
  once they are all there: new rows (the Train press), a new model and a followed step far ahead cost a few short
  turns, not one paint that draws fifty pictures.  What it paints is what a paint drawing them itself would.
- A big file's rows are read on the helper thread from a later turn, not beside the Train press's own work.
- A dock draws its title only when its title bar is repainted, not under every label of its content that changes.
- The training controller hands ``Started`` (every pane's reset) on in a turn of its own, and while a backlog waits
  its turns come from its zero-timer alone, the pipe's notifier off, so a pipe that stays readable cannot run
  drain after drain ahead of every timer.
- A new training state (a run's start, pause, end) is every pane's reaction in one turn and the window's paint in
  the next (``hold_repaint``, as a run shown).
"""

from __future__ import annotations

import copy
import multiprocessing as mp

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from bpe_desktop.core import CorpusSource
from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.counting.pieces import WordCounts, count_text
from bpe_desktop.core.training.trainer import Trainer
from bpe_desktop.gui.session import Session
from bpe_desktop.gui.stream import ahead as ahead_mod
from bpe_desktop.gui.stream import canvas as canvas_mod
from bpe_desktop.gui.stream.ahead import ROWS_PER_TURN
from bpe_desktop.gui.stream.painting import PICTURES_PER_TURN
from bpe_desktop.gui.stream.view import TokenStreamView
from bpe_desktop.gui.training import controller as controller_mod
from bpe_desktop.gui.training.controller import TrainingController
from bpe_desktop.gui.training.counts_parts import split
from bpe_desktop.gui.training.protocol import Finished, Records, Started, StopReason, TrainingState, row_of
from support import shown


@pytest.fixture
def topics_run(topics_text: str):
    text = topics_text[:120_000]
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", merges=400)
    t = Trainer(count_text(text[:40_000], cfg), cfg)
    return text, cfg, t, t.run()


class _Counted:
    """The pictures each canvas paint and each preparing turn drew, in order: ("paint"|"turn", pictures)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.log: list[tuple[str, int]] = []
        self.encoded: list[tuple[str, int]] = []  # ("paint"|"turn", rows encoded)
        for owner, name, kind in ((canvas_mod.TokenCanvas, "paintEvent", "paint"), (ahead_mod.Ahead, "_turn", "turn")):
            real = getattr(owner, name)

            def counted(o, *a, _real=real, _kind=kind):  # type: ignore[no-untyped-def]
                c = o if _kind == "paint" else o._canvas
                before, rows = c.boxes.pixmaps_made, c.rows_encoded
                _real(o, *a)
                self.log.append((_kind, c.boxes.pixmaps_made - before))
                self.encoded.append((_kind, c.rows_encoded - rows))

            monkeypatch.setattr(owner, name, counted)

    def settle(self, qtbot, canvas) -> None:  # type: ignore[no-untyped-def]
        qtbot.waitUntil(lambda: not canvas.ahead.pending and canvas.viewport().updatesEnabled()
                        and bool(self.log) and self.log[-1][0] == "paint")  # (and the repaint it asked for)

    def check(self) -> None:
        turns = [n for kind, n in self.log if kind == "turn"]
        paints = [n for kind, n in self.log if kind == "paint"]
        assert len(turns) >= 2 and sum(turns) > PICTURES_PER_TURN, self.log  # a screen of new pictures, spread
        assert max(turns) <= PICTURES_PER_TURN, self.log
        assert paints and not any(paints), self.log  # every paint found its pictures drawn
        rows = [n for kind, n in self.encoded if kind == "turn"]
        assert sum(rows) > ROWS_PER_TURN and max(rows) <= ROWS_PER_TURN, self.encoded  # a screen, a few rows a turn
        assert not any(n for kind, n in self.encoded if kind == "paint"), self.encoded  # ... encoded ahead


def _view(qtbot, session: Session) -> TokenStreamView:
    return shown(qtbot, TokenStreamView(session), 900, 500)


def _cold_image(qtbot, session: Session, step: int) -> QtGui.QImage:
    """The canvas at *step* in a fresh view whose paint draws every picture itself (the path before)."""
    c = _view(qtbot, session).canvas
    qtbot.waitUntil(lambda: not c.ahead.pending and c.viewport().updatesEnabled())
    assert c.shown_step == step
    c.boxes.pixmaps.clear()
    made = c.boxes.pixmaps_made
    image = c.viewport().grab().toImage()
    assert c.boxes.pixmaps_made > made
    return image


def test_new_rows_and_a_new_model_are_drawn_ahead_in_bounded_turns(qtbot, topics_run, monkeypatch) -> None:
    text, cfg, t, recs = topics_run
    s = Session()
    s.set_corpus(CorpusSource.from_text(text[:60_000]), cfg)
    s.reset_model(copy.deepcopy(t.model).truncated(0))
    counted = _Counted(monkeypatch)  # (before the view's first paint: PySide looks a Python override up once)
    view = _view(qtbot, s)
    c = view.canvas
    counted.settle(qtbot, c)
    counted.log.clear()
    counted.encoded.clear()
    s.set_corpus(CorpusSource.from_text(text), cfg)  # new rows (what the Train press brings): the scroll bar shows
    s.reset_model(copy.deepcopy(t.model), recs)  # ... and a model at step 400: new tokens on every row
    counted.settle(qtbot, c)
    counted.check()
    assert c.shown_step == len(recs) and c.n_rows > 100
    shown = c.viewport().grab().toImage()
    assert shown == _cold_image(qtbot, s, len(recs))  # what is drawn is what a paint drawing them all draws


def test_a_followed_step_far_ahead_is_drawn_ahead_in_bounded_turns(qtbot, topics_run, monkeypatch) -> None:
    text, cfg, t, recs = topics_run
    s = Session()
    s.set_corpus(CorpusSource.from_text(text), cfg)
    s.reset_model(copy.deepcopy(t.model), recs)
    s.set_step(0)
    counted = _Counted(monkeypatch)  # (before the view's first paint: PySide looks a Python override up once)
    view = _view(qtbot, s)
    c = view.canvas
    counted.settle(qtbot, c)
    s.set_state(TrainingState.TRAINING)  # a followed step: no animation, the encoding in turns of its own
    counted.log.clear()
    counted.encoded.clear()
    s.set_step(len(recs))
    counted.settle(qtbot, c)
    counted.check()
    assert c.viewport().grab().toImage() == _cold_image(qtbot, s, len(recs))


def test_a_screen_of_more_pictures_than_the_cache_keeps_is_left_to_the_paint(qtbot, topics_run, monkeypatch) -> None:
    text, cfg, t, recs = topics_run
    s = Session()
    s.set_corpus(CorpusSource.from_text(text), cfg)
    s.reset_model(copy.deepcopy(t.model), recs)
    view = _view(qtbot, s)
    c = view.canvas
    c.boxes.pixmaps.limit = 8  # fewer than one screen needs: drawn ahead, some would be dropped before the paint
    c.boxes.pixmaps.clear()
    turns = [0]
    real = c.boxes.make_pictures

    def make(*a, **k):  # type: ignore[no-untyped-def]
        turns[0] += 1
        return real(*a, **k)

    c.boxes.make_pictures = make  # type: ignore[method-assign]
    s.reset_model(copy.deepcopy(t.model), recs)
    qtbot.waitUntil(lambda: not c.ahead.pending)
    assert turns[0] == 1  # not turn after turn, evicting its own pictures
    assert c.viewport().grab().toImage() == _cold_image(qtbot, s, len(recs))


def test_started_gets_a_turn_of_its_own_and_a_backlog_turns_on_the_timer(qtbot, topics_text, monkeypatch) -> None:
    words = {w: i % 7 + 1 for i, w in enumerate(dict.fromkeys(topics_text.split()))}
    t = Trainer(dict(words), TrainConfig(merges=60))
    recs = t.run()
    monkeypatch.setattr(controller_mod, "COUNTS_BUDGET_S", -1.0)  # a part per turn
    s = Session()
    s.set_state(TrainingState.COUNTING)
    ctl = TrainingController(s)
    parent, child = mp.Pipe(duplex=True)
    ctl.connect_pipe(parent)
    ctl._notifier = notifier = controller_mod.QtCore.QSocketNotifier(
        parent.fileno(), controller_mod.QtCore.QSocketNotifier.Type.Read, ctl)
    notifier.activated.connect(ctl.drain)  # what start() sets up for a worker's pipe
    parts = list(split(WordCounts(words, 5), inline=0, size=500))
    for p in parts:
        child.send(p)
    child.send(Started(t.model.truncated(0), t.initial_symbols, WordCounts({}, 5), False, None, len(parts)))
    child.send(Records([row_of(r) for r in recs]))
    child.send(Finished(StopReason.MERGES, "reached 60 merges"))
    turns: list[tuple[bool, int, bool]] = []  # (counts whole, records, notifier on) after each turn
    waited: list[tuple[int, bool]] = []  # (backlog, notifier on) after each turn
    real = ctl.drain

    def drain() -> None:
        real()
        turns.append((s.word_counts is not None, len(s.records), notifier.isEnabled()))
        waited.append((ctl.backlog, notifier.isEnabled()))

    ctl.drain = drain  # type: ignore[method-assign]
    notifier.activated.disconnect()
    notifier.activated.connect(ctl.drain)
    ctl._more.timeout.disconnect()
    ctl._more.timeout.connect(ctl.drain)
    qtbot.waitUntil(lambda: s.state is TrainingState.FINISHED, timeout=10_000)
    started = next(i for i, (whole, _, _) in enumerate(turns) if whole)
    assert turns[started][1] == 0  # the turn that reset every pane handed on no record
    assert turns[started + 1][1] > 0  # the records came on the next
    assert len(turns) >= len(parts) + 2
    # while a backlog waited, the notifier was off: the pipe woke the thread only once the backlog was empty
    assert all(on == (not backlog) for backlog, on in waited), waited
    assert sum(1 for backlog, _ in waited if backlog) >= len(parts)  # (a part a turn: the backlog waited)
    assert s.records == recs and s.step == len(recs)


def test_a_dock_draws_its_title_only_when_the_title_bar_is_repainted(qtbot) -> None:
    """A label in a dock changing (the timeline's step, while a run streams) repaints the label and, under it,
    its dock: the dock's title is not drawn again for that; a new title is."""
    from bpe_desktop.gui import app as gui_app
    from bpe_desktop.gui.widgets.dock import Dock

    gui_app.make_app()  # (the application's stylesheet: it draws the titles)
    main = QtWidgets.QMainWindow()
    qtbot.addWidget(main)
    dock = Dock("Timeline", main)
    label = QtWidgets.QLabel("step 0")
    dock.setWidget(label)
    main.addDockWidget(QtCore.Qt.DockWidgetArea.RightDockWidgetArea, dock)
    main.resize(600, 300)
    main.show()
    qtbot.waitUntil(lambda: dock.titles_drawn > 0)
    painted = _PaintEvents(dock)
    drawn = dock.titles_drawn
    for k in range(1, 5):
        label.setText(f"step {k:,}")
        qtbot.waitUntil(lambda: painted.n >= k)  # noqa: B023
    assert dock.titles_drawn == drawn  # four paint events, none drew the title
    dock.setWindowTitle("Timeline (renamed)")
    qtbot.waitUntil(lambda: dock.titles_drawn > drawn)
    dock.setFloating(True)  # floating, its frame runs round every edge: every paint is passed on
    qtbot.waitUntil(lambda: dock.isFloating() and dock.isVisible())
    drawn = dock.titles_drawn
    label.setText("step 5")
    qtbot.waitUntil(lambda: dock.titles_drawn > drawn)


class _PaintEvents(QtCore.QObject):
    def __init__(self, widget: QtCore.QObject) -> None:
        super().__init__()
        self.n = 0
        widget.installEventFilter(self)

    def eventFilter(self, obj: QtCore.QObject, ev: QtCore.QEvent) -> bool:
        self.n += ev.type() == QtCore.QEvent.Type.Paint
        return False


def test_the_rows_of_a_big_file_are_read_after_the_turn_that_asked_for_them(qtbot, tmp_path, monkeypatch) -> None:
    """The Train press in a new mode reads the stream's rows again on the helper thread: the read starts in a later
    turn, not beside the press's own work and repaint (its long calls hold the interpreter)."""
    from bpe_desktop.gui import helper_threads
    from bpe_desktop.gui.stream.row_loader import THREAD_BYTES

    path = tmp_path / "big.log"
    path.write_text("".join(f"[INFO] line {i} of a log for the helper thread\n" for i in range(THREAD_BYTES // 30)),
                    encoding="utf-8")
    submitted: list[object] = []
    pool = helper_threads.pool("rows")
    real = pool.submit
    monkeypatch.setattr(pool, "submit", lambda work: (submitted.append(work), real(work))[1])
    s = Session()
    view = _view(qtbot, s)
    c = view.canvas
    for mode in ("chars", "bytes"):  # a new mode: the rows are read again
        before = len(submitted)
        s.set_corpus(CorpusSource.from_files([str(path)]), TrainConfig(mode=mode, pretokenizer="gpt2"))
        assert c.loader.busy and len(submitted) == before  # due, not started inside this turn
        qtbot.waitUntil(lambda: not c.loader.busy, timeout=30_000)
        assert len(submitted) == before + 1 and c.row_text(0).startswith("[INFO] line 0 ")


def test_a_followed_step_of_one_merge_is_not_animated_while_a_run_streams(qtbot, topics_run) -> None:
    """An animation repaints every frame, each frame drawing the rows the merge changes box by box; while a run
    streams the next followed step comes 100 ms later anyway: one merge ahead is shown as one frame."""
    text, cfg, t, recs = topics_run
    s = Session()
    s.set_corpus(CorpusSource.from_text(text), cfg)
    s.reset_model(copy.deepcopy(t.model), recs)
    s.set_step(0)
    c = _view(qtbot, s).canvas
    qtbot.waitUntil(lambda: not c.ahead.pending)
    s.set_state(TrainingState.TRAINING)
    s.set_step(1)
    assert c.animations_started == 0 and not c.animating and c.ahead.pending
    s.set_state(TrainingState.FINISHED)
    qtbot.wait(700)  # (the timing shortens an animation that follows the last step change closely)
    s.set_step(2)  # stepping by hand still animates
    assert c.animations_started == 1 and c.animating


def test_the_merge_list_s_batches_fall_between_followed_steps() -> None:
    """A batch's interval starts with a followed step (the records and the step come in one turn): were it a multiple
    of the follow interval, every batch's repaint of the table would land in a followed step's gap."""
    from bpe_desktop.gui.panes.merge_list import TRAINING_ROWS_EVERY_MS

    off = TRAINING_ROWS_EVERY_MS % controller_mod.FOLLOW_EVERY_MS
    assert min(off, controller_mod.FOLLOW_EVERY_MS - off) >= controller_mod.FOLLOW_EVERY_MS // 4


class _Paints(QtCore.QObject):
    """Counts the paint events of *window*'s widgets (an application event filter)."""

    def __init__(self, window: QtWidgets.QWidget) -> None:
        super().__init__()
        self.window, self.n = window, 0

    def eventFilter(self, obj: QtCore.QObject, ev: QtCore.QEvent) -> bool:
        if ev.type() == QtCore.QEvent.Type.Paint and isinstance(obj, QtWidgets.QWidget) and obj.window() is self.window:
            self.n += 1
        return False


@pytest.mark.parametrize("state", [TrainingState.COUNTING, TrainingState.PAUSED, TrainingState.FINISHED])
def test_a_run_s_start_pause_and_end_are_painted_on_the_next_turn(qtbot, dialogs, state) -> None:
    """Every pane reacts to a new training state (the toolbar's actions, the status line, the panes' notes) in
    the turn that set it, and the window paints what changed in the next, so a timer due meanwhile (input) runs
    between the two; nothing is left unpainted."""
    from bpe_desktop.gui import app as gui_app
    from bpe_desktop.gui.widgets.repaint_hold import repaint_held

    gui_app.make_app()
    w = shown(qtbot, gui_app.make_window(remember_layout=False), 1200, 800)
    qtbot.wait(100)
    paints = _Paints(w)
    app = QtWidgets.QApplication.instance()
    app.installEventFilter(paints)
    try:
        w.session.set_state(state)
        QtCore.QCoreApplication.sendPostedEvents()  # the rest of the turn: layouts, no paint
        assert paints.n == 0 and repaint_held(w)
        qtbot.waitUntil(lambda: paints.n > 0)
        assert not repaint_held(w)
    finally:
        app.removeEventFilter(paints)
    assert dialogs == []
