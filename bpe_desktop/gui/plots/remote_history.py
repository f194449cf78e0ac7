"""The window's side of the plots' statistics process: a big corpus's segmentation history, held and queried there.

Qt-free.  :class:`RemoteHistory` starts the process (:mod:`.stats_worker`, through the training worker's launch
machinery: a *spawn* child started from a helper thread) on first use and keeps it for its own life.
:meth:`~RemoteHistory.begin` starts a generation for a corpus: the word counts go as one pickled blob per part
of the :class:`~bpe_desktop.core.counting.parted.PartedCounts` (pickled and sent from a helper thread, so the
GUI thread neither pickles millions of pieces nor waits on a full pipe), then the merge list as it grows
(:meth:`~RemoteHistory.follow`) and Zipf questions (:meth:`~RemoteHistory.ask`).  :meth:`~RemoteHistory.poll`
reads the answers within a time budget: an answer is what the plot draws of the step
(:class:`~bpe_desktop.core.measure.stats.ZipfView`, a few thousand numbers), never its millions of pairs; those
go only to a CSV the process writes itself (:meth:`~RemoteHistory.export`, followed as an
:class:`ExportState`).  Answers of an older generation are dropped (the corpus changed meanwhile); an export is
answered whatever the generation (the process fails one whose generation it dropped).

When the process ends unasked (killed, out of memory) or refuses a generation, :attr:`~RemoteHistory.failure`
says why and nothing more is answered; a later :meth:`~RemoteHistory.begin` (a new corpus or run) starts a new
process.  The process ends with its owner: :meth:`~RemoteHistory.close`, or once this object is collected (its
pipe closed), or when the window's process dies (the child sees the pipe's end).

It leaves out what the plots show (:mod:`.feed`) and what the process computes (:mod:`.stats_worker`).
"""

from __future__ import annotations

import itertools
import os
import pickle
import time
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from ...core.counting.parted import PartedCounts
from ...core.measure.stats import Pair, ZipfView
from ...core.tokenizers.model import BPEModel
from .. import helper_threads
from ..training import process
from . import stats_worker
from .stats_protocol import (
    Applied,
    AskZipf,
    Begin,
    Control,
    CountsBlob,
    ExportFailed,
    ExportProgress,
    ExportZipf,
    Merges,
    StatsFailed,
    ToStats,
    ZipfExported,
    ZipfShown,
)

REAP_S = 2.0  # how long a closed process may take to exit before it is terminated
ANSWERS_KEPT = 8  # Zipf answers kept (the newest): each is what the plot draws, a few thousand numbers
_tickets = itertools.count(1)  # export tickets, unique in the window's process


@dataclass
class ExportState:
    """An export's CSV being written by the process: *started* once the process has got to its step, then rows
    *done* of *total* (0: the pairs are being ordered); once :attr:`finished`, *error* is "" (*rows* written to
    *path*) or why nothing was written."""

    step: int
    path: str
    done: int = 0
    total: int = 0
    rows: int = 0
    finished: bool = False
    error: str = ""
    started: bool = False

    def fail(self, why: str) -> None:
        if not self.finished:
            self.finished, self.error = True, why


def _send(conn: Connection, msg: ToStats) -> None:
    """(On the helper thread.)  A closed pipe is the reader's news (poll sees the end): not raised here."""
    try:
        conn.send(msg)
    except (OSError, EOFError, ValueError):
        pass


def _send_parts(conn: Connection, generation: int, parts: tuple[dict[str, int], ...]) -> None:
    """(On the helper thread.)  Each part pickled on its own and sent, in order."""
    for part in parts:
        _send(conn, CountsBlob(generation, pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL)))


def _close(conn: Connection, proc: BaseProcess) -> None:
    """(On the helper thread, after every message queued before it.)  Ask the process to stop, then reap it."""
    _send(conn, Control.STOP)
    conn.close()
    if process.started(proc):
        try:
            process.reap_in_background(proc, REAP_S)
        except RuntimeError:  # (the program is ending: multiprocessing ends its daemon children itself)
            pass


def _close_later(conn: Connection, proc: BaseProcess) -> None:
    """(When the owner is collected, on any thread.)  :func:`_close` after the messages already queued, so two
    threads never write to the pipe at once; at the program's end (the pool is shut) at once."""
    try:
        helper_threads.pool("stats").submit(_close, conn, proc)
    except RuntimeError:
        _close(conn, proc)


def _join_and_close(launch: process.ChildLaunch) -> None:
    """(On the helper thread.)  :func:`_close`, once the launch has happened."""
    launch.join()
    _close(launch.conn, launch.proc)


class RemoteHistory:
    """A segmentation history kept in the statistics process, for one corpus (generation) at a time."""

    def __init__(self) -> None:
        self._launch: process.ChildLaunch | None = None
        self._finalizer: weakref.finalize | None = None
        self._ended = False  # the process ended unasked (its pipe's end was read)
        self.generation = 0
        self.exports: dict[int, ExportState] = {}  # by ticket, until the process answers (kept after: small)
        self._reset_answers()

    def _reset_answers(self) -> None:
        self.n_merges = -1  # merges the history has applied (-1: not built yet)
        self.built = self.pieces = 0  # pieces of the history built so far, of all
        self.n_words = self.n_bytes = 0
        self._refused = ""  # why the process refused this generation ("" while all is well)
        self._sent_merges = 0
        self._asked: tuple[int, Pair | None] | None = None  # the step (and next pair) asked, not answered yet
        self.answers: dict[int, ZipfView] = {}  # this generation's answers by step (the newest ANSWERS_KEPT)
        self.seconds = 0.0  # the process's time for the last answer

    @property
    def failure(self) -> str:
        """Why nothing more will be answered ("" while all is well)."""
        if self._ended:
            launch = self._launch
            code = launch.proc.exitcode if launch is not None else None  # (not blocking: known once it is reaped)
            why = (f"killed by signal {-code}" if code is not None and code < 0
                   else f"exit code {code}" if code is not None else "its pipe closed")
            return f"the statistics process ended ({why})"
        return self._refused

    @property
    def reaped(self) -> bool:
        """False while the process has ended but its exit code is not known yet (:attr:`failure` will name it)."""
        return not self._ended or self._launch is None or self._launch.proc.exitcode is not None

    # -- the process --------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._launch is not None

    @property
    def pid(self) -> int | None:
        return self._launch.proc.pid if self._launch is not None else None

    def _ensure(self) -> process.ChildLaunch:
        if self._launch is None:
            launch = self._launch = process.ChildLaunch(stats_worker.run, (), "bpe-desktop-stats")
            self._finalizer = weakref.finalize(self, _close_later, launch.conn, launch.proc)
            self._finalizer.atexit = False  # (at the program's end multiprocessing ends its daemon children)
            launch.start()
        return self._launch

    def close(self) -> None:
        """End the process (in the background); a later :meth:`begin` starts another.  An export not written
        yet fails (the process removes what it had written)."""
        self._fail_exports("the plots were closed before the CSV was written -- nothing was written")
        launch, self._launch = self._launch, None
        if launch is not None and self._finalizer is not None:
            self._finalizer.detach()
            helper_threads.pool("stats").submit(_join_and_close, launch)
        self._finalizer = None
        self._ended = False

    def _queue(self, msg: ToStats) -> None:
        launch = self._ensure()
        helper_threads.pool("stats").submit(_send, launch.conn, msg)

    # -- the window's side of the conversation ------------------------------------------------------
    def begin(self, counts: Mapping[str, int], model: BPEModel) -> None:
        """A new generation: the history of *counts* from *model*'s base (its merges follow with :meth:`follow`)."""
        if self._ended:
            self.close()  # (a process that died: a new one)
        self.generation += 1
        self._reset_answers()
        parts = counts.parts if isinstance(counts, PartedCounts) else (dict(counts),)
        self.pieces = sum(map(len, parts))
        self._queue(Begin(self.generation, model.truncated(0), len(parts)))
        launch = self._ensure()
        helper_threads.pool("stats").submit(_send_parts, launch.conn, self.generation, parts)

    def forget(self) -> None:
        """Drop the current generation (a new corpus comes): nothing of it is reported any more, and the process
        stops working on it and frees its history."""
        if self._launch is not None and not self._ended:
            self._queue(Control.DROP)
        self.generation += 1
        self._reset_answers()

    def follow(self, merges: list[Pair]) -> None:
        """Send the merges of the (growing) list *merges* not sent yet."""
        n = self._sent_merges
        if len(merges) > n and not self.failure:
            self._queue(Merges(self.generation, n, tuple(merges[n:])))
            self._sent_merges = len(merges)

    @property
    def sent_merges(self) -> int:
        return self._sent_merges

    def answer(self, step: int, next_pair: Pair | None) -> ZipfView | None:
        """The answer for *step* with *next_pair*'s rank, if it has come."""
        v = self.answers.get(step)
        return v if v is not None and v.next_pair == next_pair else None

    def ask(self, step: int, next_pair: Pair | None = None) -> None:
        """Ask for what the plot draws at *step*, with *next_pair*'s rank (once; the newest question replaces an
        unanswered one)."""
        if self._asked != (step, next_pair) and self.answer(step, next_pair) is None and not self.failure:
            self._asked = (step, next_pair)
            self._queue(AskZipf(self.generation, step, next_pair))

    @property
    def asked(self) -> int | None:
        """The step asked for and not answered yet."""
        return self._asked[0] if self._asked is not None else None

    def export(self, step: int, path: str | os.PathLike[str]) -> int:
        """Have the process write every pair at *step* as CSV to *path* (atomically, once its history has got
        there); the ticket of :attr:`exports` that follows it."""
        ticket = next(_tickets)
        state = self.exports[ticket] = ExportState(step, os.fspath(path))
        if self.failure:
            state.fail(f"no pair counts: {self.failure} -- train again to count them")
        elif self._launch is None:
            state.fail("no statistics process holds these pair counts -- wait for the plot to show the step")
        else:
            self._queue(ExportZipf(self.generation, ticket, step, state.path))
        return ticket

    @property
    def exporting(self) -> bool:
        """Some export is not answered yet."""
        return any(not e.finished for e in self.exports.values())

    def _fail_exports(self, why: str) -> None:
        for e in self.exports.values():
            e.fail(why)

    def poll(self, budget_s: float) -> bool:
        """Read the answers waiting, for about *budget_s* seconds (at least one); True if something changed."""
        end = time.perf_counter() + budget_s
        launch = self._launch
        if launch is None or self._ended:
            return False
        changed = False
        conn = launch.conn
        try:
            while conn.poll(0):
                changed = self._take(conn.recv()) or changed
                if time.perf_counter() >= end:
                    break
        except (EOFError, OSError):
            self._ended = changed = True
            self._fail_exports(f"{self.failure} before the CSV was written -- nothing was written; export again")
        return changed

    def _take(self, msg: object) -> bool:
        if isinstance(msg, (ExportProgress, ZipfExported, ExportFailed)):
            return self._take_export(msg)
        if getattr(msg, "generation", None) != self.generation:
            return False  # (an answer for an older corpus)
        if isinstance(msg, Applied):
            self.n_merges, self.built, self.pieces = msg.n_merges, msg.built, msg.pieces
            self.n_words, self.n_bytes = msg.n_words, msg.n_bytes
        elif isinstance(msg, ZipfShown):
            v = msg.view
            if len(self.answers) >= ANSWERS_KEPT and v.step not in self.answers:
                self.answers.pop(next(iter(self.answers)))
            self.answers[v.step] = v
            self.seconds = msg.seconds
            if self._asked == (v.step, v.next_pair):
                self._asked = None
        elif isinstance(msg, StatsFailed):
            self._refused = msg.message.split("\n", 1)[0]
        else:
            return False
        return True

    def _take_export(self, msg: ExportProgress | ZipfExported | ExportFailed) -> bool:
        state = self.exports.get(msg.ticket)
        if state is None or state.finished:
            return False
        if isinstance(msg, ExportProgress):
            state.started, state.done, state.total = True, msg.done, msg.total
        elif isinstance(msg, ZipfExported):
            state.finished, state.rows = True, msg.rows
        else:
            state.fail(msg.message)
        return True
