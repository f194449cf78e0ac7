"""Follow-newest: while a run streams, keep the timeline at the newest merge, but move it only now and then.

Every step change makes each pane react and the window repaint, and records arrive every ~30 ms; so while
training the followed step moves at most every ``every_ms``, and at once when the run pauses, finishes or
fails.  A user who scrubs away meanwhile stops following.  Qt-free with an injectable clock; it leaves out
the timer that calls :meth:`FollowPolicy.catch_up` later (the controller owns it).
"""

from __future__ import annotations

import time
from collections.abc import Callable


class FollowPolicy:
    """Decides whether, and when, the step moves to the newest merge."""

    def __init__(self, every_ms: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.every_ms = every_ms
        self.clock = clock
        self.pending = False  # the step should be at the newest merge but was not moved yet ...
        self.pending_from = 0  # ... and still is where it was then (else the user moved it: stop following)
        self._followed_at = -1e9  # when the step last moved (clock seconds)

    def at_end(self, step: int, n_steps: int) -> bool:
        """The step shows the newest merge, or will once a pending move happens."""
        return step == n_steps or (self.pending and step == self.pending_from)

    def due_in_ms(self, step: int, training: bool) -> int:
        """Records arrived while the step was at the end: mark a move as due and return how long to wait
        before :meth:`catch_up` (0: now; only a streaming run waits)."""
        self.pending = True
        self.pending_from = step
        wait_ms = self.every_ms - (self.clock() - self._followed_at) * 1000
        return 0 if not training or wait_ms <= 0 else max(1, int(wait_ms))

    def catch_up(self, step: int) -> bool:
        """True if the step should move to the newest merge now (nobody moved it since the move fell due)."""
        move = self.pending and step == self.pending_from
        if move:
            self._followed_at = self.clock()
        self.pending = False
        return move
