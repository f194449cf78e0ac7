"""Help → Keyboard shortcuts: a table generated from the window itself -- every ``QAction`` and
``QShortcut`` under it that has a key -- so it can never miss one or list one that is gone.

It leaves out keys that widgets handle internally (text editing, table navigation).
"""

from __future__ import annotations

from typing import NamedTuple

from PySide6 import QtGui, QtWidgets


class Shortcut(NamedTuple):
    keys: str  # in the platform's native form, e.g. "Ctrl+O"
    what: str


def _what(name: str) -> str:
    return name.replace("&", "").rstrip("…").rstrip(".").strip()


#: names for the window-wide QShortcuts (they have no text of their own), by key
SHORTCUT_NAMES = {"Ctrl+Left": "Step back", "Ctrl+Right": "Step forward", "Ctrl+Home": "First step",
                  "Ctrl+End": "Last step", "Ctrl+Space": "Play / pause"}


def collect(window: QtWidgets.QWidget) -> list[Shortcut]:
    """Every key of the window's actions and shortcuts, once each, in menu order then shortcut order."""
    seen: set[tuple[str, str]] = set()
    out: list[Shortcut] = []
    native = QtGui.QKeySequence.SequenceFormat.NativeText
    portable = QtGui.QKeySequence.SequenceFormat.PortableText
    for action in window.findChildren(QtGui.QAction):
        for seq in action.shortcuts():
            item = Shortcut(seq.toString(native), _what(action.text()))
            if item.keys and (item.keys, item.what) not in seen:
                seen.add((item.keys, item.what))
                out.append(item)
    for sc in window.findChildren(QtGui.QShortcut):
        seq = sc.key()
        key = seq.toString(portable)
        item = Shortcut(seq.toString(native), SHORTCUT_NAMES.get(key, sc.whatsThis() or key))
        if item.keys and (item.keys, item.what) not in seen:
            seen.add((item.keys, item.what))
            out.append(item)
    return out


class ShortcutsDialog(QtWidgets.QDialog):
    def __init__(self, window: QtWidgets.QWidget) -> None:
        super().__init__(window)
        self.setObjectName("shortcutsHelp")
        self.setWindowTitle("Keyboard shortcuts")
        rows = collect(window)
        self.table = QtWidgets.QTableWidget(len(rows), 2, self)
        self.table.setHorizontalHeaderLabels(["keys", "action"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        for i, r in enumerate(rows):
            self.table.setItem(i, 0, QtWidgets.QTableWidgetItem(r.keys))
            self.table.setItem(i, 1, QtWidgets.QTableWidgetItem(r.what))
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setStretchLastSection(True)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addWidget(self.table, 1)
        lay.addWidget(buttons)
        self.resize(420, 520)

    def rows(self) -> list[tuple[str, str]]:
        def cell(i: int, j: int) -> str:
            item = self.table.item(i, j)
            return item.text() if item is not None else ""

        return [(cell(i, 0), cell(i, 1)) for i in range(self.table.rowCount())]
