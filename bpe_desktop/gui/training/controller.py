"""The window's side of training: starts the worker process, sends it commands, feeds its records to the
session, and publishes the run's state there.

Training runs in a *spawn* child (:mod:`.worker`, Qt-free), never in a thread: a pure-Python trainer in a
QThread holds the GIL and stalls painting for seconds.  Messages (:mod:`.protocol`) arrive on a pipe whose
file descriptor a :class:`QSocketNotifier` watches; each wake-up reads for at most ``DRAIN_BUDGET_S`` and
hands at most ``MAX_RECORDS_PER_DRAIN`` records on (:mod:`.backlog`); a big corpus's word counts come in
parts, unpickled within a like budget per wake-up before the run's ``Started`` is handled
(:mod:`.counts_parts`); the step follows the newest merge
at most every ``FOLLOW_EVERY_MS`` (:mod:`.follow`); the collector is paused while a run streams
(:mod:`..widgets.gc_policy`).  A run that ended at a limit leaves its worker idle (:attr:`can_continue`):
:meth:`continue_training` asks it for more merges.  A worker that dies without a last message is reported
through :attr:`failed`; :meth:`shutdown` stops, joins and if need be kills it: no process is left.

It draws nothing and decides no settings (whether continuing is valid is the main window's job).
"""

from __future__ import annotations

import time
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from PySide6 import QtCore

from ...core.config import TrainConfig
from ...core.counting.sources import CorpusSource
from ...core.records import MergeRecord
from .. import wording
from ..session import Session
from ..widgets.gc_policy import GcPolicy
from ..widgets.timers import one_shot
from . import process
from .backlog import Backlog
from .counts_parts import Assembly, CountsPart
from .follow import FollowPolicy
from .protocol import (
    BranchFrom,
    Command,
    Failed,
    Finished,
    Message,
    More,
    Progress,
    Stage,
    Started,
    StateChanged,
    StopReason,
    TrainingState,
)

DRAIN_BUDGET_S = 0.004  # longest the GUI thread spends reading the pipe per wake-up
COUNTS_BUDGET_S = 0.004  # ... and unpickling parts of the word counts (at least one part runs)
MAX_RECORDS_PER_DRAIN = 400  # most records handed to the session per wake-up; the rest wait for the next turn
ASSEMBLING_READ_FACTOR = 50  # while word counts are unpickled, the backlog may hold this many times as many items
FOLLOW_EVERY_MS = 100  # while training, the followed step moves to the newest merge at most this often
STOP_GRACE_MS = 2000  # after "stop", how long the worker may take before it is terminated
RATE_WINDOW_S = 1.0
GC_FREEZE_EVERY_S = 0.5


class TrainingController(QtCore.QObject):
    """Owns at most one worker process.  Signals: ``failed(title, message)``, ``finished(reason text)``."""

    failed = QtCore.Signal(str, str)
    finished = QtCore.Signal(str)

    def __init__(self, session: Session, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.follow = True  # keep the timeline at the newest merge while it was there
        self.worker_qt_loaded: bool | None = None  # reported by the worker (for the tests)
        self._launch: process.Launch | None = None
        self._proc: BaseProcess | None = None
        self._conn: Connection | None = None
        self._notifier: QtCore.QSocketNotifier | None = None
        self._done = False  # the worker sent its last message (or "finished" and went idle)
        self._idle = False  # the worker is alive, idle after reaching a limit, and can train further
        self._rate: list[tuple[float, int]] = []
        self._progress: tuple[str, int, int, float] | None = None  # a batch's progress not shown yet (_flush)
        self._gc = GcPolicy(GC_FREEZE_EVERY_S)
        self._backlog = Backlog()  # rows received but not yet handed to the session
        self._counts = Assembly()  # the word counts' parts received before their Started (.counts_parts)
        self._following = FollowPolicy(FOLLOW_EVERY_MS)
        self._follow_timer = one_shot(self, 0, self._catch_up)  # (started with the wait the policy gives)
        self._more = one_shot(self, 0, self.drain)  # next turn of a drain that left records in the backlog
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

    @property
    def backlog(self) -> int:
        """Items received from the worker and not yet handed to the session."""
        return len(self._backlog)

    def connect_pipe(self, conn: Connection) -> None:
        """Read worker messages from *conn* (what :meth:`start` does after launching; tests feed a pipe)."""
        self._conn = conn

    def continue_training(self, n: int) -> bool:
        """Ask the idle worker for *n* more merges, appended to the session; False if it cannot continue."""
        if not self.can_continue or n <= 0 or self._conn is None:
            return False
        try:
            self._conn.send(More(int(n)))
        except (OSError, EOFError):
            return False  # the notifier will see the closed pipe
        s = self.session
        self._done = self._idle = False
        s.set_error("")
        s.set_stop(None)
        self._rate = [(time.monotonic(), len(s.records))]
        self._gc.pause()
        s.set_state(TrainingState.TRAINING)
        s.set_progress(Stage.MERGING, len(s.records), s.work.target_merges or 0, 0.0)
        return True

    def start(self, source: CorpusSource, config: TrainConfig, *, paused: bool = False,
              branch: BranchFrom | None = None) -> None:
        """Stop any run, reset the session to *source*/*config* and start a worker (from step k of *branch*)."""
        self.shutdown(wait=False)
        s = self.session
        s.set_corpus(source, config)
        s.set_error("")
        s.set_stop(None)
        self._rate = []
        self._progress = None
        self._done = self._idle = False
        self._launch = launch = process.Launch(source, config, paused, s.holdout, branch)
        self._proc, self._conn = launch.proc, launch.conn
        self._gc.pause()
        self._notifier = QtCore.QSocketNotifier(launch.conn.fileno(), QtCore.QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self.drain)
        s.set_progress(Stage.STARTING, 0, 0, 0.0)
        s.set_state(TrainingState.COUNTING)
        if self._launch is launch:  # (a slot may have stopped it already)
            launch.start()  # last: the helper thread's share of the launch holds the GIL for a moment

    def pause(self) -> None:
        self._command(Command.PAUSE)

    def resume(self) -> None:
        self._command(Command.RESUME)

    def step(self) -> None:
        """One merge (the worker pauses after it)."""
        self._command(Command.PAUSE)
        self._command(Command.STEP)

    def stop(self) -> None:
        """Ask the worker to finish after the current merge; kill it if it does not within a grace time."""
        if self.running:
            self._command(Command.STOP)
            proc = self._proc
            QtCore.QTimer.singleShot(STOP_GRACE_MS, self, lambda: self._force_stop(proc))

    def shutdown(self, timeout: float = 2.0, *, wait: bool = True) -> None:
        """Stop the worker now (window closing, new run): join it, terminate or kill if it lingers.

        With ``wait=False`` (a new run replacing an old one) the old process is told to stop and reaped by a
        background thread, so the GUI thread does not sit out its exit.
        """
        proc, conn = self._proc, self._conn
        self._join_launch()
        self._teardown()
        if conn is not None:
            try:
                conn.send(Command.STOP)
            except (OSError, EOFError):
                pass
            conn.close()
        if proc is not None and process.started(proc):
            if wait:
                process.reap(proc, timeout)
            else:
                process.reap_in_background(proc, timeout)
        if self.session.state.active:
            self.session.set_stop(StopReason.STOPPED, "stopped")
            self.session.set_state(TrainingState.FINISHED)

    # -- internals ----------------------------------------------------------------------------------
    def _command(self, cmd: Command) -> None:
        if self._conn is None or self._done:
            return
        try:
            self._conn.send(cmd)
        except (OSError, EOFError):
            pass  # the notifier will see the closed pipe and report it

    def _force_stop(self, proc: BaseProcess | None) -> None:
        if proc is not None and proc is self._proc and self.running:
            self.shutdown(timeout=0.1)

    def _join_launch(self) -> None:
        if self._launch is not None:
            self._launch.join()
            self._launch = None

    def _teardown(self) -> None:
        self._gc.resume()
        if self._notifier is not None:
            self._notifier.setEnabled(False)
            self._notifier.activated.disconnect(self.drain)
            self._notifier.deleteLater()
            self._notifier = None
        self._conn = None
        self._proc = None
        self._idle = False
        self._backlog.clear()
        self._counts.clear()
        self._more.stop()
        if self._following.pending:
            self._catch_up()

    def drain(self) -> None:
        """One wake-up (what the pipe's notifier calls): read the pipe within the budget, hand a budget of
        records on, schedule the rest for the next event-loop turn."""
        conn = self._conn
        if conn is None:
            return
        self.drained = 0
        # while a big corpus's counts are unpickled, the first records wait behind its Started: the pipe is still
        # read (within the time budget), or the worker would block on a full pipe and train nothing meanwhile
        limit = MAX_RECORDS_PER_DRAIN * (ASSEMBLING_READ_FACTOR if len(self._counts) else 1)
        closed = self._backlog.read(conn, time.monotonic() + DRAIN_BUDGET_S, limit)
        self._feed(conn)
        if self._conn is not conn:
            return
        if self._notifier is not None:
            # a backlog's turns come from the zero-timer alone: a pipe that stays readable would wake the GUI thread
            # turn after turn ahead of every timer (Qt's glib loop runs timers at idle priority after one fired)
            self._notifier.setEnabled(not self._backlog)
        if self._backlog:  # more than one wake-up's worth: the rest on the next event-loop turn
            if not self._more.isActive():
                self._more.start()
        elif closed:
            self._closed()
            return
        if self._gc.paused:
            self._gc.tick()

    def _feed(self, conn: Connection) -> None:
        """Hand at most ``MAX_RECORDS_PER_DRAIN`` backlog rows (in order, with the messages between them) to
        the session."""
        for item in self._backlog.take(MAX_RECORDS_PER_DRAIN):
            if isinstance(item, list):
                self._flush(item)
                self.drained += len(item)
                continue
            if isinstance(item, CountsPart):
                self._counts.add(item)
                continue
            if isinstance(item, Started) and item.parts:
                if self._counts.decode(time.monotonic() + COUNTS_BUDGET_S):
                    if len(self._counts) != item.parts:
                        raise RuntimeError(f"{len(self._counts)} parts of word counts came, not {item.parts}")
                    item = item._replace(word_counts=self._counts.take(item.word_counts.bytes_read), parts=0)
                # the rest of the parts on the next turns; the run's start (every pane's reset, a repaint) in a
                # turn of its own after the last part
                self._backlog.put_back(item)
                return
            if self.drained and isinstance(item, Finished):
                # the run's end -- every pane's reaction and a repaint of the window, the costliest wake-up --
                # gets a turn of its own, not the one that handed on the last records
                self._backlog.put_back(item)
                return
            if self._following.pending:
                self._catch_up()  # a pause, the end or an error: the step shows the newest merge now
            self._handle(item)
            if self._conn is not conn:  # the message ended the run (or a slot started another)
                return
            if isinstance(item, Started):  # every pane's reset (and its repaint) ends the turn: records on the next
                return

    def _flush(self, records: list[MergeRecord]) -> None:
        s = self.session
        at_end = self._following.at_end(s.step, s.n_steps)
        # a streaming run whose step follows the newest merge: the counts and the progress are shown with the
        # followed step (at most FOLLOW_EVERY_MS away), so a batch of records alone repaints nothing
        quiet = self.follow and at_end and s.state is TrainingState.TRAINING
        s.append_records(records, quiet=quiet)
        now = time.monotonic()
        self._rate.append((now, len(s.records)))
        while len(self._rate) > 2 and now - self._rate[0][0] > RATE_WINDOW_S:
            self._rate.pop(0)
        t0, n0 = self._rate[0]
        rate = wording.rate(len(s.records) - n0, now - t0) if s.state is TrainingState.TRAINING else None
        self._progress = (Stage.MERGING, len(s.records), s.work.target_merges or 0, rate or 0.0)
        if not quiet:
            self._show_progress()
        if self.follow and at_end:
            wait_ms = self._following.due_in_ms(s.step, s.state is TrainingState.TRAINING)
            if wait_ms == 0:
                self._catch_up()
            elif not self._follow_timer.isActive():
                self._follow_timer.start(wait_ms)

    def _catch_up(self) -> None:
        """Move the step to the newest merge if it is still following (a scrub meanwhile stops following)."""
        self._follow_timer.stop()
        self._show_progress()
        if self._following.catch_up(self.session.step):
            self.session.set_step(self.session.n_steps)  # (announces the count first)
        self.session.announce_count()

    def _show_progress(self) -> None:
        """Hand the progress of the last batch of records to the session (if not yet)."""
        if self._progress is not None:
            self.session.set_progress(*self._progress)
            self._progress = None

    def _handle(self, msg: Message) -> None:
        s = self.session
        match msg:
            case Progress(stage, done, total):
                s.set_progress(stage, done, total)
            case Started(model, initial, words, qt_loaded, held):
                self.worker_qt_loaded = qt_loaded
                s.set_counted(words, initial, held)
                s.reset_model(model)
                self._rate = [(time.monotonic(), 0)]
                s.set_progress(Stage.MERGING, 0, s.work.target_merges or 0, 0.0)
            case StateChanged(state):
                if state is TrainingState.PAUSED:
                    self._gc.resume()  # a pause may last long: let the collector run meanwhile
                else:
                    self._gc.pause()
                    self._rate = [(time.monotonic(), len(s.records))]  # a rate starts afresh on resume
                s.set_state(state)
            case Finished(reason, text):
                self._done = True
                self._idle = reason.can_continue
                self._gc.resume()
                s.set_stop(reason, text)
                s.set_progress(Stage.DONE, len(s.records), len(s.records))
                s.set_state(TrainingState.FINISHED)
                self.finished.emit(text)
            case Failed(message):
                self._done = True
                self._gc.resume()
                s.set_error(message)
                s.set_state(TrainingState.ERROR)
                self.failed.emit("Training failed", s.error)

    def _closed(self) -> None:
        """The pipe closed: normal after the last message, otherwise the worker died."""
        proc, conn = self._proc, self._conn
        done = self._done
        self._join_launch()
        self._teardown()
        if conn is not None:
            conn.close()
        code = None
        if proc is not None and not process.started(proc):
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
            s.set_error(f"The training process stopped unexpectedly ({how}) after "
                        f"{wording.plural(s.n_steps, 'merge')}. The merges received so far are kept; press Train "
                        "to start again.")
            s.set_stop(StopReason.WORKER_DIED, "worker died")
            s.set_state(TrainingState.ERROR)
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
