"""A dock's pane built after the window's first paint (or at once when asked for or shown).

The plots pane and the log inspector import pyqtgraph, which is slow: built before the first paint they
would delay it by that import.  :class:`DeferredPane` puts an empty placeholder in the dock, builds the pane on
first use (:meth:`get`), when its dock is brought to the front, or when :meth:`build_soon` runs after
the first paint, and then swaps it in.  It leaves out what the pane is: the window gives a factory.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from PySide6 import QtCore, QtWidgets

W = TypeVar("W", bound=QtWidgets.QWidget)


class DeferredPane(Generic[W]):
    def __init__(self, factory: Callable[[], W]) -> None:
        self.factory = factory
        self.widget: W | None = None
        self.holder = QtWidgets.QWidget()  # what the dock shows until the pane exists
        self.dock: QtWidgets.QDockWidget | None = None

    def attach(self, dock: QtWidgets.QDockWidget) -> None:
        """The dock holding the placeholder: the pane is built when it is shown."""
        self.dock = dock
        dock.visibilityChanged.connect(lambda shown: self.get() if shown else None)

    def get(self) -> W:
        """The pane (built now if it was not yet)."""
        if self.widget is None:
            self.widget = self.factory()
            if self.dock is not None:
                self.dock.setWidget(self.widget)
            self.holder.deleteLater()
        return self.widget

    def build_soon(self, delay_ms: int = 0) -> None:
        """Build it on a later turn of the event loop (after the first paint), one pane per turn."""
        if self.widget is None:  # (built already: its placeholder is gone)
            QtCore.QTimer.singleShot(delay_ms, self.holder, self.get)
