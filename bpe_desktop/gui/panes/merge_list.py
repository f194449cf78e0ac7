"""The merge list pane: every learned merge in a table (rank, left, right, new token, count, symbols removed).

A :class:`MergeTableModel` (``QAbstractTableModel``) reads ``session.records`` directly and grows with
``beginInsertRows`` on ``recordsAppended``, so tens of thousands of rows cost nothing until painted.  A
filter box (``QSortFilterProxyModel``) narrows the rows to tokens containing a text; the view shows the proxy
only while a filter is set (going through it doubled the cost of a repaint, and the table repaints after every
batch of records while training).  Selecting a row moves the timeline to that merge; merges after the
current step are greyed out.  During fast playback (``session.playing_fast``) the selected row follows the
step every :data:`PLAYBACK_EVERY_MS` instead of every frame (scrolling repaints the whole table); while a run
streams, rows are inserted and the newest selected every :data:`TRAINING_ROWS_EVERY_MS`.  An extension run's
rows are its new merges only, numbered from 1 (the original's merges are its step 0: ``session.origin``).

It does not train or explain merges (see :mod:`.why`).
"""

from __future__ import annotations

from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from ..session import Session
from ..training.protocol import TrainingState
from ..widgets import theme
from ..widgets.timers import one_shot
from ..widgets.token_labels import token_label, token_plain
from ..wording import plural

COLUMNS = ("#", "left", "right", "token", "count", "removed")
UNKNOWN = "–"  # count and removed of a merge read from a file that does not record them
HEADER_TIPS = ("rank (1 = first merge)", "left symbol", "right symbol", "the new token the merge makes",
               "pair count when chosen (overlaps counted)", "symbols removed from the corpus by the merge")
_Idx = QtCore.QModelIndex | QtCore.QPersistentModelIndex
_Role = QtCore.Qt.ItemDataRole
# plain ints: the view passes ints, and comparing ints is cheaper than comparing enum members
_DISPLAY, _FOREGROUND, _FONT, _ALIGN = (int(r) for r in (_Role.DisplayRole, _Role.ForegroundRole, _Role.FontRole,
                                                          _Role.TextAlignmentRole))
_UNUSED_ROLES = frozenset(int(r) for r in (_Role.DecorationRole, _Role.BackgroundRole, _Role.CheckStateRole,
                                           _Role.SizeHintRole, _Role.EditRole, _Role.StatusTipRole,
                                           _Role.WhatsThisRole, _Role.AccessibleTextRole,
                                           _Role.AccessibleDescriptionRole))
#: while training, new rows are inserted (and the newest selected) at most this often; not a multiple of the
#: controller's FOLLOW_EVERY_MS (100): the interval starts with a followed step, and must not end on another
TRAINING_ROWS_EVERY_MS = 450
PLAYBACK_EVERY_MS = 100  # during fast playback the selected row follows the step this often
_RIGHT = int(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)


class MergeTableModel(QtCore.QAbstractTableModel):
    batchDue = QtCore.Signal()  # while training: the batch interval passed (rows were taken; the pane may follow)

    def __init__(self, session: Session, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._first = session.origin  # an extension run: the original's merges are not rows (step 0 = it)
        self._rows = len(session.records) - self._first
        session.modelReset.connect(self._reset)
        session.corpusChanged.connect(self._reset)
        session.recordsAppended.connect(self._appended)  # (the step comes from the pane: set_step)
        self._step = session.step
        self._future = QtGui.QBrush(QtGui.QColor(theme.current().faint))
        theme.notifier().changed.connect(self._themed)  # a method: Qt drops it with the pane (a lambda kept it)
        self._mono = QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont)
        self._label_cache: dict[int, tuple[str, str, str]] = {}
        self._grow = one_shot(self, TRAINING_ROWS_EVERY_MS, self._batch_due)  # while training: rows arrive in
        # batches every ~30 ms ...

    def rowCount(self, parent: _Idx = QtCore.QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._rows

    def columnCount(self, parent: _Idx = QtCore.QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: QtCore.Qt.Orientation, role: int = 0) -> Any:
        if orientation == QtCore.Qt.Orientation.Horizontal and role == QtCore.Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if orientation == QtCore.Qt.Orientation.Horizontal and role == QtCore.Qt.ItemDataRole.ToolTipRole:
            return HEADER_TIPS[section]
        return None

    def data(self, index: _Idx, role: int = QtCore.Qt.ItemDataRole.DisplayRole) -> Any:
        # a view asks for ~10 roles per visible cell on every repaint: answer the ones we never set first,
        # without touching the record, and keep each row's labels (records never change)
        if role in _UNUSED_ROLES or not index.isValid():
            return None
        row = index.row()
        col = index.column()
        if role == _DISPLAY:
            if col in (1, 2, 3):
                return self._labels(row)[col - 1]
            r = self.session.records[row + self._first]
            if col in (4, 5) and r.count == 0:
                return UNKNOWN  # a file without per-merge statistics: not counted, not 0
            return (r.rank - self._first, r.count, r.merged)[(0, 0, 0, 0, 1, 2)[col]]
        if role == _FOREGROUND:
            return self._future if row + self._first >= self._step else None
        if role == _FONT:
            return self._mono if col in (1, 2, 3) else None
        if role == _ALIGN:
            return _RIGHT if col in (0, 4, 5) else None
        r = self.session.records[row + self._first]
        rank = r.rank - self._first
        mode = self.session.model.mode
        if role == QtCore.Qt.ItemDataRole.UserRole:  # the characters, for the filter and the tests
            if col in (1, 2, 3):
                return token_plain((r.left, r.right, r.token)[col - 1], mode)
            return str((rank, r.count, r.merged)[(0, 0, 0, 0, 1, 2)[col]])
        if role == QtCore.Qt.ItemDataRole.ToolTipRole and col in (4, 5) and r.count == 0:
            return "the tokenizer file does not record this merge's count (train on a corpus to see it)"
        if role == QtCore.Qt.ItemDataRole.ToolTipRole and col == 5:
            return f"symbols removed from the corpus by merge {rank}: {r.merged:,}"
        if role == QtCore.Qt.ItemDataRole.ToolTipRole:
            a, b, t = self._labels(row)
            return f"merge {rank}: {a} + {b} → {t} (count {r.count:,}, vocabulary {r.vocab_size:,})"
        return None

    def _labels(self, row: int) -> tuple[str, str, str]:
        """The visible left, right and token text of a row (cached: painting asks for them again and again)."""
        got = self._label_cache.get(row)
        if got is None:
            r = self.session.records[row + self._first]
            mode = self.session.model.mode
            got = self._label_cache[row] = (token_label(r.left, mode), token_label(r.right, mode),
                                            token_label(r.token, mode))
        return got

    def _themed(self, t: theme.Theme) -> None:
        self._future = QtGui.QBrush(QtGui.QColor(t.faint))

    def _reset(self) -> None:
        self.beginResetModel()
        self._label_cache.clear()
        self._first = self.session.origin
        self._rows = len(self.session.records) - self._first
        self._step = self.session.step
        self.endResetModel()

    def _appended(self, first: int, last: int) -> None:
        # ... and inserting rows makes the view lay out and repaint the whole table, even below
        # the rows on screen: while training they are taken in every TRAINING_ROWS_EVERY_MS (and whenever
        # the pane shows a step, which it does as often)
        if self.session.state is TrainingState.TRAINING:
            self.defer()
        else:
            self.take_rows()

    def defer(self) -> None:
        """Take the rows (and say :attr:`batchDue`) when the current batch interval ends."""
        if not self._grow.isActive():
            self._grow.start()

    def _batch_due(self) -> None:
        self.take_rows()
        self.batchDue.emit()

    def take_rows(self) -> None:
        """Insert the rows of records appended since the last time."""
        self._grow.stop()
        n = len(self.session.records) - self._first
        if n <= self._rows:
            return
        self.beginInsertRows(QtCore.QModelIndex(), self._rows, n - 1)
        self._rows = n
        self.endInsertRows()

    def set_step(self, k: int) -> None:
        """Grey out the merges after step *k*."""
        old, self._step = self._step, k
        lo, hi = sorted((old - self._first, k - self._first))
        if self._rows and hi > lo and hi > 0:
            lo = max(lo, 0)  # rows lo+1..hi changed colour (0-based lo..hi-1)
            self.dataChanged.emit(self.index(lo, 0), self.index(min(hi, self._rows) - 1, len(COLUMNS) - 1),
                                  [QtCore.Qt.ItemDataRole.ForegroundRole])


class MergeListPane(QtWidgets.QWidget):
    """Filter box over a table of merges; selecting a row sets the session's step."""

    def __init__(self, session: Session, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.table_model = MergeTableModel(session, self)
        self.proxy = QtCore.QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.table_model)
        self.proxy.setFilterRole(QtCore.Qt.ItemDataRole.UserRole)
        self.proxy.setFilterKeyColumn(3)
        self.proxy.setFilterCaseSensitivity(QtCore.Qt.CaseSensitivity.CaseInsensitive)

        self.filter_edit = QtWidgets.QLineEdit(self)
        self.filter_edit.setPlaceholderText("Filter: tokens containing…")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self.set_filter)
        self.count_label = QtWidgets.QLabel(self)
        self.count_label.setAlignment(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
        self.count_label.setFixedSize(self.count_label.fontMetrics().horizontalAdvance("00,000 of 00,000") + 8,
                                      self.count_label.sizeHint().height())

        self.view = QtWidgets.QTableView(self)
        self.view.setModel(self.table_model)  # the proxy only while a filter is set: it costs ~40 % of a repaint
        self.view.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setAlternatingRowColors(True)
        self.view.setShowGrid(False)
        self.view.setWordWrap(False)
        self.view.verticalHeader().hide()
        # the scroll bar always takes its room: when it appeared with a run's first rows the viewport narrowed,
        # the stretched "token" column was resized, and QTableView repaints resized columns on a later turn --
        # a second paint of every visible row in the gap that shows the run
        self.view.setVerticalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.view.verticalHeader().setDefaultSectionSize(22)
        self.view.verticalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.Fixed)
        header = self.view.horizontalHeader()
        header.setMinimumSectionSize(36)
        for col, width in enumerate((40, 50, 50, 80, 60, 76)):  # "token" stretches: fits a 370 px pane
            header.setSectionResizeMode(col, QtWidgets.QHeaderView.ResizeMode.Stretch if col == 3
                                        else QtWidgets.QHeaderView.ResizeMode.Interactive)
            self.view.setColumnWidth(col, width)
        self.view.selectionModel().currentRowChanged.connect(self._row_selected)

        top = QtWidgets.QHBoxLayout()
        top.addWidget(self.filter_edit, 1)
        top.addWidget(self.count_label)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(top)
        lay.addWidget(self.view, 1)

        self._syncing = False
        # fast playback: the row follows the step a few times a second
        self._later = one_shot(self, PLAYBACK_EVERY_MS, lambda: self._show_step(self.session.step))
        self._step_due = False  # while training: the step moved; its row is selected with the next batch
        self.table_model.batchDue.connect(self._batch_due)
        session.stepChanged.connect(self._step_changed)
        session.trainingStateChanged.connect(self._state_changed)
        session.countChanged.connect(self._update_count)
        session.modelReset.connect(self._update_count)
        self._update_count()

    def set_filter(self, text: str) -> None:
        self.proxy.setFilterFixedString(text)
        want = self.proxy if text else self.table_model
        if self.view.model() is not want:
            old = self.view.selectionModel()
            self.view.setModel(want)
            old.deleteLater()
            self.view.selectionModel().currentRowChanged.connect(self._row_selected)
            self._syncing = True
            try:
                self._show_step(self.session.step)
            finally:
                self._syncing = False
        self._update_count()

    def _filtering(self) -> bool:
        return self.view.model() is self.proxy

    def _update_count(self, *_: object) -> None:
        total = len(self.session.records) - self.session.origin
        shown_rows = self.proxy.rowCount()
        rows = self.table_model.rowCount()  # (while training, the last ~100 ms of records may not be rows yet)
        _set_text_fixed(self.count_label,
                        plural(total, "merge") if shown_rows == rows else f"{shown_rows:,} of {rows:,}")

    def _row_selected(self, current: QtCore.QModelIndex, _previous: QtCore.QModelIndex) -> None:
        if self._syncing or not current.isValid():
            return
        src = self.proxy.mapToSource(current) if self._filtering() else current
        self.session.set_step(self.session.origin + src.row() + 1)

    def _step_changed(self, k: int) -> None:
        # fast playback or a run streaming: scrolling the table to a new row repaints all of it; a few
        # times a second is as much as anyone can follow, and the last step is shown at the end (while
        # training, with the model's next batch of rows: one repaint of the table for both, not two)
        s = self.session
        if s.state is TrainingState.TRAINING:
            self._step_due = True
            self.table_model.defer()
        elif s.playing_fast:
            if not self._later.isActive():
                self._later.start()
        else:
            self._show_step(k)

    def _batch_due(self) -> None:
        if self._step_due:
            self._show_step(self.session.step)

    def _state_changed(self, state: TrainingState) -> None:
        if state is not TrainingState.TRAINING and self._step_due:  # the run ended: its last step now
            self._show_step(self.session.step)

    def _show_step(self, k: int) -> None:
        """Select the row of merge k (the last merge applied) without moving the timeline back."""
        self._later.stop()
        self._step_due = False
        self.table_model.take_rows()
        self.table_model.set_step(k)
        k -= self.session.origin  # (an extension run's rows start after the original's merges)
        if k <= 0:  # nothing applied: no row selected, and the first merge -- the next one -- in view
            self._syncing = True
            self.view.selectionModel().clearSelection()
            self._syncing = False
            self.view.scrollToTop()
            return
        idx = self.table_model.index(k - 1, 0)
        if self._filtering():
            idx = self.proxy.mapFromSource(idx)
        if not idx.isValid():
            return
        self._syncing = True
        try:
            self.view.selectionModel().setCurrentIndex(
                idx, QtCore.QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QtCore.QItemSelectionModel.SelectionFlag.Rows)
            self.view.scrollTo(idx)
        finally:
            self._syncing = False


def _set_text_fixed(label: QtWidgets.QLabel, text: str) -> None:
    """Set *label*'s text keeping its size fixed (growing it only when the text no longer fits): a label whose
    size may change relayouts its dock and the main window whenever its text changes."""
    label.setText(text)
    width = label.fontMetrics().horizontalAdvance(text) + 8
    if width > label.minimumWidth() or label.minimumHeight() != label.maximumHeight():
        label.setFixedSize(max(width, label.minimumWidth()), label.sizeHint().height())
