"""The main window: assembles the panes into docks, the training toolbar, the menus and the status bar.

It holds no state of its own beyond the widgets: the session is the state, the controller runs training,
each pane observes the session.  Menus call :mod:`.file_actions`; training actions call the controller.
"Train further" (F9) appends the toolbar's "+N merges" to a finished run when :func:`.work.continuation`
allows it (settings, limits aside, and corpus unchanged); otherwise it says why and offers Retrain.
It does not draw tokens or plots (:mod:`.stream`, :mod:`.plots`) or train (:mod:`.training`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6 import QtCore, QtGui, QtWidgets

from ..core.config import TrainConfig
from ..core.counting.count_table import TableHeader
from ..core.counting.sources import CorpusSource
from ..core.errors import BpeError
from . import file_actions, helper_threads, layouts, resources, view_menu, window_state
from .compare.panel import ComparePanel
from .deferred_pane import DeferredPane
from .extend.open import extend_dialog
from .help.menu import HelpMenu
from .panes.corpus_editor import LIVE_TEXT_MS, CorpusEditor
from .panes.merge_list import MergeListPane
from .panes.settings import SettingsPanel
from .panes.status_bar import StatusBar
from .panes.timeline import TimelinePane
from .panes.why import WhyPanel
from .presets import SAMPLES
from .runs.install import install_runs, shown_compare
from .session import Session
from .session_io import SessionManager
from .session_io.recent import RecentKind
from .start import preset_corpus
from .stream.base_preview import BasePreview
from .stream.follow_merge import MergeFollower
from .stream.view import TokenStreamView
from .training.controller import TrainingController
from .training.protocol import TrainingState
from .vocab.pane import VocabPane
from .widgets.dock import Dock
from .widgets.repaint_hold import hold_repaint
from .widgets.timers import one_shot
from .work import continuation, same_corpus

if TYPE_CHECKING:
    from .inspect.panel import LogInspector
    from .plots.panel import PlotsPanel

PLOTS_AFTER_MS = 0  # the plots pane (and pyqtgraph, slow to import) is built once the window has painted
HELPERS_AFTER_MS = 300  # the helper threads (worker launch, row reading) start once the window has settled


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
        # panes importing pyqtgraph (slow) are built after the first paint, or when first asked for
        self._plots = DeferredPane(self._make_plots)
        self._inspector = DeferredPane(self._make_inspector)
        self.compare = ComparePanel(s)
        self.follow_merges = MergeFollower(s, self.token_view.canvas, self)  # play scrolls to each merge
        self.vocab = VocabPane(s)
        self.docks: dict[str, QtWidgets.QDockWidget] = {}
        self.start_screen: QtWidgets.QWidget | None = None  # a first start's ways in (app.make_window sets it)
        self.sessions = SessionManager(self)  # File → sessions, modified marker, autosave (gui/session_io)
        self._build_docks()
        self._build_actions()
        self.runs = install_runs(self)  # the Runs dock, Branch here…, Compare runs… (issue 14)
        self.setStatusBar(StatusBar(s, self))
        self.statusBar().messageChanged.connect(self._update_stale)  # the notice is back after a passing one
        self._shortcuts = self.timeline.shortcuts(self)

        self.controller.failed.connect(lambda title, msg: file_actions.show_error(self, title, msg))
        self.corpus.openFailed.connect(lambda msg: file_actions.show_error(self, "Cannot open corpus", msg))
        self.settings.retrainRequested.connect(self.train)
        self.corpus.edited.connect(self._corpus_edited)
        self.corpus.tableOpened.connect(self._table_opened)
        self.corpus.editor.filesDropped.disconnect(self.corpus._dropped)  # a drop is File → Open corpus:
        self.corpus.editor.filesDropped.connect(lambda paths: self.open_corpus(paths[0]))  # asks, Recent
        self.timeline.speedChanged.connect(self.token_view.set_play_speed)
        self.base_preview = BasePreview(s, self.settings.config, self.token_view.canvas.rows, self)  # step 0: base
        self.settings.changed.connect(self.base_preview.refresh)
        self.token_view.set_play_speed(self.timeline.steps_per_second())
        s.drafts = self._drafts  # kept with a run when another is shown; an untrained run *is* them:
        self._drafts_due = one_shot(self, LIVE_TEXT_MS, self.keep_drafts)  # (the corpus a moment after a key)
        self.settings.changed.connect(self.keep_drafts)  # its name follows the settings form at once
        self.corpus.edited.connect(self._drafts_due.start)
        for changed in (s.trainingStateChanged, s.modelReset):
            changed.connect(self._update_actions)
            changed.connect(self._update_stale)
        s.workLoaded.connect(self._update_stale)  # (after the corpus pane has shown the run's corpus)
        s.corpusChanged.connect(lambda: hold_repaint(self) if s.loading else None)  # a run shown: painted next turn
        s.trainingStateChanged.connect(lambda _state: hold_repaint(self))  # a run's start, pause, end: likewise
        self._update_actions()
        self.installEventFilter(self)  # the first paint builds the deferred panes (see eventFilter)
        self._plots.attach(self.docks["plots"])
        self._inspector.attach(self.docks["inspect"])
        layouts.apply(self, layouts.DEFAULT_LAYOUT)  # the docks' sizes are given when the window is shown
        window_state.fit_to_screen(self)
        if remember_layout:
            window_state.restore(self)

    def eventFilter(self, obj: QtCore.QObject, ev: QtCore.QEvent) -> bool:
        if obj is self and ev.type() == QtCore.QEvent.Type.Paint:
            self.removeEventFilter(self)
            self._plots.build_soon(PLOTS_AFTER_MS)  # after the first paint, not before it
            self._inspector.build_soon(PLOTS_AFTER_MS)
            QtCore.QTimer.singleShot(HELPERS_AFTER_MS, helper_threads.warm_up)  # not in the first Train press
        return super().eventFilter(obj, ev)

    @property
    def plots(self) -> PlotsPanel:
        """The plots pane, built on first use: importing pyqtgraph would delay the window's first paint."""
        return self._plots.get()

    @property
    def inspector(self) -> LogInspector:
        """The log inspector, built on first use (it imports pyqtgraph too)."""
        return self._inspector.get()

    def _make_plots(self) -> PlotsPanel:
        from .plots import panel

        cls = globals().get("PlotsPanel") or panel.PlotsPanel  # (benchmarks swap it for an empty widget)
        return cls(self.session)

    def _make_inspector(self) -> LogInspector:
        from .inspect.panel import LogInspector

        pane = LogInspector(self.session)
        pane.openRequested.connect(self.open_variant)
        pane.extendRequested.connect(lambda source: extend_dialog(self, source))
        return pane

    # -- layout -------------------------------------------------------------------------------------
    def _dock(self, key: str, title: str, widget: QtWidgets.QWidget, area: QtCore.Qt.DockWidgetArea
              ) -> QtWidgets.QDockWidget:
        d = Dock(title, self)
        d.setObjectName(f"dock_{key}")
        d.setWidget(widget)
        d.setFeatures(QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetMovable
                      | QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetClosable
                      | QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self.addDockWidget(area, d)
        self.docks[key] = d
        return d

    def _build_docks(self) -> None:
        # no central widget: all content lives in docks, arranged by a named layout (gui/layouts.py)
        A = QtCore.Qt.DockWidgetArea
        for key, title, widget in (("corpus", "Corpus", self.corpus), ("settings", "Settings", self.settings),
                                   ("tokens", "Token stream", self.token_view), ("merges", "Merges", self.merges),
                                   ("why", "Why this merge", self.why), ("plots", "Plots", self._plots.holder),
                                   ("timeline", "Timeline", self.timeline),
                                   ("compare", "Compare tokenizers", self.compare)):
            self._dock(key, title, widget, A.RightDockWidgetArea)
        self._dock("inspect", "Log inspector", self._inspector.holder, A.RightDockWidgetArea)
        layouts.groups(self)["inspect"] = "centre"  # a tab beside the token stream and compare
        self._dock("vocab", "Vocabulary", self.vocab, A.RightDockWidgetArea)
        layouts.groups(self)["vocab"] = "centre"  # computes nothing while hidden

    def _build_actions(self) -> None:
        st = self.style()
        sp = QtWidgets.QStyle.StandardPixmap

        def act(text: str, slot: object, key: str | None = None,
                icon: QtWidgets.QStyle.StandardPixmap | None = None) -> QtGui.QAction:
            a = QtGui.QAction(text, self)
            if icon is not None:
                a.setIcon(st.standardIcon(icon))
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
        train_b = tb.widgetForAction(self.train_action)
        train_b.setObjectName("trainButton")
        train_b.ensurePolished()  # as wide as "Retrain" from the start: a first run shown relayouts no toolbar
        self.train_action.setText("Retrain")
        train_b.setMinimumWidth(train_b.sizeHint().width())

        mb = self.menuBar()
        fm = mb.addMenu("&File")
        fm.addAction(act("Open corpus…", self.open_corpus, "Ctrl+O", sp.SP_DialogOpenButton))
        samples = fm.addMenu("Open sample corpus")
        for name in SAMPLES:
            samples.addAction(act(name, lambda _=False, n=name: self.load_sample(n)))
        fm.addSeparator()
        self.sessions.fill_file_menu(fm)
        fm.addSeparator()
        fm.addAction(act("Open tokenizer…", self.open_tokenizer, "Ctrl+Shift+O"))
        bundled = fm.addMenu("Open well-known tokenizer")  # rank files shipped with bpe-desktop
        for label, spec in file_actions.BUNDLED_TOKENIZERS:
            bundled.addAction(act(label, lambda _=False, s=spec: self.open_tokenizer(s)))
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
        tm.addSeparator()
        self.extend_action = act("Extend a tokenizer on this corpus…", lambda: extend_dialog(self))
        self.extend_action.setObjectName("extendAction")
        tm.addAction(self.extend_action)
        vm = mb.addMenu("&View")
        view_menu.build(self, vm)
        vm.addAction(self.follow_merges.action)
        self.help = HelpMenu(self, mb.addMenu("&Help"))
        preset_corpus.install(self)  # choosing "Robot logs" offers the robot-log sample

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
        self.token_view.repaint_next_frame()  # every pane changes now: the window's repaint in two halves
        self.controller.start(source, config, paused=paused)
        return True

    def train_further(self, n: int | None = None) -> bool:
        """Append *n* merges (default: the toolbar's "+N merges") to the finished run, in the same session.

        Asks :func:`.work.continuation`: refuses with a dialog when the last run ran out of pairs or hit the
        minimum frequency; when the settings (merge/vocabulary limits aside) or the corpus changed, or the
        run cannot be continued, it says why and offers Retrain.
        """
        s, ctl = self.session, self.controller
        if ctl.running:
            return False
        n = self.more_spin.value() if n is None else int(n)
        try:
            now = self.settings.config()
        except BpeError:
            now = None
        verdict = continuation(s.work, now, self.corpus.source(), process_alive=ctl.can_continue)
        if verdict.refusal:
            file_actions.show_error(self, "Cannot train further", verdict.refusal)
            return False
        if verdict.retrain:
            why = verdict.retrain
            answer = QtWidgets.QMessageBox.question(
                self, "Train further", f"{why[0].upper()}{why[1:]}: this run cannot be continued.\n\n"
                "Retrain from scratch with the current settings and corpus?",
                QtWidgets.QMessageBox.StandardButton.Yes | QtWidgets.QMessageBox.StandardButton.No)
            if answer == QtWidgets.QMessageBox.StandardButton.Yes:
                self.train()
            return False
        total = len(s.records) + n
        s.set_config(s.config.with_(merges=total, vocab_size=None))
        self._syncing_limits = True  # the settings now describe the longer run (no Retrain banner)
        try:
            self.settings.merges.setValue(total)
            self.settings.vocab.setValue(0)
        finally:
            self._syncing_limits = False
        return ctl.continue_training(n)

    def _drafts(self) -> tuple[CorpusSource | None, TrainConfig | None]:
        """The corpus and settings the window holds (None: settings not valid), for the session's drafts."""
        try:
            config: TrainConfig | None = self.settings.config()
        except BpeError:
            config = None
        return self.corpus.source(), config

    def keep_drafts(self) -> None:
        """The window's corpus and settings go with the shown run now (an untrained run takes them as its own,
        so its name in the Runs list says what the form says; a trained one keeps them as drafts)."""
        self._drafts_due.stop()
        self.session.keep_drafts()

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
        """File → Open corpus, a drop, Recent, the start screen: the file goes into the editor (the runs stay;
        only text typed into the editor and never trained on is asked about)."""
        if not self.sessions.may_discard("open another corpus", "corpus"):
            return
        if not path:
            path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Open corpus", "",
                                                            "Text files (*.txt *.log *.md *.csv);;All files (*)")
            if not path:
                return
        try:
            self.corpus.open_file(path)
        except BpeError as e:
            file_actions.show_error(self, "Cannot open corpus", str(e))
            return
        self.sessions.corpus_opened(path)

    def load_sample(self, name: str) -> None:
        if not self.sessions.may_discard("open another corpus", "corpus"):
            return
        loader, table = SAMPLES[name]
        self.corpus.set_text(loader(), name=name, word_counts=table)

    def open_tokenizer(self, path: str | None = None) -> None:
        """Open a tokenizer file as a run of its own, over the corpus in the editor (the shown run stays in
        the Runs list: nothing is lost, nothing asked)."""
        got = file_actions.read_tokenizer(self, path or None)  # a refused file changes nothing
        if got is not None:
            self.sessions.note_recent(RecentKind.TOKENIZER, got[2])
            if self.controller.running or self.controller.can_continue:
                self.controller.shutdown()  # the run no longer matches what is shown
            try:
                base = self.settings.config()
            except BpeError:
                base = self.session.config
            file_actions.apply_tokenizer(self.session, *got, corpus=self.corpus.source(), base=base)

    def open_variant(self, result: object) -> None:
        """A variant trained by the log inspector becomes a run of its own, as File → Open tokenizer does."""
        from .inspect.variants import adopt_variant  # (with the inspector: numpy, the log classifier)

        self.controller.shutdown()
        pane = self.inspector
        source = (CorpusSource.from_files([pane.path]) if pane.text is None and pane.path
                  else CorpusSource.from_text(pane.text or "", name="inspected log"))
        adopt_variant(self.session, result, source)  # type: ignore[arg-type]

    def _table_opened(self, header: TableHeader) -> None:
        """A counts table was opened: train with the settings it was counted with (the trainer checks)."""
        try:
            cfg = self.settings.config()
        except BpeError:
            cfg = self.session.config
        self.settings.set_config(cfg.with_(mode=header.mode, pretokenizer=header.pretokenizer,
                                           specials=tuple(header.specials)))

    def _corpus_edited(self) -> None:
        if self.controller.can_continue and not same_corpus(self.corpus.source(), self.session.source):
            self.controller.shutdown()  # a new corpus: the idle run cannot be continued, free its process
        self._update_stale()

    STALE = "Corpus changed: Retrain (F5) to learn from it"

    def _update_stale(self, *args: object) -> None:
        """Show STALE while, and only while, the editor's corpus differs from the one trained on (*args*: a
        status-bar message that has just been shown leaves it alone)."""
        if (args and isinstance(args[0], str) and args[0]) or self.session.loading:  # (the editor catches up first)
            return
        s, bar = self.session, self.statusBar()
        stale = bool(s.records) and not s.state.active and not same_corpus(self.corpus.source(), s.source)
        if stale:
            bar.showMessage(self.STALE)
        elif bar.currentMessage() == self.STALE:
            bar.clearMessage()

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
        window_state.fit_to_screen(self)
        layouts.apply(self, layouts.DEFAULT_LAYOUT)
        window_state.forget()

    def closeEvent(self, e: QtGui.QCloseEvent) -> None:
        if not self.sessions.may_discard("quit", "session"):
            e.ignore()
            return
        self.sessions.closing()
        if self._remember_layout:
            window_state.save(self)
        self.timeline.set_playing(False)
        self.controller.shutdown()
        if self._inspector.widget is not None:
            self._inspector.widget.shutdown()
        if self._plots.widget is not None:
            self._plots.widget.feed.close()  # (its statistics process, if a big corpus started one)
        compare = shown_compare(self)
        if compare is not None:
            compare.done(0)  # (so do its runs')
        super().closeEvent(e)
