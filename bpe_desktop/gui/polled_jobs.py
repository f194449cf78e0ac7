"""Jobs run on a named helper pool (:mod:`.helper_threads`) that the GUI thread polls until they end, with
no modal dialog: the window stays usable and shows a "loading…" or "computing…" state meanwhile.

:class:`PolledJobs` holds the jobs under way by key, pauses the cyclic collector while any runs (as behind
:mod:`.modal_job`: a full collection over the job's new objects would hold the interpreter lock for long),
and calls back every :data:`POLL_MS` so its owner can take in the ones that ended (:meth:`PolledJobs.take_done`).
A thread cannot be stopped: a job its owner no longer wants runs to its end and its result is dropped (the
owner's business, by key).  It decides nothing about what the jobs do or what their results mean.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import Future
from typing import Generic, TypeVar

from PySide6 import QtCore

from . import helper_threads
from .modal_job import GC_FREEZE_EVERY_S
from .widgets.gc_policy import GcPolicy

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")
POLL_MS = 30  # how often the owner looks whether a job has ended


class PolledJobs(Generic[K, T]):
    """Jobs on the helper pool *pool*, by key; *poll* is called every :data:`POLL_MS` while any is under way."""

    def __init__(self, owner: QtCore.QObject, poll: Callable[[], None], pool: str) -> None:
        self._pool = pool
        self._futures: dict[K, Future[T]] = {}
        self._timer = QtCore.QTimer(owner)
        self._timer.setInterval(POLL_MS)
        self._gc = GcPolicy(GC_FREEZE_EVERY_S)  # paused while a job runs, as behind the modal dialog
        self._timer.timeout.connect(self._gc.tick)
        owner.destroyed.connect(self._gc.resume)  # closed while a job runs: the collector back on
        self._timer.timeout.connect(poll)

    def start(self, key: K, job: Callable[[], T]) -> bool:
        """Run *job* for *key* unless a job for *key* is under way; whether one was started."""
        if key in self._futures:
            return False
        self._futures[key] = helper_threads.pool(self._pool).submit(job)
        if not self._timer.isActive():
            self._gc.pause()
            self._timer.start()
        return True

    def keys(self) -> list[K]:
        """The keys of the jobs under way."""
        return list(self._futures)

    def take_done(self) -> Iterator[tuple[K, Future[T]]]:
        """The jobs that ended, each once (then forgotten); stops polling once none is left."""
        for key, future in list(self._futures.items()):
            if future.done():
                del self._futures[key]
                yield key, future
        if not self._futures:
            self._timer.stop()
            self._gc.resume()
