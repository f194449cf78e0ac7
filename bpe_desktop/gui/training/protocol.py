"""What the training worker and the window say to each other: typed messages, commands and states.

Imports no Qt (the worker process imports it).  Every message is a picklable ``NamedTuple`` sent over one
duplex pipe; both ends dispatch on the type, never on strings.

Worker -> window, in this order:

* :class:`Progress` -- while counting (bytes done of total), throttled by the worker;
* :class:`~.counts_parts.CountsPart` -- only for a corpus of many distinct pieces: its word counts, in parts;
* :class:`Started` -- the trainer's empty model (so the window's ids match the records'), the corpus size in
  symbols, the counted words (or how many parts brought them), and whether the worker process had loaded Qt
  (always False; tests check it); with a held-out share asked for, also the :class:`HeldOut` part (the corpus's
  last lines, not trained on: it travels whole);
* :class:`StateChanged` -- acknowledges pause and resume (``COUNTING``, ``TRAINING`` or ``PAUSED``);
* :class:`Records` -- batched merge records, each a row of :class:`~bpe_desktop.core.records.MergeRecord`
  fields (``MergeRecord(*row)``: plain tuples unpickle in half the time of dataclasses, and unpickling
  happens in the GUI thread);
* :class:`Finished` -- the run ended; when ``reason.can_continue`` the worker stays alive holding its
  trainer and waits for :class:`More`, else the pipe closes after this message;
* :class:`Failed` -- the last message; the pipe closes after it.

Window -> worker: :class:`Command` (pause, resume, step = one merge then stay paused, stop) and, only
while idle after a limit, :class:`More`.  A closed pipe counts as stop.

A branch ("what if", :mod:`bpe_desktop.core.training.branch`) is launched with a :class:`BranchFrom` beside the corpus
and the settings: the worker counts, replays the point's first k merges on the word counts
(:class:`Progress` with stage ``replaying``), sends :class:`Started` and the k kept merges as
:class:`Records`, then trains on as usual.

It leaves out how the worker trains (:mod:`.worker`) and how the window reacts (:mod:`.controller`).
"""

from __future__ import annotations

from enum import Enum, StrEnum
from typing import Any, NamedTuple

from ...core.counting.pieces import WordCounts
from ...core.measure.quality import TextTotals
from ...core.records import MergeRecord
from ...core.stopping import StopReason
from ...core.tokenizers.model import BPEModel
from ...core.training.branch import BranchPoint
from .counts_parts import CountsPart

__all__ = [
    "BranchFrom",
    "Command",
    "Failed",
    "Finished",
    "HeldOut",
    "Message",
    "More",
    "Progress",
    "Records",
    "Row",
    "Stage",
    "Started",
    "StateChanged",
    "StopReason",
    "TrainingState",
    "row_of",
]


class TrainingState(StrEnum):
    """The window's training state (the session publishes it; panes compare against these members)."""

    IDLE = "idle"  # nothing trained yet in this window
    COUNTING = "counting"
    TRAINING = "training"
    PAUSED = "paused"
    FINISHED = "finished"
    ERROR = "error"

    @property
    def active(self) -> bool:
        """A worker is counting or training (possibly paused)."""
        return self in (TrainingState.COUNTING, TrainingState.TRAINING, TrainingState.PAUSED)


class Stage(StrEnum):
    """What the progress bar shows.  The worker passes on the core's counting stages (``reading``,
    ``counting``) as they come; the controller adds the others."""

    STARTING = "starting"  # the worker process is being launched
    READING = "reading"
    COUNTING = "counting"
    REPLAYING = "replaying"  # a branch rebuilding the state at its step k (core.training.branch.start_branch)
    MERGING = "merging"
    DONE = "done"


class Command(Enum):
    """A command from the window to a running worker."""

    PAUSE = "pause"
    RESUME = "resume"
    STEP = "step"  # one merge, then stay paused (ignored unless paused)
    STOP = "stop"


class More(NamedTuple):
    """Only while idle after a limit: train *n* further merges (the vocabulary-size limit is lifted)."""

    n: int


class BranchFrom(NamedTuple):
    """Launch argument: start from step ``point.step`` of a source run instead of step 0 (picklable)."""

    point: BranchPoint


Row = tuple[Any, ...]  # a MergeRecord's fields in slot order

_FIELDS = MergeRecord.__slots__


def row_of(rec: MergeRecord) -> Row:
    """*rec* as the plain tuple :class:`Records` carries (``MergeRecord(*row)`` turns it back)."""
    return tuple(getattr(rec, f) for f in _FIELDS)


class Progress(NamedTuple):
    stage: str  # a Stage value; the core's own label if it adds a stage
    done: int
    total: int


class HeldOut(NamedTuple):
    """The corpus's last lines kept out of training (:func:`bpe_desktop.core.measure.holdout.count_with_holdout`)."""

    word_counts: WordCounts
    totals: TextTotals
    train_totals: TextTotals  # of the lines trained on
    lines: int
    share: float


class Started(NamedTuple):
    model: BPEModel  # the trainer's model with no merges yet
    initial_symbols: int
    word_counts: WordCounts  # without its counts when they came before it in ``parts`` parts (.counts_parts)
    qt_loaded: bool
    held_out: HeldOut | None = None  # only when the window asked for a held-out share
    parts: int = 0


class StateChanged(NamedTuple):
    state: TrainingState


class Records(NamedTuple):
    rows: list[Row]


class Finished(NamedTuple):
    reason: StopReason
    text: str  # the trainer's sentence, e.g. "reached 700 merges"


class Failed(NamedTuple):
    message: str


Message = Progress | CountsPart | Started | StateChanged | Records | Finished | Failed
