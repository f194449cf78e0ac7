"""The "why this merge" pane: for the current step, the sentence that explains the choice and the runner-ups.

Step k shows merge k (the last one applied), explained by :func:`bpe_desktop.core.records.explain` with the
tie-break rule of the current settings, then a small table of the pairs that competed with it.  Step 0
describes the starting alphabet.  It does not compute anything itself: the trainer recorded it all.

While training streams (the step following the newest merge several times a second) or the timeline plays
fast (``session.playing_fast``: over :data:`~..session.FAST_PLAYBACK` steps a second), the pane redraws at
most every :data:`TRAINING_EVERY_MS`: its word-wrapped sentences change height with their text, so each
refresh relayouts the pane and the window (every frame during playback).
Stepping, scrubbing, slower playback and the end of a run show the step at once; the end of fast playback
within :data:`TRAINING_EVERY_MS`.
"""

from __future__ import annotations

from html import escape

from PySide6 import QtCore, QtGui, QtWidgets

from ...core.records import explain
from ..session import Session
from ..training.protocol import TrainingState
from ..widgets.elided_label import ElidedLabel
from ..widgets.timers import one_shot
from ..widgets.token_labels import display_record
from ..wording import plural

TRAINING_EVERY_MS = 250  # while training or playing fast: at most this often a refresh
RUNNERS_TEXT = "Runner-up pairs (best first; bold = tied with the winner)"


class WhyPanel(QtWidgets.QWidget):
    def __init__(self, session: Session, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.title = ElidedLabel("", self)
        self.title.setObjectName("stepLabel")
        self.sentence = QtWidgets.QLabel(self)
        self.sentence.setObjectName("why")
        self.sentence.setWordWrap(True)
        self.sentence.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detail = QtWidgets.QLabel(self)
        self.detail.setWordWrap(True)
        self.detail.setProperty("muted", True)
        self.runners = QtWidgets.QLabel(RUNNERS_TEXT, self)  # always shown (showing it again relayouts)
        self.runners.setProperty("muted", True)
        self.runners.setContentsMargins(0, 4, 0, 0)
        self.runners.setWordWrap(True)
        self.table = QtWidgets.QTableWidget(0, 3, self)
        self.table.setHorizontalHeaderLabels(["left", "right", "count"])
        self.table.setAlternatingRowColors(True)
        for col in (0, 1):
            self.table.horizontalHeader().setSectionResizeMode(col, QtWidgets.QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setSectionResizeMode(2, QtWidgets.QHeaderView.ResizeMode.Fixed)
        self.table.setColumnWidth(2, 90)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.NoSelection)
        self.table.setShowGrid(False)
        self.table.verticalHeader().setDefaultSectionSize(20)
        self.table.setMinimumHeight(24 + 7 * 20)  # the header and seven runner-ups without scrolling
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(8, 6, 8, 6)
        lay.addWidget(self.title)
        lay.addWidget(self.sentence)
        lay.addWidget(self.detail)
        lay.addWidget(self.runners)
        lay.addWidget(self.table, 1)
        self._mono = QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont)
        self.refreshes = 0  # refresh() calls (the throttle's effect is visible in tests)
        self._timer = one_shot(self, TRAINING_EVERY_MS, self.refresh)
        session.stepChanged.connect(self._step_changed)
        session.modelReset.connect(self.refresh)
        session.trainingStateChanged.connect(self._state_changed)
        self.refresh()

    def _step_changed(self, _k: int) -> None:
        s = self.session
        if s.state is not TrainingState.TRAINING and not s.playing_fast:
            self.refresh()
        elif not self._timer.isActive():  # the first step change of a burst waits, the next ones join it
            self._timer.start()

    def _state_changed(self, state: TrainingState) -> None:
        if (state is not TrainingState.TRAINING and self._timer.isActive()) or state is TrainingState.COUNTING:
            self.refresh()

    def text(self) -> str:
        """The explanation currently shown (plain text)."""
        return self.sentence.text()

    def refresh(self, *_: object) -> None:
        self._timer.stop()
        self.refreshes += 1
        s = self.session
        k = s.step
        ext = s.work.extension
        if ext is not None and k == ext.start:  # an extension run's step 0: the original itself
            self.title.setText(f"Step 0 · {ext.label}")
            counted = f": {s.initial_symbols:,} tokens in the corpus" if s.initial_symbols else ""  # (0: a file's)
            self.sentence.setText(f"{ext.label} itself ({ext.start:,} merges){counted}. Step forward to see the "
                                  "first merge learned on top of it.")
            self.detail.setText("")
            self.table.setRowCount(0)
            self.runners.setText("Runner-up pairs: from the first added merge on")
            return
        if k <= 0 or k > len(s.records):
            n = len(s.model.base)
            self.title.setText("Step 0 · the starting alphabet")
            if s.initial_symbols:
                self.sentence.setText(
                    f"{n} base symbols, {s.initial_symbols:,} symbols in the corpus. "
                    "Step forward to see the first merge.")
            elif s.state.active:  # a run is starting: counting the corpus
                self.title.setText("Counting the corpus…")
                self.sentence.setText("The starting alphabet and the first merge appear once it is counted.")
            else:
                self.title.setText("Nothing trained yet")
                self.sentence.setText("Press Train (F5) to learn merges from the corpus, or Step (F8) to "
                                      "watch them one at a time.")
            self.detail.setText("")
            self.table.setRowCount(0)
            self.runners.setText("Runner-up pairs: from the first merge on")
            return
        r = display_record(s.records[k - 1], s.model.mode)
        rule: str = s.model.tie_break or s.config.tie_break
        if ext is not None:  # the extension trainer's own rule (training/extend.py), no --tie-break one
            rule = "the smaller merged token (by bytes)" if ext.rule == "ranks" else "the smaller pair of ids"
        self.title.setText(f"Merge {s.shown_step(r.rank)}: {r.left} + {r.right} → {r.token}")
        if r.count == 0 and r.merged == 0:  # opened from a file that kept no training statistics
            self.sentence.setText(f"{r.left}+{r.right} was loaded from a tokenizer file, which does not "
                                  "record the counts that chose it.")
            self.detail.setText(f"vocabulary {r.vocab_size:,}")
            self.runners.setText("Runner-up pairs: not recorded in the file")
            self.table.setRowCount(0)
            return
        self.sentence.setText(explain(r, rule))
        before = r.symbols_before
        self.detail.setText(
            f"<span>Replaced {plural(r.merged, 'occurrence')} in {plural(r.words_touched, 'distinct word')}: "
            f"{before:,} → {r.symbols_after:,} symbols ({100.0 * r.merged / before if before else 0:.2f}% fewer); "
            f"vocabulary {r.vocab_size:,}. Tie-break rule: <i>{escape(rule)}</i>.</span>")
        self.runners.setText(RUNNERS_TEXT if r.contenders else "Runner-up pairs: none recorded")
        self.table.setRowCount(len(r.contenders))
        for row, (a, b, c) in enumerate(r.contenders):
            for col, val in enumerate((a, b, f"{c:,}")):
                item = QtWidgets.QTableWidgetItem(val)
                if col == 2:
                    item.setTextAlignment(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
                else:
                    item.setFont(self._mono)
                if c == r.count:
                    item.setToolTip("tied with the winner")
                    f = item.font()
                    f.setBold(True)
                    item.setFont(f)
                self.table.setItem(row, col, item)
