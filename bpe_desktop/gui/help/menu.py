"""Fills the Help menu (Tour, Algorithm, Keyboard shortcuts, About) and keeps one window of each open.

It leaves the dialogs' content to :mod:`.tour`, :mod:`.algorithm` and :mod:`.shortcuts`.
"""

from __future__ import annotations

from typing import Any

from PySide6 import QtGui, QtWidgets

from .algorithm import AlgorithmDialog
from .shortcuts import ShortcutsDialog
from .tour import TourDialog


class HelpMenu:
    """The Help menu of *window*; ``tour``, ``algorithm``, ``shortcuts`` are the dialogs once opened."""

    def __init__(self, window: Any, menu: QtWidgets.QMenu) -> None:
        self.window = window
        self.tour: TourDialog | None = None
        self.algorithm: AlgorithmDialog | None = None
        self.shortcuts: ShortcutsDialog | None = None
        self.tour_action = self._add(menu, "Tour: BPE on four words", self.show_tour, "F1")
        self.algorithm_action = self._add(menu, "The algorithm, exactly", self.show_algorithm)
        self.shortcuts_action = self._add(menu, "Keyboard shortcuts", self.show_shortcuts, "Ctrl+/")
        menu.addSeparator()
        self._add(menu, "About bpe-desktop", self.about)

    def _add(self, menu: QtWidgets.QMenu, text: str, slot: Any, key: str | None = None) -> QtGui.QAction:
        a = QtGui.QAction(text, self.window)
        if key:
            a.setShortcut(QtGui.QKeySequence(key))
        a.triggered.connect(lambda _=False: slot())
        menu.addAction(a)
        return a

    def show_tour(self) -> TourDialog:
        if self.tour is None or not self.tour.isVisible():
            self.tour = TourDialog(self.window)
            self.tour.start()
        self.tour.raise_()
        return self.tour

    def show_algorithm(self) -> AlgorithmDialog:
        if self.algorithm is None:
            self.algorithm = AlgorithmDialog(self.window)
        self.algorithm.show()
        self.algorithm.raise_()
        return self.algorithm

    def show_shortcuts(self) -> ShortcutsDialog:
        self.shortcuts = ShortcutsDialog(self.window)  # afresh: the list is read from the window now
        self.shortcuts.show()
        return self.shortcuts

    def about(self) -> None:
        QtWidgets.QMessageBox.about(
            self.window, "About bpe-desktop",
            "<b>bpe-desktop</b><br>Watch byte-pair encoding learn a tokenizer, merge by merge.<br>"
            "Help → Tour walks through the seeds' worked example.")
