"""The Log inspector's Export menu: the result as per-line and per-category CSV and a picture of the pane as
PNG, each to a path given or chosen in a save dialog, written atomically, a failure shown as a dialog.

The CSV text itself is made by :mod:`.export` (Qt-free); this module only asks, writes and reports.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6 import QtCore, QtWidgets

from ...core.errors import BpeError
from ...core.io.atomic import atomic_write
from ...core.logs.log_inspect import Inspection
from .. import file_actions
from . import export

if TYPE_CHECKING:
    from .panel import LogInspector


def export_button(panel: LogInspector) -> QtWidgets.QToolButton:
    """The pane's Export button with its menu."""
    button = QtWidgets.QToolButton()
    button.setText("Export")
    button.setPopupMode(QtWidgets.QToolButton.ToolButtonPopupMode.InstantPopup)
    menu = QtWidgets.QMenu(button)
    menu.addAction("Per-line token counts (CSV)…", lambda: per_line(panel))
    menu.addAction("Tokens per category (CSV)…", lambda: categories(panel))
    menu.addAction("Picture of this pane (PNG)…", lambda: picture(panel))
    button.setMenu(menu)
    return button


def _ask(panel: LogInspector, title: str, default: str, flt: str) -> str:
    path, _ = QtWidgets.QFileDialog.getSaveFileName(panel, title, default, flt)
    return path


def _csv(panel: LogInspector, title: str, default: str, make: Callable[[Inspection], str], path: str | None) -> bool:
    if panel.done is None:
        file_actions.show_error(panel, "Nothing to export", "Inspect a log first.")
        return False
    path = path or _ask(panel, title, default, "CSV (*.csv)")
    if not path:
        return False
    try:
        export.write_text(path, make(panel.done.inspection))
    except (BpeError, OSError) as e:
        file_actions.show_error(panel, "Cannot export", str(e))
        return False
    return True


def per_line(panel: LogInspector, path: str | None = None) -> bool:
    """Token counts per line of the log, one column per tokenizer."""
    return _csv(panel, "Export per-line token counts", "lines.csv", export.per_line_csv, path)


def categories(panel: LogInspector, path: str | None = None) -> bool:
    """Tokens per category of span (timestamps, floats, node names, ...), per tokenizer."""
    return _csv(panel, "Export tokens per category", "categories.csv", export.category_csv, path)


def picture(panel: LogInspector, path: str | None = None) -> bool:
    """The pane as it is on screen, as PNG."""
    path = path or _ask(panel, "Export a picture of the pane", "inspector.png", "PNG (*.png)")
    if not path:
        return False
    buf = QtCore.QBuffer()
    buf.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    panel.grab().save(buf, "PNG")
    try:
        with atomic_write(path, "wb", encoding=None) as f:
            f.write(bytes(buf.data().data()))
    except (BpeError, OSError) as e:
        file_actions.show_error(panel, "Cannot export", str(e))
        return False
    return True
