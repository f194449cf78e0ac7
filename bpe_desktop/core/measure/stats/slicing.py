r"""Work cut into small units for an event loop: a *job* is a generator that ``yield``\ s between units of
well under a millisecond and ``return``\ s its result; :class:`Sliced` runs one for a time budget,
:func:`finish` to its end.  It leaves out what the units do (:mod:`.history`) and Python's garbage
collector pauses, which the caller manages.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Generator
from typing import Generic, TypeVar

T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")

#: a generator of units of work: ``yield`` (nothing) between units, ``return`` a *T* at the end
Job = Generator[None, None, T]


def finish(job: Job[T]) -> T:
    """Run a generator of units of work to its end and return its result.

    >>> def job():
    ...     yield
    ...     return 42
    >>> finish(job())
    42
    """
    while True:
        try:
            next(job)
        except StopIteration as stop:
            return stop.value


class Sliced(Generic[T]):
    """A generator of units of work (``yield`` between units, ``return`` the result) run a slice at a time:
    :meth:`run` does units until a time budget is spent, so an event loop can run between slices.

    >>> def job():
    ...     for _ in range(3):
    ...         yield
    ...     return "done"
    >>> s = Sliced(job())
    >>> s.run(0.0), s.units, s.result
    (False, 1, None)
    >>> s.run(1.0), s.units, s.result
    (True, 4, 'done')
    """

    def __init__(self, job: Job[T]) -> None:
        self.job = job
        self.done = False
        self.result: T | None = None
        self.units = 0  # units run so far

    def run(self, budget_s: float) -> bool:
        """Run units until *budget_s* seconds have passed (at least one unit); True once the job ended."""
        if self.done:
            return True
        end = time.perf_counter() + budget_s
        job = self.job
        while True:
            self.units += 1
            try:
                next(job)
            except StopIteration as stop:
                self.done, self.result = True, stop.value
                return True
            if time.perf_counter() >= end:
                return False


def emptying(d: dict[K, V], n: int) -> Job[None]:
    """Empty *d* in units of *n* items (``popitem``, so the last inserted go first)."""
    while d:
        for _ in range(min(len(d), n)):
            d.popitem()
        yield


def dropping(objs: list[object], n: int = 2000) -> Job[None]:
    """Let go of *objs*, a unit at a time: a plain list or dict that nothing else refers to is emptied *n*
    items a unit (freeing 8,000 merge records at once takes ~3 ms), anything else is let go of in a unit of
    its own -- freed then if this was its last reference.  A list or dict someone still holds is never
    emptied, only let go of (the job takes *objs* over: it ends empty).

    >>> kept, lone = [1, 2, 3], [[0] * 5]
    >>> finish(dropping([kept, lone.pop()], n=2)); kept
    [1, 2, 3]
    """
    while objs:
        obj = objs.pop()
        # two references when nothing else holds it: ``obj`` and getrefcount's argument (the doctest above
        # and tests/core/measure/test_stats.py check that a list held elsewhere is left whole)
        if type(obj) is list and sys.getrefcount(obj) <= 2:
            while obj:
                del obj[-n:]
                yield
        elif type(obj) is dict and sys.getrefcount(obj) <= 2:
            yield from emptying(obj, n)
        del obj
        yield
