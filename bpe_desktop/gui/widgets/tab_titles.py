"""Tab titles that never disappear: a tab bar too narrow for its titles elides them with "…" (the whole
title in the tab's tooltip) instead of pushing the last tabs under scroll buttons, where "Quality" was
left a 17-px sliver.  It leaves the tabs' order and contents to their owner.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets


def share_room(tabs: QtWidgets.QTabWidget | QtWidgets.QTabBar) -> None:
    """Elide the titles of *tabs* to share the room and give each tab its title as tooltip; call after
    the tabs are added (a tab added later: call again)."""
    bar = tabs.tabBar() if isinstance(tabs, QtWidgets.QTabWidget) else tabs
    bar.setElideMode(QtCore.Qt.TextElideMode.ElideRight)
    bar.setUsesScrollButtons(False)
    bar.setExpanding(False)
    for i in range(bar.count()):
        if not bar.tabToolTip(i):
            bar.setTabToolTip(i, bar.tabText(i))
