"""The main window's geometry and dock layout: fitted to the screen at first start, remembered between
sessions (QSettings), and restorable to the default with View → Reset layout.  Remembered with the docks:
the named layout last chosen, every splitter inside the panes and every table's column widths (header
state), keyed by the dock they are in and their object name (or their order in the dock).

It stores nothing but geometry and dock state; corpus, settings and models are not remembered here.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from . import layouts

DEFAULT_SIZE = QtCore.QSize(1440, 900)
_VERSION = 2  # bump when the dock set changes, so an old saved layout is ignored


def settings() -> QtCore.QSettings:
    return QtCore.QSettings("bpe-desktop", "bpe-desktop")


def fit_to_screen(window: QtWidgets.QWidget, size: QtCore.QSize = DEFAULT_SIZE) -> None:
    """Resize to *size*, shrunk to 95 % of the screen's available area if that is smaller, and centre."""
    screen = window.screen() or QtGui.QGuiApplication.primaryScreen()
    if screen is None:
        window.resize(size)
        return
    avail = screen.availableGeometry()
    w = min(size.width(), int(avail.width() * 0.95))
    h = min(size.height(), int(avail.height() * 0.95))
    window.resize(w, h)
    window.move(avail.x() + (avail.width() - w) // 2, avail.y() + (avail.height() - h) // 2)


def restore(window: QtWidgets.QMainWindow) -> bool:
    """Apply the saved geometry and dock layout; ``False`` (and nothing changed) if there is none."""
    s = settings()
    if s.value("layout_version", 0, type=int) != _VERSION:
        return False
    geometry, state = s.value("geometry"), s.value("state")
    if not isinstance(geometry, QtCore.QByteArray) or not isinstance(state, QtCore.QByteArray):
        return False
    ok = bool(window.restoreGeometry(geometry) and window.restoreState(state, _VERSION))
    if ok:
        st = layouts.state(window)
        st.restored = True
        name = s.value("layout_name", "", type=str)
        if name in layouts.LAYOUTS:
            st.name = name
        inner = s.value("inner")
        if isinstance(inner, dict):
            for key, w in _inner_widgets(window):
                data = inner.get(key)
                if isinstance(data, QtCore.QByteArray):
                    w.restoreState(data)
    return ok


def _inner_widgets(window: QtWidgets.QMainWindow) -> list[tuple[str, QtWidgets.QSplitter | QtWidgets.QHeaderView]]:
    """(key, widget) of every splitter and horizontal table header inside the window's docks."""
    out: list[tuple[str, QtWidgets.QSplitter | QtWidgets.QHeaderView]] = []
    for dock in window.findChildren(QtWidgets.QDockWidget):
        seen: dict[str, int] = {}
        for w in dock.findChildren(QtWidgets.QWidget):
            if isinstance(w, QtWidgets.QHeaderView) and w.orientation() != QtCore.Qt.Orientation.Horizontal:
                continue
            if not isinstance(w, (QtWidgets.QSplitter, QtWidgets.QHeaderView)):
                continue
            kind = type(w).__name__
            n = seen.get(kind, 0)
            seen[kind] = n + 1
            out.append((f"{dock.objectName()}/{w.objectName() or f'{kind}{n}'}", w))
    return out


def save(window: QtWidgets.QMainWindow) -> None:
    s = settings()
    s.setValue("layout_version", _VERSION)
    s.setValue("geometry", window.saveGeometry())
    s.setValue("state", window.saveState(_VERSION))
    s.setValue("layout_name", layouts.current(window))
    s.setValue("inner", {key: w.saveState() for key, w in _inner_widgets(window)})
    s.sync()


def forget() -> None:
    """Drop the saved layout (the next start uses the default)."""
    s = settings()
    for key in ("layout_version", "geometry", "state", "layout_name", "inner"):
        s.remove(key)
    s.sync()
