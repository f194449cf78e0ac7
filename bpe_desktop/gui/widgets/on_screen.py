"""Whether a pane can be seen, and a hook for when its dock's tab is brought to the front.

A dock in a background tab stays "visible" to Qt (``isVisible()`` is True; the dock is only moved out of
the window), so panes that skip work nobody can see ask :func:`on_screen` (the visible region), and
:class:`DockWatch` tells them when their dock is shown again (``QDockWidget.visibilityChanged``).  It leaves
out what a pane does with that: each pane decides what to compute and what to draw while hidden.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6 import QtWidgets


def on_screen(widget: QtWidgets.QWidget) -> bool:
    """True when some of *widget* can be seen (shown, and not in a background tab or clipped away)."""
    return widget.isVisible() and not widget.visibleRegion().isEmpty()


class DockWatch:
    """Calls *on_shown* when the dock holding *widget* is brought to the front of its tab group.

    Call :meth:`attach` from the widget's ``showEvent`` (the dock may change when panes are moved); it finds
    the enclosing :class:`QDockWidget` and follows it, letting go of the previous one.
    """

    def __init__(self, widget: QtWidgets.QWidget, on_shown: Callable[[], None]) -> None:
        self.widget = widget
        self.on_shown = on_shown
        self.dock: QtWidgets.QDockWidget | None = None

    def attach(self) -> None:
        w = self.widget.parentWidget()
        while w is not None and not isinstance(w, QtWidgets.QDockWidget):
            w = w.parentWidget()
        if w is self.dock:
            return
        if self.dock is not None:
            self.dock.visibilityChanged.disconnect(self._visibility)
        self.dock = w
        if w is not None:
            w.visibilityChanged.connect(self._visibility)

    def _visibility(self, shown: bool) -> None:
        if shown:
            self.on_shown()
