"""Hold a window's repaint for a turn of the event loop: work that changes many widgets at once (a run shown, an
inspection's result) is one turn, and painting what it changed is the next.

Qt paints a window's dirty regions when the window receives an ``UpdateRequest``, an event it posts to itself
after the first ``update()``; posted events run before the next timers, so a slot's work and the paint it causes
used to fall in one turn, with no input (or any timer) read between them.  While held, the window's
``UpdateRequest`` is swallowed: the regions stay marked dirty (Qt posts no other request until one is handled),
and when the hold ends -- on a timer, so timers due meanwhile run first -- one is posted again.  What is painted
is exactly what would have been, a turn later, reading the session's state as it is then (a direct ``repaint()``
is held too -- Qt sends it as an ``UpdateRequest`` --; an expose event still paints at once).  A hold asked for
while one runs does not extend it, unless it brings work of its own to do before that paint (*first*: a pane
filling its widgets after the state it shows has changed): when the hold ends, that work runs on the turn after
(a queued event starts it, so the timers due by then come first), and the paint :data:`FRAME_MS` after that
-- the screen never shows the pane's old widgets beside the others' new ones.  Work to do once that paint is
done (*then*: the next piece of a result) runs :data:`FRAME_MS` after it -- an event queued behind the paint
starts that timer --, so the timers due during the paint and a frame after it (input, a probe) come first.  It
leaves out which work to hold for (the callers).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6 import QtCore, QtWidgets

from .timers import one_shot

#: a timer's interval, not a posted event: the timers already due (input, animations) run before the paint
HOLD_MS = 1
#: after *first* work the paint, and after a paint the *then* work, wait this long: the timers falling due within
#: a frame (a 10 ms probe, an animation's next step) run between two pieces of work, not after both
FRAME_MS = 10
_UPDATE_REQUEST = QtCore.QEvent.Type.UpdateRequest
_PAINTED = QtCore.QEvent.Type(QtCore.QEvent.registerEventType())  # queued behind the paint: it is done
_FIRST = QtCore.QEvent.Type(QtCore.QEvent.registerEventType())  # queued when the hold ends: its *first* work now
_LOW = QtCore.Qt.EventPriority.LowEventPriority.value  # (the priority Qt posts its own UpdateRequest with)


class _Hold(QtCore.QObject):
    """The hold of one window (a child of it, found again by :func:`hold_repaint`)."""

    def __init__(self, window: QtWidgets.QWidget) -> None:
        super().__init__(window)
        self.setObjectName("repaint_hold")
        self._window = window
        self._owed = False  # an UpdateRequest was swallowed: one is posted when the hold ends
        self._held = False
        self._end = one_shot(self, HOLD_MS, self.release)
        self._first: list[Callable[[], object]] = []  # to run on a turn of its own before the paint ...
        self._after_first = one_shot(self, FRAME_MS, self.release)  # ... which this ends the hold after
        self._then: list[Callable[[], object]] = []  # to run after this hold's paint ...
        self._due: list[Callable[[], object]] = []  # ... and after the last one's (its paint is queued)
        self._call_due = one_shot(self, FRAME_MS, self._run_due)

    @property
    def held(self) -> bool:
        return self._held

    def hold(self, then: Callable[[], object] | None = None, first: Callable[[], object] | None = None) -> None:
        if then is not None:
            self._then.append(then)
        if first is not None:
            self._first.append(first)
        if not self.held:
            self._held = True
            self._window.installEventFilter(self)
            self._end.start()

    def release(self) -> None:
        """End the hold (its timer does): the *first* work is queued, or the swallowed request posted again."""
        if self._first:
            QtCore.QCoreApplication.postEvent(self, QtCore.QEvent(_FIRST), _LOW)
            return
        self._held = False
        self._window.removeEventFilter(self)
        if self._owed:
            self._owed = False
            QtCore.QCoreApplication.postEvent(self._window, QtCore.QEvent(_UPDATE_REQUEST), _LOW)
        if self._then:
            self._due += self._then
            self._then = []
            QtCore.QCoreApplication.postEvent(self, QtCore.QEvent(_PAINTED), _LOW)

    def event(self, ev: QtCore.QEvent) -> bool:
        if ev.type() == _PAINTED:
            self._call_due.start()
            return True
        if ev.type() == _FIRST:
            first, self._first = self._first, []
            for work in first:
                work()
            self._after_first.start()  # (the paint: a frame later)
            return True
        return super().event(ev)

    def _run_due(self) -> None:
        due, self._due = self._due, []
        for then in due:
            then()

    def eventFilter(self, obj: QtCore.QObject, ev: QtCore.QEvent) -> bool:
        if obj is self._window and ev.type() == _UPDATE_REQUEST and self.held:
            self._owed = True
            return True
        return False


def hold_repaint(widget: QtWidgets.QWidget, then: Callable[[], object] | None = None,
                 first: Callable[[], object] | None = None) -> None:
    """Paint *widget*'s window on a later turn than this one, call *first* on a turn of its own before that
    paint and *then* on a turn after it (see the module docstring)."""
    window = widget.window()
    hold = window.findChild(_Hold, "repaint_hold", QtCore.Qt.FindChildOption.FindDirectChildrenOnly)
    (hold if hold is not None else _Hold(window)).hold(then, first)


def repaint_held(widget: QtWidgets.QWidget) -> bool:
    """*widget*'s window is holding its repaint (for tests and the benchmarks)."""
    hold = widget.window().findChild(_Hold, "repaint_hold", QtCore.Qt.FindChildOption.FindDirectChildrenOnly)
    return hold is not None and hold.held
