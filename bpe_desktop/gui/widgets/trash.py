"""Freeing what a new run replaces a little at a time, after the GUI thread has answered.

When Train is pressed the session lets go of the last run's merge records, model and tokenizer, and the
plots of their statistics jobs.  Freed at once, that lengthened the press (the
merge records most of all), on top of resetting and repainting every pane.  :class:`Trash` takes such
objects and frees them in later event-loop turns, at most ``budget_ms`` a turn (the units of
:func:`~bpe_desktop.core.measure.stats.slicing.dropping`; a slice is at least one unit, so one big object still
costs its own free, just not inside the press).

It leaves out deciding what is garbage: callers hand over what they drop, and a list or dict that something
else still holds (a run in the Runs list keeps its records) is let go of, never emptied.
"""

from __future__ import annotations

import time

from PySide6 import QtCore

from ...core.measure.stats.slicing import Sliced, dropping, finish


class Trash(QtCore.QObject):
    """Objects (and jobs that free them) waiting to be freed, ``budget_ms`` every ``every_ms``."""

    def __init__(self, budget_ms: float = 1.0, every_ms: int = 25, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.budget_s = budget_ms / 1000.0
        self._jobs: list[Sliced[None]] = []
        self._timer = QtCore.QTimer(self)
        self._timer.setInterval(every_ms)
        self._timer.timeout.connect(self._slice)

    @property
    def pending(self) -> bool:
        """Something is still waiting to be freed."""
        return bool(self._jobs)

    def drop(self, *objs: object) -> None:
        """Take over *objs* (``None`` ignored) and free them in later turns."""
        kept = [o for o in objs if o is not None]
        if kept:
            self.put(Sliced(dropping(kept)))

    def put(self, job: Sliced[None]) -> None:
        """Run *job* (a generator that frees something, a unit at a time) in later turns."""
        self._jobs.append(job)
        if not self._timer.isActive():
            self._timer.start()

    def empty_now(self) -> None:
        """Free everything at once (the window is closing, or a test wants a settled state)."""
        while self._jobs:
            finish(self._jobs.pop(0).job)
        self._timer.stop()

    def _slice(self) -> None:
        end = time.perf_counter() + self.budget_s
        while self._jobs:
            if not self._jobs[0].run(max(0.0, end - time.perf_counter())):
                return  # the budget is spent: the rest in a later turn
            self._jobs.pop(0)
            if time.perf_counter() >= end:
                break
        if not self._jobs:
            self._timer.stop()
