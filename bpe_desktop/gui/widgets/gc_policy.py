"""When Python's cyclic garbage collector may run while the GUI thread streams or computes.

Collections triggered by the many small objects a training run or a statistics slice allocates scan every
young object (pauses long enough to see).  :class:`GcPolicy` pauses the collector for the length of a run
and, every ``every_s`` seconds, moves what exists to the permanent generation (``gc.freeze()``, a
constant-time list splice) so no later collection scans it again.  The cost: a reference cycle that became
garbage meanwhile is never reclaimed (records and histories hold no cycles; a small, bounded leak).
Qt-free; it leaves out deciding when a run starts or ends (the callers do).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable


class GcPolicy:
    """Pause/resume the collector and freeze what exists every *every_s* seconds of work."""

    def __init__(self, every_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.every_s = every_s
        self.clock = clock
        self.paused = False  # this policy disabled the collector
        self._last = 0.0

    def pause(self) -> None:
        """Disable the collector (if it is on) for a run, freezing what exists now."""
        if not self.paused and gc.isenabled():
            gc.disable()
            gc.freeze()
            self.paused = True
            self._last = self.clock()

    def resume(self) -> None:
        """Enable the collector again if :meth:`pause` disabled it."""
        if self.paused:
            self.paused = False
            gc.freeze()
            gc.enable()

    def tick(self) -> None:
        """Freeze what exists if *every_s* passed since the last freeze (O(1))."""
        now = self.clock()
        if now - self._last > self.every_s:
            gc.freeze()
            self._last = now
