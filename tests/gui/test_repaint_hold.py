"""Issue 25's latency rule: work that changes many widgets and the paint it causes fall in different turns of the
event loop (:mod:`bpe_desktop.gui.widgets.repaint_hold`), so a timer due meanwhile runs between them.  Counted in
paint events and in what was painted, never by the clock; and no paint is ever lost or shows an older text."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6 import QtCore, QtGui, QtWidgets

from bpe_desktop.gui.widgets.repaint_hold import FRAME_MS, HOLD_MS, hold_repaint, repaint_held


class _Painted(QtWidgets.QWidget):
    """A widget that records the text it painted, each time it paints."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.text = ""
        self.painted: list[str] = []

    def set_text(self, text: str) -> None:
        self.text = text
        self.update()

    def paintEvent(self, _e: QtGui.QPaintEvent) -> None:
        self.painted.append(self.text)


def _shown(qtbot) -> tuple[QtWidgets.QWidget, _Painted]:
    top = QtWidgets.QWidget()
    qtbot.addWidget(top)
    child = _Painted(top)
    child.resize(50, 20)
    top.resize(100, 60)
    top.show()
    qtbot.waitExposed(top)
    qtbot.waitUntil(lambda: bool(child.painted))
    child.painted.clear()
    return top, child


def _posted() -> None:
    """What a turn does after a slot returns: the posted events (a paint among them), not the timers."""
    QtCore.QCoreApplication.sendPostedEvents()


def test_a_held_window_paints_on_a_later_turn_after_the_timers_due(qtbot) -> None:
    top, child = _shown(qtbot)
    child.set_text("a")
    _posted()
    assert child.painted == ["a"]  # not held: painted with the posted events, in the slot's own turn
    order: list[str] = []
    due = QtCore.QTimer(top)  # a timer already due when the slot returns (the probe, input)
    due.setSingleShot(True)
    due.timeout.connect(lambda: order.append(f"timer, painted {len(child.painted)}"))
    due.start(0)
    hold_repaint(child)
    child.set_text("b")
    assert repaint_held(top) and repaint_held(child)
    _posted()
    assert child.painted == ["a"]  # the posted paint waits ...
    qtbot.waitUntil(lambda: child.painted == ["a", "b"])  # ... for one later turn, and then paints once
    assert order == ["timer, painted 1"] and not repaint_held(top)
    qtbot.wait(5 * HOLD_MS)
    assert child.painted == ["a", "b"]


def test_asking_again_while_held_does_not_put_the_paint_off_longer(qtbot) -> None:
    top, child = _shown(qtbot)
    hold_repaint(top)
    child.set_text("x")
    timer = top.findChild(QtCore.QTimer)
    assert timer is not None and timer.isActive()
    remaining = timer.remainingTime()
    hold_repaint(child)  # the same window's hold: not restarted
    assert timer.remainingTime() <= remaining
    qtbot.waitUntil(lambda: child.painted == ["x"])
    assert len(top.findChildren(QtCore.QObject, "repaint_hold")) == 1


def test_then_runs_after_the_held_paint_and_after_the_timers_due_during_it(qtbot) -> None:
    """The next piece of a result (the inspector's second tab) is not added to the paint's turn: a timer that
    fell due while the window painted (the probe, input) runs first."""
    top, child = _shown(qtbot)
    order: list[str] = []
    due = QtCore.QTimer(top)
    due.setSingleShot(True)
    due.timeout.connect(lambda: order.append("timer due during the paint"))
    real = child.paintEvent

    def paint(e: QtGui.QPaintEvent) -> None:
        real(e)
        order.append("paint")
        due.start(0)

    child.paintEvent = paint  # type: ignore[method-assign]
    hold_repaint(child, lambda: order.append("then"))
    hold_repaint(child, lambda: order.append("then, asked while held"))
    child.set_text("r")
    _posted()
    assert order == []
    qtbot.waitUntil(lambda: len(order) == 4)
    assert order == ["paint", "timer due during the paint", "then", "then, asked while held"]
    hold_repaint(child, lambda: order.append("then, nothing to paint"))  # runs all the same
    qtbot.waitUntil(lambda: len(order) == 5)
    assert child.painted == ["r"]


def test_nothing_dirty_while_held_posts_no_paint(qtbot) -> None:
    top, child = _shown(qtbot)
    hold_repaint(top)
    qtbot.waitUntil(lambda: not repaint_held(top))
    qtbot.wait(20)
    assert child.painted == []


_ACTIONS = st.lists(st.one_of(st.tuples(st.just("text"), st.text("abc", min_size=1, max_size=3)),
                              st.sampled_from([("hold",), ("posted",), ("turn",), ("repaint",)])),
                    max_size=12)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(actions=_ACTIONS)
def test_whatever_is_held_the_last_paint_shows_the_last_text(qtbot, actions) -> None:
    """Texts set, holds asked for, posted events sent, turns of the event loop and direct repaints in any
    order: once the holds end, what was painted last is the widget's text now (no paint lost or stale); a
    direct repaint paints at once when nothing holds it."""
    top, child = _shown(qtbot)
    child.set_text("start")
    qtbot.waitUntil(lambda: child.painted[-1:] == ["start"])
    for action in actions:
        if action[0] == "text":
            child.set_text(action[1])
        elif action[0] == "hold":
            hold_repaint(child)
        elif action[0] == "posted":
            _posted()
        elif action[0] == "turn":
            qtbot.wait(HOLD_MS + 1)
        else:
            n, held = len(child.painted), repaint_held(top)
            child.repaint()  # at once, unless held: then with the held paint
            assert child.painted[n:] == ([] if held else [child.text])
    qtbot.waitUntil(lambda: not repaint_held(top) and child.painted[-1:] == [child.text])
    top.close()


def test_first_runs_on_a_turn_of_its_own_between_the_work_and_the_paint(qtbot) -> None:
    """A pane that fills its widgets later (the corpus editor's preview of a run's file) asks for *first*: it
    runs after the hold's turn -- a timer due by then comes before it -- and the window is painted once, a frame
    after it (a timer due meanwhile runs first), with what it set (never with the old text beside the new)."""
    top, child = _shown(qtbot)
    order: list[str] = []
    due = QtCore.QTimer(top)
    due.setSingleShot(True)
    due.timeout.connect(lambda: order.append(f"timer, painted {child.painted}"))
    hold_repaint(child)
    child.set_text("work")
    after = QtCore.QTimer(top)  # a timer falling due within a frame of the first work: it runs before the paint
    after.setSingleShot(True)
    after.timeout.connect(lambda: order.append(f"timer after it, painted {child.painted}"))

    def first() -> None:
        order.append(f"first, painted {child.painted}, held {repaint_held(top)}")
        child.set_text("filled")
        after.start(FRAME_MS // 2)
        _posted()  # (its own turn's posted events: no paint)

    hold_repaint(child, first=first)
    due.start(0)
    _posted()
    assert child.painted == [] and order == []
    qtbot.waitUntil(lambda: bool(child.painted))
    qtbot.wait(5 * HOLD_MS)
    assert order == ["timer, painted []", "first, painted [], held True", "timer after it, painted []"]
    assert child.painted == ["filled"] and not repaint_held(top)
