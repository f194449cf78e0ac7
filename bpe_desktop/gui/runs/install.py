"""Put the runs into a main window: the store, the what-if actions, the Runs dock and its menu entries.

:func:`install_runs` is the one call the main window makes (after its docks and menus exist, before its
layout is applied): the Runs pane goes into the secondary tab group (beside Why and Plots, see
:mod:`..layouts`), "Branch here…" into the merge list's context menu and the timeline, and Training ▸
Branch here… / Compare runs… into the menu.  The window must also call ``runs.store.begin(config, source)``
just before it starts an ordinary training run, so the run it replaces stays in the list.  It holds no state of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from .. import layouts
from .pane import RunsPane
from .store import RunStore
from .whatif import WhatIf

if TYPE_CHECKING:
    from .compare import CompareRunsDialog


class Runs(NamedTuple):
    store: RunStore
    whatif: WhatIf
    pane: RunsPane
    dock: QtWidgets.QDockWidget


def shown_compare(window: QtWidgets.QWidget) -> CompareRunsDialog | None:
    """The compare-runs dialog *window* shows, if one is open (a closed one is deleted: it deletes on close)."""
    dlg = getattr(window, "_compare_runs_dialog", None)
    return dlg if dlg is not None and shiboken6.isValid(dlg) and dlg.isVisible() else None


def open_compare(window: QtWidgets.QWidget, store: RunStore) -> CompareRunsDialog:
    """Show the compare-runs dialog (non-modal; one at a time)."""
    from .compare import CompareRunsDialog  # (imports pyqtgraph: not before the window's first paint)

    old = shown_compare(window)
    if old is not None:
        old.close()
    dlg = CompareRunsDialog(store, window)
    dlg.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
    window._compare_runs_dialog = dlg  # type: ignore[attr-defined]
    dlg.show()
    return dlg


def install_runs(window: Any) -> Runs:
    """Wire the runs into *window* (a :class:`~..main_window.MainWindow`)."""
    from .. import file_actions

    store = RunStore(window.session, window)
    whatif = WhatIf(window.session, window.controller, store, window,
                    lambda title, msg: file_actions.show_error(window, title, msg), settings=window.settings)
    pane = RunsPane(store, whatif, compare=lambda: open_compare(window, store))
    dock = window._dock("runs", "Runs", pane, QtCore.Qt.DockWidgetArea.RightDockWidgetArea)
    layouts.groups(window)["runs"] = "secondary"  # a tab beside Why and Plots, in every named layout

    merges = window.merges

    def rank_of(idx: QtCore.QModelIndex) -> int:
        src = merges.proxy.mapToSource(idx) if merges.view.model() is merges.proxy else idx
        return src.row() + 1

    whatif.install_merge_menu(merges.view, rank_of)
    whatif.install_timeline(window.timeline)
    menus = {m.title().replace("&", ""): m for m in window.menuBar().findChildren(QtWidgets.QMenu)}
    training = menus.get("Training")
    if training is not None:
        training.addSeparator()
        branch = QtGui.QAction("Branch here…", window)
        branch.triggered.connect(lambda: whatif.ask_branch(window.session.step))
        training.addAction(branch)
        compare = QtGui.QAction("Compare runs…", window)
        compare.triggered.connect(lambda: open_compare(window, store))
        training.addAction(compare)
    view = menus.get("View")
    if view is not None:
        view.insertAction(view.actions()[len(window.docks) - 1] if len(view.actions()) >= len(window.docks)
                          else None, dock.toggleViewAction())
    return Runs(store, whatif, pane, dock)
