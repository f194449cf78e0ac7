"""The single-shot timer every throttled pane keeps: started (or restarted) when work falls due, it calls its
slot once, *ms* later (0: on a later turn of the event loop).  It leaves out when to start it (the panes)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6 import QtCore


def one_shot(parent: QtCore.QObject, ms: int, slot: Callable[[], object]) -> QtCore.QTimer:
    """A single-shot :class:`QTimer` owned by *parent*, interval *ms*, calling *slot* (not started)."""
    timer = QtCore.QTimer(parent)
    timer.setSingleShot(True)
    timer.setInterval(ms)
    timer.timeout.connect(slot)
    return timer
