"""The runs of a session ("what if…"): several training runs side by side, one of them shown.

A run *is* a :class:`~..work.Work` (``Run`` is its name here): its corpus, settings, model, merge records,
stop reason and timeline step, plus where it came from (:class:`Origin`: trained from step 0, or a branch
of another run at step k with the settings it changed).  The list lives in the
:class:`~..session.Session` (``session.runs``; the shown run is ``session.work``, by reference: nothing is
copied either way); the :class:`RunStore` beside it names the runs and turns the window's actions into the
session's methods.  :meth:`RunStore.switch` shows another run (``Session.switch``: no retraining, no copy);
:meth:`RunStore.begin` is called before a run starts training: it keeps the shown run and adds a new one
(or reuses the shown run when it holds no merges or is retrained with the very same settings and corpus --
never a tokenizer read from a file or an extension run, which a training run from the corpus's bytes is not).

Names are made from what differs (:func:`auto_name`, with :func:`~bpe_desktop.core.training.branch.config_changes`):
the first run by its main settings ("whitespace, chars, up to 7 merges"), later runs by what they change
from it, branches as "branch of run 1 at 500: forbid Ġt+he".  A run not trained yet is what the window
holds (``Session.keep_drafts``), so its name follows the settings form.  A run renamed by the user keeps
its name.  It trains nothing and draws nothing.
"""

from __future__ import annotations

from PySide6 import QtCore

from ...core.config import TrainConfig
from ...core.counting.sources import CorpusSource
from ...core.stopping import StopReason
from ...core.training.branch import config_changes
from ..session import Session
from ..wording import plural
from ..work import NO_ORIGIN, Origin, Work, same_corpus

__all__ = ["Origin", "Run", "RunStore", "auto_name"]


Run = Work  # a run is a piece of work: the names are one


def _value(name: str, cfg: TrainConfig) -> str:
    """One setting of *cfg* as a short phrase for a run's name."""
    if name == "merges":
        return f"up to {plural(cfg.merges, 'merge')}" if cfg.merges is not None else "no merge limit"
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
    if run.extension is not None:
        return run.extension.name
    cfg = run.config
    number = {r.id: i for i, r in enumerate(runs, 1)}
    if run.origin.parent is not None and run.origin.parent in number:
        what = ", ".join(_value(c.name, cfg) for c in run.origin.changes) or "same settings"
        return f"branch of run {number[run.origin.parent]} at {run.origin.step:,}: {what}"
    first = next((r for r in runs if r.origin.parent is None), None)
    if first is None or first is run:
        return ", ".join(_value(n, cfg) for n in ("pretokenizer", "mode", "merges"))
    changed = [c.name for c in config_changes(first.config, cfg)]
    if not same_corpus(run.source, first.source):
        changed.insert(0, "corpus")
    if not changed:
        return ", ".join(_value(n, cfg) for n in ("pretokenizer", "mode", "merges")) + " (again)"
    return ", ".join(run.source.name if n == "corpus" else _value(n, cfg) for n in changed)


class RunStore(QtCore.QObject):
    """The session's runs, named.  Signals: ``runsChanged()`` (added, removed, renamed, a run's merges
    changed) and ``currentChanged(int)`` (the index of the run now shown)."""

    runsChanged = QtCore.Signal()
    currentChanged = QtCore.Signal(int)

    def __init__(self, session: Session, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._shown = session.work
        self._naming = False
        self.name_all()
        session.runsChanged.connect(self._runs_changed)
        session.modelReset.connect(self._runs_changed)
        session.trainingStateChanged.connect(self._runs_changed)

    # -- queries --------------------------------------------------------------------------------------------
    @property
    def runs(self) -> list[Run]:
        return list(self.session.runs)

    @property
    def current(self) -> int:
        return self.session.current

    @property
    def current_run(self) -> Run:
        return self.session.work

    def index_of(self, run_id: int) -> int | None:
        return next((i for i, r in enumerate(self.session.runs) if r.id == run_id), None)

    def trained(self) -> list[Run]:
        """Every run that holds merges."""
        return [r for r in self.session.runs if r.records]

    # -- actions --------------------------------------------------------------------------------------------
    def switch(self, index: int) -> None:
        """Show run *index*; the shown one is kept as it is (nothing is retrained)."""
        self.session.switch(index)

    def begin(self, config: TrainConfig, source: CorpusSource, origin: Origin = NO_ORIGIN) -> Run:
        """A run is about to start training *config* on *source*: make it the shown run and return it."""
        cur = self.session.work
        same = (cur.config == config and same_corpus(cur.source, source) and origin.parent is None
                and cur.origin.parent is None
                and cur.stop_reason is not StopReason.LOADED)  # (an opened tokenizer, an extension: not retrained)
        if not cur.records or same:
            self.session.set_origin(self.session.current, origin)
            return cur
        run = Work.empty(source, config)
        run.origin = origin
        self.session.load(run)
        return run

    def rename(self, index: int, name: str) -> None:
        name = name.strip()
        self.session.rename_run(index, name, by_user=bool(name))
        self.name_all()

    def remove(self, index: int) -> bool:
        """Delete run *index* (not the last one left; deleting the shown run shows its neighbour)."""
        runs = self.session.runs
        if len(runs) <= 1 or not 0 <= index < len(runs):
            return False
        gone = runs[index]
        for i, r in enumerate(runs):  # a branch of the deleted run keeps its numbers but loses the link
            if r.origin.parent == gone.id:
                self.session.set_origin(i, Origin(None, r.origin.step, r.origin.changes))
        return self.session.remove_run(index)

    def replace_all(self, runs: list[Run], current: int) -> None:
        """Load a saved set of runs (session reopen) and show run *current*."""
        if not runs:
            return
        current = max(0, min(current, len(runs) - 1))
        self.session.load(runs[current], runs=runs)

    def name_all(self) -> None:
        runs = list(self.session.runs)
        self._naming = True
        try:
            for i, r in enumerate(runs):
                if not r.renamed:
                    self.session.rename_run(i, auto_name(r, runs), by_user=False)
        finally:
            self._naming = False

    def _runs_changed(self, *_: object) -> None:
        if self._naming:
            return
        self.name_all()
        if self.session.work is not self._shown:
            self._shown = self.session.work
            self.currentChanged.emit(self.session.current)
        self.runsChanged.emit()
