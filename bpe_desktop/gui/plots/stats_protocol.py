"""What the window and the plots' statistics process say to each other (Qt-free, typed: NamedTuples and an enum).

A big corpus's segmentation history (millions of distinct pieces) is built and kept in a process of its own
(:mod:`.stats_worker`), not on the GUI thread.  Every message carries the *generation* it belongs to: the window
starts a new one for each corpus or run it shows (:class:`Begin`), and drops any answer of an older one, so an
answer still on its way when the corpus changed is never shown for the new one.

Window -> process, in this order per generation: :class:`Begin`, then ``parts`` :class:`CountsBlob`, then any
number of :class:`Merges` (the merge list as it grows), :class:`AskZipf` (the newest replaces one not yet
answered) and :class:`ExportZipf`; :attr:`Control.DROP` forgets the generation (a small corpus followed, whose
history is the window's), :attr:`Control.STOP` ends the process.  Process -> window: :class:`Applied` as the
history grows, a Zipf answer as one :class:`ZipfShown` -- what the plot draws (a
:class:`~bpe_desktop.core.measure.stats.ZipfView`: a few thousand numbers however many pairs the step has),
never every pair --, and :class:`StatsFailed` when it cannot go on.  Every pair of a step goes only to a file:
the process writes the CSV an :class:`ExportZipf` names itself (atomically), reporting
:class:`ExportProgress`, then :class:`ZipfExported` or :class:`ExportFailed` (nothing written); an export is
answered even when its generation is dropped meanwhile (then failed), so the window never waits for nothing.

It leaves out how the process is started and read (:mod:`.remote_history`) and what it computes (the core's
:class:`~bpe_desktop.core.measure.stats.SegmentationHistory`).
"""

from __future__ import annotations

import enum
from typing import NamedTuple

from ...core.measure.stats import Pair, ZipfView
from ...core.tokenizers.model import BPEModel


class Control(enum.Enum):
    STOP = "stop"  # end the process
    DROP = "drop"  # forget the current generation (its history's memory goes back; nothing more is answered)


class Begin(NamedTuple):
    """A new corpus: its history starts from *model*'s base (no merges), from *parts* blobs of word counts."""

    generation: int
    model: BPEModel
    parts: int


class CountsBlob(NamedTuple):
    """Some of the word counts, in the corpus's order: a ``dict[str, int]`` pickled on its own (unpickled only in
    the process)."""

    generation: int
    blob: bytes


class Merges(NamedTuple):
    """The merge list's pairs from index *start* on (the process has exactly *start* already)."""

    generation: int
    start: int
    pairs: tuple[Pair, ...]


class AskZipf(NamedTuple):
    """What the plot draws at *step*, with *next_pair*'s rank (answered once the history has applied that many
    merges)."""

    generation: int
    step: int
    next_pair: Pair | None


class ExportZipf(NamedTuple):
    """Write every pair at *step* as CSV to *path* (once the history has got there); *ticket* names the export
    in the answers (unique within the window's life)."""

    generation: int
    ticket: int
    step: int
    path: str


class Applied(NamedTuple):
    """The history is built (*n_merges* -1: not yet; *built* pieces of *pieces* so far) and has applied
    *n_merges*; *n_words*/*n_bytes* are the corpus's pieces and their bytes, with multiplicity."""

    generation: int
    n_merges: int
    built: int
    pieces: int
    n_words: int
    n_bytes: int


class ZipfShown(NamedTuple):
    """What the plot draws at *step* (the view's step); *seconds*: the process's time for it."""

    generation: int
    view: ZipfView
    seconds: float


class ExportProgress(NamedTuple):
    """Export *ticket*: *done* rows of *total* written (*total* 0: the pairs are being ordered)."""

    generation: int
    ticket: int
    done: int
    total: int


class ZipfExported(NamedTuple):
    """Export *ticket* is written: *rows* pairs."""

    generation: int
    ticket: int
    rows: int


class ExportFailed(NamedTuple):
    """Export *ticket* was not written (why, with the fix); the file was left as it was."""

    generation: int
    ticket: int
    message: str


class StatsFailed(NamedTuple):
    """The process cannot go on with this generation (the reason, for the plot's title)."""

    generation: int
    message: str


ToStats = Begin | CountsBlob | Merges | AskZipf | ExportZipf | Control
FromStats = Applied | ZipfShown | ExportProgress | ZipfExported | ExportFailed | StatsFailed
