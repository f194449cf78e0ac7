"""The training worker: the body of the child process that counts the corpus and runs the trainer.

Runs in a ``multiprocessing`` *spawn* child and imports only :mod:`bpe_desktop.core` and the Qt-free
:mod:`.protocol` (never Qt), so the GUI process keeps its GIL to itself.  It sends the protocol's messages
in the order given there, batching records by time (``BATCH_SECONDS``) and at once after a single step, and
obeys its commands between merges.  It decides nothing about display.
"""

from __future__ import annotations

import sys
import time
import traceback
from multiprocessing.connection import Connection

from ...core.config import TrainConfig
from ...core.counting.pieces import WordCounts
from ...core.counting.sources import CorpusSource, count_source
from ...core.errors import BpeError, Cancelled
from ...core.measure.holdout import count_with_holdout
from ...core.stopping import StopReason
from ...core.tokenizers.model import BPEModel
from ...core.training.branch import start_branch
from ...core.training.trainer import Trainer
from ..worker_priority import lower_priority
from . import counts_parts
from .protocol import (
    BranchFrom,
    Command,
    Failed,
    Finished,
    HeldOut,
    Message,
    More,
    Progress,
    Records,
    Row,
    Stage,
    Started,
    StateChanged,
    TrainingState,
    row_of,
)

BATCH_SECONDS = 0.03
PROGRESS_SECONDS = 0.05


class StopRequested(Exception):
    """The GUI asked to stop (or went away)."""


class Commands:
    """The worker's view of the command stream: paused flag, pending single steps, stop."""

    def __init__(self, conn: Connection, paused: bool) -> None:
        self.conn = conn
        self.paused = paused
        self.steps = 0
        self.stop = False
        self.more = 0  # further merges asked for while idle

    def _apply(self, cmd: object) -> None:
        if cmd is Command.PAUSE:
            self.paused = True
        elif cmd is Command.RESUME:
            self.paused = False
        elif cmd is Command.STEP and self.paused:
            self.steps += 1
        elif cmd is Command.STOP:
            self.stop = True
        elif isinstance(cmd, More) and isinstance(cmd.n, int):
            self.more = max(0, cmd.n)

    def poll(self, block: bool = False) -> None:
        """Read every pending command; with *block*, wait for at least one."""
        try:
            while self.conn.poll(None if block else 0):
                self._apply(self.conn.recv())
                block = False
        except (EOFError, OSError):
            self.stop = True
        if self.stop:
            raise StopRequested()


def run(conn: Connection, source: CorpusSource, config: TrainConfig, paused: bool = False,
        holdout: float = 0.0, branch: BranchFrom | None = None) -> None:
    """Process entry point: count (and, for a *branch*, replay its first k merges), then train until done,
    stopped, or failed; always close the pipe.

    With *holdout* > 0 the last share of the corpus's lines is counted apart and never trained on."""
    lower_priority()
    try:
        _train(conn, source, config, Commands(conn, paused), holdout, branch)
    except (StopRequested, Cancelled):
        _last_words(conn, Finished(StopReason.STOPPED, "stopped"))
    except BpeError as e:
        _last_words(conn, Failed(str(e)))
    except MemoryError:
        _last_words(conn, Failed("out of memory while training -- use a smaller corpus or fewer merges"))
    except Exception as e:  # a bug: say so, with the traceback, rather than dying silently
        _last_words(conn, Failed(f"internal error in the training process: {type(e).__name__}: {e}\n\n"
                                 + traceback.format_exc()))
    finally:
        conn.close()


def _last_words(conn: Connection, msg: Message) -> None:
    try:
        conn.send(msg)
    except (OSError, EOFError):
        pass  # the GUI is gone: nobody to tell


def _send(conn: Connection, msg: Message) -> None:
    try:
        conn.send(msg)
    except (OSError, EOFError):
        raise StopRequested() from None


def _train(conn: Connection, source: CorpusSource, config: TrainConfig, cmds: Commands, holdout: float = 0.0,
           branch: BranchFrom | None = None) -> None:
    last = 0.0

    def progress(stage: str, done: int, total: int) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= PROGRESS_SECONDS or done >= total:
            last = now
            _send(conn, Progress(stage, done, total))

    def cancel() -> bool:
        cmds.poll()
        if cmds.paused and not cmds.steps:  # pausing while counting waits between chunks
            _send(conn, StateChanged(TrainingState.PAUSED))
            while cmds.paused and not cmds.steps:
                cmds.poll(block=True)
            _send(conn, StateChanged(TrainingState.COUNTING))
        return False

    _send(conn, Progress(Stage.COUNTING, 0, 1))
    held: HeldOut | None = None
    if holdout > 0:  # (read in one go: no progress while counting)
        split = count_with_holdout(source, config, holdout)
        words = split.train
        held = HeldOut(split.held_out, split.held_out_totals, split.train_totals, split.held_out_lines, holdout)
    else:
        words = count_source(source, config, progress=progress, cancel=cancel)
    parts = 0
    for part in counts_parts.split(words):  # (a corpus of many distinct pieces: see .counts_parts)
        _send(conn, part)
        parts += 1
    kept: list[Row] = []
    if branch is None:  # the window has the counts (in parts): the trainer may empty the table it takes
        trainer = Trainer(words, config, release=parts > 0)
    else:  # rebuild the state at step k by replaying the kept merges (no ranking), with progress and cancel
        started = start_branch(words, config, branch.point, progress=progress, cancel=lambda: cancel() or cmds.stop)
        trainer = started.trainer
        kept = [row_of(r) for r in started.records]
    m = trainer.model
    empty = BPEModel(mode=m.mode, base=list(m.base), merges=[], pretokenizer=m.pretokenizer,
                     end_of_word=m.end_of_word, glue_marker=m.glue_marker, specials=m.specials,
                     tie_break=m.tie_break)
    qt_loaded = any(name.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph") for name in sys.modules)
    inline = words if not parts else WordCounts({}, words.bytes_read)
    _send(conn, Started(empty, trainer.initial_symbols, inline, qt_loaded, held, parts))
    for i in range(0, len(kept), 4096):  # a branch's kept merges, in batches the window drains in turns
        _send(conn, Records(kept[i : i + 4096]))
    while True:
        _merge_loop(conn, trainer, cmds)
        reason = trainer.stopped_by or StopReason.NO_PAIR
        _send(conn, Finished(reason, trainer.stop_reason or "done"))
        if not reason.can_continue:
            return
        n = _wait_for_more(cmds)
        trainer.set_limits(merges=trainer.n_merges + n, vocab_size=None)


def _wait_for_more(cmds: Commands) -> int:
    """Idle after a run that reached its limit: block until :class:`More` (return its n) or stop (raise)."""
    cmds.more = 0
    while True:
        cmds.poll(block=True)
        if cmds.more > 0:
            n, cmds.more = cmds.more, 0
            cmds.paused, cmds.steps = False, 0  # what arrived while idle does not carry over
            return n


def _merge_loop(conn: Connection, trainer: Trainer, cmds: Commands) -> None:
    batch: list[Row] = []
    last = time.monotonic()
    state = TrainingState.PAUSED if cmds.paused else TrainingState.TRAINING
    _send(conn, StateChanged(state))
    try:
        while True:
            cmds.poll()
            if cmds.paused and not cmds.steps:
                if batch:
                    _send(conn, Records(batch))
                    batch = []
                if state is not TrainingState.PAUSED:
                    state = TrainingState.PAUSED
                    _send(conn, StateChanged(state))
                cmds.poll(block=True)
                continue
            if not cmds.paused and state is not TrainingState.TRAINING:
                state = TrainingState.TRAINING
                _send(conn, StateChanged(state))
            single = cmds.paused and cmds.steps > 0
            if single:
                cmds.steps -= 1
            rec = trainer.step()
            if rec is None:
                break
            batch.append(row_of(rec))
            now = time.monotonic()
            if single or now - last >= BATCH_SECONDS:
                _send(conn, Records(batch))
                batch = []
                last = now
    except StopRequested:
        if batch:
            _send(conn, Records(batch))
        raise
    if batch:
        _send(conn, Records(batch))
