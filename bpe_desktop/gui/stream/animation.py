"""Animation timing of the token stream: whether a step change animates, for how long, and the phases of
one merge's animation (the pair glows, the boxes slide together, then fuse).

Qt-free, with an injectable clock.  A change of one step animates; a jump redraws at once; and when steps
arrive faster than the animation lasts, the duration shrinks to fit (below :data:`MIN_ANIMATION_MS` the
animation is skipped), so the view never lags.  It leaves out running the animation (the canvas's
``QVariantAnimation``) and drawing.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

#: animations shorter than this are skipped (the step is simply redrawn)
MIN_ANIMATION_MS = 50
#: default duration of one merge animation
DEFAULT_ANIMATION_MS = 450


def ease(t: float) -> float:
    """Smoothstep of *t* clamped to 0..1."""
    t = min(1.0, max(0.0, t))
    return t * t * (3 - 2 * t)


def lerp(a: float, b: float, t: float) -> float:
    return a + (b - a) * t


def phases(p: float) -> tuple[float, float, float]:
    """(slide, fuse, glow) at progress *p* in 0..1: the boxes slide together over the first 60%, the new
    token fades in over the last 45%, and the pair glows until 90%.

    >>> phases(0.0), phases(1.0)
    ((0.0, 0.0, 0.0), (1.0, 1.0, 0.0))
    """
    slide = ease(p / 0.6)
    fuse = ease((p - 0.55) / 0.45)
    glow = math.sin(math.pi * min(1.0, p / 0.9)) if p < 0.9 else 0.0
    return slide, fuse, glow


class AnimationTiming:
    """Decides the duration of each step change's animation from the time since the previous change."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.duration_ms = DEFAULT_ANIMATION_MS  # of one merge animation (0 disables animations)
        self._last_change = -math.inf

    def set_play_speed(self, steps_per_second: float) -> None:
        """Fit the animation to a playback speed: it lasts 85% of one step (at most 600 ms)."""
        if steps_per_second <= 0:
            self.duration_ms = DEFAULT_ANIMATION_MS
        else:
            self.duration_ms = int(min(600.0, 850.0 / steps_per_second))

    def step_changed(self, prev: int, k: int, enabled: bool = True) -> int:
        """The step moved from *prev* to *k* now: the animation's duration in ms, or 0 to redraw at once.

        >>> t = AnimationTiming(clock=iter([10.0, 10.5, 20.0]).__next__)
        >>> t.step_changed(0, 1), t.step_changed(1, 2), t.step_changed(2, 5)
        (450, 425, 0)
        """
        now = self.clock()
        interval_ms = (now - self._last_change) * 1000.0
        self._last_change = now
        duration = self.duration_ms
        if interval_ms < duration * 1.25:  # steps come faster than the animation: shrink it to fit
            duration = int(interval_ms * 0.85)
        if abs(k - prev) == 1 and enabled and duration >= MIN_ANIMATION_MS:
            return duration
        return 0
