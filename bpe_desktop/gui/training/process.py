"""The worker processes' lifecycle: launch one off the GUI thread, and reap it (join, terminate, kill).

Qt-free.  Launching a *spawn* child blocks on writing its launch data until the new interpreter reads it,
so :class:`ChildLaunch` starts it from a helper thread (a pool kept for the program's life); :class:`Launch` is
the training worker's, and the plots' statistics process (:mod:`..plots.remote_history`) uses the same.  It
leaves out what the process says (:mod:`.protocol`) and when the window decides to stop it (:mod:`.controller`).
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from ...core.config import TrainConfig
from ...core.counting.sources import CorpusSource
from .. import helper_threads
from ..worker_priority import lower_priority
from . import worker
from .protocol import BranchFrom


@contextlib.contextmanager
def main_module_hidden() -> Iterator[None]:
    """Keep the spawn child from re-running the parent's ``__main__`` script.

    ``spawn`` normally re-imports the main script in the child (as ``__mp_main__``); a script that imports
    Qt at the top would load Qt into the worker.  The worker's entry point lives in this package, so the
    child never needs ``__main__``: hide its file and spec while the process is launched (the launch data
    is computed inside ``start()``), exactly as multiprocessing already does for ``python -m pkg``.
    """
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    missing = object()
    saved_file = main.__dict__.get("__file__", missing)
    saved_spec = main.__dict__.get("__spec__", missing)
    main.__dict__.pop("__file__", None)
    main.__spec__ = None
    try:
        yield
    finally:
        if saved_file is not missing:
            main.__file__ = saved_file
        if saved_spec is not missing:
            main.__spec__ = saved_spec
        else:  # (put back exactly what was found: no __spec__ added)
            main.__dict__.pop("__spec__", None)


def reap(proc: BaseProcess, timeout: float) -> None:
    """Wait for a worker told to stop; terminate, then kill it if it lingers."""
    proc.join(timeout)
    if proc.is_alive():
        proc.terminate()
        proc.join(1.0)
    if proc.is_alive():
        proc.kill()
        proc.join(1.0)
    proc.close()


def reap_in_background(proc: BaseProcess, timeout: float) -> None:
    """:func:`reap` in a helper thread, so the GUI thread does not sit out the process's exit."""
    helper_threads.pool("reap").submit(reap, proc, timeout)


def _launch(proc: BaseProcess, child_conn: Connection) -> None:
    """Start *proc* at the worker's niceness, then drop our copy of its pipe end: its exit closes the pipe."""
    try:
        lower_priority(thread=True)  # (this helper thread only launches workers)
        with main_module_hidden():
            proc.start()
    except Exception:  # reported by the controller as a worker that died before saying anything
        pass
    finally:
        child_conn.close()


def started(proc: BaseProcess) -> bool:
    """The process was started (``start()`` ran), whether or not it is still alive."""
    return getattr(proc, "_popen", None) is not None


class ChildLaunch:
    """A worker process to start: the process (running ``target(its pipe end, *args)``), our end of its pipe,
    and the helper thread's job.

    :meth:`start` hands the launch to the helper thread; call it once the GUI thread's own work of the moment
    is done -- the helper's share of the launch (building the process, pickling its arguments) holds the GIL
    for a while, which would otherwise land in the middle of that work."""

    def __init__(self, target: Callable[..., None], args: tuple[object, ...], name: str) -> None:
        ctx = mp.get_context("spawn")
        self.conn, self._child_conn = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(target=target, args=(self._child_conn, *args), daemon=True, name=name)
        self._job: Future[None] | None = None

    def start(self) -> None:
        """Start the process from the helper thread (once)."""
        if self._job is None and not started(self.proc):
            self._job = helper_threads.pool("launch").submit(_launch, self.proc, self._child_conn)

    def join(self) -> None:
        """Wait for the launch to have happened (it takes well under a second); a launch never started is
        given up (its pipe closed)."""
        if self._job is None and not started(self.proc):
            self._child_conn.close()
        if self._job is not None:
            with contextlib.suppress(TimeoutError):
                self._job.result(10.0)
            self._job = None


class Launch(ChildLaunch):
    """The training worker (:func:`.worker.run`) to start."""

    def __init__(self, source: CorpusSource, config: TrainConfig, paused: bool, holdout: float = 0.0,
                 branch: BranchFrom | None = None) -> None:
        super().__init__(worker.run, (source, config, paused, holdout, branch), "bpe-desktop-trainer")
