"""The window's "what if" actions: branch the shown run at step k, forbid a merge and branch, switch runs.

:class:`WhatIf` ties the :class:`~.store.RunStore` to the training controller and the panes without the panes
knowing: it adds "Branch here…" / "Forbid this pair and branch here" to the merge list's context menu, a
"Branch here…" button and context menu to the timeline, and is what the Runs pane calls to switch.

A branch is started in the worker process: the window hands it a :class:`~..training.protocol.BranchFrom`
(the plain, picklable :class:`~bpe_desktop.core.training.branch.BranchPoint` of the shown run at step k) beside the
corpus and the new settings; the worker replays the first k merges on the word counts
(:func:`~bpe_desktop.core.training.branch.start_branch`) and trains on.  Settings that change the words (mode,
pre-tokenizer, …) cannot keep any merge: the dialog says so and the run trains from step 0 instead.
It draws no pane of its own (:mod:`.pane`, :mod:`.compare`).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6 import QtCore, QtGui, QtWidgets

from ...core.config import TrainConfig
from ...core.errors import BpeError
from ...core.training.branch import BranchPoint, config_changes, needs_restart
from ..session import Session
from ..training.controller import TrainingController
from ..training.protocol import BranchFrom
from ..work import extension_refusal
from .branch_dialog import BranchDialog
from .store import Origin, RunStore

ErrorFn = Callable[[str, str], None]


class WhatIf(QtCore.QObject):
    """Signals: ``branched(int)`` -- a branch (or restart) began, with its step (0 for a restart)."""

    branched = QtCore.Signal(int)

    def __init__(self, session: Session, controller: TrainingController, store: RunStore,
                 parent: QtWidgets.QWidget, show_error: ErrorFn, settings: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session, self.controller, self.store = session, controller, store
        self.window = parent
        self.show_error = show_error
        self.settings = settings  # the settings pane (follows the shown run when switching)
        self.dialog: BranchDialog | None = None  # the open dialog (tests drive it)

    # -- starting runs ------------------------------------------------------------------------------------
    def _busy(self) -> bool:
        if self.controller.running:
            self.show_error("Cannot branch now", "a run is training -- stop it (Shift+F5) or wait until it ends, "
                            "then branch")
            return True
        return False

    def _through_pipeline(self) -> bool:
        """The shown run is a tokenizer.json shown through its own pipeline, or an extension run: training here
        cannot follow it."""
        w = self.session.work
        if w.extension is not None:  # (forbid-and-branch too: the branch would retrain from bytes)
            self.show_error("Cannot branch", extension_refusal(w.extension, "branched"))
            return True
        if w.pipeline is None or w.pipeline_ref is None:
            return False
        self.show_error("Cannot branch", f"this run is shown through the pipeline of {w.pipeline_ref.path} "
                        f"({w.pipeline.plain_reason}), which training here cannot follow (it counts words with "
                        "our pre-tokenizers), so its first merges would be segmented otherwise -- train a run "
                        "of your own (F5) instead")
        return True

    def branch(self, k: int, config: TrainConfig) -> bool:
        """Start a run that keeps the shown run's first *k* merges and continues under *config* (in the worker).

        A config that changes the words (:func:`needs_restart`) trains from step 0 instead.
        """
        s = self.session
        if self._busy() or self._through_pipeline():
            return False
        try:
            point = BranchPoint.from_model(s.model, k, s.records)
            if needs_restart(point, config) is not None:
                return self.restart(config)
            if config.merges is not None and config.merges < k:
                raise BpeError(f"a budget of {config.merges:,} merges ends before step {k:,} -- ask for {k:,} or more")
        except BpeError as e:
            self.show_error("Cannot branch", str(e))
            return False
        parent = self.store.current_run
        self.store.begin(config, s.source, Origin(parent.id, k, config_changes(s.config, config)))
        self.controller.start(s.source, config, branch=BranchFrom(point))
        if self.settings is not None and hasattr(self.settings, "set_config"):
            self.settings.set_config(config)  # the settings show the run shown, as after switching
        self.branched.emit(k)
        return True

    def restart(self, config: TrainConfig) -> bool:
        """Train *config* from step 0 on the shown run's corpus, as a new run."""
        if self._busy():
            return False
        s = self.session
        self.store.begin(config, s.source)
        self.controller.start(s.source, config)
        if self.settings is not None and hasattr(self.settings, "set_config"):
            self.settings.set_config(config)
        self.branched.emit(0)
        return True

    def ask_branch(self, k: int) -> bool:
        """The "Branch here…" dialog for step *k* of the shown run; start the branch if accepted."""
        s = self.session
        if not s.records:
            self.show_error("Cannot branch", "nothing has been trained yet -- press Train (F5) first")
            return False
        if self._through_pipeline():
            return False
        try:
            point = BranchPoint.from_model(s.model, k, s.records)
        except BpeError as e:
            self.show_error("Cannot branch", str(e))
            return False
        dlg = self.dialog = BranchDialog(s.config, point, self.window)
        try:
            if dlg.exec() != QtWidgets.QDialog.DialogCode.Accepted:
                return False
            config = dlg.config()
        except BpeError as e:
            self.show_error("Cannot branch", str(e))
            return False
        finally:
            self.dialog = None
            dlg.deleteLater()
        return self.branch(k, config)

    def forbid_and_branch(self, rank: int) -> bool:
        """Forbid merge *rank*'s pair and branch just before it (at step rank-1)."""
        s = self.session
        if not 1 <= rank <= len(s.records):
            return False
        r = s.records[rank - 1]
        pair = (r.left, r.right)
        forbid = s.config.forbid if pair in s.config.forbid else (*s.config.forbid, pair)
        try:
            config = s.config.with_(forbid=forbid)
        except BpeError as e:
            self.show_error("Cannot forbid this pair", str(e))
            return False
        return self.branch(rank - 1, config)

    # -- switching ----------------------------------------------------------------------------------------
    def switch(self, index: int) -> None:
        """Show run *index*: a training run is stopped first (its merges so far are kept), an idle one freed."""
        if index == self.store.current:
            return
        if self.controller.running or self.controller.can_continue:
            self.controller.shutdown()
        self.store.switch(index)  # the settings and the corpus pane follow the run shown

    def remove(self, index: int) -> bool:
        if index == self.store.current and (self.controller.running or self.controller.can_continue):
            self.controller.shutdown()
        return self.store.remove(index)

    # -- menus on other panes -------------------------------------------------------------------------------
    def install_merge_menu(self, view: QtWidgets.QAbstractItemView,
                           rank_of: Callable[[QtCore.QModelIndex], int]) -> None:
        """Right-click a merge in *view* (*rank_of* maps a view index to the merge's rank)."""
        view.setContextMenuPolicy(QtCore.Qt.ContextMenuPolicy.CustomContextMenu)

        def menu_at(pos: QtCore.QPoint) -> None:
            idx = view.indexAt(pos)
            if not idx.isValid():
                return
            menu = self.merge_menu(rank_of(idx), view)
            self.popup(menu, view.viewport().mapToGlobal(pos))
            menu.deleteLater()

        view.customContextMenuRequested.connect(menu_at)

    def popup(self, menu: QtWidgets.QMenu, at: QtCore.QPoint) -> None:
        """Show *menu* at *at* until the user chooses (the seam tests replace)."""
        menu.exec(at)

    def merge_menu(self, rank: int, parent: QtWidgets.QWidget) -> QtWidgets.QMenu:
        """The context menu of merge *rank* (1-based)."""
        menu = QtWidgets.QMenu(parent)
        r = self.session.records[rank - 1]
        a = menu.addAction(f"Branch here… (keep merges 1–{rank:,})", lambda: self.ask_branch(rank))
        a.setObjectName("branchHere")
        f = menu.addAction(f"Forbid {r.left} + {r.right} and branch at {rank - 1:,}",
                           lambda: self.forbid_and_branch(rank))
        f.setObjectName("forbidAndBranch")
        busy = self.controller.running
        a.setEnabled(not busy)
        f.setEnabled(not busy)
        return menu

    def install_timeline(self, timeline: QtWidgets.QWidget) -> QtWidgets.QToolButton:
        """A "Branch here…" button at the end of the timeline, and the same in its context menu."""
        btn = QtWidgets.QToolButton(timeline)
        btn.setObjectName("branchButton")
        btn.setText("Branch here…")
        btn.setToolTip("Start a new run that keeps the merges up to this step and continues with other settings")
        btn.clicked.connect(lambda: self.ask_branch(self.session.step))
        lay = timeline.layout()
        if lay is not None:
            lay.addWidget(btn)
        timeline.setContextMenuPolicy(QtCore.Qt.ContextMenuPolicy.ActionsContextMenu)
        a = QtGui.QAction("Branch here…", timeline)
        a.triggered.connect(lambda: self.ask_branch(self.session.step))
        timeline.addAction(a)

        def update(*_: object) -> None:
            ok = bool(self.session.records) and not self.controller.running
            btn.setEnabled(ok)
            a.setEnabled(ok)

        self.session.trainingStateChanged.connect(update)
        self.session.modelReset.connect(update)
        self.session.countChanged.connect(update)
        update()
        return btn
