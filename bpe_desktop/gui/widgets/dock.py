"""The window's dock: a :class:`QDockWidget` that draws its title bar only when the title bar is to be repainted.

A docked ``QDockWidget`` paints its title (through the application's stylesheet) on every paint event, and it
gets one whenever a child that is not opaque changes: the timeline's step label, the merge list's count,
several times a second while a run streams, each a title drawn again for nothing.  :class:`Dock` passes a
paint event on only when it reaches the title bar (above the content widget) or the dock floats (its frame
then runs round every edge).  It leaves out everything else about docks (the main window lays them out).
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets


class Dock(QtWidgets.QDockWidget):
    """A dock widget; :attr:`titles_drawn` counts the paint events passed on to ``QDockWidget`` (tests)."""

    titles_drawn = 0

    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        content = self.widget()
        if (content is not None and not self.isFloating()
                and not event.rect().intersects(QtCore.QRect(0, 0, self.width(), content.y()))):
            return  # only the content's area: QDockWidget would draw the title bar and nothing else
        self.titles_drawn += 1
        super().paintEvent(event)
