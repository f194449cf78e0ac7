"""Run the inspector's long jobs off the GUI thread and report through Qt signals.

* :class:`InspectRunner` -- one inspection (:func:`.job.run`) in a *spawn* worker process; a helper thread
  launches it and blocks on its pipe, so the GUI thread never waits for the launch, a message or the
  unpickling of the result; signals ``progress(str, int, int)``, ``finished(object)`` (a :class:`.job.Done`),
  ``failed(str)``, ``cancelled()``.  :meth:`~InspectRunner.cancel` sets the child's cancel event (polled
  between chunks) and reaps it in the background.
* :class:`VariantRunner` -- :func:`bpe_desktop.core.logs.log_variants.train_variants` on a
  ``ProcessPoolExecutor`` (spawn, two workers) driven from a helper thread; ``progress(int, int)``,
  ``finished(object)`` (the list of :class:`~bpe_desktop.core.logs.log_variants.VariantResult`), ``failed(str)``,
  ``cancelled()``.  Cancel stops the variants not yet started and terminates the running ones.

Signals are emitted from the helper threads; Qt queues them to the receivers' (GUI) thread.
It leaves what is shown to :mod:`.panel`.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import threading
from concurrent.futures import ProcessPoolExecutor, wait
from typing import Any

from PySide6 import QtCore

from ...core.errors import BpeError, Cancelled
from ...core.logs.log_chunks import iter_file_chunks
from ...core.logs.log_variants import train_variants
from ..training.process import main_module_hidden, reap
from ..worker_priority import lower_priority
from . import job as job_mod


def read_text(path: str) -> str:
    """A log file's text (a :class:`~bpe_desktop.core.errors.CorpusError` for a missing or non-UTF-8 file)."""
    return "".join(iter_file_chunks(path))


class InspectRunner(QtCore.QObject):
    """At most one inspection at a time (starting another cancels the running one)."""

    progress = QtCore.Signal(str, int, int)
    finished = QtCore.Signal(object)
    failed = QtCore.Signal(str)
    cancelled = QtCore.Signal()

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._cancel: Any = None
        self._thread: threading.Thread | None = None
        self.worker_pids: list[int] = []  # every child launched (tests: the work ran in another process)
        self._serial = 0

    @property
    def running(self) -> bool:
        return self._cancel is not None

    def start(self, job: job_mod.InspectJob) -> None:
        self.cancel()
        ctx = mp.get_context("spawn")
        self._serial += 1
        self._cancel = ctx.Event()
        self._thread = threading.Thread(target=self._work, args=(ctx, job, self._cancel, self._serial),
                                        daemon=True, name="bpe-desktop-inspect")
        self._thread.start()

    def cancel(self) -> None:
        """Stop the running inspection (``cancelled`` follows); nothing happens when none runs."""
        if self._cancel is not None:
            self._cancel.set()
            self._cancel = None
            self.cancelled.emit()

    def _work(self, ctx: Any, job: job_mod.InspectJob, cancel: Any, serial: int) -> None:
        conn, child = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=job_mod.run_below_the_window, args=(child, job, cancel), daemon=True,
                           name="bpe-desktop-inspect")
        try:
            with main_module_hidden():
                proc.start()
        except Exception as e:  # could not start a process at all
            self._deliver(serial, "failed", f"cannot start the inspection process: {e}")
            return
        finally:
            child.close()
        if proc.pid is not None:
            self.worker_pids.append(proc.pid)
        result: object = None
        try:
            while True:
                msg = conn.recv()
                if isinstance(msg, job_mod.Progress):
                    self._deliver(serial, "progress", msg)
                elif isinstance(msg, job_mod.DoneHeader):
                    result = job_mod.recv_done(conn, msg)
                    break
                else:
                    result = msg
                    break
        except (EOFError, OSError):
            pass
        finally:
            conn.close()
            reap(proc, 5.0)
        if isinstance(result, job_mod.Done):
            self._deliver(serial, "finished", result)
        elif isinstance(result, job_mod.Failed):
            self._deliver(serial, "failed", result.message)
        elif not cancel.is_set():
            self._deliver(serial, "failed", "the inspection process ended unexpectedly")

    def _deliver(self, serial: int, kind: str, payload: object) -> None:
        if serial != self._serial or self._cancel is None:
            return  # a cancelled or replaced job
        try:
            if isinstance(payload, job_mod.Progress):
                self.progress.emit(payload.stage, payload.done, payload.total)
                return
            self._cancel = None
            if kind == "finished":
                self.finished.emit(payload)
            else:
                self.failed.emit(str(payload))
        except RuntimeError:  # the pane was deleted while the job ran
            pass


class VariantRunner(QtCore.QObject):
    """Trains variants in worker processes (at most :attr:`max_workers` at once)."""

    progress = QtCore.Signal(int, int)
    finished = QtCore.Signal(object)
    failed = QtCore.Signal(str)
    cancelled = QtCore.Signal()

    def __init__(self, parent: QtCore.QObject | None = None, max_workers: int = 2) -> None:
        super().__init__(parent)
        self.max_workers = max_workers
        self._stop: threading.Event | None = None
        self.worker_pids: list[int] = []

    @property
    def running(self) -> bool:
        return self._stop is not None

    def start(self, source: str, presets: list[str], merges: int, *, is_path: bool = False) -> None:
        """Train *presets* with *merges* merges each on *source* (a text, or a file's path if *is_path*)."""
        self.cancel()
        stop = self._stop = threading.Event()
        threading.Thread(target=self._work, args=(source, is_path, list(presets), merges, stop), daemon=True,
                         name="bpe-desktop-variants").start()

    def cancel(self) -> None:
        if self._stop is not None:
            self._stop.set()
            self._stop = None
            self.cancelled.emit()

    def _work(self, source: str, is_path: bool, presets: list[str], merges: int, stop: threading.Event) -> None:
        n_workers = min(self.max_workers, max(len(presets), 1))
        ex = ProcessPoolExecutor(max_workers=n_workers, mp_context=mp.get_context("spawn"),
                                 initializer=lower_priority)  # (below the window)
        kind = "failed"
        payload: object = "the variants could not be trained"  # a message, or the results
        try:
            text = read_text(source) if is_path else source
            with main_module_hidden():  # the workers start here (spawn), without re-running __main__
                warm = [ex.submit(os.getpid) for _ in range(n_workers)]
                wait(warm)
            self.worker_pids.extend(f.result() for f in warm)

            def progress(stage: str, done: int, total: int) -> None:
                if not stop.is_set():
                    try:
                        self.progress.emit(done, total)
                    except RuntimeError:  # the pane is gone
                        stop.set()

            results = train_variants(text, presets, merges, executor=ex, progress=progress, cancel=stop.is_set)
            kind, payload = "finished", results
        except Cancelled:
            kind = "cancelled"
        except BpeError as e:
            payload = str(e)
        except Exception as e:  # a worker died (out of memory, killed) or a bug: one message
            payload = f"training the variants failed: {type(e).__name__}: {e}"
        finally:
            if stop.is_set():
                for p in list(getattr(ex, "_processes", {}).values()):  # no public way to stop running jobs
                    p.terminate()
            ex.shutdown(wait=True, cancel_futures=True)
        if stop.is_set() or kind == "cancelled":
            return
        self._stop = None
        try:
            if kind == "finished":
                self.finished.emit(payload)
            else:
                self.failed.emit(str(payload))
        except RuntimeError:  # the pane was deleted while the variants trained
            pass
