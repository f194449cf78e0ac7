"""Set a progress bar's range and value without painting the window there and then.

``QProgressBar.setRange`` (when the value falls outside the new range) and ``setValue`` (when the change is
visible) call ``repaint()``, and a repaint paints every region of the window still waiting to be painted, in that
call: the Log inspector's Inspect press (``setRange(0, 0)`` after a finished run) painted the whole pane's new
state, charts included, inside the click's handler.  :func:`set_bar` makes the same changes with the bar's updates
off, so the bar is painted with the rest of the window on the next turn of the event loop.  It leaves out what the
bar shows.
"""

from __future__ import annotations

from PySide6 import QtWidgets


def set_bar(bar: QtWidgets.QProgressBar, minimum: int, maximum: int, value: int | None = None) -> None:
    """``bar.setRange(minimum, maximum)`` and then ``bar.setValue(value)`` (unless None), painted later."""
    was = bar.updatesEnabled()
    bar.setUpdatesEnabled(False)  # (repaint() does nothing then; enabling again posts an update)
    try:
        bar.setRange(minimum, maximum)
        if value is not None:
            bar.setValue(value)
    finally:
        bar.setUpdatesEnabled(was)
