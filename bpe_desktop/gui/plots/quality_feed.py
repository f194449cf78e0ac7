"""Where the quality curves' numbers come from: :mod:`bpe_desktop.core.measure.quality_curves` kept in step with the
session's growing merge list, a unit at a time (the same slicing as :mod:`.feed`).

Two texts:

* **the training text** -- for a run trained in the window, its step-0 counts (``session.word_counts``)
  moved merge by merge with the occurrence counts the trainer recorded (free while training runs); its
  bytes and words are measured from the corpus in slices (or come from the worker when it held lines
  out).  For a tokenizer opened from a file the session's corpus is counted with the tokenizer's own
  settings and followed like a held-out text ("corpus" then);
* **a held-out text** -- a file the user picked, counted here in slices, or the last lines of the corpus
  the worker kept out of training (``session.held_out``, when ``session.holdout`` was set before the
  run); followed with :class:`~bpe_desktop.core.measure.quality_curves.HeldOutCurves`.

An extension run's training text is its corpus as the extension job segmented it at each step
(``work.rewrites``: :class:`~bpe_desktop.core.measure.quality_curves.RewrittenCurves`), from the original
(step 0) on, and so is a held-out file (segmented on a helper thread by the plots pane:
``QualityFeed.held_rewrites``).  A ``tokenizer.json`` shown through its own pipeline (``session.work.pipeline``: a
normalizer, Metaspace...) gets no curves, and :data:`PIPELINE_NOTE` says why in their place: they would count
with our pre-tokenizers.

Changing α recomputes both curves from what is stored.  It draws nothing and connects no signals: the
quality tab (:mod:`.quality`) calls :meth:`QualityFeed.advance` from the plots pane's slices.
"""

from __future__ import annotations

import os
import time
from collections.abc import Generator
from typing import Any

from ...core.config import TrainConfig
from ...core.counting.sources import CorpusSource
from ...core.errors import BpeError
from ...core.measure.holdout import counting_with_totals, totaling
from ...core.measure.quality import DEFAULT_ALPHA, TextTotals, check_alpha
from ...core.measure.quality_curves import HeldOutCurves, QualityCurve, QualityCurveBuilder, RewrittenCurves
from ...core.measure.stats import Job, Rewrites, Sliced
from ...core.measure.token_counts import effects_from_records
from ...core.stopping import StopReason
from ...core.tokenizers.model import BPEModel
from ..session import Session
from .feed import AGAIN_NOTE

#: what the curves say in their place for a tokenizer.json shown through its own pipeline: they count words
#: with our pre-tokenizers and encode them with our replay, which that file's pipeline is not
PIPELINE_NOTE = ("no quality curves for this tokenizer.json: they count words with our pre-tokenizers, which "
                 "cannot express its pipeline (the token stream and the vocabulary use its own)")
#: what an extension run's held-out curve says while the file is segmented at each step off the GUI thread
HELD_AGAIN_NOTE = "segmenting the held-out text at each step of the extension…"
EXTEND_CHUNK = 2000  # records turned into merge effects per unit


def model_config(model: BPEModel) -> TrainConfig:
    """The settings a text must be counted with to be tokenized by *model*."""
    return TrainConfig(mode=model.mode, pretokenizer=model.pretokenizer, specials=model.specials,
                       end_of_word=model.end_of_word or "", glue_marker=model.glue_marker)


class QualityFeed:
    """The quality curves of the training text and of a held-out text (see the module docstring)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.alpha = DEFAULT_ALPHA
        self.held_out_path: str | None = None  # a held-out file picked by the user
        self.rewrites_note = AGAIN_NOTE  # an extension run without its segmentation: why (set by the plots pane)
        self.reset()

    def reset(self) -> None:
        """Forget the curves (new corpus or model); they are rebuilt by the next :meth:`advance` calls."""
        self.train: QualityCurveBuilder | HeldOutCurves | RewrittenCurves | None = None
        self.held: HeldOutCurves | RewrittenCurves | None = None
        self._train_job: Sliced[Any] | None = None
        self._held_job: Sliced[Any] | None = None
        self._train_off = False  # nothing to measure (empty corpus, no word counts yet)
        self._held_off = False
        self.note = ""  # why there is no training curve
        self.held_note = ""  # why there is no held-out curve
        #: an extension run's held-out file at every step, with its totals (set by the plots pane), or why not
        self.held_rewrites: tuple[Rewrites, TextTotals] | None = None
        self.held_rewrites_note = HELD_AGAIN_NOTE
        self.changes = 0  # bumped whenever a curve got new points (the tab redraws on a change)

    # -- settings -----------------------------------------------------------------------------------
    def set_alpha(self, alpha: float) -> None:
        """Another Rényi order: both curves are recomputed from their stored effects."""
        alpha = check_alpha(alpha)
        if alpha == self.alpha:
            return
        self.alpha = alpha
        if isinstance(self.train, QualityCurveBuilder | RewrittenCurves):
            self.train = self.train.with_alpha(alpha)
        elif isinstance(self.train, HeldOutCurves):
            self.train.with_alpha(alpha)
        if isinstance(self.held, RewrittenCurves):
            self.held = self.held.with_alpha(alpha)
        elif self.held is not None:
            self.held.with_alpha(alpha)
        self._train_job = self._held_job = None
        self.changes += 1

    def set_held_out_file(self, path: str | None) -> None:
        """Measure on *path* (None: no file; the corpus's held-out lines are used when the run has them)."""
        self.held_out_path = os.fspath(path) if path else None
        self.held = None
        self.held_rewrites, self.held_rewrites_note = None, HELD_AGAIN_NOTE
        self._held_job = None
        self._held_off = False
        self.held_note = ""
        self.changes += 1

    # -- curves -------------------------------------------------------------------------------------
    @property
    def training_curve(self) -> QualityCurve | None:
        return self.train.curve if self.train is not None else None

    @property
    def held_out_curve(self) -> QualityCurve | None:
        return self.held.curve if self.held is not None else None

    @property
    def train_label(self) -> str:
        return "corpus" if isinstance(self.train, HeldOutCurves) else "training text"

    def held_out_ready(self, rewrites: tuple[Rewrites, TextTotals] | None, note: str = "") -> None:
        """An extension run's held-out file segmented at every step (or, None, why not: *note*): measured next."""
        self.held, self._held_job, self._held_off = None, None, False
        self.held_rewrites, self.held_rewrites_note = rewrites, note or HELD_AGAIN_NOTE
        self.changes += 1

    @property
    def held_label(self) -> str:
        s = self.session
        if self.held_out_path:
            return f"held out: {os.path.basename(self.held_out_path)}"
        if s.held_out is not None:
            return f"held out: last {s.held_out.lines:,} lines"
        return "held out"

    # -- work ---------------------------------------------------------------------------------------
    def advance(self, budget_s: float) -> bool:
        """Extend the curves for about *budget_s* seconds; True if work remains."""
        t0 = time.perf_counter()
        more = False
        for which in ("train", "held"):
            job = self._train_job if which == "train" else self._held_job
            if job is None and self._pending(which):
                job = Sliced(self._training() if which == "train" else self._holding())
                if which == "train":
                    self._train_job = job
                else:
                    self._held_job = job
            if job is None:
                continue
            left = budget_s - (time.perf_counter() - t0)
            if left <= 0:
                return True
            try:
                done = job.run(left)
            except BpeError as e:
                done = True
                if which == "train":
                    self.note, self._train_off = f"cannot measure the corpus: {e}", True
                else:
                    self.held_note, self._held_off = f"cannot measure the held-out text: {e}", True
            if done:
                if which == "train":
                    self._train_job = None
                else:
                    self._held_job = None
                self.changes += 1
            else:
                more = True
        return more or self._pending("train") or self._pending("held")

    def pending(self) -> bool:
        """Work remains (a job under way or new merges to follow)."""
        return (self._train_job is not None or self._held_job is not None or self._pending("train")
                or self._pending("held"))

    def _pending(self, which: str) -> bool:
        s = self.session
        if which == "train":
            if self._train_off:
                return False
            t = self.train
            if t is None:
                return bool(s.records)
            if isinstance(t, QualityCurveBuilder):
                return t.n_steps < len(s.records) or t.pending > 0
            if isinstance(t, RewrittenCurves):
                return len(t.curve) < len(t.rewrites.steps) + 1
            return len(t.curve) < len(s.model.merges) + 1
        if self._held_off:
            return False
        h = self.held
        if h is None:
            return bool(self.held_out_path or s.held_out is not None) and bool(s.model.base)
        if isinstance(h, RewrittenCurves):
            return len(h.curve) < len(h.rewrites.steps) + 1
        return len(h.curve) < len(s.model.merges) + 1

    def _training(self) -> Job[None]:
        s = self.session
        model = s.model
        if self.train is None and s.work.extension is not None:
            rw = s.work.rewrites
            if rw is None:
                self.note, self._train_off = self.rewrites_note, True
                return
            totals = yield from totaling(s.source, model.mode)
            sizes = [model.vocab_size_at(s.origin + k) for k in range(len(rw.steps) + 1)]
            self.train = RewrittenCurves(rw, totals, sizes, self.alpha)
            self.note = ""
        if self.train is None:
            words = s.word_counts
            if s.stop_reason is not StopReason.LOADED and words is not None and any(r.merged for r in s.records[:64]):
                if s.held_out is not None:
                    totals = s.held_out.train_totals
                else:
                    totals = yield from totaling(s.source, model.mode)
                self.train = yield from QualityCurveBuilder.starting(words.counts, model, totals, self.alpha)
            else:  # a tokenizer from a file (or records without counts): follow the session's corpus
                if s.work.pipeline is not None:
                    self.note, self._train_off = PIPELINE_NOTE, True
                    return
                src = s.source
                if src.text is not None and not src.text.strip() and not src.paths:
                    self.note, self._train_off = "no corpus: train on one, or pick a held-out file", True
                    return
                counted, totals = yield from counting_with_totals(src, model_config(model))
                self.train = yield from HeldOutCurves.starting(counted.counts, totals, model, self.alpha)
            self.note = ""
        t = self.train
        if isinstance(t, RewrittenCurves):
            yield from _counted(self, t.computing())
        elif isinstance(t, QualityCurveBuilder):
            while t.n_steps < len(s.records):
                yield
                n = t.n_steps
                t.extend(effects_from_records(model, s.records[n : n + EXTEND_CHUNK]))
            yield from _counted(self, t.computing())
        else:
            yield from _counted(self, t.following())

    def _holding(self) -> Job[None]:
        s = self.session
        model = s.model
        if self.held is None:
            if s.work.extension is not None:
                if self.held_rewrites is None or not self.held_out_path:
                    self.held_note, self._held_off = self.held_rewrites_note if self.held_out_path else "", True
                    return  # (the plots pane segments the file, then sets held_rewrites and turns this on again)
                rw, totals = self.held_rewrites
                sizes = [model.vocab_size_at(s.origin + k) for k in range(len(rw.steps) + 1)]
                self.held = RewrittenCurves(rw, totals, sizes, self.alpha)
                self.held_note = ""
                yield from _counted(self, self.held.computing())
                return
            if s.work.pipeline is not None:
                self.held_note, self._held_off = PIPELINE_NOTE, True
                return
            if self.held_out_path:
                src = CorpusSource.from_files([self.held_out_path])
                counted, totals = yield from counting_with_totals(src, model_config(model))
                words = counted.counts
            elif s.held_out is not None:
                words, totals = s.held_out.word_counts.counts, s.held_out.totals
            else:
                return
            if not words:
                self.held_note, self._held_off = "the held-out text is empty", True
                return
            self.held = yield from HeldOutCurves.starting(words, totals, model, self.alpha)
            self.held_note = ""
        if isinstance(self.held, RewrittenCurves):
            yield from _counted(self, self.held.computing())
        else:
            yield from _counted(self, self.held.following())


def _counted(feed: QualityFeed, job: Job[Any]) -> Generator[None, None, None]:
    """Run *job*, marking the feed changed every unit (the curves grow as it runs)."""
    while True:
        try:
            next(job)
        except StopIteration:
            return
        feed.changes += 1
        yield
