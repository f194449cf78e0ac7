"""The GUI side of training: starts the worker process, sends it commands, feeds its records to the session.

Training runs in a ``multiprocessing`` *spawn* child (:mod:`.worker`, Qt-free), never in a thread: a
pure-Python trainer in a QThread holds the GIL and stalls painting for seconds.  Messages arrive on a pipe
whose file descriptor is watched by a :class:`QSocketNotifier`; each wake-up reads for at most
``DRAIN_BUDGET_S`` and appends at most ``MAX_RECORDS_PER_DRAIN`` records in one batch (a backlog -- after a
stall, say -- waits in order for the next event-loop turns), so the GUI thread never does long work.  While
training streams, the step that follows the newest merge moves at most every ``FOLLOW_EVERY_MS``: every step
change makes each pane react and the whole window repaint, and the records arrive every ~30 ms; the step
catches up at once when the run pauses, finishes or fails, so the end state does not depend on it.

States published on the session: ``counting`` -> ``training`` <-> ``paused`` -> ``finished`` (or
``error``).  A worker that dies without saying goodbye is reported through :attr:`failed`.  Closing the
window calls :meth:`shutdown`, which stops, joins and if need be kills the child: no process is left.

"Train further": a run that ended at its merge or vocabulary limit leaves its worker alive and idle
(:attr:`can_continue`); :meth:`continue_training` asks it for n more merges, which stream into the same
session (``finished`` -> ``training`` -> ``finished``).  The idle worker costs its trainer's memory until
the next run, :meth:`shutdown` or the window closes; deciding whether continuing is valid (same settings
and corpus) is the main window's job.

Two measured sources of stalls are kept off the GUI thread: launching the child (``Process.start`` blocks
on writing the launch data into a pipe until the new interpreter reads it, 50-100 ms) runs in a short-lived
helper thread; and Python's cyclic garbage collector, whose collections over every new record took
20-70 ms, is paused while a run streams and the objects made so far are moved to the permanent generation
every ``GC_FREEZE_EVERY_S`` (``gc.freeze()``, a constant-time list splice), so that no later collection
scans them again; the collector resumes when the run ends.  The cost: a reference cycle that became
garbage during a run is not reclaimed (records are not cyclic; this is a small, bounded leak).

It does not draw anything and does not decide settings; the main window asks it to start.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing as mp
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from PySide6 import QtCore

from ..core.config import TrainConfig
from ..core.corpus import CorpusSource
from ..core.records import MergeRecord
from . import worker
from .session import Session

DRAIN_BUDGET_S = 0.004  # longest the GUI thread spends reading the pipe per wake-up
MAX_RECORDS_PER_DRAIN = 1000  # most records handed to the session per wake-up; the rest wait for the next turn
FOLLOW_EVERY_MS = 100  # while training, the followed step moves to the newest merge at most this often
STOP_GRACE_MS = 2000  # after "stop", how long the worker may take before it is terminated
RATE_WINDOW_S = 1.0
GC_FREEZE_EVERY_S = 0.5


@contextlib.contextmanager
def _main_module_hidden() -> Iterator[None]:
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
            main.__file__ = saved_file  # type: ignore[assignment]
        if saved_spec is not missing:
            main.__spec__ = saved_spec  # type: ignore[assignment]


def _reap(proc: BaseProcess, timeout: float) -> None:
    """Wait for a worker told to stop; terminate, then kill it if it lingers."""
    proc.join(timeout)
    if proc.is_alive():
        proc.terminate()
        proc.join(1.0)
    if proc.is_alive():
        proc.kill()
        proc.join(1.0)
    proc.close()


def _launch(proc: BaseProcess, child_conn: Connection) -> None:
    """Start *proc* (in a helper thread), then drop our copy of its pipe end: its exit closes the pipe."""
    try:
        with _main_module_hidden():
            proc.start()
    except Exception:  # reported by the controller as a worker that died before saying anything
        pass
    finally:
        child_conn.close()


class _Message:
    """A message other than records, waiting in the backlog between rows."""

    __slots__ = ("msg",)

    def __init__(self, msg: tuple[object, ...]) -> None:
        self.msg = msg


def _started(proc: BaseProcess) -> bool:
    return getattr(proc, "_popen", None) is not None


class TrainingController(QtCore.QObject):
    """Owns at most one worker process.  Signals: ``failed(title, message)``, ``finished(reason)``."""

    failed = QtCore.Signal(str, str)
    finished = QtCore.Signal(str)

    def __init__(self, session: Session, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.follow = True  # keep the timeline at the newest merge while it was there
        self.worker_qt_loaded: bool | None = None  # reported by the worker (for the tests)
        self._proc: BaseProcess | None = None
        self._conn: Connection | None = None
        self._notifier: QtCore.QSocketNotifier | None = None
        self._done = False  # the worker sent its last message (or "finished" and went idle)
        self._idle = False  # the worker is alive, idle after reaching a limit, and can train further
        self._rate: list[tuple[float, int]] = []
        self._starter: threading.Thread | None = None
        self._gc_paused = False
        self._gc_last = 0.0
        self._backlog: deque[tuple[object, ...] | _Message] = deque()  # rows received but not yet handed to the session
        self._followed_at = 0.0  # when the step last moved to the newest merge (monotonic)
        self._follow_pending = False  # the step should be at the newest merge but was not moved yet ...
        self._pending_from = 0  # ... and still is where it was then (else the user moved it: stop following)
        self._follow_timer = QtCore.QTimer(self)
        self._follow_timer.setSingleShot(True)
        self._follow_timer.timeout.connect(self._catch_up)
        self._more = QtCore.QTimer(self)  # next turn of a drain that left records in the backlog
        self._more.setSingleShot(True)
        self._more.setInterval(0)
        self._more.timeout.connect(self._drain)
        self.drained = 0  # records handed to the session by the last wake-up (for the tests)

    # -- public -------------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._conn is not None and not self._done

    @property
    def can_continue(self) -> bool:
        """The last run reached its limit and its worker waits, alive, for :meth:`continue_training`."""
        return self._conn is not None and self._done and self._idle

    @property
    def process(self) -> BaseProcess | None:
        return self._proc

    def continue_training(self, n: int) -> bool:
        """Ask the idle worker for *n* more merges, appended to the session; False if it cannot continue."""
        if not self.can_continue or n <= 0 or self._conn is None:
            return False
        try:
            self._conn.send(("more", int(n)))
        except (OSError, EOFError):
            return False  # the notifier will see the closed pipe
        s = self.session
        self._done = self._idle = False
        s.error = ""
        s.stop_reason = ""
        self._rate = [(time.monotonic(), len(s.records))]
        self._pause_gc()
        s.set_state("training")
        s.set_progress("merging", len(s.records), s.target_merges or 0, 0.0)
        return True

    def start(self, source: CorpusSource, config: TrainConfig, *, paused: bool = False) -> None:
        """Stop any run, reset the session to *source*/*config* and start a worker."""
        self.shutdown(wait=False)
        s = self.session
        s.set_corpus(source, config)
        s.error = ""
        s.stop_reason = ""
        self._rate = []
        self._done = self._idle = False
        ctx = mp.get_context("spawn")
        parent_conn, child_conn = ctx.Pipe(duplex=True)
        proc = ctx.Process(target=worker.run, args=(child_conn, source, config, paused), daemon=True,
                           name="bpe-desktop-trainer")
        self._proc, self._conn = proc, parent_conn
        self._starter = threading.Thread(target=_launch, args=(proc, child_conn), daemon=True,
                                         name="bpe-desktop-launch")
        self._starter.start()
        self._pause_gc()
        self._notifier = QtCore.QSocketNotifier(parent_conn.fileno(), QtCore.QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._drain)
        s.set_progress("starting", 0, 0, 0.0)
        s.set_state("counting")

    def pause(self) -> None:
        self._command("pause")

    def resume(self) -> None:
        self._command("resume")

    def step(self) -> None:
        """One merge (the worker pauses after it)."""
        self._command("pause")
        self._command("step")

    def stop(self) -> None:
        """Ask the worker to finish after the current merge; kill it if it does not within a grace time."""
        if self.running:
            self._command("stop")
            proc = self._proc
            QtCore.QTimer.singleShot(STOP_GRACE_MS, self, lambda: self._force_stop(proc))

    def shutdown(self, timeout: float = 2.0, *, wait: bool = True) -> None:
        """Stop the worker now (window closing, new run): join it, terminate or kill if it lingers.

        With ``wait=False`` (a new run replacing an old one) the old process is told to stop and reaped by a
        background thread, so the GUI thread does not sit out its exit (~25 ms).
        """
        proc, conn = self._proc, self._conn
        self._join_starter()
        self._teardown()
        if conn is not None:
            try:
                conn.send("stop")
            except (OSError, EOFError):
                pass
            conn.close()
        if proc is not None and _started(proc):
            if wait:
                _reap(proc, timeout)
            else:
                threading.Thread(target=_reap, args=(proc, timeout), daemon=True, name="bpe-desktop-reap").start()
        if self.session.state in ("counting", "training", "paused"):
            self.session.stop_reason = "stopped"
            self.session.set_state("finished")

    # -- internals ----------------------------------------------------------------------------------
    def _command(self, cmd: str) -> None:
        if self._conn is None or self._done:
            return
        try:
            self._conn.send(cmd)
        except (OSError, EOFError):
            pass  # the notifier will see the closed pipe and report it

    def _force_stop(self, proc: BaseProcess | None) -> None:
        if proc is not None and proc is self._proc and self.running:
            self.shutdown(timeout=0.1)

    def _join_starter(self) -> None:
        if self._starter is not None:
            self._starter.join(10.0)
            self._starter = None

    def _pause_gc(self) -> None:
        if not self._gc_paused and gc.isenabled():
            gc.disable()
            gc.freeze()
            self._gc_paused = True
            self._gc_last = time.monotonic()

    def _resume_gc(self) -> None:
        if self._gc_paused:
            self._gc_paused = False
            gc.freeze()
            gc.enable()

    def _teardown(self) -> None:
        self._resume_gc()
        if self._notifier is not None:
            self._notifier.setEnabled(False)
            self._notifier.activated.disconnect(self._drain)
            self._notifier.deleteLater()
            self._notifier = None
        self._conn = None
        self._proc = None
        self._idle = False
        self._backlog.clear()
        self._more.stop()
        if self._follow_pending:
            self._catch_up()

    def _drain(self) -> None:
        conn = self._conn
        if conn is None:
            return
        deadline = time.monotonic() + DRAIN_BUDGET_S
        self.drained = 0
        closed = False
        try:
            while not self._backlog_full() and time.monotonic() <= deadline and conn.poll(0):
                msg = conn.recv()
                if msg[0] == "records":
                    self._backlog.extend(msg[1])
                else:
                    self._backlog.append(_Message(msg))
                if self._conn is not conn:
                    break
        except (EOFError, OSError):
            closed = True
        self._feed(conn)
        if self._conn is not conn:
            return
        if self._backlog:  # more than one wake-up's worth: the rest on the next event-loop turn
            if not self._more.isActive():
                self._more.start()
        elif closed:
            self._closed()
            return
        if self._gc_paused and time.monotonic() - self._gc_last > GC_FREEZE_EVERY_S:
            gc.freeze()  # O(1): what exists now (mostly records) is never scanned again
            self._gc_last = time.monotonic()

    def _backlog_full(self) -> bool:
        """Enough rows are waiting for one wake-up (messages other than rows count as one each)."""
        return len(self._backlog) >= MAX_RECORDS_PER_DRAIN

    def _feed(self, conn: Connection) -> None:
        """Hand at most ``MAX_RECORDS_PER_DRAIN`` backlog rows (in order, with the messages between them) to
        the session."""
        records: list[MergeRecord] = []
        backlog = self._backlog
        while backlog and len(records) < MAX_RECORDS_PER_DRAIN:
            item = backlog.popleft()
            if isinstance(item, _Message):
                self._flush(records)
                self.drained += len(records)
                records = []
                if self._follow_pending:
                    self._catch_up()  # a pause, the end or an error: the step shows the newest merge now
                self._handle(item.msg)
                if self._conn is not conn:  # the message ended the run (or a slot started another)
                    return
            else:
                records.append(MergeRecord(*item))
        self._flush(records)
        self.drained += len(records)

    def _flush(self, records: list[MergeRecord]) -> None:
        if not records:
            return
        s = self.session
        at_end = s.step == s.n_steps or (self._follow_pending and s.step == self._pending_from)
        s.append_records(records)
        now = time.monotonic()
        self._rate.append((now, len(s.records)))
        while len(self._rate) > 2 and now - self._rate[0][0] > RATE_WINDOW_S:
            self._rate.pop(0)
        t0, n0 = self._rate[0]
        rate = (len(s.records) - n0) / (now - t0) if now > t0 else s.merges_per_s
        s.set_progress("merging", len(s.records), s.target_merges or 0, rate)
        if self.follow and at_end:
            wait_ms = FOLLOW_EVERY_MS - (now - self._followed_at) * 1000
            if s.state != "training" or wait_ms <= 0:
                self._follow_pending = True
                self._pending_from = s.step
                self._catch_up()
            else:
                self._follow_pending = True
                self._pending_from = s.step
                if not self._follow_timer.isActive():
                    self._follow_timer.start(max(1, int(wait_ms)))

    def _catch_up(self) -> None:
        """Move the step to the newest merge if it is still following (a scrub meanwhile stops following)."""
        self._follow_timer.stop()
        s = self.session
        if self._follow_pending and s.step == self._pending_from:
            self._followed_at = time.monotonic()
            self.session.set_step(self.session.n_steps)
        self._follow_pending = False

    def _handle(self, msg: tuple[object, ...]) -> None:
        s = self.session
        kind = msg[0]
        if kind == "progress":
            _, stage, done, total = msg
            s.set_progress(str(stage), int(done), int(total))  # type: ignore[call-overload]
        elif kind == "started":
            _, model, initial, words, qt_loaded = msg
            self.worker_qt_loaded = bool(qt_loaded)
            s.word_counts = words  # type: ignore[assignment]
            s.initial_symbols = int(initial)  # type: ignore[call-overload]
            s.reset_model(model)  # type: ignore[arg-type]
            self._rate = [(time.monotonic(), 0)]
            s.set_progress("merging", 0, s.target_merges or 0, 0.0)
        elif kind == "state":
            if msg[1] == "paused":
                self._resume_gc()  # a pause may last long: let the collector run meanwhile
            else:
                self._pause_gc()
            s.set_state(str(msg[1]))
        elif kind == "finished":
            self._done = True
            self._idle = len(msg) > 2 and bool(msg[2])
            self._resume_gc()
            s.stop_reason = str(msg[1])
            s.set_progress("done", len(s.records), len(s.records))
            s.set_state("finished")
            self.finished.emit(s.stop_reason)
        elif kind == "error":
            self._done = True
            self._resume_gc()
            s.error = str(msg[1])
            s.set_state("error")
            self.failed.emit("Training failed", s.error)

    def _closed(self) -> None:
        """The pipe closed: normal after the last message, otherwise the worker died."""
        proc, conn = self._proc, self._conn
        done = self._done
        self._join_starter()
        self._teardown()
        if conn is not None:
            conn.close()
        code = None
        if proc is not None and not _started(proc):
            proc = None
        if proc is not None:
            if done:
                self._reap(proc, 100)  # it is exiting on its own: do not block the GUI thread on it
            else:
                proc.join(0.5)  # it is dead already; this only collects the exit code
                code = proc.exitcode
                self._reap(proc, 0)
        if not done:
            how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
            s = self.session
            s.error = (f"The training process stopped unexpectedly ({how}) after {s.n_steps} merges. "
                       "The merges received so far are kept; press Train to start again.")
            s.stop_reason = "worker died"
            s.set_state("error")
            self.failed.emit("Training process died", s.error)

    def _reap(self, proc: BaseProcess, tries: int) -> None:
        """Join *proc* without blocking: poll every 20 ms, kill it after *tries* polls."""
        if proc.is_alive() and tries > 0:
            QtCore.QTimer.singleShot(20, self, lambda: self._reap(proc, tries - 1))
            return
        if proc.is_alive():
            proc.kill()
            proc.join(1.0)
        proc.join(0)
        try:
            proc.close()
        except ValueError:
            pass
