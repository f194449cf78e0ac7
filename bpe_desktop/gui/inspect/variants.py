"""The inspector's "What to change" tab: train pre-tokenizer variants on the log and compare their tokens.

"Train variants on this log…" asks (:class:`VariantDialog`) for log presets (check boxes: cl100k's own
pattern as the baseline, the log-aware patterns of :mod:`bpe_desktop.core.text.log_patterns`, GPT-2's) and one
merge budget, then trains them in worker processes (:class:`~.runner.VariantRunner`), with a progress bar
and Cancel.  The table shows the variants side by side (one column each): tokens on the log and the
difference to the first variant, merges spent on digit-only tokens, tokens per category (fewest in bold).

"Open as main run" emits ``openRequested(VariantResult)``: the window puts that variant's model and merge
records into the session exactly as File → Open tokenizer does (:func:`adopt_variant`) -- the timeline,
merge list, why-this-merge and plots then show that run; the corpus box is left as it was.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6 import QtCore, QtWidgets

from ...core.config import TrainConfig
from ...core.counting.sources import CorpusSource
from ...core.logs.log_variants import DEFAULT_PRESETS, VariantResult
from ...core.logs.logclass import Category
from ...core.text.pretokenize import NAMED_PATTERNS
from ..session import Session
from ..work import Work

#: what the dialog offers, in order
OFFERED = ("cl100k", "log-digits", "log-digits3", "log-numbers", "log-stamps", "log-stamps3", "log-punct", "gpt2")
DEFAULT_MERGES = 1000


def describe_preset(name: str) -> str:
    return NAMED_PATTERNS[name][1] if name in NAMED_PATTERNS else name


def adopt_variant(session: Session, result: VariantResult, source: CorpusSource) -> TrainConfig:
    """Show a trained variant as a run of its own (as File → Open tokenizer does), with the settings it was
    trained with and the corpus it was trained on (*source*: the inspected log); return those settings."""
    cfg = result.job.config()
    session.load(Work.loaded(result.model, list(result.records), source, cfg,
                             f"variant {result.job.pretokenizer} trained on the inspected log"))
    return cfg


class VariantDialog(QtWidgets.QDialog):
    """Which presets to train, and how many merges each."""

    def __init__(self, parent: QtWidgets.QWidget | None = None, merges: int = DEFAULT_MERGES) -> None:
        super().__init__(parent)
        self.setWindowTitle("Train variants on this log")
        lay = QtWidgets.QVBoxLayout(self)
        lay.addWidget(QtWidgets.QLabel("Pre-tokenizers to train (the same merge budget each, bytes mode, HF "
                                       "tie-break):"))
        self.boxes: dict[str, QtWidgets.QCheckBox] = {}
        for name in OFFERED:
            box = QtWidgets.QCheckBox(f"{name} — {describe_preset(name)}")
            box.setChecked(name in DEFAULT_PRESETS)
            self.boxes[name] = box
            lay.addWidget(box)
        form = QtWidgets.QFormLayout()
        self.merges = QtWidgets.QSpinBox()
        self.merges.setRange(1, 200_000)
        self.merges.setGroupSeparatorShown(True)
        self.merges.setValue(merges)
        form.addRow("Merges per variant:", self.merges)
        lay.addLayout(form)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Ok
                                             | QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Ok).setText("Train")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)

    def presets(self) -> list[str]:
        return [n for n, b in self.boxes.items() if b.isChecked()]


class VariantsPanel(QtWidgets.QWidget):
    """The tab: the action, progress, the side-by-side table and "Open as main run"."""

    trainRequested = QtCore.Signal(list, int)  # presets, merges (the pane starts the runner)
    cancelRequested = QtCore.Signal()
    openRequested = QtCore.Signal(object)  # a VariantResult

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.results: list[VariantResult] = []
        self.merges = DEFAULT_MERGES
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        intro = QtWidgets.QLabel("Train the same merge budget under several pre-tokenizers on this log and "
                                 "see which choice saves how many tokens — and how many merges go to digit "
                                 "runs of random numbers.")
        intro.setWordWrap(True)
        intro.setObjectName("inspectHint")
        lay.addWidget(intro)
        row = QtWidgets.QHBoxLayout()
        self.train_button = QtWidgets.QPushButton("Train variants on this log…")
        self.train_button.setObjectName("trainVariants")
        self.train_button.clicked.connect(self.ask)
        self.progress = QtWidgets.QProgressBar()
        self.progress.setTextVisible(True)
        self.progress.setVisible(False)
        self.cancel_button = QtWidgets.QPushButton("Cancel")
        self.cancel_button.setVisible(False)
        self.cancel_button.clicked.connect(self.cancelRequested)
        row.addWidget(self.train_button)
        row.addWidget(self.progress, 1)
        row.addWidget(self.cancel_button)
        row.addStretch(0)
        lay.addLayout(row)
        self.table = QtWidgets.QTableWidget(0, 0)
        self.table.setObjectName("variantTable")
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectColumns)
        self.table.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setDefaultSectionSize(22)
        lay.addWidget(self.table, 1)
        bottom = QtWidgets.QHBoxLayout()
        self.choice = QtWidgets.QComboBox()
        self.open_button = QtWidgets.QPushButton("Open as main run")
        self.open_button.setToolTip("Put this variant's merges into the window as File → Open tokenizer does "
                                    "(timeline, merge list, why-this-merge and plots show it)")
        self.open_button.clicked.connect(self._open)
        self.table.currentCellChanged.connect(lambda _r, c, *_: self.choice.setCurrentIndex(c) if c >= 0 else None)
        bottom.addWidget(QtWidgets.QLabel("Variant:"))
        bottom.addWidget(self.choice, 1)
        bottom.addWidget(self.open_button)
        lay.addLayout(bottom)
        self.status = QtWidgets.QLabel("")
        self.status.setObjectName("inspectHint")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)
        self.set_results([])

    def ask(self) -> None:
        dlg = VariantDialog(self, self.merges)
        if dlg.exec() == QtWidgets.QDialog.DialogCode.Accepted and dlg.presets():
            self.merges = dlg.merges.value()
            self.trainRequested.emit(dlg.presets(), self.merges)

    def set_running(self, running: bool, total: int = 0) -> None:
        self.train_button.setEnabled(not running)
        self.progress.setVisible(running)
        self.cancel_button.setVisible(running)
        if running:
            self.progress.setRange(0, max(total, 1))
            self.progress.setValue(0)
            self.progress.setFormat("training variants: %v of %m")
            self.status.setText("")

    def set_progress(self, done: int, total: int) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)

    def set_results(self, results: Sequence[VariantResult]) -> None:
        self.results = list(results)
        t = self.table
        rows = ["tokens", "vs first", "digit merges", *(c.label for c in Category)]
        t.clear()
        t.setRowCount(len(rows))
        t.setColumnCount(len(self.results))
        t.setVerticalHeaderLabels(rows)
        t.setHorizontalHeaderLabels([r.job.pretokenizer for r in self.results])
        base = self.results[0].report.tokens if self.results else 0
        for col, r in enumerate(self.results):
            rep = r.report
            diff = rep.tokens - base
            cells = [f"{rep.tokens:,}", f"{diff:+,} ({100 * diff / base:+.1f}%)" if base and col else "—",
                     f"{r.digit_merges:,}",
                     *(f"{rep.categories[c]:,}  ({100 * rep.share(c):.0f}%)" for c in Category)]
            for row, text in enumerate(cells):
                item = QtWidgets.QTableWidgetItem(text)
                item.setTextAlignment(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
                item.setToolTip(describe_preset(r.job.pretokenizer))
                t.setItem(row, col, item)
        self._bold_fewest()
        t.resizeColumnsToContents()
        self.choice.clear()
        self.choice.addItems([f"{r.job.pretokenizer} ({r.report.tokens:,} tokens)" for r in self.results])
        self.open_button.setEnabled(bool(self.results))
        if self.results:
            best = min(self.results, key=lambda r: r.report.tokens)
            self.status.setText(f"{len(self.results)} variants, {self.results[0].job.merges:,} merges each: "
                                f"{best.job.pretokenizer} needs fewest tokens on this log ({best.report.tokens:,}).")

    def _bold_fewest(self) -> None:
        """Bold the variant(s) with fewest tokens in the tokens row and in each category's row."""
        if len(self.results) < 2:
            return
        rows = [(0, [r.report.tokens for r in self.results])]
        rows += [(3 + k, [r.report.categories[c] for r in self.results]) for k, c in enumerate(Category)]
        for row, values in rows:
            low = min(values)
            for col, v in enumerate(values):
                item = self.table.item(row, col)
                if v == low and item is not None:
                    f = item.font()
                    f.setBold(True)
                    item.setFont(f)

    def _open(self) -> None:
        i = self.choice.currentIndex()
        if 0 <= i < len(self.results):
            self.openRequested.emit(self.results[i])
