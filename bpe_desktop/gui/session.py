"""The GUI-side state every pane observes: corpus, settings, the growing merge list and the current step.

One :class:`Session` per window.  Panes never talk to each other; they read the session and react to its
signals.  The merge list (``session.model.merges``) is the single source of truth: the step ``k`` means
"the first k merges", so scrubbing the timeline only changes :attr:`Session.step`.

It does not train (that is :mod:`.training.controller` with its worker process) and draws nothing.
"""

from __future__ import annotations

from PySide6 import QtCore

from ..core.config import TrainConfig
from ..core.counting.pieces import WordCounts
from ..core.counting.sources import CorpusSource
from ..core.records import MergeRecord
from ..core.stopping import StopReason
from ..core.tokenizers.model import BPEModel
from ..core.tokenizers.tokenizer import Tokenizer
from .training.protocol import HeldOut, TrainingState
from .widgets.trash import Trash

#: steps a second above which playback is "fast": panes that redraw expensively coalesce its step changes
#: (one can read a few explanations a second, not 500)
FAST_PLAYBACK = 20


class Session(QtCore.QObject):
    """Observable state. Signals:

    * ``corpusChanged()``            -- new corpus source / word counts (model and records cleared);
    * ``modelReset()``               -- the model was replaced (new training run, file opened);
    * ``recordsAppended(int, int)``  -- ranks first..last (1-based, inclusive) were appended;
    * ``countChanged()``             -- the number of merges to *show* changed (timeline range, status line,
      counts): after each batch of records, except a batch appended ``quiet`` (a streaming run whose step
      follows the newest merge), which is announced with the next step change or state change, so the
      labels and the followed step repaint together (each batch alone cost a window repaint, 3-4 ms under X);
    * ``trainingStateChanged(object)`` -- the new :class:`~.training.protocol.TrainingState`;
    * ``stepChanged(int)``           -- the timeline moved to step k (0 <= k <= len(records));
    * ``progressChanged(str, int, int)`` -- stage (a :class:`~.training.protocol.Stage` value), done, total
      (0 = unknown), plus :attr:`merges_per_s`; set by the controller, shown by the status bar;
    * ``displayTextChanged(str)``    -- the corpus editor's text changed since training (see
      :meth:`set_display_text`); the token view shows it tokenized by the current model.

    ``display_text`` is the edited text to show instead of the trained source (None: show the source),
    ``display_word_counts`` whether it is a word-count table.

    Fields for the trainer: ``progress`` (stage, done, total), ``merges_per_s``, ``stop_reason`` (a
    :class:`~bpe_desktop.core.stopping.StopReason`, None while running or before any run) with
    ``stop_text`` (its sentence, e.g. "reached 700 merges"), and ``error`` (the last worker error, "" if none).
    ``playback_rate`` is the timeline's speed while it plays (0 when not): panes whose redraw is costly
    coalesce the step changes of fast playback.
    """

    corpusChanged = QtCore.Signal()
    modelReset = QtCore.Signal()
    recordsAppended = QtCore.Signal(int, int)
    countChanged = QtCore.Signal()
    trainingStateChanged = QtCore.Signal(object)
    stepChanged = QtCore.Signal(int)
    progressChanged = QtCore.Signal(str, int, int)
    displayTextChanged = QtCore.Signal(str)

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.config = TrainConfig()
        self.source = CorpusSource.from_text("", word_counts=True)
        self.word_counts: WordCounts | None = None  # counted corpus (set by the controller after counting)
        self.model = BPEModel.empty(self.config)
        self.records: list[MergeRecord] = []
        self.initial_symbols = 0
        self.state = TrainingState.IDLE
        self._step = 0
        self._tokenizer: Tokenizer | None = None
        self.progress: tuple[str, int, int] = ("", 0, 0)
        self.merges_per_s = 0.0
        self.stop_reason: StopReason | None = None
        self.stop_text = ""
        self.error = ""
        self.display_text: str | None = None  # edited corpus text not trained on yet (None: the source)
        self.display_word_counts = False  # display_text is a word-count table
        self.preview_base = False  # model is only the base alphabet of the untrained text (stream.base_preview)
        self.loaded_format = ""  # the file format the model was opened from ("tiktoken", "hf"...; "" if trained)
        self.holdout = 0.0  # share of the corpus's last lines the next run keeps out of training (0: none)
        self.held_out: HeldOut | None = None  # what the current run kept out (set by the controller)
        self.playback_rate = 0.0  # steps a second while the timeline plays (0: not playing; set by the timeline)
        self._count_pending = False  # records were appended quietly: countChanged is still to come
        self.trash = Trash(parent=self)  # what a reset lets go of is freed in later turns (panes use it too)

    @property
    def playing_fast(self) -> bool:
        """The timeline plays faster than :data:`FAST_PLAYBACK` steps a second."""
        return self.playback_rate > FAST_PLAYBACK

    # -- corpus and model ---------------------------------------------------------------------------
    def set_corpus(self, source: CorpusSource, config: TrainConfig | None = None) -> None:
        self.source = source
        self.display_text = None  # the new source is what the editor shows
        if config is not None:
            self.config = config
        self.word_counts = None
        self.initial_symbols = 0  # the old corpus's count is not this one's
        self.preview_base = False
        self.merges_per_s = 0.0
        self.held_out = None
        self.reset_model(BPEModel.empty(self.config))
        self.corpusChanged.emit()

    def set_display_text(self, text: str | None, word_counts: bool = False) -> None:
        """Show *text* (the editor's, not trained on) in the token view; None shows the source again.

        Does not touch the model or the records: the text is tokenized by the current model.  Emits
        ``displayTextChanged`` only when what should be shown changed (the source's own text is None).
        """
        if text is not None and self.source.text == text and bool(self.source.word_counts) == bool(word_counts):
            text = None
        table = bool(word_counts) if text is not None else False
        if text == self.display_text and table == self.display_word_counts:
            return
        self.display_text = text
        self.display_word_counts = table
        self.displayTextChanged.emit(text or "")

    def reset_model(self, model: BPEModel, records: list[MergeRecord] | None = None, *, preview: bool = False
                    ) -> None:
        """Replace the model (and records); ``preview``: only the base alphabet of untrained text.

        The old model, records and tokenizer are freed in later turns (:attr:`trash`), not inside a Train press.
        """
        self.trash.drop(self.model, self.records, self._tokenizer)
        self._count_pending = False
        self.preview_base = preview
        self.model = model
        self.records = list(records or [])
        self.loaded_format = ""
        self._tokenizer = None
        self._step = len(self.records)
        self.modelReset.emit()
        self.stepChanged.emit(self._step)

    def append_records(self, records: list[MergeRecord], *, quiet: bool = False) -> None:
        """Add streamed records (ranks must continue the list); keeps ``model.merges`` in step.  *quiet*:
        ``countChanged`` waits for :meth:`announce_count` (or the next step or state change)."""
        if not records:
            return
        first = records[0].rank
        if first != len(self.records) + 1:
            raise ValueError(f"record rank {first} does not follow {len(self.records)}")
        self.records.extend(records)
        self.model.extend_merges([(r.left_id, r.right_id) for r in records])
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
        """A tokenizer over the whole current merge list; use ``upto=session.step`` for the timeline."""
        if self._tokenizer is None:
            self._tokenizer = Tokenizer(self.model, unknown="keep")
        return self._tokenizer

    def set_state(self, state: TrainingState) -> None:
        state = TrainingState(state)
        if state is not self.state:
            self.announce_count()
            self.state = state
            self.trainingStateChanged.emit(state)

    def set_stop(self, reason: StopReason | None, text: str = "") -> None:
        """Record why the last run ended (None: it has not ended)."""
        self.stop_reason = reason
        self.stop_text = text if reason is not None else ""

    def set_progress(self, stage: str, done: int, total: int, merges_per_s: float | None = None) -> None:
        """Report training progress (``total`` 0 when unknown)."""
        self.progress = (stage, int(done), int(total))
        if merges_per_s is not None:
            self.merges_per_s = merges_per_s
        self.progressChanged.emit(stage, int(done), int(total))

    @property
    def target_merges(self) -> int | None:
        """How many merges the current settings ask for, if known (for progress and ETA)."""
        cfg = self.config
        goals = []
        if cfg.merges is not None:
            goals.append(cfg.merges)
        if cfg.vocab_size is not None and self.model.base:
            goals.append(max(0, cfg.vocab_size - self.model.vocab_size_at(0)))
        return min(goals) if goals else None

    # -- timeline -----------------------------------------------------------------------------------
    @property
    def step(self) -> int:
        return self._step

    @property
    def n_steps(self) -> int:
        return len(self.records)

    def set_step(self, k: int) -> None:
        k = max(0, min(int(k), len(self.records)))
        self.announce_count()
        if k != self._step:
            self._step = k
            self.stepChanged.emit(k)

    def symbols_at(self, k: int) -> int:
        """Total symbols in the corpus after the first k merges."""
        if k <= 0 or not self.records:
            return self.initial_symbols
        return self.records[min(k, len(self.records)) - 1].symbols_after
