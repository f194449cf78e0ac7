"""The main window: assembles the panes into docks, the training toolbar, the menus and the status bar.

It holds no state of its own beyond the widgets: the session is the state, the controller runs training,
each pane observes the session.  Menus call :mod:`.file_actions`; training actions call the controller.
"Train further" (F9) appends the toolbar's "+N merges" to a finished run when its settings (limits aside)
and corpus are unchanged; otherwise it says why and offers Retrain.
It does not draw tokens or plots (:mod:`.stream`, :mod:`.plots`) or train (:mod:`.training`).
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from ..core.errors import BpeError
from . import file_actions, resources, window_state
from .compare.panel import ComparePanel
from .panes.corpus_editor import CorpusEditor
from .panes.merge_list import MergeListPane
from .panes.settings import SettingsPanel
from .panes.status_bar import StatusBar
from .panes.timeline import TimelinePane
from .panes.why import WhyPanel
from .plots.panel import PlotsPanel
from .presets import SAMPLES
from .runs.install import install_runs
from .session import Session
from .stream.view import TokenStreamView
from .training.controller import TrainingController
from .training.protocol import StopReason, TrainingState


class MainWindow(QtWidgets.QMainWindow):
    def __init__(
        self, session: Session | None = None, parent: QtWidgets.QWidget | None = None, *, remember_layout: bool = True
    ) -> None:
        super().__init__(parent)
        self._remember_layout = remember_layout
        self.session = session or Session(self)
        self.controller = TrainingController(self.session, self)
        self.setWindowTitle("bpe-desktop — watch BPE learn a tokenizer")
        self.setWindowIcon(QtGui.QIcon(str(resources.ICON)))
        self.setDockNestingEnabled(True)
        self.setDocumentMode(True)
        s = self.session
        self.corpus = CorpusEditor(s)
        self.settings = SettingsPanel(s)
        self.merges = MergeListPane(s)
        self.timeline = TimelinePane(s)
        self.why = WhyPanel(s)
        self.token_view = TokenStreamView(s)
        self.plots = PlotsPanel(s)
        self.compare = ComparePanel(s)
        self.docks: dict[str, QtWidgets.QDockWidget] = {}
        self._build_docks()
        self._build_actions()
        self.runs = install_runs(self)  # the Runs dock, Branch here…, Compare runs… (issue 14)
        self.setStatusBar(StatusBar(s, self))
        self._shortcuts = self.timeline.shortcuts(self)

        self.controller.failed.connect(lambda title, msg: file_actions.show_error(self, title, msg))
        self.corpus.openFailed.connect(lambda msg: file_actions.show_error(self, "Cannot open corpus", msg))
        self.settings.retrainRequested.connect(self.train)
        self.corpus.edited.connect(self._corpus_edited)
        self.timeline.speedChanged.connect(self.token_view.set_play_speed)
        self.token_view.set_play_speed(self.timeline.steps_per_second())
        s.trainingStateChanged.connect(self._update_actions)
        s.modelReset.connect(self._update_actions)
        self._update_actions()
        self._default_state = self.saveState()
        window_state.fit_to_screen(self)
        if remember_layout:
            window_state.restore(self)

    # -- layout -------------------------------------------------------------------------------------
    def _dock(self, key: str, title: str, widget: QtWidgets.QWidget, area: QtCore.Qt.DockWidgetArea
              ) -> QtWidgets.QDockWidget:
        d = QtWidgets.QDockWidget(title, self)
        d.setObjectName(f"dock_{key}")
        d.setWidget(widget)
        d.setFeatures(QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetMovable
                      | QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetClosable
                      | QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self.addDockWidget(area, d)
        self.docks[key] = d
        return d

    def _build_docks(self) -> None:
        A = QtCore.Qt.DockWidgetArea
        # no central widget: all content lives in docks, which then share the whole window
        corpus = self._dock("corpus", "Corpus", self.corpus, A.LeftDockWidgetArea)
        settings = self._dock("settings", "Settings", self.settings, A.LeftDockWidgetArea)
        tokens = self._dock("tokens", "Token stream", self.token_view, A.RightDockWidgetArea)
        merges = self._dock("merges", "Merges", self.merges, A.RightDockWidgetArea)
        why = self._dock("why", "Why this merge", self.why, A.RightDockWidgetArea)
        plots = self._dock("plots", "Plots", self.plots, A.RightDockWidgetArea)
        timeline = self._dock("timeline", "Timeline", self.timeline, A.BottomDockWidgetArea)
        self.splitDockWidget(corpus, settings, QtCore.Qt.Orientation.Vertical)
        self.splitDockWidget(tokens, merges, QtCore.Qt.Orientation.Horizontal)
        self.splitDockWidget(tokens, why, QtCore.Qt.Orientation.Vertical)
        self.splitDockWidget(merges, plots, QtCore.Qt.Orientation.Vertical)
        self.resizeDocks([corpus, tokens, merges], [360, 640, 440], QtCore.Qt.Orientation.Horizontal)
        self.resizeDocks([corpus, settings], [360, 400], QtCore.Qt.Orientation.Vertical)
        self.resizeDocks([tokens, why], [520, 260], QtCore.Qt.Orientation.Vertical)
        self.resizeDocks([merges, plots], [440, 340], QtCore.Qt.Orientation.Vertical)
        del timeline
        # the compare pane shares the token stream's place as a tab (it encodes nothing while hidden)
        compare = self._dock("compare", "Compare tokenizers", self.compare, A.RightDockWidgetArea)
        self.tabifyDockWidget(tokens, compare)
        tokens.raise_()

    def _build_actions(self) -> None:
        st = self.style()
        sp = QtWidgets.QStyle.StandardPixmap

        def act(text: str, slot: object, key: str | None = None, icon: object = None) -> QtGui.QAction:
            a = QtGui.QAction(text, self)
            if icon is not None:
                a.setIcon(st.standardIcon(icon))  # type: ignore[arg-type]
            if key:
                a.setShortcut(QtGui.QKeySequence(key))
            a.triggered.connect(slot)
            return a

        self.train_action = act("Train", self.train, "F5", sp.SP_MediaPlay)
        self.pause_action = act("Pause", self.controller.pause, "F6", sp.SP_MediaPause)
        self.resume_action = act("Resume", self.controller.resume, "F7", sp.SP_MediaSeekForward)
        self.step_action = act("Step", self.step_once, "F8", sp.SP_ArrowRight)
        self.stop_action = act("Stop", self.controller.stop, "Shift+F5", sp.SP_MediaStop)
        self.further_action = act("Train further", lambda: self.train_further(), "F9", sp.SP_MediaSkipForward)
        self.further_action.setToolTip("Continue the finished run by the number of merges next to this button "
                                       "(F9); the merges are appended, nothing is retrained")
        self.more_spin = QtWidgets.QSpinBox()
        self.more_spin.setObjectName("moreMergesSpin")
        self.more_spin.setRange(1, 1_000_000)
        self.more_spin.setPrefix("+")
        self.more_spin.setSuffix(" merges")
        self.more_spin.setGroupSeparatorShown(True)
        self.more_spin.setValue(self.settings.merges.value() or 100)
        self.more_spin.setToolTip("How many merges Train further adds (follows the settings' Merges box)")
        self._syncing_limits = False
        self.settings.merges.valueChanged.connect(self._merges_box_changed)
        tb = self.addToolBar("Training")
        tb.setObjectName("training_toolbar")
        tb.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        tb.setMovable(False)
        training = (self.train_action, self.pause_action, self.resume_action, self.step_action, self.stop_action)
        for a in training:
            tb.addAction(a)
        tb.addSeparator()
        tb.addAction(self.further_action)
        tb.addWidget(self.more_spin)
        tb.widgetForAction(self.train_action).setObjectName("trainButton")

        mb = self.menuBar()
        fm = mb.addMenu("&File")
        fm.addAction(act("Open corpus…", self.open_corpus, "Ctrl+O", sp.SP_DialogOpenButton))
        samples = fm.addMenu("Open sample corpus")
        for name in SAMPLES:
            samples.addAction(act(name, lambda _=False, n=name: self.load_sample(n)))
        fm.addSeparator()
        fm.addAction(act("Open tokenizer…", self.open_tokenizer, "Ctrl+Shift+O"))
        fm.addAction(act("Save tokenizer…", lambda: file_actions.save_tokenizer(self, self.session), "Ctrl+S",
                         sp.SP_DialogSaveButton))
        fm.addAction(act("Export tokenizer at this step…", lambda: file_actions.export_tokenizer(self, self.session),
                         "Ctrl+E"))
        fm.addAction(act("Export merges as CSV…", lambda: file_actions.export_merges_csv(self, self.session)))
        fm.addSeparator()
        fm.addAction(act("Quit", self.close, "Ctrl+Q"))
        tm = mb.addMenu("&Training")
        for a in training:
            tm.addAction(a)
        tm.addSeparator()
        tm.addAction(self.further_action)
        vm = mb.addMenu("&View")
        for d in self.docks.values():
            vm.addAction(d.toggleViewAction())
        vm.addSeparator()
        vm.addAction(act("Reset layout", self.reset_layout))
        hm = mb.addMenu("&Help")
        hm.addAction(act("About bpe-desktop", self._about))

    # -- actions ------------------------------------------------------------------------------------
    def train(self, *, paused: bool = False) -> bool:
        """Start training the editor's corpus with the panel's settings (refuses with a dialog if invalid)."""
        try:
            config = self.settings.config()
            source = self.corpus.source()
            if source.text is not None and not source.text.strip():
                raise BpeError("the corpus is empty -- type or paste some text, or open a file")
        except BpeError as e:
            file_actions.show_error(self, "Cannot train", str(e))
            return False
        self.runs.store.begin(config, source)  # the shown run stays in the Runs list
        self.controller.start(source, config, paused=paused)
        return True

    def train_further(self, n: int | None = None) -> bool:
        """Append *n* merges (default: the toolbar's "+N merges") to the finished run, in the same session.

        Refuses with a dialog when the last run ran out of pairs or hit the minimum frequency; when the
        settings (merge/vocabulary limits aside) or the corpus changed, or the run cannot be continued,
        it says why and offers Retrain.
        """
        s, ctl = self.session, self.controller
        if ctl.running:
            return False
        n = self.more_spin.value() if n is None else int(n)
        title = "Cannot train further"
        if not s.records:
            file_actions.show_error(self, title, "nothing has been trained yet -- press Train (F5) first")
            return False
        changed = self._run_changed()
        reason = s.stop_reason
        if not changed and reason is StopReason.NO_PAIR:
            file_actions.show_error(self, title, "the last run stopped because no pair was left to merge: every "
                                    "word is already a single token, so there is nothing more to learn -- add "
                                    "text to the corpus and Retrain (F5)")
            return False
        if not changed and reason is StopReason.MIN_FREQUENCY:
            file_actions.show_error(self, title, f"the last run stopped because the {s.stop_text} -- lower Min "
                                    "frequency in the settings and Retrain (F5)")
            return False
        if changed or not ctl.can_continue:
            why = changed or ("this run cannot be continued (it was stopped, failed, or opened from a file: "
                              "its training process has ended)")
            answer = QtWidgets.QMessageBox.question(
                self, "Train further", f"{why[0].upper()}{why[1:]}, so its merges cannot be extended.\n\n"
                "Retrain from scratch with the current settings and corpus?",
                QtWidgets.QMessageBox.StandardButton.Yes | QtWidgets.QMessageBox.StandardButton.No)
            if answer == QtWidgets.QMessageBox.StandardButton.Yes:
                self.train()
            return False
        total = len(s.records) + n
        s.config = s.config.with_(merges=total, vocab_size=None)
        self._syncing_limits = True  # the settings now describe the longer run (no Retrain banner)
        try:
            self.settings.merges.setValue(total)
            self.settings.vocab.setValue(0)
        finally:
            self._syncing_limits = False
        return ctl.continue_training(n)

    def _run_changed(self) -> str:
        """Why the last run no longer matches the settings or corpus ("" if it does; limits do not count)."""
        s = self.session
        try:
            now = self.settings.config()
        except BpeError:
            return "the settings are not valid any more"
        if now.with_(merges=None, vocab_size=None) != s.config.with_(merges=None, vocab_size=None):
            return "the settings changed since this run"
        if self.corpus.source() != s.source:
            return "the corpus changed since this run"
        return ""

    def _merges_box_changed(self, value: int) -> None:
        if not self._syncing_limits and value > 0:
            self.more_spin.setValue(value)

    def step_once(self) -> None:
        """One merge: starts a paused run when idle."""
        if self.controller.running:
            self.controller.step()
        elif self.train(paused=True):
            self.controller.step()

    def open_corpus(self, path: str | None = None) -> None:
        if not path:
            path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Open corpus", "",
                                                            "Text files (*.txt *.log *.md *.csv);;All files (*)")
            if not path:
                return
        try:
            self.corpus.open_file(path)
        except BpeError as e:
            file_actions.show_error(self, "Cannot open corpus", str(e))

    def load_sample(self, name: str) -> None:
        loader, table = SAMPLES[name]
        self.corpus.set_text(loader(), name=name, word_counts=table)

    def open_tokenizer(self, path: str | None = None) -> None:
        if self.controller.running:
            self.controller.shutdown()
        model = file_actions.open_tokenizer(self, self.session, path or None)
        if model is not None:
            if self.controller.can_continue:
                self.controller.shutdown()  # the idle run no longer matches what is shown
            try:
                cfg = self.settings.config().with_(
                    mode=model.mode, pretokenizer=model.pretokenizer, end_of_word=model.end_of_word,
                    glue_marker=model.glue_marker, specials=model.specials,
                    tie_break=model.tie_break or "lexical", merges=len(model.merges), vocab_size=None)
                self.session.config = cfg  # first: the settings pane compares itself with it
                self.settings.set_config(cfg)
            except BpeError:
                pass

    def _corpus_edited(self) -> None:
        if self.controller.can_continue and self.corpus.source() != self.session.source:
            self.controller.shutdown()  # a new corpus: the idle run cannot be continued, free its process
        if self.session.records and not self.controller.running:
            self.statusBar().showMessage("The corpus changed since training: press Retrain (F5) to learn from it.",
                                         10_000)

    def _about(self) -> None:
        QtWidgets.QMessageBox.about(
            self, "About bpe-desktop",
            "<b>bpe-desktop</b><br>Watch byte-pair encoding learn a tokenizer, merge by merge.")

    def _update_actions(self, *_: object) -> None:
        state = self.session.state
        running = self.controller.running and state.active
        self.train_action.setEnabled(True)
        self.train_action.setText("Retrain" if self.session.records and not running else "Train")
        self.pause_action.setEnabled(running and state is not TrainingState.PAUSED)
        self.resume_action.setEnabled(running and state is TrainingState.PAUSED)
        self.step_action.setEnabled(not running or state is TrainingState.PAUSED)
        self.stop_action.setEnabled(running)
        self.further_action.setEnabled(not running and bool(self.session.records))

    def reset_layout(self) -> None:
        """Every pane back where it starts, the window fitted to the screen; the saved layout is forgotten."""
        self.restoreState(self._default_state)
        for d in self.docks.values():
            d.setFloating(False)
            d.show()
        self.docks["tokens"].raise_()
        window_state.fit_to_screen(self)
        window_state.forget()

    def closeEvent(self, e: QtGui.QCloseEvent) -> None:
        if self._remember_layout:
            window_state.save(self)
        self.timeline.set_playing(False)
        self.controller.shutdown()
        super().closeEvent(e)
