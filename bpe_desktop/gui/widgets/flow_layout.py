"""A layout that places its widgets left to right and wraps onto a new line when the width runs out.

A row of check boxes that grows (the Log inspector's tokenizers: a file added, a label that says the step) in a
plain ``QHBoxLayout`` raises its pane's minimum width with every box; when that passes the dock's width, the
main window lays out every dock again and repaints them all.  Here the minimum width is the widest single
widget, so adding one changes only the row's height for a given width (:meth:`heightForWidth`).  It leaves out
stretch and alignment: each widget gets its size hint.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets


class FlowLayout(QtWidgets.QLayout):
    def __init__(self, parent: QtWidgets.QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QtWidgets.QLayoutItem] = []
        self._gap = spacing
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QtWidgets.QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QtWidgets.QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QtWidgets.QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> QtCore.Qt.Orientation:
        return QtCore.Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._place(QtCore.QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QtCore.QRect) -> None:
        super().setGeometry(rect)
        self._place(rect, move=True)

    def sizeHint(self) -> QtCore.QSize:
        """As :meth:`minimumSize` (Qt's own flow layout example does the same): a widget added changes no hint
        of the pane unless it is the widest, so the window above it keeps its layout."""
        return self.minimumSize()

    def minimumSize(self) -> QtCore.QSize:
        """The widest widget (a line each)."""
        size = QtCore.QSize(0, 0)
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        m = self.contentsMargins()
        return size + QtCore.QSize(m.left() + m.right(), m.top() + m.bottom())

    def _place(self, rect: QtCore.QRect, move: bool) -> int:
        """Lay the widgets out in *rect* (``move``: set their geometry, centred on their line); the height used."""
        m = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        lines: list[list[tuple[QtWidgets.QLayoutItem, QtCore.QSize]]] = [[]]
        x = area.x()
        for item in self._items:
            if item.isEmpty():  # (hidden)
                continue
            hint = item.sizeHint()
            if lines[-1] and x + hint.width() > area.right() + 1:  # no room left on this line
                lines.append([])
                x = area.x()
            lines[-1].append((item, hint))
            x += hint.width() + self._gap
        y = area.y()
        for line in lines:
            height = max((h.height() for _, h in line), default=0)
            x = area.x()
            for item, hint in line:
                if move:
                    item.setGeometry(QtCore.QRect(x, y + (height - hint.height()) // 2, hint.width(), hint.height()))
                x += hint.width() + self._gap
            y += height + self._gap
        return y - self._gap - rect.y() + m.bottom() if any(lines) else m.top() + m.bottom()
