"""Where the plots' numbers come from: a :class:`~bpe_desktop.core.measure.stats.SegmentationHistory` kept in step
with the session's growing merge list, in time-boxed slices so the GUI thread never stalls for long.

All the statistics work is cut into small units (a few hundred words each: building the history, applying
one merge, counting and sorting the pairs at a step) run by :class:`~bpe_desktop.core.measure.stats.Sliced` for at
most a given budget per call, so one call costs about that budget however large the corpus or the merge.
A history that is no longer needed goes to the session's trash (:mod:`..widgets.trash`), which empties it
the same way (freeing a large one at once would stall the GUI thread), with the jobs and counts that went with it.

Python's cyclic garbage collector would undo this (its pauses scan every young object), so while it works
the feed freezes what exists every :data:`GC_FREEZE_EVERY_S` (:mod:`..widgets.gc_policy`).

Word counts come from ``session.word_counts`` (the controller fills them after counting).  Without them,
an idle in-memory corpus of at most :data:`SELF_COUNT_LIMIT` characters is counted here; anything else
waits for the controller; while a history is built (minutes of slices on a corpus of millions of distinct
pieces) :attr:`PlotFeed.note` says so.  A corpus of more than :data:`PROCESS_PIECES` distinct pieces has its
history built, followed and asked in the statistics process instead (:mod:`.remote_history`): the GUI thread
only sends the counts' parts and the merges, and reads the answers; the feed's API is the same (``zipf`` is
``None`` until the process's answer is in), and if the process fails or dies the note says so until a new
corpus or run starts another.  :meth:`PlotFeed.zipf` gives what the plot draws of a step
(:class:`~bpe_desktop.core.measure.stats.ZipfView`), either way; every pair of a step is made only for a CSV
export (:meth:`PlotFeed.export_zipf`: written at once from a history in the window, or by the process).
An extension run's history is not replayed: its corpus's segmentation at every step is the extension job's
(``work.rewrites``, :class:`~bpe_desktop.core.measure.stats.RewriteHistory`);
without it (a reopened session) the plots pane finds it again off the GUI thread and
:attr:`PlotFeed.rewrites_note` says so.  The feed's steps are the steps the timeline shows (counted from
``session.origin``: 0 = an extension's original).  The compression and trade-off curves come from the
session's records when it has them (cheap, exact), else from the history.  This module draws nothing and
connects no signals: the plots pane (:mod:`.panel`) calls it from its throttled refresh.
"""

from __future__ import annotations

import gc
import os
import time

from ...core.counting.pieces import WordCounts
from ...core.counting.sources import count_source
from ...core.errors import BpeError
from ...core.io.atomic import atomic_write
from ...core.measure.stats import (
    ZIPF_COLUMNS,
    CompressionCurve,
    RewriteHistory,
    SegmentationHistory,
    Sliced,
    TradeOff,
    ZipfView,
    compression_from_records,
    csv_text,
    finish,
    tradeoff_from,
)
from ...core.text.pretokenize import NAMED_PATTERNS
from ..session import Session
from ..training.protocol import StopReason, TrainingState
from ..widgets.gc_policy import GcPolicy
from .remote_history import ExportState, RemoteHistory

SELF_COUNT_LIMIT = 500_000  # characters of in-memory text the pane may count itself (a short stall)
#: a corpus of more distinct pieces than this has its history in the statistics process, not on the GUI thread
#: (the training worker's own threshold for sending the counts in parts)
PROCESS_PIECES = 20_000
GC_FREEZE_EVERY_S = 0.25  # while working: move the objects made so far out of the collector's sight
#: what an extension run's plots say while its segmentation at each step (the extension job's, which a reopened
#: session does not hold) is found again off the GUI thread (the plots pane's ``segmentation`` jobs)
AGAIN_NOTE = "counting the corpus at each step of the extension…"


def building_note(pieces: int, built: int = 0) -> str:
    """What the plots say while the history of a corpus of *pieces* distinct pieces is built (*built* of them so
    far, when known: the statistics process reports it)."""
    done = f" {100 * built // pieces} %" if 0 < built < pieces else ""
    return f"counting pairs in {pieces:,} pieces…{done}"  # (short: a narrow card shows a title that fits)


def following_note(applied: int, merges: int) -> str:
    """What the plots say while the statistics process follows the merge list (*applied* of *merges* so far)."""
    return f"pairs counted up to step {applied:,} of {merges:,}…"


class PlotFeed:
    """Statistics for the session's current corpus and model, computed lazily, a slice at a time."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.history: SegmentationHistory | None = None
        self.note = ""  # why there is no history yet, for the plot titles
        self._words: WordCounts | None = None
        self._zipf: ZipfView | None = None
        self._build: Sliced | None = None  # building the history
        self._build_pieces = 0  # distinct pieces of the history being built (0: an extension's, from its rewrites)
        self._extend: Sliced | None = None  # applying the merges the session has and the history not yet
        self._zjob: Sliced | None = None  # what the plot draws at self._zjob_step (and next pair)
        self._zjob_step: tuple[int, tuple[int, int] | None] = (-1, None)
        self._zjob_ms = 0.0
        self._gc = GcPolicy(GC_FREEZE_EVERY_S, time.perf_counter)
        self.last_zipf_ms = 0.0  # GUI-thread time the last Zipf data took, all its slices (the process's: its time)
        self.rewrites_note = AGAIN_NOTE  # an extension run without its segmentation: why (set by the plots pane)
        self.remote: RemoteHistory | None = None  # the statistics process (kept once started)
        self._remote_on = False  # the current corpus's history is the process's
        self.closed = False  # close() was called: no statistics process is started again

    def reset(self) -> None:
        """Forget everything (new corpus or model); an old history is emptied in later slices."""
        trash = self.session.trash
        if self.history is not None:
            trash.put(Sliced(self.history.releasing()))
        trash.drop(self.history, self._words, self._zipf, self._build, self._extend, self._zjob)
        self.history = None
        self._words = None
        self._zipf = None
        self._build = self._extend = self._zjob = None
        self.note = ""
        if self._remote_on:
            assert self.remote is not None
            self.remote.forget()
            self._remote_on = False

    def close(self) -> None:
        """End the statistics process, if one was started, for good: its owner (a pane, a dialog) is going, and
        a timer of its that fires once more must not start another (a big corpus's history is gigabytes)."""
        self.reset()
        self.closed = True
        if self.remote is not None:
            self.remote.close()
            self.remote = None

    # -- history ----------------------------------------------------------------------------------------
    def _word_counts(self) -> WordCounts | None:
        s = self.session
        if s.stop_reason is StopReason.LOADED:
            self.note = "no corpus statistics for a loaded tokenizer"
            return None
        if s.word_counts is not None:
            return s.word_counts
        if not s.records and s.state is TrainingState.IDLE and not s.source.paths:  # (an untrained run's text
            self.note = "Train (F5) to see pair frequencies"  # follows the editor: counted now, it would go stale)
            return None
        if self._words is not None:
            return self._words
        src = s.source
        counting = s.state in (TrainingState.COUNTING, TrainingState.TRAINING)
        if counting or src.paths or src.text is None:  # the controller counts
            self.note = "pair counts appear once the corpus is counted"
            return None
        if len(src.text) > SELF_COUNT_LIMIT or s.config.pretokenizer not in NAMED_PATTERNS:  # (regex_guard)
            self.note = "pair counts appear once the corpus is counted"
            return None
        try:
            self._words = count_source(src, s.config)
        except BpeError as e:
            self.note = f"cannot count the corpus: {e}"
            return None
        return self._words

    def advance(self, budget_s: float = 0.004) -> bool:
        """Build or extend the history for about *budget_s* seconds (one unit of a few hundred words may
        run past it; at least one unit runs); True if work remains."""
        t0 = time.perf_counter()
        try:
            return self._advance(t0, budget_s)
        finally:
            if gc.isenabled():  # (while the controller has paused the collector it freezes itself)
                self._gc.tick()

    def _advance(self, t0: float, budget_s: float) -> bool:
        s = self.session
        if self._remote_on:
            return self._advance_remote(budget_s)
        if self.history is None:
            if self._build is None and s.work.extension is not None:
                if s.work.rewrites is None:
                    self.note = self.rewrites_note
                    return False
                self._build = Sliced(RewriteHistory.from_rewrites(s.work.rewrites, s.model, s.origin))
                self._build_pieces = 0
            if self._build is None:
                words = self._word_counts()
                if words is None:
                    return False
                if not words.counts:
                    self.note = "the corpus is empty"
                    return False
                if len(words.counts) > PROCESS_PIECES:
                    if self.closed:
                        return False
                    if self.remote is None:
                        self.remote = RemoteHistory()
                    self.remote.begin(words.counts, s.model)
                    self._remote_on = True
                    return self._advance_remote(budget_s - (time.perf_counter() - t0))
                self._build = Sliced(SegmentationHistory.building(words, s.model.truncated(0)))
                self._build_pieces = len(words.counts)
            if not self._build.run(budget_s - (time.perf_counter() - t0)):
                if self._build_pieces:  # (a big corpus's history takes many slices: say so meanwhile)
                    self.note = building_note(self._build_pieces)
                return True
            self.history = self._build.result
            self._build = None
            self.note = ""
        h = self.history
        assert h is not None
        h.model = s.model
        while h.pending or self._extend is not None:
            left = budget_s - (time.perf_counter() - t0)
            if left <= 0:
                break
            if self._extend is None:
                self._extend = Sliced(h.extending())
            if self._extend.run(left):
                self._extend = None
        return h.pending > 0 or self._extend is not None

    def _advance_remote(self, budget_s: float) -> bool:
        remote, s = self.remote, self.session
        assert remote is not None
        remote.poll(max(budget_s, 0.0))
        if remote.failure:
            self.note = f"no pair counts: {remote.failure} -- train again to count them"
            return not remote.reaped  # (asked again until its exit code is known, for the note)
        remote.follow(s.model.merges)
        if remote.n_merges < 0:
            self.note = building_note(remote.pieces, remote.built)
            return True
        behind = remote.n_merges < len(s.model.merges)
        # (the status line shows it while the plot is of an earlier step: a narrow card's title drops its note)
        self.note = following_note(remote.n_merges, len(s.model.merges)) if behind else ""
        return behind or remote.asked is not None or remote.exporting

    @property
    def n_merges(self) -> int:
        """Merges the history has applied (-1: no history yet)."""
        if self._remote_on:
            assert self.remote is not None
            return -1 if self.remote.failure else self.remote.n_merges
        return self.history.n_merges if self.history is not None else -1

    @property
    def pending(self) -> int:
        """Merges of the session's model the history has not applied yet (0 without a history)."""
        if not self._remote_on:
            return self.history.pending if self.history is not None else 0
        n = self.n_merges
        return max(0, len(self.session.model.merges) - n) if n >= 0 else 0

    def ready_for(self, step: int) -> bool:
        n = self.n_merges
        return n >= 0 and n >= step

    # -- numbers ----------------------------------------------------------------------------------------
    def zipf(self, step: int, budget_s: float | None = None) -> ZipfView | None:
        """What the plot draws at *step* (with the rank of the pair merged next there); ``None`` if the history
        has not got there yet or (with a *budget_s*) the recount needs more slices -- call again: the work done
        so far is kept while the step stays the same."""
        if not self.ready_for(step):
            return None
        key = (step, self.next_pair(step))
        z = self._zipf
        if z is not None and (z.step, z.next_pair) == key:
            return z
        if self._remote_on:
            return self._remote_zipf(key, budget_s)
        assert self.history is not None
        if self._zjob is None or self._zjob_step != key:
            self._zjob = Sliced(self.history.view_steps(*key))
            self._zjob_step = key
            self._zjob_ms = 0.0
        t0 = time.perf_counter()
        done = self._zjob.run(1e9 if budget_s is None else budget_s)
        self._zjob_ms += (time.perf_counter() - t0) * 1000
        if not done:
            return None
        z = self._zipf = self._zjob.result
        self._zjob = None
        self.last_zipf_ms = self._zjob_ms
        return z

    def _remote_zipf(self, key: tuple[int, tuple[int, int] | None], budget_s: float | None) -> ZipfView | None:
        remote = self.remote
        assert remote is not None
        remote.poll(0.004 if budget_s is None else budget_s)
        z = remote.answer(*key)
        if z is None:
            remote.ask(*key)
            return None
        self._zipf = z
        self.last_zipf_ms = remote.seconds * 1000
        return z

    @property
    def latest_zipf(self) -> ZipfView | None:
        """The last pair counts :meth:`zipf` finished (``None`` after a reset)."""
        return self._zipf

    def export_zipf(self, step: int, path: str | os.PathLike[str]) -> ExportState:
        """Write every pair at *step* as CSV to *path* (atomically): at once from a history in the window, or
        by the statistics process (the state it gives is :attr:`~ExportState.finished` once it has answered:
        :meth:`poll` meanwhile).  Refused while the history has not got to *step*."""
        if not self.ready_for(step):
            raise BpeError(f"the pair counts at step {step:,} are not ready yet -- wait until the plot shows that "
                           "step, then export again")
        if self._remote_on:
            assert self.remote is not None
            return self.remote.exports[self.remote.export(step, path)]
        assert self.history is not None
        z = finish(self.history.zipf_steps(step, 1 << 30))
        with atomic_write(path) as f:
            f.write(csv_text(ZIPF_COLUMNS, z.rows()))
        n = len(z.counts)
        return ExportState(step, os.fspath(path), n, n, n, finished=True, started=True)

    def poll(self, budget_s: float) -> None:
        """Read the statistics process's answers (an export's progress) for about *budget_s* seconds."""
        if self.remote is not None:
            self.remote.poll(budget_s)

    def next_pair(self, step: int) -> tuple[int, int] | None:
        """The pair merged next at (shown) *step*."""
        s = self.session
        merges, i = s.model.merges, s.origin + step
        return merges[i] if 0 <= step and i < len(merges) else None

    def compression(self) -> CompressionCurve | None:
        s = self.session
        if s.records and s.origin:  # an extension run: from the original, steps counted from it (as shown)
            return compression_from_records(s.initial_symbols, s.records[s.origin:])
        if s.records:
            first = s.initial_symbols or s.records[0].symbols_before
            return compression_from_records(first, s.records)
        if self.history is not None:
            return self.history.compression()
        return None

    def tradeoff(self) -> TradeOff | None:
        s, h = self.session, self.history
        if self._remote_on:
            assert self.remote is not None
            n_words, n_bytes = self.remote.n_words, self.remote.n_bytes
            if self.n_merges < 0 or not s.records:  # (the process gives no curve of its own)
                return None
        elif h is None:
            return None
        else:
            n_words, n_bytes = h.n_words, h.n_bytes
        if s.records:
            curve = self.compression()
            assert curve is not None
            vocab = [s.model.vocab_size_at(s.origin)] + [r.vocab_size for r in s.records[s.origin:]]
            return tradeoff_from(curve, vocab, n_words, n_bytes)
        assert h is not None
        return h.tradeoff()
