"""The plots' statistics process: the pair counts of a big corpus at any step, built and followed away from the window.

Runs in a ``multiprocessing`` *spawn* child and imports only :mod:`bpe_desktop.core` and the Qt-free
:mod:`.stats_protocol` (never Qt).  It keeps the newest generation the window began: it unpickles the word
counts' blobs into a :class:`~bpe_desktop.core.counting.parted.PartedCounts` (no dict of them all) and follows
the merges as they come with a compiled trainer replayed over those counts
(:class:`~bpe_desktop.core.measure.stats.replayed.ReplayedCounts`: hundreds of MB and seconds on millions of
distinct pieces), or where the kernel does not cover the model (a tie rule it lacks, no kernel, another base)
with a :class:`~bpe_desktop.core.measure.stats.SegmentationHistory` (pure Python: gigabytes and a merge a
second there).  It answers the newest Zipf question once it has got that far, with what the plot draws
(``view_steps``: the ranks drawn, not every pair), and writes an export's CSV of every pair itself (the
exports come first, one at a time, each once the history has got to its step).  The work goes in
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
from ...core.io.atomic import atomic_write
from ...core.io.csv_table import csv_chunks
from ...core.measure.stats import ZIPF_COLUMNS, Job, SegmentationHistory, Sliced, ZipfView
from ...core.measure.stats.replayed import ReplayedCounts
from ...core.tokenizers.model import BPEModel
from ..worker_priority import lower_priority
from .stats_protocol import (
    Applied,
    AskZipf,
    Begin,
    Control,
    CountsBlob,
    ExportFailed,
    ExportProgress,
    ExportZipf,
    FromStats,
    Merges,
    StatsFailed,
    ZipfExported,
    ZipfShown,
)

SLICE_S = 0.05  # work between two reads of the pipe
IDLE_WAIT_S = 0.5  # with nothing to do: how long a read waits before the parent is checked again
APPLIED_EVERY_S = 0.1  # progress (Applied) at most this often while the history grows
EXPORT_ROWS = 20_000  # rows of an export's CSV written per unit (and per ExportProgress)
CHANGED = "the corpus or run changed before the CSV was written -- nothing was written; export again"


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
        self.ask_next: tuple[int, int] | None = None  # the pair whose rank it asks for
        self.zipf: Sliced[ZipfView] | None = None
        self.zipf_next: tuple[int, int] | None = None
        self.exports: list[ExportZipf] = []  # waiting, in the order asked
        self.export: Sliced[int] | None = None  # writing exports[0]
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

    def drop_exports(self, conn: Connection, why: str) -> None:
        """Answer every export waiting (or being written: its temporary file is removed) as failed with *why*."""
        if self.export is not None:
            self.export.job.close()  # (GeneratorExit in its atomic write: the temporary file goes)
            self.export = None
        exports, self.exports = self.exports, []
        for msg in exports:
            _send(conn, ExportFailed(msg.generation, msg.ticket, why))


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


def _failed_now(conn: Connection, gen: Generation | None, msg: ExportZipf) -> None:
    """An export of a generation not current (or failed) is answered at once: nothing can be written."""
    why = CHANGED if gen is None or gen.generation != msg.generation else "the pair counts could not be made"
    _send(conn, ExportFailed(msg.generation, msg.ticket, why))


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
            _fail(conn, gen, "out of memory while counting pairs")
            continue
        except BpeError as e:  # (merges that do not fit the counts: another run's)
            _fail(conn, gen, str(e))
            continue
        except Exception as e:  # a bug: say so rather than die silently
            _fail(conn, gen, f"internal error in the statistics process: {type(e).__name__}: {e}\n\n"
                             f"{traceback.format_exc()}")
            continue
        now = time.perf_counter()
        h = gen.history
        gen.unreported = gen.unreported or changed  # (reported once the interval has passed or the work ends)
        if gen.unreported and (now - last_applied >= APPLIED_EVERY_S or not _has_work(gen)):
            last_applied, gen.unreported = now, False
            if isinstance(h, ReplayedCounts) and not h.pending:  # (caught up: the window asks for this step next;
                h.snapshot()  # a table of every pair, so not while the replay runs on)
            _send(conn, gen.applied())


def _fail(conn: Connection, gen: Generation, message: str) -> None:
    gen.failed = True
    _send(conn, StatsFailed(gen.generation, message))
    gen.drop_exports(conn, f"no pair counts: {message.splitlines()[0]}")


def _has_work(gen: Generation) -> bool:
    h = gen.history
    if h is None:
        return len(gen.parts) == gen.parts_due
    h.model = gen.model
    return _exportable(gen, h) or _answerable(gen, h) or h.pending > 0 or gen.extend is not None


def _exportable(gen: Generation, h: SegmentationHistory | ReplayedCounts) -> bool:
    """An export waits, and the history has got to its step (the answer is then exact, never of a step before)."""
    return bool(gen.exports) and h.n_merges >= gen.exports[0].step


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
                if gen is not None:
                    gen.drop_exports(conn, CHANGED)  # (a file half written is removed)
                raise Gone()
            if msg is Control.DROP or isinstance(msg, Begin):
                if gen is not None:
                    gen.drop_exports(conn, CHANGED)
                # (the old history is freed: a big one would otherwise go on being followed for nothing; a new
                # corpus's answers are of its own)
                gen = Generation(msg) if isinstance(msg, Begin) else None
                continue
            if gen is None or gen.failed or getattr(msg, "generation", None) != gen.generation:
                if isinstance(msg, ExportZipf):
                    _failed_now(conn, gen, msg)
                continue  # (an older generation's message still in the pipe)
            problem = _take(gen, msg)
            if problem:
                _fail(conn, gen, problem)
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
        gen.ask, gen.ask_next = max(0, int(msg.step)), msg.next_pair
    elif isinstance(msg, ExportZipf):
        gen.exports.append(msg)
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
    if _exportable(gen, h):
        _export(conn, gen, h, deadline)
        return False
    if _answerable(gen, h):
        step = gen.ask
        assert step is not None
        if gen.zipf is None or (gen.zipf_step, gen.zipf_next) != (step, gen.ask_next):
            gen.zipf, gen.zipf_step, gen.zipf_next = Sliced(h.view_steps(step, gen.ask_next)), step, gen.ask_next
            gen.zipf_t0 = time.perf_counter()
        if not gen.zipf.run(deadline - time.perf_counter()):
            return False
        view = gen.zipf.result
        assert view is not None
        gen.zipf, gen.ask = None, None
        _send(conn, ZipfShown(gen.generation, view, time.perf_counter() - gen.zipf_t0))
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


def _export(conn: Connection, gen: Generation, h: SegmentationHistory | ReplayedCounts, deadline: float) -> None:
    """Write the first export waiting, until *deadline*; a write that fails is answered as failed (the file is
    left as it was), and the generation goes on."""
    msg = gen.exports[0]
    if gen.export is None:
        gen.export = Sliced(_exporting(conn, msg, h))
        _send(conn, ExportProgress(msg.generation, msg.ticket, 0, 0))
    try:
        if not gen.export.run(deadline - time.perf_counter()):
            return
        rows = gen.export.result
        assert rows is not None
        answer: FromStats = ZipfExported(msg.generation, msg.ticket, rows)
    except (BpeError, OSError, MemoryError) as e:
        answer = ExportFailed(msg.generation, msg.ticket, str(e) or type(e).__name__)
    gen.export = None
    gen.exports.pop(0)
    _send(conn, answer)


def _exporting(conn: Connection, msg: ExportZipf, h: SegmentationHistory | ReplayedCounts) -> Job[int]:
    """Every pair at the export's step, ordered (``zipf_steps``) and written as CSV (``csv_chunks``: the bytes of
    ``csv_text`` over ``ZipfData.rows``, as the window writes a small corpus's), a unit per
    :data:`EXPORT_ROWS` rows; the number of rows.  Closed before its end, nothing is written."""
    z = yield from h.zipf_steps(msg.step)
    total, done = len(z.counts), 0
    with atomic_write(msg.path) as f:
        for text in csv_chunks(ZIPF_COLUMNS, z.iter_rows(), EXPORT_ROWS):
            f.write(text)
            done = min(total, done + EXPORT_ROWS)
            _send(conn, ExportProgress(msg.generation, msg.ticket, done, total))
            yield
    return total
