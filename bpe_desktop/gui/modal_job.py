"""Work the window must wait for (reading a big tokenizer: o200k's 200k merges are recovered from its ranks;
reading a big session file) done on a helper thread while a modal progress dialog keeps the window painted
and offers Cancel.

:func:`run_modal` returns the job's result as a plain call would, or raises what the job raised; the
dialog blocks input to the other windows meanwhile, so nothing else can change under the job.  The job
reports through its :class:`Progress` (a plain object the GUI thread polls; the job never touches Qt), and
Cancel makes the job's next report raise :class:`Cancelled`.  The helper thread runs Python, so it shares
the GIL with the GUI thread: the interpreter hands the GIL over every switch interval, which is what keeps
the GUI thread's stalls short (measured in benchmarks/RESULTS.md, "Bundled encodings"); the call returns a turn
after the dialog closed, so closing it and what the caller does next are not one stall (the user's input is
dropped in that turn, as the dialog dropped it); the cyclic
collector is paused meanwhile and what exists frozen (:mod:`.widgets.gc_policy`), since a full collection
over the job's new objects would hold the GIL as long as anything else.  It leaves out
what the jobs do and any work that may run on the GUI thread itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from PySide6 import QtCore, QtWidgets

from . import helper_threads
from .widgets.gc_policy import GcPolicy

T = TypeVar("T")
POLL_MS = 40  # how often the dialog reads the job's progress (and notices that it ended)
END_MS = 1  # the job ended: the dialog closes, and this later (a timer: the timers due run first) the call returns
GC_FREEZE_EVERY_S = 0.5  # the job's objects live on: a full collection scanning them would stall the window


_E = QtCore.QEvent.Type
_INPUT = frozenset((_E.MouseButtonPress, _E.MouseButtonRelease, _E.MouseButtonDblClick, _E.KeyPress, _E.KeyRelease,
                    _E.ShortcutOverride, _E.Shortcut, _E.Wheel, _E.ContextMenu, _E.DragEnter, _E.DragMove, _E.Drop,
                    _E.TouchBegin, _E.TouchUpdate, _E.TouchEnd))


class _InputHeld(QtCore.QObject):
    """An application event filter that drops the user's input: the dialog has closed, but until the caller
    has the result nothing may change under it (timers and paints still run)."""

    def eventFilter(self, obj: QtCore.QObject, event: QtCore.QEvent) -> bool:
        return event.type() in _INPUT


class Cancelled(Exception):
    """The user cancelled the job: nothing it made is kept."""


@dataclass
class Progress:
    """What a job reports: its stage's words and how far it is (``total`` 0: no count to show)."""

    stage: str = ""
    done: int = 0
    total: int = 0
    cancelled: bool = False

    def step(self, done: int, total: int) -> None:
        """Report *done* of *total*; raises :class:`Cancelled` once the user has cancelled."""
        self.done, self.total = done, total
        self.check()

    def check(self) -> None:
        if self.cancelled:
            raise Cancelled


def run_modal(parent: QtWidgets.QWidget | None, title: str, job: Callable[[Progress], T]) -> T:
    """Run *job* on the ``jobs`` helper thread behind a modal progress dialog; its result or its exception
    (:class:`Cancelled` after Cancel)."""
    progress = Progress(stage=title)
    future = helper_threads.pool("jobs").submit(job, progress)
    dialog = QtWidgets.QProgressDialog(title, "Cancel", 0, 0, parent)
    dialog.setWindowTitle(title)
    dialog.setWindowModality(QtCore.Qt.WindowModality.ApplicationModal)
    dialog.setMinimumDuration(0)
    dialog.setAutoClose(False)
    dialog.setAutoReset(False)
    dialog.canceled.connect(lambda: setattr(progress, "cancelled", True))
    loop = QtCore.QEventLoop()
    timer = QtCore.QTimer()
    timer.setInterval(POLL_MS)

    app = QtCore.QCoreApplication.instance()
    held = _InputHeld()

    def poll() -> None:
        if future.done():  # the dialog goes in this turn, the caller's next work (a result shown) in a later one
            timer.stop()
            if app is not None:
                app.installEventFilter(held)  # the window takes no input until the call has returned
            dialog.close()
            QtCore.QTimer.singleShot(END_MS, loop.quit)
            return
        if dialog.wasCanceled():  # the button, Esc or closing the dialog (cancel() emits no signal)
            progress.cancelled = True
        if progress.cancelled:
            dialog.setLabelText("Cancelling…")
            return
        dialog.setLabelText(progress.stage)
        if progress.total:
            dialog.setMaximum(progress.total)
            dialog.setValue(progress.done)

    gc_policy = GcPolicy(GC_FREEZE_EVERY_S)
    timer.timeout.connect(gc_policy.tick)
    timer.timeout.connect(poll)
    gc_policy.pause()
    timer.start()
    dialog.show()
    try:
        if not future.done():
            loop.exec()
    finally:
        gc_policy.resume()
        if app is not None:
            app.removeEventFilter(held)
    timer.stop()
    dialog.close()
    dialog.deleteLater()
    return future.result()
