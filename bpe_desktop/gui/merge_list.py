"""The merge list pane: every learned merge in a table (rank, left, right, new token, count, symbols removed).

A :class:`MergeTableModel` (``QAbstractTableModel``) reads ``session.records`` directly and grows with
``beginInsertRows`` on ``recordsAppended``, so tens of thousands of rows cost nothing until painted.  A
filter box (``QSortFilterProxyModel``) narrows the rows to tokens containing a text.  Selecting a row moves
the timeline to that merge; merges after the current step are greyed out.

It does not train or explain merges (see :mod:`.why_panel`).
"""

from __future__ import annotations

from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from .display import token_label, token_plain
from .session import Session

COLUMNS = ("#", "left", "right", "new token", "count", "removed")
HEADER_TIPS = ("rank (1 = first merge)", "left symbol", "right symbol", "the token the merge makes",
               "pair count when chosen (overlaps counted)", "symbols removed from the corpus by the merge")
_Idx = QtCore.QModelIndex | QtCore.QPersistentModelIndex


class MergeTableModel(QtCore.QAbstractTableModel):
    def __init__(self, session: Session, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._rows = len(session.records)
        session.modelReset.connect(self._reset)
        session.corpusChanged.connect(self._reset)
        session.recordsAppended.connect(self._appended)
        session.stepChanged.connect(self._step_changed)
        self._step = session.step
        self._future = QtGui.QBrush(QtGui.QColor("#9ca3af"))
        self._mono = QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont)

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
        if not index.isValid():
            return None
        r = self.session.records[index.row()]
        col = index.column()
        mode = self.session.model.mode
        if role == QtCore.Qt.ItemDataRole.DisplayRole:
            if col in (1, 2, 3):
                return token_label((r.left, r.right, r.token)[col - 1], mode)
            return (r.rank, r.count, r.merged)[(0, 0, 0, 0, 1, 2)[col]]
        if role == QtCore.Qt.ItemDataRole.UserRole:  # the characters, for the filter and the tests
            if col in (1, 2, 3):
                return token_plain((r.left, r.right, r.token)[col - 1], mode)
            return str((r.rank, r.count, r.merged)[(0, 0, 0, 0, 1, 2)[col]])
        if role == QtCore.Qt.ItemDataRole.ForegroundRole and r.rank > self._step:
            return self._future
        if role == QtCore.Qt.ItemDataRole.FontRole and col in (1, 2, 3):
            return self._mono
        if role == QtCore.Qt.ItemDataRole.TextAlignmentRole and col in (0, 4, 5):
            return int(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
        if role == QtCore.Qt.ItemDataRole.ToolTipRole and col == 5:
            return f"symbols removed from the corpus by merge {r.rank}: {r.merged:,}"
        if role == QtCore.Qt.ItemDataRole.ToolTipRole:
            a, b, t = (token_label(x, mode) for x in (r.left, r.right, r.token))
            return f"merge {r.rank}: {a} + {b} → {t} (count {r.count:,}, vocabulary {r.vocab_size:,})"
        return None

    def _reset(self) -> None:
        self.beginResetModel()
        self._rows = len(self.session.records)
        self._step = self.session.step
        self.endResetModel()

    def _appended(self, first: int, last: int) -> None:
        n = len(self.session.records)
        if n <= self._rows:
            return
        self.beginInsertRows(QtCore.QModelIndex(), self._rows, n - 1)
        self._rows = n
        self.endInsertRows()

    def _step_changed(self, k: int) -> None:
        old, self._step = self._step, k
        lo, hi = sorted((old, k))
        if self._rows and hi > lo:  # rows lo+1..hi changed colour (0-based lo..hi-1)
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

        self.view = QtWidgets.QTableView(self)
        self.view.setModel(self.proxy)
        self.view.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setAlternatingRowColors(True)
        self.view.setShowGrid(False)
        self.view.setWordWrap(False)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(22)
        self.view.verticalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.Fixed)
        header = self.view.horizontalHeader()
        header.setMinimumSectionSize(36)
        for col, width in enumerate((56, 64, 64, 96, 60, 72)):
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
        session.stepChanged.connect(self._show_step)
        session.recordsAppended.connect(self._update_count)
        session.modelReset.connect(self._update_count)
        self._update_count()

    def set_filter(self, text: str) -> None:
        self.proxy.setFilterFixedString(text)
        self._update_count()

    def _update_count(self, *_: object) -> None:
        total = len(self.session.records)
        shown_rows = self.proxy.rowCount()
        self.count_label.setText(f"{total:,} merges" if shown_rows == total else f"{shown_rows:,} of {total:,}")

    def _row_selected(self, current: QtCore.QModelIndex, _previous: QtCore.QModelIndex) -> None:
        if self._syncing or not current.isValid():
            return
        src = self.proxy.mapToSource(current)
        self.session.set_step(src.row() + 1)

    def _show_step(self, k: int) -> None:
        """Select the row of merge k (the last merge applied) without moving the timeline back."""
        if k <= 0:
            self._syncing = True
            self.view.selectionModel().clearSelection()
            self._syncing = False
            return
        idx = self.proxy.mapFromSource(self.table_model.index(k - 1, 0))
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
