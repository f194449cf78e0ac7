"""Driving the real main window in tests: press Train, wait for the run's end, read the merge table.

Plain helpers (the ``window`` fixture itself is in tests/gui/conftest.py)."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from bpe_desktop.gui.training.protocol import TrainingState

SEED_MERGES = [("e", "s"), ("es", "t"), ("est", "</w>"), ("l", "o"), ("lo", "w"), ("e", "w"), ("ew", "est</w>")]
START_S = 30_000  # ms: spawned processes take about a second to start on a busy machine


def click_train(qtbot, w) -> None:  # type: ignore[no-untyped-def]
    button = w.findChild(QtWidgets.QToolBar).widgetForAction(w.train_action)
    qtbot.mouseClick(button, QtCore.Qt.MouseButton.LeftButton)


def wait_finished(qtbot, w) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: w.session.state in (TrainingState.FINISHED, TrainingState.ERROR)
                    and not w.controller.running,
                    timeout=START_S)
    assert w.session.state is TrainingState.FINISHED, w.session.error


def table_pairs(w) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    m = w.merges.proxy
    return [(m.index(r, 1).data(QtCore.Qt.ItemDataRole.UserRole), m.index(r, 2).data(QtCore.Qt.ItemDataRole.UserRole))
            for r in range(m.rowCount())]
