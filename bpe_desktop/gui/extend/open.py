"""How the main window opens the Extend dialog and shows its result in the Log inspector (the one call the Training
menu makes; the dialog itself is :mod:`.dialog`, imported when first used)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ...core.counting.sources import CorpusSource

if TYPE_CHECKING:
    from .dialog import ExtendDialog


def extend_dialog(window: Any, source: CorpusSource | None = None) -> ExtendDialog:
    """Training → Extend a tokenizer on this corpus…: the dialog on *source* (the editor's corpus when None; the
    Log inspector's *Extend on this log…* gives its log), not modal."""
    from PySide6 import QtCore

    from .dialog import ExtendDialog
    from .show import show_extension

    dlg = ExtendDialog(window, source if source is not None else window.corpus.source(),
                       compare=lambda a, b, src: compare_extension(window, a, b, src),
                       show=lambda done, src: show_extension(window, done, src))
    dlg.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
    shown = window.session.work.opened_from
    if shown and source is None:  # Training → Extend on an opened tokenizer (or an extension): that one first
        dlg.add_tokenizer_file(shown)
    dlg.show()
    return dlg


def compare_extension(window: Any, original: str, extended: str, source: CorpusSource) -> bool:
    """The original tokenizer and its extension side by side in the window's Log inspector, on *source*."""
    from ..widgets.repaint_hold import hold_repaint

    pane = window.inspector
    hold_repaint(window)  # the boxes and the pane laid out now, painted on the next turn
    name = f"{os.path.basename(extended.split(':', 1)[-1])} (extended)"
    want = next((n for n, c in pane.choices.items() if c.spec == original), None) or pane.add_tokenizer(original)
    ext = next((n for n, c in pane.choices.items() if c.spec == extended), None) or pane.add_tokenizer(extended, name)
    if want is None or ext is None:
        return False  # (the pane said why)
    for n, box in pane.checks.items():  # only the two, side by side
        box.setChecked(n in (want, ext))
    if source.paths:
        pane.open_log(source.paths[0])
    else:
        pane.set_text(source.text or "")
    dock = window.docks["inspect"]
    dock.show()
    dock.raise_()
    return bool(pane.inspect())
