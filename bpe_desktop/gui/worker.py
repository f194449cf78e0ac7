"""The training worker: the body of the child process that counts the corpus and runs the trainer.

Runs in a ``multiprocessing`` *spawn* child and imports only :mod:`bpe_desktop.core` (never Qt), so the
GUI process keeps its GIL to itself and never stalls.  It talks to :mod:`.controller` over one duplex
pipe of picklable tuples.

Messages to the GUI (in this order):

* ``("progress", stage, done, total)`` -- while counting (bytes), throttled to ``PROGRESS_SECONDS``;
* ``("started", model, initial_symbols, word_counts, qt_loaded)`` -- the trainer's empty model (so the GUI's
  ids match the records'), the corpus size in symbols, the counted words, and whether any Qt module was
  imported in this process (always ``False``; the tests check it);
* ``("state", "training" | "paused")`` -- acknowledges pause/resume;
* ``("records", [row, ...])`` -- batched by time (``BATCH_SECONDS``), at once after a single step; a row is
  the tuple of a :class:`MergeRecord`'s fields (``MergeRecord(*row)``): plain tuples unpickle in half
  the time of frozen dataclasses, and unpickling happens in the GUI thread;
* ``("finished", stop_reason, idle)`` -- the run ended.  ``idle`` True means the stop reason was a limit
  (merges or vocabulary size) and the process stays alive, holding its trainer, waiting for
  ``("more", n)``: then it continues where it stopped (``Trainer.set_limits``) and streams ``state`` and
  ``records`` messages again, the ranks following on.  ``idle`` False (stopped, no pair left, minimum
  frequency) means the pipe closes after this message;
* ``("error", message)`` -- the last message; the pipe closes after it.

Commands from the GUI: ``"pause"``, ``"resume"``, ``"step"`` (one merge, then stay paused), ``"stop"``,
and, only while idle, ``("more", n)`` (n further merges; the vocabulary-size limit is lifted).  A closed
pipe counts as ``"stop"``.  This module does not decide anything about display.
"""

from __future__ import annotations

import sys
import time
import traceback
from multiprocessing.connection import Connection

from ..core.config import TrainConfig
from ..core.corpus import CorpusSource, count_source
from ..core.errors import BpeError, Cancelled
from ..core.model import BPEModel
from ..core.records import MergeRecord
from ..core.trainer import Trainer

BATCH_SECONDS = 0.03
PROGRESS_SECONDS = 0.05


class _Stop(Exception):
    """The GUI asked to stop (or went away)."""


class _Commands:
    """The worker's view of the command stream: paused flag, pending single steps, stop."""

    def __init__(self, conn: Connection, paused: bool) -> None:
        self.conn = conn
        self.paused = paused
        self.steps = 0
        self.stop = False
        self.more = 0  # further merges asked for while idle

    def _apply(self, cmd: object) -> None:
        if cmd == "pause":
            self.paused = True
        elif cmd == "resume":
            self.paused = False
        elif cmd == "step" and self.paused:
            self.steps += 1
        elif cmd == "stop":
            self.stop = True
        elif isinstance(cmd, tuple) and len(cmd) == 2 and cmd[0] == "more" and isinstance(cmd[1], int):
            self.more = max(0, cmd[1])

    def poll(self, block: bool = False) -> None:
        """Read every pending command; with *block*, wait for at least one."""
        try:
            while self.conn.poll(None if block else 0):
                self._apply(self.conn.recv())
                block = False
        except (EOFError, OSError):
            self.stop = True
        if self.stop:
            raise _Stop()


def run(conn: Connection, source: CorpusSource, config: TrainConfig, paused: bool = False) -> None:
    """Process entry point: count, then train until done, stopped, or failed; always close the pipe."""
    try:
        _train(conn, source, config, _Commands(conn, paused))
    except (_Stop, Cancelled):
        _last_words(conn, ("finished", "stopped"))
    except BpeError as e:
        _last_words(conn, ("error", str(e)))
    except MemoryError:
        _last_words(conn, ("error", "out of memory while training -- use a smaller corpus or fewer merges"))
    except Exception as e:  # a bug: say so, with the traceback, rather than dying silently
        _last_words(conn, ("error", f"internal error in the training process: {type(e).__name__}: {e}\n\n"
                                    + traceback.format_exc()))
    finally:
        conn.close()


def _last_words(conn: Connection, msg: tuple[object, ...]) -> None:
    try:
        conn.send(msg)
    except (OSError, EOFError):
        pass  # the GUI is gone: nobody to tell


def _send(conn: Connection, msg: tuple[object, ...]) -> None:
    try:
        conn.send(msg)
    except (OSError, EOFError):
        raise _Stop() from None


def _train(conn: Connection, source: CorpusSource, config: TrainConfig, cmds: _Commands) -> None:
    last = 0.0

    def progress(stage: str, done: int, total: int) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= PROGRESS_SECONDS or done >= total:
            last = now
            _send(conn, ("progress", stage, done, total))

    def cancel() -> bool:
        cmds.poll()
        if cmds.paused and not cmds.steps:  # pausing while counting waits between chunks
            _send(conn, ("state", "paused"))
            while cmds.paused and not cmds.steps:
                cmds.poll(block=True)
            _send(conn, ("state", "counting"))
        return False

    _send(conn, ("progress", "counting", 0, 1))
    words = count_source(source, config, progress=progress, cancel=cancel)
    trainer = Trainer(words, config)
    m = trainer.model
    empty = BPEModel(mode=m.mode, base=list(m.base), merges=[], pretokenizer=m.pretokenizer,
                     end_of_word=m.end_of_word, glue_marker=m.glue_marker, specials=m.specials,
                     tie_break=m.tie_break)
    qt_loaded = any(name.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph") for name in sys.modules)
    _send(conn, ("started", empty, trainer.initial_symbols, words, qt_loaded))
    while True:
        _merge_loop(conn, trainer, cmds)
        reason = trainer.stop_reason or "done"
        idle = reason.startswith("reached ")  # a limit: more merges are possible
        _send(conn, ("finished", reason, idle))
        if not idle:
            return
        n = _wait_for_more(cmds)
        trainer.set_limits(merges=trainer.n_merges + n, vocab_size=None)


def _wait_for_more(cmds: _Commands) -> int:
    """Idle after a run that reached its limit: block until ``("more", n)`` (return n) or stop (raise)."""
    cmds.more = 0
    while True:
        cmds.poll(block=True)
        if cmds.more > 0:
            n, cmds.more = cmds.more, 0
            cmds.paused, cmds.steps = False, 0  # what arrived while idle does not carry over
            return n


_FIELDS = MergeRecord.__slots__


def _row(rec: MergeRecord) -> tuple[object, ...]:
    return tuple(getattr(rec, f) for f in _FIELDS)


def _merge_loop(conn: Connection, trainer: Trainer, cmds: _Commands) -> None:
    batch: list[tuple[object, ...]] = []
    last = time.monotonic()
    state = "paused" if cmds.paused else "training"
    _send(conn, ("state", state))
    try:
        while True:
            cmds.poll()
            if cmds.paused and not cmds.steps:
                if batch:
                    _send(conn, ("records", batch))
                    batch = []
                if state != "paused":
                    state = "paused"
                    _send(conn, ("state", state))
                cmds.poll(block=True)
                continue
            if not cmds.paused and state != "training":
                state = "training"
                _send(conn, ("state", state))
            single = cmds.paused and cmds.steps > 0
            if single:
                cmds.steps -= 1
            rec = trainer.step()
            if rec is None:
                break
            batch.append(_row(rec))
            now = time.monotonic()
            if single or now - last >= BATCH_SECONDS:
                _send(conn, ("records", batch))
                batch = []
                last = now
    except _Stop:
        if batch:
            _send(conn, ("records", batch))
        raise
    if batch:
        _send(conn, ("records", batch))
