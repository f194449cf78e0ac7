"""The View menu: every dock's show/hide entry (docks placed later are added when the menu opens), the named
layouts, the theme and Reset layout.

It only builds menu entries that call :mod:`.layouts`, :mod:`.widgets.theme` and the window's
``reset_layout``; it arranges nothing itself.
"""

from __future__ import annotations

from PySide6 import QtGui, QtWidgets

from . import layouts
from .widgets import theme


def build(window: QtWidgets.QMainWindow, menu: QtWidgets.QMenu) -> None:
    """Fill *menu* (the window's View menu): a show/hide entry per dock, then Layout, Theme, Reset layout."""
    for d in layouts.docks(window).values():
        menu.addAction(d.toggleViewAction())
    first_separator = menu.addSeparator()

    def add_new_docks() -> None:  # docks placed after the menu was built (layouts.place)
        shown = set(menu.actions())
        for d in layouts.docks(window).values():
            if d.toggleViewAction() not in shown:
                menu.insertAction(first_separator, d.toggleViewAction())

    menu.aboutToShow.connect(add_new_docks)
    lay_menu = menu.addMenu("Layout")
    lay_group = QtGui.QActionGroup(window)
    for i, (name, lay) in enumerate(layouts.LAYOUTS.items(), start=1):
        a = lay_menu.addAction(name)
        a.setCheckable(True)
        a.setShortcut(QtGui.QKeySequence(f"Ctrl+{i}"))
        a.setStatusTip(f"{name} layout: {lay.description}")
        a.setToolTip(lay.description)
        a.setObjectName(f"layout{name}")
        lay_group.addAction(a)
        a.triggered.connect(lambda _=False, n=name: layouts.apply(window, n))
    def check_layout() -> None:
        for a in lay_group.actions():
            a.setChecked(a.text() == layouts.current(window))

    lay_menu.aboutToShow.connect(check_layout)

    theme_menu = menu.addMenu("Theme")
    theme_group = QtGui.QActionGroup(window)
    for choice in theme.Scheme:
        a = theme_menu.addAction(choice.value if choice is not theme.Scheme.SYSTEM else "Follow the system")
        a.setCheckable(True)
        a.setObjectName(f"theme{choice.value}")
        theme_group.addAction(a)
        a.triggered.connect(lambda _=False, c=choice: theme.choose(c))
    def check_theme() -> None:
        for a in theme_group.actions():
            a.setChecked(a.objectName() == f"theme{theme.scheme().value}")

    theme_menu.aboutToShow.connect(check_theme)
    menu.addSeparator()
    reset = menu.addAction("Reset layout")
    reset.triggered.connect(window.reset_layout)  # type: ignore[attr-defined]
