"""The Log inspector pane: open a log (any size) or paste text, inspect it under several tokenizers off the
GUI thread, and see where the tokens go, where the tokenizers differ, and what to change.

Top: the log (Open log…, Paste text…, the bundled robot-log sample), the tokenizers as check boxes -- yours
at the timeline's step (a copy of the first k merges is sent), the well-known files installed here
(:func:`.job.installed_references`: the bundled ones, cl100k ticked; a missing one is named, the tooltip saying
how to get them) and any tokenizer file or folder you add (every format
:func:`bpe_desktop.core.formats.load_tokenizer` reads, ``PRESET:PATH`` included) --, Inspect / Cancel with a
progress bar, and Export (per-line CSV, per-category CSV, PNG of the pane; atomic writes, errors as dialogs).
The work runs in a worker process (:class:`~.runner.InspectRunner`); results fill three tabs:
:class:`~.tokens_tab.TokensTab`, :class:`~.differ_tab.DifferTab`, :class:`~.variants.VariantsPanel` (variants
train in worker processes, :class:`~.runner.VariantRunner`).  A result's paint is a turn after it fills them.
Nothing is inspected until Inspect is pressed (figures of your tokenizer at another step than the timeline's,
or of a model since replaced, are marked stale in the progress line); the pane never changes the session
except when a variant is opened as the main run (``openRequested``, handled by the window).
"""

from __future__ import annotations

import os

from PySide6 import QtCore, QtGui, QtWidgets

from ...core import formats
from ...core.counting.sources import CorpusSource
from ...core.errors import BpeError, PretokenizerNeeded
from ...core.formats.detect import detect
from ...core.formats.presets import is_bundled, split_spec
from ...core.io.sizes import format_bytes
from .. import file_actions, resources
from ..compare.sources import KNOWN_REFERENCES, missing_hint, missing_line, missing_references, spec_for_folder
from ..session import Session
from ..widgets import tab_titles, theme
from ..widgets.elided_label import ElidedLabel
from ..widgets.flow_layout import FlowLayout
from ..widgets.on_screen import DockWatch, on_screen
from ..widgets.quiet_progress import set_bar
from ..widgets.repaint_hold import hold_repaint
from . import export_menu
from .differ_tab import DifferTab
from .job import Done, InspectJob, TokenizerChoice, installed_references
from .runner import InspectRunner, VariantRunner
from .tokens_tab import TokensTab
from .variants import VariantsPanel

OWN = "yours"
PASTE_NAME = "pasted text"

_STYLE = """
QLabel#inspectHeading { font-weight: 600; color: $text; margin-top: 4px; }
QLabel#inspectHint { color: $faint; }
QLabel#inspectSource { color: $text; }
QLabel#inspectVerdict { background: $info_bg; border: 1px solid $info_border; border-radius: 4px; padding: 4px 6px;
                        color: $info_fg; }
QFrame#inspectLine { background: $card; border: 1px solid $border; border-radius: 4px; }
QWidget#inspectLines { background: $rows_bg; }
QLabel#inspectLineNo { color: $faint; font-size: 11px; }
QLabel#inspectChip { font-size: 11px; font-weight: 600; }
"""


def _room_for_text(b: QtWidgets.QPushButton) -> None:
    """At least the width the button's text and the style's margins take (the pane's stylesheet makes Qt's
    own size hint a couple of pixels short)."""
    margin = b.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_ButtonMargin, None, b)
    b.setMinimumWidth(b.fontMetrics().horizontalAdvance(b.text()) + 2 * margin + 8)


def _size(n: int) -> str:
    return format_bytes(n)  # the program's one size rule


class LogInspector(QtWidgets.QWidget):
    openRequested = QtCore.Signal(object)  # a VariantResult to make the main run
    extendRequested = QtCore.Signal(object)  # the log, as a CorpusSource: extend a tokenizer on it

    def __init__(self, session: Session, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.path: str | None = None
        self.text: str | None = None
        self.done: Done | None = None
        self._own_step: int | None = None  # the step of your tokenizer in the job run / shown (None: not in it)
        self._own_reset = False  # the model was replaced since: the figures are of another tokenizer
        self._done_text = ""
        self.runner = InspectRunner(self)
        self.variant_runner = VariantRunner(self)
        self.choices: dict[str, TokenizerChoice] = {}  # name -> choice (files and installed ones)
        self.checks: dict[str, QtWidgets.QCheckBox] = {}

        self.source_label = QtWidgets.QLabel("No log yet")
        self.source_label.setObjectName("inspectSource")
        open_b = QtWidgets.QPushButton("Open log…")
        open_b.clicked.connect(lambda: self.open_log())
        paste_b = QtWidgets.QPushButton("Paste text…")
        paste_b.clicked.connect(self._paste)
        sample_b = QtWidgets.QPushButton("Robot-log sample")
        sample_b.setToolTip("The bundled ROS 2-style robot log (1,800 lines)")
        sample_b.clicked.connect(self.use_sample)
        extend_b = QtWidgets.QPushButton("Extend on this log…")
        extend_b.setToolTip("Learn merges for this log on top of cl100k (or another tokenizer), then compare")
        extend_b.clicked.connect(lambda: self.extendRequested.emit(self.log_source()))
        row1 = QtWidgets.QHBoxLayout()
        for w in (open_b, paste_b, sample_b, extend_b):
            _room_for_text(w)
            row1.addWidget(w)
        row1.addWidget(self.source_label, 1)

        tok_strip = QtWidgets.QWidget()  # wraps when full: a box added never widens the pane (nor relayouts the window)
        self.tok_row = FlowLayout(tok_strip)
        self.tok_row.addWidget(QtWidgets.QLabel("Tokenizers:"))
        own = self._add_check(OWN, "The tokenizer being trained, at the timeline's step")
        own.setText(f"{OWN} (step 000,000)")  # its room for a step's text: a new step moves no other box
        own.setMinimumWidth(own.sizeHint().width())
        ticked = {k.name for k in KNOWN_REFERENCES if k.ticked}
        for c in installed_references():  # the well-known ones (bundled), ticked as KNOWN_REFERENCES says
            self._add_choice(c, checked=c.name in ticked)
        missing = missing_references()
        self.missing_refs = ElidedLabel(missing_line(missing))
        self.missing_refs.setObjectName("missingReferences")
        self.missing_refs.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        self.missing_refs.setToolTip(missing_hint(missing))
        self.missing_refs.setVisible(bool(missing))
        add_b = QtWidgets.QToolButton()
        add_b.setText("Add…")
        add_b.setToolTip("Add a tokenizer file or folder (tokenizer.json, .tiktoken, GPT-2 folder, codes, native)")
        add_b.setPopupMode(QtWidgets.QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        menu = QtWidgets.QMenu(add_b)
        menu.addAction("Tokenizer file…", lambda: self._ask_tokenizer(folder=False))
        menu.addAction("Tokenizer folder (GPT-2, vocab + merges)…", lambda: self._ask_tokenizer(folder=True))
        add_b.setMenu(menu)
        add_b.clicked.connect(lambda: self._ask_tokenizer(folder=False))
        self.tok_end = QtWidgets.QHBoxLayout()
        self.tok_end.addWidget(add_b)
        self.tok_end.addWidget(self.missing_refs, 1)

        self.inspect_button = QtWidgets.QPushButton("Inspect")
        self.inspect_button.setObjectName("inspectButton")
        self.inspect_button.setDefault(True)
        self.inspect_button.clicked.connect(self.inspect)
        self.cancel_button = QtWidgets.QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.runner.cancel)
        self.progress = QtWidgets.QProgressBar()
        self.progress.setTextVisible(True)
        self.export_button = export_menu.export_button(self)
        row2 = QtWidgets.QHBoxLayout()
        row2.addWidget(tok_strip)
        row2.addLayout(self.tok_end, 1)
        row3 = QtWidgets.QHBoxLayout()
        for part in (self.inspect_button, self.cancel_button, self.progress, self.export_button):
            row3.addWidget(part, int(part is self.progress))  # (the bar stretches)

        self.tabs = QtWidgets.QTabWidget()
        self.tokens_tab = TokensTab()
        self.differ_tab = DifferTab()
        self.variants = VariantsPanel()
        for tab, title in ((self.tokens_tab, "Where the tokens go"), (self.differ_tab, "Where they differ"),
                           (self.variants, "What to change")):
            self.tabs.addTab(tab, title)
        tab_titles.share_room(self.tabs)
        self.tokens_tab.lineRequested.connect(self._show_line)

        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.setSpacing(4)
        for row in (row1, row2, row3):
            lay.addLayout(row)
        lay.addWidget(self.tabs, 1)
        theme.style_widget(self, _STYLE)  # the theme's colours ($name), again on a change

        self.runner.progress.connect(self._progress)
        self.runner.finished.connect(self._finished)
        self.runner.failed.connect(self._failed)
        self.runner.cancelled.connect(lambda: self._set_running(False, "cancelled"))
        self.variants.trainRequested.connect(self.train_variants)
        self.variants.cancelRequested.connect(self.variant_runner.cancel)
        self.variants.openRequested.connect(self.openRequested)
        self.variant_runner.progress.connect(self.variants.set_progress)
        self.variant_runner.finished.connect(self._variants_done)
        self.variant_runner.failed.connect(self._variants_failed)
        self.variant_runner.cancelled.connect(lambda: self.variants.set_running(False))
        self._dock_watch = DockWatch(self, self._own_label)  # shown again: the label catches up
        session.stepChanged.connect(self._own_label_if_shown)
        session.stepChanged.connect(self._mark_stale)
        session.modelReset.connect(self._own_label)
        session.modelReset.connect(self._model_reset)
        session.countChanged.connect(self._own_label_if_shown)
        self._own_label()
        self._set_running(False, "")

    # -- the log ------------------------------------------------------------------------------------
    def open_log(self, path: str | None = None) -> bool:
        """Inspect the file at *path* next (asks when None); a dialog if it is not a readable file."""
        if path is None:
            path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Open log", "", "Logs and text (*.log *.txt);;"
                                                            "All files (*)")
            if not path:
                return False
        if not os.path.isfile(path) or not os.access(path, os.R_OK):
            self._error("Cannot open log", f"{path}: not a readable file -- choose a text file")
            return False
        self.path, self.text = path, None
        self.source_label.setText(f"{os.path.basename(path)} · {_size(os.path.getsize(path))}")
        self.source_label.setToolTip(path)
        return True

    def log_source(self) -> CorpusSource:
        """The log shown, as a corpus (empty text when there is none yet)."""
        return CorpusSource.from_files([self.path]) if self.path else CorpusSource.from_text(self.text or "")

    def use_sample(self) -> None:
        self.open_log(str(resources.ROBOT_LOGS))

    def set_text(self, text: str) -> None:
        """Inspect *text* (pasted) next."""
        self.path, self.text = None, text
        self.source_label.setText(f"{PASTE_NAME} · {text.count(chr(10)) + (not text.endswith(chr(10))):,} lines · "
                                  f"{_size(len(text.encode('utf-8', 'surrogateescape')))}")
        self.source_label.setToolTip("")

    def _paste(self) -> None:
        dlg = QtWidgets.QDialog(self)
        dlg.setWindowTitle("Paste text to inspect")
        edit = QtWidgets.QPlainTextEdit()
        edit.setPlainText(QtGui.QGuiApplication.clipboard().text())
        bb = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Ok
                                        | QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        bb.accepted.connect(dlg.accept)
        bb.rejected.connect(dlg.reject)
        lay = QtWidgets.QVBoxLayout(dlg)
        lay.addWidget(edit)
        lay.addWidget(bb)
        dlg.resize(640, 400)
        if dlg.exec() == QtWidgets.QDialog.DialogCode.Accepted and edit.toPlainText():
            self.set_text(edit.toPlainText())

    # -- tokenizers ---------------------------------------------------------------------------------
    def _add_check(self, name: str, tip: str, checked: bool = True) -> QtWidgets.QCheckBox:
        box = QtWidgets.QCheckBox(name)
        box.setChecked(checked)
        box.setToolTip(tip)
        self.checks[name] = box
        self.tok_row.addWidget(box)
        return box

    def _add_choice(self, choice: TokenizerChoice, checked: bool = True) -> None:
        self.choices[choice.name] = choice
        self._add_check(choice.name, choice.spec or "", checked)

    def add_tokenizer(self, spec: str, name: str | None = None) -> str | None:
        """Offer the tokenizer file or folder *spec* (``PRESET:PATH`` allowed), ticked; its name, or None with
        a dialog if there is no such file (its content is read, and refused, by the worker)."""
        try:
            preset, path = split_spec(spec)
        except BpeError as e:
            self._error("Cannot add tokenizer", str(e))
            return None
        if not (os.path.exists(path) or (preset is not None and is_bundled(path))):
            self._error("Cannot add tokenizer", f"{path}: no such file or folder -- check the path")
            return None
        got = self._reading_of(spec, path) if preset is None else (spec, None)  # PRESET:PATH names its pattern
        if got is None:
            return None  # a rank file without a pattern, and the question was cancelled
        spec, pre = got
        base = name or os.path.basename(os.path.normpath(path)) or spec
        name, n = base, 2
        while name in self.checks:
            name, n = f"{base} ({n})", n + 1
        self._add_choice(TokenizerChoice(name, spec, pretokenizer=pre))
        return name

    def _reading_of(self, spec: str, path: str) -> tuple[str, str | None] | None:
        """How to read *spec*: (spec, pattern) -- a bare .tiktoken without a pattern as the user chooses
        (:func:`~..file_actions.patternless`; None: cancelled), any other file as it is (the worker reads it).  Only
        such a file is read here, on the GUI thread; ``PRESET:PATH`` (Compare in Log inspector) is the worker's."""
        try:
            if not os.path.isdir(path) and detect(path) == "tiktoken":
                formats.load(spec)
        except PretokenizerNeeded as need:
            return file_actions.patternless(self, spec, need)
        except BpeError:
            pass
        return spec, None

    def _ask_tokenizer(self, folder: bool) -> None:
        if folder:
            path = QtWidgets.QFileDialog.getExistingDirectory(self, "Add tokenizer folder")
            if path:
                self.add_tokenizer(spec_for_folder(path), os.path.basename(os.path.normpath(path)))
        else:
            path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Add tokenizer", "",
                                                            file_actions.OPEN_TOKENIZER_FILTER)
            if path:
                self.add_tokenizer(path)

    def showEvent(self, e: QtGui.QShowEvent) -> None:
        super().showEvent(e)
        self._dock_watch.attach()
        self._own_label()

    def _own_label_if_shown(self, *_: object) -> None:
        # a check box's new text relayouts the pane and the window (every frame during playback): not while
        # the pane is behind another tab (showing it brings the label up to date)
        if on_screen(self):
            self._own_label()

    def _own_label(self, *_: object) -> None:
        s = self.session
        box = self.checks[OWN]
        box.setEnabled(bool(s.records))
        box.setText(f"{OWN} (step {s.shown_step(s.step):,})" if s.records else f"{OWN} (not trained)")

    def selected(self) -> list[TokenizerChoice]:
        """The ticked tokenizers, yours first (a copy of its first k merges, k = the timeline's step; a
        tokenizer.json shown through its own pipeline: that file with its first k merges)."""
        out = []
        s = self.session
        ref, ext, name = s.work.pipeline_ref, s.work.extension, f"{OWN}@{s.shown_step(s.step)}"
        if self.checks[OWN].isChecked() and s.records and ref is not None:  # a tokenizer.json's own pipeline
            out.append(TokenizerChoice(name, ref.path, upto=s.step))  # (its ids; a worker reads it)
        elif self.checks[OWN].isChecked() and s.records:  # (an extended rank table: by the rank rule, as shown)
            out.append(TokenizerChoice(name, model=s.model.truncated(s.step),
                                       rank_rule=ext is not None and ext.rule == "ranks"))
        out += [c for n, c in self.choices.items() if self.checks[n].isChecked()]
        return out

    # -- running ------------------------------------------------------------------------------------
    def inspect(self) -> bool:
        """Start inspecting the log with the ticked tokenizers (False with a dialog when something is missing)."""
        if self.path is None and self.text is None:
            self._error("Nothing to inspect", "Open a log file, paste text or take the robot-log sample first.")
            return False
        chosen = self.selected()
        if not chosen:
            self._error("No tokenizer", "Tick at least one tokenizer (train one, or add a tokenizer file).")
            return False
        self.runner.start(InspectJob(tuple(chosen), path=self.path, text=self.text))
        self._own_step = self.session.step if chosen[0].model is not None else None
        self._own_reset = False
        self._set_running(True, "starting…")
        return True

    def _model_reset(self) -> None:
        self._own_reset = True
        self._mark_stale()

    def is_stale(self) -> bool:
        """The figures shown are of your tokenizer at another step (or of a model since replaced)."""
        return (self.done is not None and self._own_step is not None and not self.cancel_button.isEnabled()
                and (self._own_reset or self.session.step != self._own_step))

    def _mark_stale(self, *_: object) -> None:
        """Say in the progress line when your tokenizer's figures are no longer of the timeline's step."""
        if self.done is None or self.cancel_button.isEnabled():  # (enabled while a job runs)
            return
        if not self.is_stale():
            self.progress.setFormat(self._done_text)
            self.progress.setToolTip("")
            return
        assert self._own_step is not None
        what = ("of a tokenizer since replaced" if self._own_reset
                else f"of step {self.session.shown_step(self._own_step):,}, the timeline is at "
                f"{self.session.shown_step(self.session.step):,}")
        self.progress.setFormat(f"stale: your tokenizer's figures are {what} -- press Inspect to update")
        self.progress.setToolTip(f"{self._done_text}; {OWN}'s figures below are {what}")

    def _set_running(self, running: bool, text: str) -> None:
        self.inspect_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        if running:
            set_bar(self.progress, 0, 0)
        else:
            set_bar(self.progress, 0, 1, 1 if text == "done" else 0)
        self.progress.setFormat(text)

    def _progress(self, stage: str, done: int, total: int) -> None:
        if stage == "loading":
            set_bar(self.progress, 0, 0)
            self.progress.setFormat(f"loading tokenizers ({done + 1} of {total})")
            return
        set_bar(self.progress, 0, 1000, int(1000 * done / total) if total else 0)
        self.progress.setFormat(f"inspecting: {_size(done)} of {_size(total)}")

    def _finished(self, done: Done) -> None:
        self.done = done
        self._set_running(False, "done")
        r = done.inspection
        lines = len(r.reports[0].per_line) if r.reports else 0
        self._done_text = (f"done: {lines:,} lines, {_size(r.n_bytes)}, {len(r.reports)} tokenizer"
                           f"{'s' if len(r.reports) != 1 else ''}")
        self.progress.setFormat(self._done_text)
        self._mark_stale()  # the timeline may have moved while it ran
        self.tokens_tab.set_result(done.inspection)  # painted on the next turn; the rest on turns of their own:
        hold_repaint(self, lambda: self._second_half(done))

    def _second_half(self, done: Done) -> None:  # the other tab after the first one's paint, then the sparkline
        if self.done is done:
            self.differ_tab.set_done(done)
            hold_repaint(self, self.tokens_tab.settle)

    def _failed(self, message: str) -> None:
        self._set_running(False, "failed")
        self._error("Cannot inspect", message)

    def _show_line(self, line: int) -> None:
        self.differ_tab.show_line(line)
        self.tabs.setCurrentWidget(self.differ_tab)

    # -- variants -----------------------------------------------------------------------------------
    def train_variants(self, presets: list[str], merges: int) -> bool:
        if self.path is None and self.text is None:
            self._error("Nothing to train on", "Open a log file, paste text or take the robot-log sample first.")
            return False
        if self.text is not None:
            self.variant_runner.start(self.text, presets, merges)
        else:
            assert self.path is not None
            self.variant_runner.start(self.path, presets, merges, is_path=True)
        self.variants.set_running(True, len(presets))
        return True

    def _variants_done(self, results: list) -> None:
        self.variants.set_running(False)
        self.variants.set_results(results)

    def _variants_failed(self, message: str) -> None:
        self.variants.set_running(False)
        self._error("Cannot train variants", message)

    # -- export (gui/inspect/export_menu.py) ----------------------------------------------------------
    def export_per_line(self, path: str | None = None) -> bool:
        return export_menu.per_line(self, path)

    def export_categories(self, path: str | None = None) -> bool:
        return export_menu.categories(self, path)

    def export_png(self, path: str | None = None) -> bool:
        return export_menu.picture(self, path)

    def _error(self, title: str, message: str) -> None:
        file_actions.show_error(self, title, message)

    def shutdown(self) -> None:
        """Stop any running job (the window calls this when it closes)."""
        self.runner.cancel()
        self.variant_runner.cancel()

    def closeEvent(self, e: QtGui.QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(e)
