"""The plots' statistics process: the pair counts of a big corpus at any step, built and followed away from the window.

Runs in a ``multiprocessing`` *spawn* child and imports only :mod:`bpe_desktop.core` and the Qt-free
:mod:`.stats_protocol` (never Qt).  It keeps the newest generation the window began: it unpickles the word
counts' blobs into a :class:`~bpe_desktop.core.counting.parted.PartedCounts` (no dict of them all) and follows
the merges as they come with a compiled trainer replayed over those counts
(:class:`~bpe_desktop.core.measure.stats.replayed.ReplayedCounts`: hundreds of MB and seconds on millions of
distinct pieces), or where the kernel does not cover the model (a tie rule it lacks, no kernel, another base)
with a :class:`~bpe_desktop.core.measure.stats.SegmentationHistory` (pure Python: gigabytes and a merge a
second there).  It answers the newest Zipf question once it has got that far.  The work goes in
units (:class:`~bpe_desktop.core.measure.stats.Sliced`) with the pipe read between them, so a question or a new
generation is seen within a slice, and so is the window's end: the pipe's end of file, or this process's parent
gone, ends it (no orphan).  Order of the work in a slice: the build, then a pending question, then the merges
(with the replayed counts the merges come first: a question waits until none is pending, see ``_answerable``).

It leaves out drawing and what the plots do with the answers (:mod:`.remote_history`, :mod:`.feed`).
"""

from __future__ import annotations

import os
import pickle
import time
import traceback
from multiprocessing.connection import Connection

from ...core.counting.parted import PartedCounts
from ...core.errors import BpeError
from ...core.measure.stats import SegmentationHistory, Sliced, ZipfData
from ...core.measure.stats.replayed import ReplayedCounts
from ...core.tokenizers.model import BPEModel
from ..training.worker import lower_priority
from .stats_protocol import (
    ZIPF_ROWS,
    Applied,
    AskZipf,
    Begin,
    Control,
    CountsBlob,
    FromStats,
    Merges,
    StatsFailed,
    ZipfDone,
    ZipfRows,
)

SLICE_S = 0.05  # work between two reads of the pipe
IDLE_WAIT_S = 0.5  # with nothing to do: how long a read waits before the parent is checked again
APPLIED_EVERY_S = 0.1  # progress (Applied) at most this often while the history grows


class Gone(Exception):
    """The window went away (end of file on the pipe, or the parent process is gone) or said STOP."""


class Generation:
    """One corpus's statistics: its counts arriving, then its history, its merge list and the pending question."""

    def __init__(self, begin: Begin) -> None:
        self.generation = begin.generation
        self.model = BPEModel(mode=begin.model.mode, base=list(begin.model.base), merges=[],
                              pretokenizer=begin.model.pretokenizer, end_of_word=begin.model.end_of_word,
                              glue_marker=begin.model.glue_marker, specials=begin.model.specials,
                              tie_break=begin.model.tie_break)
        self.parts_due = begin.parts
        self.parts: list[dict[str, int]] = []
        self.pieces = 0
        self.replayed: ReplayedCounts | None = None  # the kernel's counts, being built
        self.kernel_build: Sliced[bool] | None = None
        self.kernel_tried = False  # (False: the kernel path was not decided yet)
        self.build: Sliced[SegmentationHistory] | None = None
        self.history: SegmentationHistory | ReplayedCounts | None = None
        self.extend: Sliced[None] | None = None
        self.ask: int | None = None  # the step asked for, not yet answered
        self.zipf: Sliced[ZipfData] | None = None
        self.zipf_step = -1
        self.zipf_t0 = 0.0
        self.failed = False
        self.unreported = False  # grown since the last Applied sent

    def applied(self) -> Applied:
        h = self.history
        if h is None:
            built = (self.replayed.built if self.replayed is not None
                     else 0 if self.build is None else self.build.units * BUILD_CHUNK)
            return Applied(self.generation, -1, min(built, self.pieces), self.pieces, 0, 0)
        return Applied(self.generation, h.n_merges, self.pieces, self.pieces, h.n_words, h.n_bytes)


BUILD_CHUNK = 256  # pieces per unit of the build (SegmentationHistory.building's default)


def run(conn: Connection) -> None:
    """Process entry point: serve the window until it goes away; always close the pipe."""
    lower_priority()
    parent = os.getppid()
    try:
        _serve(conn, parent)
    except Gone:
        pass
    finally:
        conn.close()


def _send(conn: Connection, msg: FromStats) -> None:
    try:
        conn.send(msg)
    except (OSError, EOFError):
        raise Gone() from None


def _serve(conn: Connection, parent: int) -> None:
    gen: Generation | None = None
    last_applied = 0.0
    while True:
        busy = gen is not None and not gen.failed and _has_work(gen)
        gen = _read(conn, gen, 0.0 if busy else IDLE_WAIT_S)
        if os.getppid() != parent:
            raise Gone()
        if gen is None or gen.failed or not _has_work(gen):
            continue
        try:
            changed = _work(conn, gen, time.perf_counter() + SLICE_S)
        except Gone:
            raise
        except MemoryError:
            gen.failed = True
            _send(conn, StatsFailed(gen.generation, "out of memory while counting pairs"))
            continue
        except BpeError as e:  # (merges that do not fit the counts: another run's)
            gen.failed = True
            _send(conn, StatsFailed(gen.generation, str(e)))
            continue
        except Exception as e:  # a bug: say so rather than die silently
            gen.failed = True
            _send(conn, StatsFailed(gen.generation, f"internal error in the statistics process: "
                                                    f"{type(e).__name__}: {e}\n\n{traceback.format_exc()}"))
            continue
        now = time.perf_counter()
        h = gen.history
        gen.unreported = gen.unreported or changed  # (reported once the interval has passed or the work ends)
        if gen.unreported and (now - last_applied >= APPLIED_EVERY_S or not _has_work(gen)):
            last_applied, gen.unreported = now, False
            if isinstance(h, ReplayedCounts) and not h.pending:  # (caught up: the window asks for this step next;
                h.snapshot()  # a table of every pair, so not while the replay runs on)
            _send(conn, gen.applied())


def _has_work(gen: Generation) -> bool:
    h = gen.history
    if h is None:
        return len(gen.parts) == gen.parts_due
    h.model = gen.model
    return _answerable(gen, h) or h.pending > 0 or gen.extend is not None


def _answerable(gen: Generation, h: SegmentationHistory | ReplayedCounts) -> bool:
    """Whether the pending question is answered in this slice.  The replayed counts answer it once no merge
    is pending: the window asks for the step it was last told of while it catches up, and an answer of a big
    corpus is every pair (a sort of millions in Python), so answering each one of those, rather than replaying,
    made the plot reach the last step minutes after training's end.  (The newest question replaces it
    meanwhile; the pure history, which applies a merge in seconds, answers as it goes.)"""
    if gen.ask is None or h.n_merges < gen.ask:
        return False
    return not (isinstance(h, ReplayedCounts) and h.pending > 0)


def _read(conn: Connection, gen: Generation | None, wait_s: float) -> Generation | None:
    """Handle every message waiting (waiting up to *wait_s* for the first); the generation now current."""
    try:
        while conn.poll(wait_s):
            wait_s = 0.0
            msg = conn.recv()
            if msg is Control.STOP:
                raise Gone()
            if msg is Control.DROP:
                gen = None  # (its history is freed: a big one would otherwise go on being followed for nothing)
                continue
            if isinstance(msg, Begin):
                gen = Generation(msg)  # (the old one is dropped: its answers would be stale)
                continue
            if gen is None or gen.failed or getattr(msg, "generation", None) != gen.generation:
                continue  # (an older generation's message still in the pipe)
            problem = _take(gen, msg)
            if problem:
                gen.failed = True
                _send(conn, StatsFailed(gen.generation, problem))
    except (EOFError, OSError):
        raise Gone() from None
    return gen


def _take(gen: Generation, msg: object) -> str:
    """Apply one message of the current generation; what is wrong with it ("" if nothing)."""
    if isinstance(msg, CountsBlob):
        if len(gen.parts) >= gen.parts_due:
            return f"more than the {gen.parts_due} parts of word counts announced came"
        try:
            part = pickle.loads(msg.blob)
        except Exception as e:
            return f"a part of the word counts is damaged ({type(e).__name__}: {e})"
        if not isinstance(part, dict):
            return f"a part of the word counts is a {type(part).__name__}, not a dict"
        gen.parts.append(part)
        gen.pieces += len(part)
    elif isinstance(msg, Merges):
        if msg.start != len(gen.model.merges):
            return f"merges from index {msg.start} came when {len(gen.model.merges)} were known"
        gen.model.merges.extend(msg.pairs)
    elif isinstance(msg, AskZipf):
        gen.ask = max(0, int(msg.step))
    return ""


def _work(conn: Connection, gen: Generation, deadline: float) -> bool:
    """Work on *gen* until *deadline*; True if its history grew (or was built)."""
    if gen.history is None:
        if not gen.kernel_tried:
            if gen.kernel_build is None:
                gen.replayed = ReplayedCounts(PartedCounts(gen.parts), gen.model)
                gen.kernel_build = Sliced(gen.replayed.building())
            if not gen.kernel_build.run(deadline - time.perf_counter()):
                return True
            gen.kernel_tried = True
            if gen.kernel_build.result:
                gen.history = gen.replayed
            gen.replayed = gen.kernel_build = None
            return True
        if gen.build is None:
            counts = PartedCounts(gen.parts)
            gen.build = Sliced(SegmentationHistory.building(counts, gen.model.truncated(0), BUILD_CHUNK))
        done = gen.build.run(deadline - time.perf_counter())
        if not done:
            return True
        gen.history = gen.build.result
        gen.build = None
        return True
    h = gen.history
    h.model = gen.model
    if _answerable(gen, h):
        step = gen.ask
        assert step is not None
        if gen.zipf is None or gen.zipf_step != step:
            gen.zipf, gen.zipf_step, gen.zipf_t0 = Sliced(h.zipf_steps(step)), step, time.perf_counter()
        if not gen.zipf.run(deadline - time.perf_counter()):
            return False
        z = gen.zipf.result
        assert z is not None
        seconds = time.perf_counter() - gen.zipf_t0
        gen.zipf, gen.ask = None, None
        for i in range(0, len(z.pairs), ZIPF_ROWS):
            _send(conn, ZipfRows(gen.generation, step, z.pairs[i : i + ZIPF_ROWS], z.counts[i : i + ZIPF_ROWS],
                                 z.labels[i : i + ZIPF_ROWS]))
        _send(conn, ZipfDone(gen.generation, step, z.slope, z.intercept, seconds))
        return False
    grew = False
    while h.pending or gen.extend is not None:
        left = deadline - time.perf_counter()
        if left <= 0:
            break
        if gen.extend is None:
            gen.extend = Sliced(h.extending())
        before = h.n_merges
        if gen.extend.run(left):
            gen.extend = None
        grew = grew or h.n_merges != before
    return grew
