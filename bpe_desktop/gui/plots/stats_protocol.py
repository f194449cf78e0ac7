"""What the window and the plots' statistics process say to each other (Qt-free, typed: NamedTuples and an enum).

A big corpus's segmentation history (millions of distinct pieces) is built and kept in a process of its own
(:mod:`.stats_worker`), not on the GUI thread.  Every message carries the *generation* it belongs to: the window
starts a new one for each corpus or run it shows (:class:`Begin`), and drops any answer of an older one, so an
answer still on its way when the corpus changed is never shown for the new one.

Window -> process, in this order per generation: :class:`Begin`, then ``parts`` :class:`CountsBlob`, then any
number of :class:`Merges` (the merge list as it grows) and :class:`AskZipf` (the newest replaces one not yet
answered); :attr:`Control.DROP` forgets the generation (a small corpus followed, whose history is the window's),
:attr:`Control.STOP` ends the process.  Process -> window: :class:`Applied` as the history grows, a
Zipf answer as :class:`ZipfRows` parts then :class:`ZipfDone` (a table of many pairs is not unpickled in one
wake-up of the GUI thread), and :class:`StatsFailed` when it cannot go on.

It leaves out how the process is started and read (:mod:`.remote_history`) and what it computes (the core's
:class:`~bpe_desktop.core.measure.stats.SegmentationHistory`).
"""

from __future__ import annotations

import enum
from typing import NamedTuple

from ...core.measure.stats import Pair
from ...core.tokenizers.model import BPEModel

ZIPF_ROWS = 4096  # rows of a Zipf answer per ZipfRows message


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
    """The pair frequencies at *step* (answered once the history has applied that many merges)."""

    generation: int
    step: int


class Applied(NamedTuple):
    """The history is built (*n_merges* -1: not yet; *built* pieces of *pieces* so far) and has applied
    *n_merges*; *n_words*/*n_bytes* are the corpus's pieces and their bytes, with multiplicity."""

    generation: int
    n_merges: int
    built: int
    pieces: int
    n_words: int
    n_bytes: int


class ZipfRows(NamedTuple):
    """The next rows of the Zipf answer for *step*: pairs by rank, their counts and labels."""

    generation: int
    step: int
    pairs: list[Pair]
    counts: list[int]
    labels: list[tuple[str, str]]


class ZipfDone(NamedTuple):
    """The Zipf answer for *step* is whole (its rows came before); the fit of its log-log line."""

    generation: int
    step: int
    slope: float
    intercept: float
    seconds: float  # the process's time for the answer


class StatsFailed(NamedTuple):
    """The process cannot go on with this generation (the reason, for the plot's title)."""

    generation: int
    message: str


ToStats = Begin | CountsBlob | Merges | AskZipf | Control
FromStats = Applied | ZipfRows | ZipfDone | StatsFailed
