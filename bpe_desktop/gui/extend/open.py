"""How the main window opens the Extend dialog and shows its result in the Log inspector (the one call the Training
menu makes; the dialog itself is :mod:`.dialog`, imported when first used)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ...core.counting.sources import CorpusSource

if TYPE_CHECKING:
    from .dialog import ExtendDialog


def extend_dialog(window: Any) -> ExtendDialog:
    """Training → Extend a tokenizer on this corpus…: the dialog on the editor's corpus (not modal)."""
    from PySide6 import QtCore

    from .dialog import ExtendDialog

    dlg = ExtendDialog(window, window.corpus.source(),
                       compare=lambda a, b, src: compare_extension(window, a, b, src))
    dlg.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
    dlg.show()
    return dlg


def compare_extension(window: Any, original: str, extended: str, source: CorpusSource) -> bool:
    """The original tokenizer and its extension side by side in the window's Log inspector, on *source*."""
    pane = window.inspector
    name = f"{os.path.basename(extended.split(':', 1)[-1])} (extended)"
    if not pane.compare_extension(original, extended, name):
        return False
    if source.paths:
        pane.open_log(source.paths[0])
    else:
        pane.set_text(source.text or "")
    dock = window.docks["inspect"]
    dock.show()
    dock.raise_()
    return bool(pane.inspect())
