"""The GUI-side state every pane observes: the shown piece of work (corpus, settings, the growing merge list,
the step), the other runs, and the training state.

One :class:`Session` per window.  Panes never talk to each other; they read the session and react to its
signals.  What is shown is one :class:`~.work.Work` (:attr:`Session.work`), held by reference in
:attr:`Session.runs` beside the others; its fields are read through the session's read-only properties
and changed only through its methods, which emit the signals.  :meth:`Session.load` is the one way a work
(trained elsewhere, an opened tokenizer, a session document's runs) becomes the shown one; :meth:`switch`
shows another run of the list.  The merge list (``session.model.merges``) is the single source of truth:
the step ``k`` means "the first k merges", so scrubbing the timeline only changes :attr:`Session.step`.  An
extension run's timeline starts at :attr:`Session.origin` (the original's merges: "step 0 = cl100k"); the step
never goes below it, and the panes show steps counted from it (:meth:`Session.shown_step`).

It does not train (that is :mod:`.training.controller` with its worker process) and draws nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6 import QtCore

from ..core.config import TrainConfig
from ..core.counting.pieces import WordCounts
from ..core.counting.sources import CorpusSource
from ..core.measure.stats import Rewrites
from ..core.records import MergeRecord
from ..core.stopping import StopReason
from ..core.tokenizers.model import BPEModel
from ..core.tokenizers.tokenizer import Tokenizer
from .training.protocol import HeldOut, TrainingState
from .widgets.trash import Trash
from .work import Origin, RunList, Work, encoder, keep_drafts

#: steps a second above which playback is "fast": panes that redraw expensively coalesce its step changes
FAST_PLAYBACK = 20


class Session(QtCore.QObject):
    """Observable state. Signals:

    * ``corpusChanged()``            -- new corpus source / word counts (model and records cleared), or
      another work shown;
    * ``modelReset()``               -- the model was replaced (new training run, file opened, run switched);
    * ``recordsAppended(int, int)``  -- ranks first..last (1-based, inclusive) were appended;
    * ``countChanged()``             -- the number of merges to *show* changed (timeline range, counts): after
      each batch of records, except one appended ``quiet`` (a streaming run whose step follows the newest
      merge), announced with the next step or state change so labels and step repaint together;
    * ``trainingStateChanged(object)`` -- the new :class:`~.training.protocol.TrainingState`;
    * ``stepChanged(int)``           -- the timeline moved to step k (0 <= k <= len(records));
    * ``progressChanged(str, int, int)`` -- stage (a :class:`~.training.protocol.Stage` value), done, total
      (0 = unknown), plus :attr:`merges_per_s`; set by the controller, shown by the status bar;
    * ``displayTextChanged(str)``    -- the corpus editor's text changed since training (see
      :meth:`set_display_text`); the token view shows it tokenized by the current model;
    * ``workLoaded()``               -- another work is shown (:meth:`load`, :meth:`switch`): the corpus
      editor and the settings show its corpus and settings (or the drafts it was left with);
    * ``runsChanged()``              -- the list of runs changed (added, removed, renamed, one's merges);
    * ``compareChanged()``           -- other reference tokenizers are ticked (:attr:`compare`).

    ``loading`` is True while another work is shown, before ``workLoaded``: a check that compares two panes (the
    settings banner, the stale notice) waits for ``workLoaded`` rather than show and take back within the load.

    ``stop_reason`` (None while running or before any run) has its sentence in ``stop_text`` ("reached 700
    merges"); ``error`` is the last worker error; ``playback_rate`` the timeline's speed while it plays (0 when
    not: panes whose redraw is costly coalesce the steps of fast playback).
    """

    corpusChanged = QtCore.Signal()
    modelReset = QtCore.Signal()
    recordsAppended = QtCore.Signal(int, int)
    countChanged = QtCore.Signal()
    trainingStateChanged = QtCore.Signal(object)
    stepChanged = QtCore.Signal(int)
    progressChanged = QtCore.Signal(str, int, int)
    displayTextChanged = QtCore.Signal(str)
    workLoaded = QtCore.Signal()
    runsChanged = QtCore.Signal()
    compareChanged = QtCore.Signal()

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._work = Work.empty()
        self._list = RunList(self._work)  # every run; the shown one, _work, by reference
        self._state = TrainingState.IDLE
        self.loading = False  # another work is being shown, before workLoaded (see the class's docstring)
        self._tokenizer: Tokenizer | None = None
        self._progress: tuple[str, int, int] = ("", 0, 0)
        self._merges_per_s, self._error = 0.0, ""
        self._display_text: str | None = None  # edited corpus text not trained on yet (None: the source)
        self._display_word_counts = False  # display_text is a word-count table
        self._preview_base = False  # model is only the base alphabet of the untrained text (stream.base_preview)
        self._holdout = 0.0  # share of the corpus's last lines the next run keeps out of training (0: none)
        self._playback_rate = 0.0  # steps a second while the timeline plays (0: not playing; the timeline's)
        self._count_pending = False  # records were appended quietly: countChanged is still to come
        self._compare: tuple[str, ...] = ()  # the reference tokenizers ticked in Compare (their specs)
        #: what the window holds but has not trained on (editor's corpus, settings form), kept with a work
        #: when another is shown (the window sets it; None: nothing to keep)
        self.drafts: Callable[[], tuple[CorpusSource | None, TrainConfig | None]] | None = None
        self.trash = Trash(parent=self)  # what a reset lets go of is freed in later turns (panes use it too)

    # -- read-only views of the shown work and the training state -------------------------------------------
    @property
    def work(self) -> Work:
        return self._work

    @property
    def runs(self) -> tuple[Work, ...]:
        return tuple(self._list.items)

    @property
    def current(self) -> int:
        """The index of the shown work in :attr:`runs`."""
        return self._list.current

    @property
    def config(self) -> TrainConfig:
        return self._work.config

    @property
    def source(self) -> CorpusSource:
        return self._work.source

    @property
    def model(self) -> BPEModel:
        return self._work.model

    @property
    def records(self) -> list[MergeRecord]:
        return self._work.records

    @property
    def word_counts(self) -> WordCounts | None:
        """The counted corpus (set by the controller after counting; None until then or after a load)."""
        return self._work.word_counts

    @property
    def initial_symbols(self) -> int:
        return self._work.initial_symbols

    @property
    def stop_reason(self) -> StopReason | None:
        return self._work.stop_reason

    @property
    def stop_text(self) -> str:
        return self._work.stop_text

    @property
    def held_out(self) -> HeldOut | None:
        """What the current run kept out of training (set by the controller)."""
        return self._work.held_out

    @property
    def loaded_format(self) -> str:
        """The file format the model was opened from ("tiktoken", "hf"...; "" if trained)."""
        return self._work.loaded_format

    @property
    def state(self) -> TrainingState:
        return self._state

    @property
    def progress(self) -> tuple[str, int, int]:
        return self._progress

    @property
    def merges_per_s(self) -> float:
        return self._merges_per_s

    @property
    def error(self) -> str:
        return self._error

    @property
    def display_text(self) -> str | None:
        """The edited text to show instead of the trained source (None: the source; see ``display_word_counts``)."""
        return self._display_text

    @property
    def display_word_counts(self) -> bool:
        return self._display_word_counts

    @property
    def preview_base(self) -> bool:
        return self._preview_base

    @property
    def holdout(self) -> float:
        return self._holdout

    @property
    def playback_rate(self) -> float:
        return self._playback_rate

    @property
    def playing_fast(self) -> bool:
        """The timeline plays faster than :data:`FAST_PLAYBACK` steps a second."""
        return self._playback_rate > FAST_PLAYBACK

    @property
    def touring(self) -> bool:
        """The tour shows a work of its own; the user's runs are set aside (:meth:`set_aside`)."""
        return self._list.aside is not None

    def saved_runs(self) -> tuple[tuple[Work, ...], int]:
        """The user's runs and which is shown, as a session document writes them (the tour's work is not
        the user's: while it runs, the runs set aside)."""
        return self._list.saved()

    @property
    def compare(self) -> tuple[str, ...]:
        """The references ticked in Compare, as specs in the pane's order (saved with a session)."""
        return self._compare

    def set_compare(self, specs: Sequence[str]) -> None:
        """Tick these references (each once, in this order) and no others; emits ``compareChanged``."""
        ticked = tuple(dict.fromkeys(str(x) for x in specs))
        if ticked != self._compare:
            self._compare = ticked
            self.compareChanged.emit()

    # -- small settings ---------------------------------------------------------------------------------------
    def set_error(self, message: str) -> None:
        self._error = message

    def set_holdout(self, share: float) -> None:
        """The share of the corpus's last lines the next run keeps out of training (0: none)."""
        self._holdout = float(share)

    def set_playback_rate(self, rate: float) -> None:
        self._playback_rate = float(rate)

    def set_config(self, config: TrainConfig) -> None:
        """The shown run's settings (Train further raises its limit; an opened tokenizer's settings)."""
        self._work.config = config
        self.runsChanged.emit()

    def set_counted(self, words: WordCounts | None, initial_symbols: int, held_out: HeldOut | None) -> None:
        """The worker counted the corpus: its word counts, its symbols before any merge, what it kept out."""
        w = self._work
        w.word_counts, w.initial_symbols, w.held_out = words, int(initial_symbols), held_out

    def set_rewrites(self, work: Work, rewrites: Rewrites) -> None:
        """An extension run's corpus at every step, found again for a reopened session (the plots read it)."""
        work.rewrites = rewrites

    # -- corpus and model ---------------------------------------------------------------------------
    def set_corpus(self, source: CorpusSource, config: TrainConfig | None = None) -> None:
        """The shown work starts over on *source* (with *config*): what a new training run does."""
        w = self._work
        w.source = source
        w.draft = w.draft_config = None
        if config is not None:
            w.config = config
        self._display_text = None  # the new source is what the editor shows
        self._display_word_counts = False
        w.word_counts = None
        w.initial_symbols = 0  # the old corpus's count is not this one's
        w.held_out = None
        w.stop_reason, w.stop_text = None, ""
        self._preview_base = False
        self._merges_per_s = 0.0
        self.reset_model(BPEModel.empty(w.config))
        self.corpusChanged.emit()

    def set_display_text(self, text: str | None, word_counts: bool = False) -> None:
        """Show *text* (the editor's, not trained on) in the token view; None shows the source again.

        Does not touch the model or the records: the text is tokenized by the current model.  Emits
        ``displayTextChanged`` only when what should be shown changed (the source's own text is None).
        """
        if text is not None and self.source.text == text and bool(self.source.word_counts) == bool(word_counts):
            text = None
        table = bool(word_counts) if text is not None else False
        if text == self._display_text and table == self._display_word_counts:
            return
        self._display_text = text
        self._display_word_counts = table
        self.displayTextChanged.emit(text or "")

    def reset_model(self, model: BPEModel, records: list[MergeRecord] | None = None, *, preview: bool = False
                    ) -> None:
        """Replace the shown work's model (and records); ``preview``: only the base alphabet of untrained text.

        The old model, records and tokenizer are freed in later turns (:attr:`trash`), not inside a Train press.
        """
        w = self._work
        self.trash.drop(w.model, w.records, self._tokenizer)
        self._count_pending = False
        self._preview_base = preview
        w.model = model
        w.records = list(records or [])
        w.loaded_format = ""
        w.pipeline, w.pipeline_ref = None, None
        w.extension, w.rewrites = None, None
        self._tokenizer = None
        w.step = len(w.records)
        self.modelReset.emit()
        self.stepChanged.emit(w.step)

    def append_records(self, records: list[MergeRecord], *, quiet: bool = False) -> None:
        """Add streamed records (ranks must continue the list); keeps ``model.merges`` in step.  *quiet*:
        ``countChanged`` waits for :meth:`announce_count` (or the next step or state change)."""
        if not records:
            return
        first = records[0].rank
        w = self._work
        if first != len(w.records) + 1:
            raise ValueError(f"record rank {first} does not follow {len(w.records)}")
        w.records.extend(records)
        w.model.extend_merges([(r.left_id, r.right_id) for r in records])
        if self._tokenizer is not None:  # its encodings of earlier steps stay valid (and are continued from)
            self._tokenizer.follow_model()
        self.recordsAppended.emit(first, records[-1].rank)
        self._count_pending = True
        if not quiet:
            self.announce_count()

    def announce_count(self) -> None:
        """Emit ``countChanged`` if records were appended since it was last emitted."""
        if self._count_pending:
            self._count_pending = False
            self.countChanged.emit()

    @property
    def tokenizer(self) -> Tokenizer:
        """The one encoder of every pane, over the whole merge list (``upto=session.step`` for the timeline):
        :func:`~.work.encoder` of the shown work."""
        if self._tokenizer is None:
            self._tokenizer = encoder(self._work)
        return self._tokenizer

    def set_state(self, state: TrainingState) -> None:
        state = TrainingState(state)
        if state is not self._state:
            self.announce_count()
            self._state = state
            self.trainingStateChanged.emit(state)

    def set_stop(self, reason: StopReason | None, text: str = "") -> None:
        """Record why the last run ended (None: it has not ended)."""
        self._work.stop_reason = reason
        self._work.stop_text = text if reason is not None else ""

    def set_progress(self, stage: str, done: int, total: int, merges_per_s: float | None = None) -> None:
        """Report training progress (``total`` 0 when unknown)."""
        self._progress = (stage, int(done), int(total))
        if merges_per_s is not None:
            self._merges_per_s = merges_per_s
        self.progressChanged.emit(stage, int(done), int(total))

    # -- which work is shown ----------------------------------------------------------------------------------
    def load(self, work: Work, *, runs: Sequence[Work] | None = None) -> None:
        """Show *work*: the one way a work from elsewhere (an opened tokenizer, a new run, a session document's
        runs) becomes the shown one.  Without *runs* it joins the list (in place of the shown work when that holds
        no merges: nothing is lost); with *runs* (which hold *work*) they replace the list."""
        self.keep_drafts(work)
        self._show(self._list.add(work, None if runs is None else list(runs)))

    def switch(self, index: int) -> None:
        """Show run *index* of :attr:`runs` as it was left (nothing is retrained)."""
        if 0 <= index < len(self._list.items) and index != self._list.current:
            self.keep_drafts()
            self._show(index)

    def remove_run(self, index: int) -> bool:
        """Delete run *index* (not the last one; deleting the shown run shows its neighbour)."""
        try:
            shown = self._list.remove(index)
        except IndexError:
            return False
        if shown is None:
            self.runsChanged.emit()
        else:
            self._show(shown)
        return True

    def rename_run(self, index: int, name: str, *, by_user: bool) -> None:
        """Name run *index*; *by_user*: never renamed automatically again (an empty name undoes that)."""
        run = self._list.items[index]
        if (run.name, run.renamed) != (name, by_user):
            run.name, run.renamed = name, by_user
            self.runsChanged.emit()

    def set_origin(self, index: int, origin: Origin) -> None:
        """Where run *index* came from (a branch's parent and step)."""
        self._list.items[index].origin = origin
        self.runsChanged.emit()

    def set_aside(self, work: Work) -> None:
        """Show *work* alone (the tour's), keeping the user's runs untouched until :meth:`bring_back`."""
        if not self.touring:
            self.keep_drafts()
            self._show(self._list.set_aside(work))

    def bring_back(self) -> None:
        """Show the user's runs again, as they were before :meth:`set_aside`."""
        if self.touring:
            self._show(self._list.bring_back())

    def keep_drafts(self, successor: Work | None = None) -> None:
        """Keep what the window holds but has not trained on (:attr:`drafts`) with the shown work; what a
        *successor* about to be shown takes over (a new run's corpus and settings) is no draft of it."""
        if self.drafts is None:
            return
        if keep_drafts(self._work, *self.drafts(), successor, active=self._state.active):
            self.runsChanged.emit()  # (an untrained run's name follows its settings)

    def _show(self, index: int) -> None:
        self._list.current = index
        self._work = work = self._list.items[index]
        self._tokenizer, work.prepared_encoder = work.prepared_encoder, None  # (None: built when first asked for)
        self._count_pending = self._preview_base = False
        self._error, self._merges_per_s = "", 0.0
        self._display_text, self._display_word_counts = None, False
        self.loading = True
        try:
            self.corpusChanged.emit()
            self.modelReset.emit()
            self.stepChanged.emit(work.step)
            self.set_state(TrainingState.FINISHED if work.records else TrainingState.IDLE)
        finally:
            self.loading = False
        self.workLoaded.emit()
        self.runsChanged.emit()

    # -- timeline -----------------------------------------------------------------------------------
    @property
    def step(self) -> int:
        return self._work.step

    @property
    def n_steps(self) -> int:
        return len(self._work.records)

    @property
    def origin(self) -> int:
        """The timeline's first step: 0, or an extension run's original merges."""
        return self._work.start

    def shown_step(self, k: int) -> int:
        """Step *k* as the panes number it (counted from :attr:`origin`)."""
        return k - self._work.start

    def set_step(self, k: int) -> None:
        k = max(self._work.start, min(int(k), len(self._work.records)))
        self.announce_count()
        if k != self._work.step:
            self._work.step = k
            self.stepChanged.emit(k)
