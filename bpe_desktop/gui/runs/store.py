"""The runs of a session ("what if…"): several training runs side by side, one of them shown.

A :class:`Run` is one run's settings, corpus source, model, merge records, counted words, stop reason and
timeline step, plus where it came from (:class:`Origin`: trained from step 0, or a branch of another run at
step k with the settings it changed).  The :class:`RunStore` sits beside the :class:`~..session.Session`:
the *current* run is whatever the session holds (every pane shows it), the others are snapshots.
:meth:`RunStore.switch` snapshots the session into the current run and restores another into the session by
reference (no retraining, no copy): the session's model, records and words are swapped and ``corpusChanged``
/ ``modelReset`` tell every pane.  :meth:`RunStore.begin` is called before a run starts training: it keeps
the shown run and adds a new current one (or reuses the current run when it holds no merges or is retrained
with the very same settings and corpus).

Names are made from what differs (:func:`auto_name`, with :func:`~bpe_desktop.core.training.branch.config_changes`):
the first run by its main settings, later runs by what they change from it, branches as "branch of run 1 at
500: forbid Ġt+he".  A run renamed by the user keeps its name.  It trains nothing and draws nothing.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from PySide6 import QtCore

from ...core.config import TrainConfig
from ...core.counting.pieces import WordCounts
from ...core.counting.sources import CorpusSource
from ...core.records import MergeRecord
from ...core.stopping import StopReason
from ...core.tokenizers.model import BPEModel
from ...core.training.branch import SettingChange, config_changes
from ..session import Session
from ..training.protocol import TrainingState


@dataclass(frozen=True)
class Origin:
    """Where a run came from: ``parent`` (a run id) and ``step`` for a branch, both None for a run from 0."""

    parent: int | None = None
    step: int | None = None
    changes: tuple[SettingChange, ...] = ()


@dataclass
class Run:
    """One run.  While it is the store's current run its fields may lag the session (see :meth:`RunStore.capture`)."""

    id: int
    config: TrainConfig
    source: CorpusSource
    model: BPEModel
    records: list[MergeRecord] = field(default_factory=list)
    word_counts: WordCounts | None = None
    initial_symbols: int = 0
    stop_reason: StopReason | None = None
    stop_text: str = ""
    step: int = 0
    origin: Origin = Origin()
    name: str = ""
    renamed: bool = False  # the user named it: never renamed automatically

    @property
    def n_merges(self) -> int:
        return len(self.records)


def _value(name: str, cfg: TrainConfig) -> str:
    """One setting of *cfg* as a short phrase for a run's name."""
    if name == "merges":
        return f"{cfg.merges:,}" if cfg.merges is not None else "no merge limit"
    if name == "vocab_size":
        return f"vocab {cfg.vocab_size:,}" if cfg.vocab_size is not None else "no vocab limit"
    if name == "min_frequency":
        return f"min freq {cfg.min_frequency:,}"
    if name == "tie_break":
        return f"{cfg.tie_break} ties"
    if name == "forbid":
        return "forbid " + ", ".join("+".join(p) for p in cfg.forbid) if cfg.forbid else "no forbids"
    if name == "forbid_regex":
        return f"forbid /{cfg.forbid_regex}/" if cfg.forbid_regex else "no forbid regex"
    if name == "end_of_word":
        return f"marker {cfg.end_of_word!r}"
    if name == "glue_marker":
        return "glued marker" if cfg.glue_marker else "separate marker"
    if name == "specials":
        return "specials " + (" ".join(cfg.specials) or "none")
    if name == "pretokenizer":
        spec = cfg.pretokenizer
        return spec if len(spec) <= 16 else spec[:15] + "…"
    return str(getattr(cfg, name))


def auto_name(run: Run, runs: list[Run]) -> str:
    """The name a run gets from what differs (see the module docstring)."""
    cfg = run.config
    number = {r.id: i for i, r in enumerate(runs, 1)}
    if run.origin.parent is not None and run.origin.parent in number:
        what = ", ".join(_value(c.name, cfg) for c in run.origin.changes) or "same settings"
        return f"branch of run {number[run.origin.parent]} at {run.origin.step:,}: {what}"
    first = next((r for r in runs if r.origin.parent is None), None)
    if first is None or first is run:
        return ", ".join(_value(n, cfg) for n in ("pretokenizer", "mode", "merges"))
    changed = [c.name for c in config_changes(first.config, cfg)]
    if run.source != first.source:
        changed.insert(0, "corpus")
    if not changed:
        return ", ".join(_value(n, cfg) for n in ("pretokenizer", "mode", "merges")) + " (again)"
    return ", ".join(run.source.name if n == "corpus" else _value(n, cfg) for n in changed)


class RunStore(QtCore.QObject):
    """The session's runs.  Signals: ``runsChanged()`` (added, removed, renamed, a run's merges changed) and
    ``currentChanged(int)`` (the index of the run now shown)."""

    runsChanged = QtCore.Signal()
    currentChanged = QtCore.Signal(int)

    def __init__(self, session: Session, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._ids = itertools.count(1)
        self.runs: list[Run] = [self._from_session(Origin())]
        self.current = 0
        self._restoring = False
        self.name_all()
        session.modelReset.connect(self._session_changed)
        session.trainingStateChanged.connect(self._session_changed)

    # -- queries --------------------------------------------------------------------------------------------
    @property
    def current_run(self) -> Run:
        return self.runs[self.current]

    def index_of(self, run_id: int) -> int | None:
        return next((i for i, r in enumerate(self.runs) if r.id == run_id), None)

    def trained(self) -> list[Run]:
        """Every run that holds merges (snapshots fresh)."""
        self.capture()
        return [r for r in self.runs if r.records]

    # -- session <-> runs -----------------------------------------------------------------------------------
    def _from_session(self, origin: Origin, run_id: int | None = None) -> Run:
        s = self.session
        return Run(next(self._ids) if run_id is None else run_id, s.config, s.source, s.model, s.records,
                   s.word_counts, s.initial_symbols, s.stop_reason, s.stop_text, s.step, origin)

    def capture(self) -> None:
        """Copy the session's state into the current run (by reference: the session owns it while shown)."""
        run = self.current_run
        s = self.session
        run.config, run.source, run.model, run.records = s.config, s.source, s.model, s.records
        run.word_counts, run.initial_symbols, run.step = s.word_counts, s.initial_symbols, s.step
        run.stop_reason, run.stop_text = s.stop_reason, s.stop_text
        if s.state.active:  # snapshotted while training: the run ended there
            run.stop_reason, run.stop_text = StopReason.STOPPED, "stopped"

    def restore(self, run: Run) -> None:
        """Put *run* into the session: every pane shows it (``corpusChanged``, ``modelReset``, the step)."""
        s = self.session
        self._restoring = True
        try:
            s.source, s.config = run.source, run.config
            s.word_counts, s.initial_symbols = run.word_counts, run.initial_symbols
            s.display_text, s.display_word_counts = None, False
            s.error = ""
            s.set_stop(run.stop_reason, run.stop_text)
            s.records = run.records  # the run's own list, so a later capture keeps it
            s.reset_model(run.model, run.records)
            s.records = run.records  # (reset_model copies it)
            s.corpusChanged.emit()
            s.set_step(run.step)
            s.set_state(TrainingState.FINISHED if run.records else TrainingState.IDLE)
        finally:
            self._restoring = False

    def switch(self, index: int) -> None:
        """Show run *index*; the shown one is kept as it is (nothing is retrained)."""
        if not 0 <= index < len(self.runs) or index == self.current:
            return
        self.capture()
        self.current = index
        self.restore(self.runs[index])
        self.currentChanged.emit(index)
        self.runsChanged.emit()

    def begin(self, config: TrainConfig, source: CorpusSource, origin: Origin = Origin()) -> Run:
        """A run is about to start training *config* on *source*: make it the current run and return it."""
        self.capture()
        cur = self.current_run
        same = cur.config == config and cur.source == source and origin.parent is None and cur.origin.parent is None
        if not cur.records or same:
            cur.origin = origin
            run = cur
        else:
            run = Run(next(self._ids), config, source, BPEModel.empty(config), origin=origin)
            self.runs.append(run)
            self.current = len(self.runs) - 1
        run.config, run.source = config, source
        self.name_all()
        self.currentChanged.emit(self.current)
        self.runsChanged.emit()
        return run

    def rename(self, index: int, name: str) -> None:
        run = self.runs[index]
        name = name.strip()
        run.renamed = bool(name)
        run.name = name
        self.name_all()
        self.runsChanged.emit()

    def remove(self, index: int) -> bool:
        """Delete run *index* (not the last one left; deleting the shown run shows its neighbour)."""
        if len(self.runs) <= 1 or not 0 <= index < len(self.runs):
            return False
        self.capture()
        gone = self.runs.pop(index)
        for r in self.runs:  # a branch of the deleted run keeps its numbers but loses the link
            if r.origin.parent == gone.id:
                r.origin = Origin(None, r.origin.step, r.origin.changes)
        if index == self.current:
            self.current = min(index, len(self.runs) - 1)
            self.restore(self.runs[self.current])
        elif index < self.current:
            self.current -= 1
        self.name_all()
        self.currentChanged.emit(self.current)
        self.runsChanged.emit()
        return True

    def replace_all(self, runs: list[Run], current: int) -> None:
        """Load a saved set of runs (session reopen) and show run *current*."""
        if not runs:
            return
        self._ids = itertools.count(max(r.id for r in runs) + 1)
        self.runs = runs
        self.current = max(0, min(current, len(runs) - 1))
        self.restore(self.runs[self.current])
        self.name_all()
        self.currentChanged.emit(self.current)
        self.runsChanged.emit()

    def reset_to_session(self) -> None:
        """Forget every run but the session's own (a session file or tokenizer with one run was opened)."""
        self.runs = [self._from_session(Origin())]
        self.current = 0
        self.name_all()
        self.currentChanged.emit(self.current)
        self.runsChanged.emit()

    def name_all(self) -> None:
        for r in self.runs:
            if not r.renamed:
                r.name = auto_name(r, self.runs)

    def _session_changed(self, *_: object) -> None:
        if self._restoring:
            return
        self.capture()
        self.name_all()
        self.runsChanged.emit()
