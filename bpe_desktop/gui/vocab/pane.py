"""The vocabulary pane: every token of the model at the timeline's step, with the flags that say it should
not be there (unreachable, not decodable alone, intermediate, unused), sortable and filterable.

A virtualized table (:mod:`.table`) over the audit the feed computes (:mod:`.feed`) a slice at a time:
:data:`SLICE_S` every :data:`IDLE_BUSY_MS` ms when no training runs, :data:`TRAINING_SLICE_S` every
:data:`TRAINING_BUSY_MS` ms while it does, and nothing while the pane is hidden.  While training the step
is followed at most every :data:`TRAINING_EVERY_MS` (as :mod:`..panes.why` does); scrubbing shows the
new step as soon as its audit is done, the old rows staying until then.  Selecting a row shows the
token's derivation tree (:func:`bpe_desktop.core.views.derivation.derivation_tree`, as the token view does)
and moves the timeline to the merge that made it; the row stays shown and selected there even when the
filter would hide it at that step (until the filter changes).  It never trains or edits the corpus.
"""

from __future__ import annotations

import gc
from collections import Counter
from html import escape

from PySide6 import QtCore, QtGui, QtWidgets

from ...core.measure.vocab_audit import DEFAULT_INTERMEDIATE_THRESHOLD, TokenFlag
from ...core.views.derivation import DerivationNode
from ...core.views.labels import token_hue
from ..session import Session
from ..training.protocol import TrainingState
from ..widgets.derivation_tree import DerivationTree
from ..widgets.elided_label import ElidedLabel, Part
from ..widgets.gc_policy import GcPolicy
from ..widgets.on_screen import DockWatch, on_screen
from ..widgets.timers import one_shot
from .feed import VocabFeed
from .table import COLUMNS, FLAG_HELP, FLAG_WORDS, VocabTableModel

SLICE_S = 0.008  # GUI-thread time per slice when idle (a unit may run a little past it)
IDLE_BUSY_MS = 2  # pause between slices when idle: input and paints run in between
TRAINING_SLICE_S, TRAINING_BUSY_MS = 0.003, 15  # the same while a run streams (the plots' budget)
TRAINING_EVERY_MS = 250  # while training: follow the step at most this often
ROW_HEIGHT = 20
#: every value a TokenFlag can take, by the identity of its (cached, canonical) member
_FLAG_OF_ID = {id(TokenFlag(v)): TokenFlag(v) for v in range(2 * max(f.value for f in TokenFlag))}
GC_FREEZE_EVERY_S = 0.25  # while working: move the objects made so far out of the collector's sight


#: text on the pastel token rows of the derivation tree (readable on them in either theme)
PASTEL_INK = "#111827"

class VocabPane(QtWidgets.QWidget):
    """The vocabulary pane (see the module docstring).  Query API for tests: :attr:`table_model`,
    :attr:`feed`, :meth:`derivation_items`, :meth:`select_token`."""

    def __init__(self, session: Session, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.feed = VocabFeed(session)
        self.table_model = VocabTableModel(self)
        self.slices = 0  # work slices run (tests: the audit is computed in slices)

        self.filter_box = QtWidgets.QLineEdit(self)
        self.filter_box.setPlaceholderText("filter tokens… (text or id)")
        self.filter_box.setMinimumWidth(120)
        self.filter_box.setClearButtonEnabled(True)
        # the flags and the threshold live in a menu: the pane stays narrow enough to share a column
        self.flags_button = QtWidgets.QToolButton(self)
        self.flags_button.setPopupMode(QtWidgets.QToolButton.ToolButtonPopupMode.InstantPopup)
        self.flags_button.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonTextOnly)
        menu = QtWidgets.QMenu(self.flags_button)
        menu.setToolTipsVisible(True)
        self.flag_boxes: dict[TokenFlag, QtGui.QAction] = {}
        for flag, word in FLAG_WORDS.items():
            act = menu.addAction(f"only {word}")
            act.setCheckable(True)
            act.setToolTip(f"show only tokens flagged {word} (or another ticked flag): {FLAG_HELP[flag]}")
            act.toggled.connect(self._filter_changed)
            self.flag_boxes[flag] = act
        menu.addSeparator()
        self.threshold = QtWidgets.QDoubleSpinBox(self)
        self.threshold.setRange(0.0, 1.0)
        self.threshold.setDecimals(2)
        self.threshold.setSingleStep(0.05)
        self.threshold.setValue(DEFAULT_INTERMEDIATE_THRESHOLD)
        self.threshold.setPrefix("intermediate when freq / count < ")
        self.threshold.setToolTip("flag a token intermediate when its frequency now over its pair's count when "
                                  "it was made is under this (Picky BPE's intersection over self)")
        holder = QtWidgets.QWidgetAction(menu)
        holder.setDefaultWidget(self.threshold)
        menu.addAction(holder)
        self.flags_button.setMenu(menu)
        self._label_flags_button()
        top = QtWidgets.QHBoxLayout()
        top.setContentsMargins(6, 4, 6, 2)
        top.addWidget(self.filter_box, 1)
        top.addWidget(self.flags_button)

        self.view = QtWidgets.QTableView(self)
        self.view.setModel(self.table_model)
        self.view.setSortingEnabled(True)
        self.view.horizontalHeader().setSortIndicator(0, QtCore.Qt.SortOrder.AscendingOrder)
        self.view.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setAlternatingRowColors(True)
        self.view.setShowGrid(False)
        self.view.setWordWrap(False)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.Fixed)
        self.view.verticalHeader().setDefaultSectionSize(ROW_HEIGHT)
        header = self.view.horizontalHeader()
        header.setHighlightSections(False)
        metrics = header.fontMetrics()
        for col, width in enumerate((56, 120, 44, 64, 150, 76, 76, 72, 76, 160)):  # never narrower than the title
            header.resizeSection(col, max(width, metrics.horizontalAdvance(COLUMNS[col].title) + 28))
        header.setStretchLastSection(True)

        self.tree = DerivationTree(self)
        self.tree_title = QtWidgets.QLabel("select a token to see how it was built", self)
        self.tree_title.setWordWrap(True)
        side = QtWidgets.QWidget(self)
        sl = QtWidgets.QVBoxLayout(side)
        sl.setContentsMargins(0, 0, 0, 0)
        sl.addWidget(self.tree_title)
        sl.addWidget(self.tree, 1)
        self.splitter = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.view)
        self.splitter.addWidget(side)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([560, 300])
        self.splitter.setChildrenCollapsible(True)
        self.view.setMinimumWidth(160)
        side.setMinimumWidth(0)

        self.status = ElidedLabel("", self)  # a narrow pane sheds the flag counts, then elides with "…"
        self.status.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addLayout(top)
        lay.addWidget(self.splitter, 1)
        lay.addWidget(self.status)

        self._gc = GcPolicy(GC_FREEZE_EVERY_S)  # (a full collection amid many new rows stalls the window)
        self._dock_watch = DockWatch(self, self._schedule)  # its dock's tab brought to the front: resume
        self._selected: int | None = None  # token id selected (kept across new audits)
        self._counts: dict[TokenFlag, int] = {}  # rows per flag in the audit shown
        self._restoring = False
        self._work = QtCore.QTimer(self)
        self._work.setSingleShot(True)
        self._work.timeout.connect(self.work)
        self._follow = one_shot(self, TRAINING_EVERY_MS, self._schedule)
        self.filter_box.textChanged.connect(self._filter_changed)
        self.threshold.valueChanged.connect(self._threshold_changed)
        self.view.selectionModel().currentRowChanged.connect(self._row_changed)
        session.modelReset.connect(self._on_reset)
        session.corpusChanged.connect(self._on_reset)
        session.stepChanged.connect(self._on_step)
        session.trainingStateChanged.connect(lambda *_: self._schedule())
        self._update_status()

    # -- scheduling ---------------------------------------------------------------------------------
    def _training(self) -> bool:
        return self.session.state is TrainingState.TRAINING

    def _schedule(self, delay_ms: int = 0) -> None:
        if not self._work.isActive():
            self._work.start(delay_ms)

    def _on_reset(self) -> None:
        self.feed.reset()
        self.table_model.set_audit(None)
        self.tree.clear()
        self.tree_title.setText("select a token to see how it was built")
        self._selected = None
        self.table_model.pinned = None
        self._schedule()

    def _on_step(self, _k: int) -> None:
        if self._training():  # the first step change of a burst waits, the next ones join it
            if not self._follow.isActive():
                self._follow.start()
        else:
            self._schedule()

    def on_screen(self) -> bool:
        """Some of the pane can be seen (not in a background tab: :func:`..widgets.on_screen.on_screen`)."""
        return on_screen(self)

    def showEvent(self, e: QtGui.QShowEvent) -> None:
        super().showEvent(e)
        self._dock_watch.attach()
        self._schedule()

    def work(self) -> None:
        """One slice of work towards the audit of the step shown (normally called by the timer)."""
        if not self.on_screen():
            return  # hidden (e.g. behind another tab): nothing is computed; showing the pane resumes
        self.slices += 1
        training = self._training()
        if gc.isenabled():  # (while the controller has paused the collector it freezes itself)
            self._gc.tick()
        more = self.feed.advance(TRAINING_SLICE_S if training else SLICE_S)
        a = self.feed.audit
        if a is not None and a is not self.table_model.audit:
            self._show_audit()
        self._update_status(busy=more)
        if more:
            self._work.start(TRAINING_BUSY_MS if training else IDLE_BUSY_MS)

    @property
    def busy(self) -> bool:
        """Work is pending for the step shown (tests wait for this to end)."""
        return not self.feed.ready(self.session.step)

    # -- table --------------------------------------------------------------------------------------
    def _show_audit(self) -> None:
        self._restoring = True
        a = self.feed.audit
        self._counts = {f: 0 for f in FLAG_WORDS}
        if a is not None:  # rows per flag, counted by object identity (C speed; a Flag's hash is Python):
            known = self.feed.counted  # (counted in the feed's units; a new threshold re-flags: count again)
            by_id = known[1] if known is not None and known[0] is a else Counter(map(id, a.flags))
            for key, n in by_id.items():  # flags are the enum's cached members
                for flag in self._counts:
                    if flag in _FLAG_OF_ID[key]:
                        self._counts[flag] += n
        try:
            ext = self.session.work.extension
            self.table_model.origin = (ext.start, ext.label) if ext is not None else (0, "")
            self.table_model.set_audit(a, self.feed.has_corpus)
            self._reselect()
        finally:
            self._restoring = False

    def _reselect(self) -> None:
        if self._selected is None:
            return
        row = self.table_model.row_of_id(self._selected)
        if row is None:
            self.view.clearSelection()
            return
        index = self.table_model.index(row, 0)
        self.view.selectionModel().setCurrentIndex(
            index, QtCore.QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QtCore.QItemSelectionModel.SelectionFlag.Rows)
        self.view.scrollTo(index)

    def _label_flags_button(self) -> None:
        on = [FLAG_WORDS[f] for f, act in self.flag_boxes.items() if act.isChecked()]
        self.flags_button.setText(("only " + ", ".join(on) if on else "all tokens") + " ▾")
        self.flags_button.setToolTip("show only tokens with a flag; the intermediate threshold "
                                     f"(now {self.threshold.value():.2f})")

    def _filter_changed(self, *_: object) -> None:
        self._label_flags_button()
        flags = TokenFlag.NONE
        for flag, box in self.flag_boxes.items():
            if box.isChecked():
                flags |= flag
        self._restoring = True
        try:
            self.table_model.pinned = None  # a new filter is the user's: it applies to the selected token too
            self.table_model.set_filter(self.filter_box.text(), flags)
            self._reselect()
        finally:
            self._restoring = False
        self._update_status()

    def _threshold_changed(self, value: float) -> None:
        self._label_flags_button()
        self.feed.set_threshold(value)
        if self.feed.audit is not None:
            self._show_audit()
        self._update_status()
        self._schedule()

    def _row_changed(self, current: QtCore.QModelIndex, _previous: QtCore.QModelIndex) -> None:
        if self._restoring or not current.isValid():
            return
        tid = self.table_model.token_id(current.row())
        if tid is None:
            return
        self._selected = tid
        self.table_model.pinned = tid  # its flags change with the step it moves to: it stays shown
        self.show_derivation(tid)
        a = self.table_model.audit
        made = a.made_by[self.table_model.rows[current.row()]] if a is not None else None
        if made is not None:
            self.session.set_step(made.step)

    def select_token(self, token_id: int) -> bool:
        """Select *token_id*'s row as a click would (False if it is not shown)."""
        row = self.table_model.row_of_id(token_id)
        if row is None:
            return False
        self.view.selectionModel().setCurrentIndex(
            self.table_model.index(row, 0), QtCore.QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QtCore.QItemSelectionModel.SelectionFlag.Rows)
        return True

    # -- derivation ---------------------------------------------------------------------------------
    def show_derivation(self, token_id: int) -> None:
        """Fill the side tree with the merges that built *token_id*."""
        self.tree.clear()
        model = self.session.model
        if not 0 <= token_id < len(model.tokens):
            self.tree_title.setText(f"<b>{escape(model.token_str(token_id))}</b> &nbsp;id {token_id}<br>"
                                    "a special token: never merged")
            return

        def colour(node: DerivationNode) -> QtGui.QColor | None:  # the merged tokens, in their stable hue
            return None if node.rank is None else QtGui.QColor.fromHsvF(token_hue(node.id), 0.22, 1.0)

        self.tree_title.setText(self.tree.fill(model, self.session.records, token_id, colour,
                                               QtGui.QColor(PASTEL_INK), self.table_model._mono))

    def derivation_items(self) -> list[tuple[int, str]]:
        """(depth, label) of every row of the derivation tree, depth first (for tests)."""
        return self.tree.items()

    # -- status -------------------------------------------------------------------------------------
    def _update_status(self, busy: bool = False) -> None:
        a = self.table_model.audit
        k = self.session.step
        if a is None:
            self.status.setText(f" computing the vocabulary at step {self.session.shown_step(k):,}…" if busy else "")
            return
        counts = self._counts
        parts = [Part(f" step {self.session.shown_step(a.step):,}"), Part(f" · {len(a):,} tokens")]
        parts += [Part(f" · {counts[f]:,} {word}", drop=1) for f, word in FLAG_WORDS.items()
                  if counts[f] and f is not TokenFlag.SPECIAL]
        if len(self.table_model.rows) != len(a):
            parts.append(Part(f" · showing {len(self.table_model.rows):,}"))
        if a.step != k:
            parts.append(Part(f" · computing step {self.session.shown_step(k):,}…"))
        if self.feed.note:
            parts.append(Part(" · " + self.feed.note, drop=2))
        self.status.set_parts(parts)
        self.status.setToolTip("; ".join(f"{FLAG_WORDS[f]}: {FLAG_HELP[f]}" for f in FLAG_WORDS))

    def column_titles(self) -> list[str]:
        return [c.title for c in COLUMNS]
