"""The Runs pane: the session's runs, one a row, the shown one in bold; click to switch, double-click to rename.

Each row shows the run's name (auto-named from what differs, see :func:`.store.auto_name`), its merges and
why it stopped.  Buttons: Compare… (the compare-runs dialog, :mod:`.compare`), Delete.  Switching goes through
:class:`~.whatif.WhatIf` (a training run is stopped first); the pane only lists and asks.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6 import QtCore, QtWidgets

from ...core.stopping import StopReason
from ..wording import plural
from .store import Run, RunStore
from .whatif import WhatIf

NAME_ROLE = QtCore.Qt.ItemDataRole.UserRole


def run_label(i: int, run: Run, *, training: bool = False) -> tuple[str, str]:
    """Row *i*'s text and tooltip: the run's name, its merges (as many as it holds: "1 merge", "7 merges";
    "not trained yet" or "training…" when it holds none) and why it stopped when that says more."""
    n = run.n_merges
    count = plural(n, "merge") if n else ("training…" if training else "not trained yet")
    reason = run.stop_reason
    shown = "" if reason is StopReason.MERGES else run.stop_text  # "reached N merges" says nothing new
    if run.extension is not None:  # its step 0 is the original: the merges it adds (its name says the rest)
        count = plural(n - run.start, "new merge")
        why = run.stop_text.rsplit(": ", 1)[-1]
        shown = "" if why.startswith("reached") else why
    text = f"{i + 1}. {run.name}   —   {count}" + (f" · {shown}" if shown else "")
    return text, f"run {i + 1}: {run.name}\n{count}{f', {run.stop_text}' if run.stop_text else ''}"


class _NameDelegate(QtWidgets.QStyledItemDelegate):
    """Edits a run's name only (the row shows more), and renames it in the store."""

    def __init__(self, pane: RunsPane) -> None:
        super().__init__(pane)
        self.pane = pane

    def sizeHint(self, option: QtWidgets.QStyleOptionViewItem,
                 index: QtCore.QModelIndex | QtCore.QPersistentModelIndex) -> QtCore.QSize:
        """No wider than the list: a long row is elided in its middle (its count stays in view), not cut."""
        hint = super().sizeHint(option, index)
        return QtCore.QSize(min(hint.width(), max(40, self.pane.list.viewport().width())), hint.height())

    def setEditorData(self, editor: QtWidgets.QWidget, index: QtCore.QModelIndex | QtCore.QPersistentModelIndex
                      ) -> None:
        if isinstance(editor, QtWidgets.QLineEdit):
            editor.setText(index.data(NAME_ROLE) or "")
            editor.selectAll()

    def setModelData(self, editor: QtWidgets.QWidget, model: QtCore.QAbstractItemModel,
                     index: QtCore.QModelIndex | QtCore.QPersistentModelIndex) -> None:
        if isinstance(editor, QtWidgets.QLineEdit) and editor.text().strip() != (index.data(NAME_ROLE) or ""):
            row, text = index.row(), editor.text()
            QtCore.QTimer.singleShot(0, self.pane, lambda: self.pane.rename(row, text))


class RunsPane(QtWidgets.QWidget):
    def __init__(self, store: RunStore, whatif: WhatIf, parent: QtWidgets.QWidget | None = None,
                 compare: Callable[[], object] | None = None) -> None:
        super().__init__(parent)
        self.store, self.whatif = store, whatif
        self.list = QtWidgets.QListWidget(self)
        self.list.setObjectName("runsList")
        self.list.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.DoubleClicked
                                  | QtWidgets.QAbstractItemView.EditTrigger.EditKeyPressed)
        self.list.setAlternatingRowColors(True)
        self.list.setTextElideMode(QtCore.Qt.TextElideMode.ElideMiddle)  # (rows fit the width: _NameDelegate)
        self.list.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setResizeMode(QtWidgets.QListView.ResizeMode.Adjust)
        self.hint = QtWidgets.QLabel("Right-click a merge or use the timeline's <i>Branch here…</i> to ask "
                                     "“what if”. Double-click a run to rename it.", self)
        self.hint.setWordWrap(True)
        self.hint.setProperty("faint", True)  # the theme's caption colour (style.qss)
        self.compare_btn = QtWidgets.QPushButton("Compare…", self)
        self.compare_btn.setToolTip("Overlay the runs' curves, diff their merge lists, see two token streams")
        self.delete_btn = QtWidgets.QPushButton("Delete", self)
        self.delete_btn.setToolTip("Forget the selected run (the shown run switches to its neighbour)")
        buttons = QtWidgets.QHBoxLayout()
        buttons.addWidget(self.compare_btn)
        buttons.addStretch(1)
        buttons.addWidget(self.delete_btn)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.list, 1)
        lay.addLayout(buttons)
        lay.addWidget(self.hint)
        self._filling = False
        self.list.itemClicked.connect(self._clicked)
        self.list.itemActivated.connect(self._clicked)
        self.list.setItemDelegate(_NameDelegate(self))
        self.delete_btn.clicked.connect(self._delete)
        if compare is not None:
            self.compare_btn.clicked.connect(compare)
        store.runsChanged.connect(self.refresh)
        store.currentChanged.connect(self.refresh)
        store.session.countChanged.connect(self._count_changed)
        self.refresh()

    def names(self) -> list[str]:
        return [self.list.item(i).data(NAME_ROLE) for i in range(self.list.count())]

    def refresh(self, *_: object) -> None:
        self._filling = True
        try:
            runs = self.store.runs
            while self.list.count() > len(runs):
                self.list.takeItem(self.list.count() - 1)
            while self.list.count() < len(runs):
                it = QtWidgets.QListWidgetItem()
                it.setFlags(it.flags() | QtCore.Qt.ItemFlag.ItemIsEditable)
                self.list.addItem(it)
            for i, run in enumerate(runs):
                it = self.list.item(i)
                current = i == self.store.current
                text, tip = run_label(i, run, training=current and self.store.session.state.active)
                if it.text() != text:
                    it.setText(text)
                it.setData(NAME_ROLE, run.name)
                it.setToolTip(tip + ("\n(shown)" if current else "\nclick to show it (nothing is retrained)"))
                f = it.font()
                f.setBold(current)
                it.setFont(f)
            self.list.setCurrentRow(self.store.current)
            self.delete_btn.setEnabled(len(runs) > 1)
            trained = sum(1 for r in runs if r.records)
            self.compare_btn.setEnabled(trained >= 2)
        finally:
            self._filling = False

    def _count_changed(self, *_: object) -> None:
        if not self.list.hasFocus() or self.list.state() != QtWidgets.QAbstractItemView.State.EditingState:
            self.refresh()

    def _clicked(self, item: QtWidgets.QListWidgetItem) -> None:
        if not self._filling:
            self.whatif.switch(self.list.row(item))

    def rename(self, row: int, name: str) -> None:
        """Name run *row* (an empty name gives it back its automatic one)."""
        if 0 <= row < len(self.store.runs):
            self.store.rename(row, name)

    def _delete(self) -> None:
        row = self.list.currentRow()
        if row >= 0:
            self.whatif.remove(row)
