"""A new screen of the token canvas drawn ahead of its paint, a few rows and box pictures a turn.

New rows (the Train press), a new model or a followed step far ahead put dozens of tokens on screen whose box
pictures (:mod:`.painting`) are not drawn yet, and one paint drawing them all is one long turn of the GUI thread.
:class:`Ahead` encodes and lays out at most :data:`ROWS_PER_TURN` of the screen's rows a turn, then draws at
most :data:`~.painting.PICTURES_PER_TURN` of the missing pictures a turn, and repaints once none is missing.
The viewport keeps its old frame until then: other changes would paint it too (new rows show its scroll bar,
whose resize repaints it; a new header line can resize it).  A paint that comes anyway (a grab) draws whatever
is still missing itself, so what is drawn never depends on it.  It leaves out which rows are on screen and how
they are laid out (the canvas's *lay_out*) and the painting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6 import QtGui

from ...core.errors import RegexTimeout
from ..widgets.timers import one_shot
from .layout import MARGIN, ROW_GAP

if TYPE_CHECKING:
    from .canvas import TokenCanvas, Visible

#: most rows of a new screen encoded and laid out in one turn (a screen holds a few dozen)
ROWS_PER_TURN = 10


class Ahead:
    """Draws *canvas*'s next screen ahead: :meth:`start` it when what the canvas shows changed."""

    def __init__(self, canvas: TokenCanvas, lay_out: Callable[[], list[Visible]],
                 latest: Callable[[], int | None]) -> None:
        self._canvas, self._lay_out, self._latest = canvas, lay_out, latest
        self.timer = one_shot(canvas, 0, self._turn)
        self.turns = 0  # turns run (tests, benchmarks)

    @property
    def pending(self) -> bool:
        """The screen is still being drawn ahead (its repaint has not been asked for yet)."""
        return self.timer.isActive()

    def start(self) -> None:
        """Draw the screen ahead from the next turn on, then repaint (the viewport paints nothing until then).  A
        canvas that cannot be seen is only marked for a repaint."""
        c = self._canvas
        if not c.isVisible():
            c.viewport().update()
            return
        c.viewport().setUpdatesEnabled(False)
        self.timer.start()

    def _turn(self) -> None:
        c = self._canvas
        self.turns += 1
        if not self._encoded(ROWS_PER_TURN):
            self.timer.start()  # more rows on the next turn
            return
        rows, boxes = self._lay_out(), c.boxes  # (the encoding of rows not cached yet happens here)
        boxes.set_view(c.devicePixelRatioF(), c.session.model, c.selected)
        text = c.palette().color(QtGui.QPalette.ColorRole.Text)
        if not boxes.make_pictures([lay for r in rows for lay in r[2:4] if lay is not None], self._latest(), text):
            self.timer.start()  # the rest on the next turn
            return
        c.viewport().setUpdatesEnabled(True)  # (and a repaint)

    def _encoded(self, limit: int) -> bool:
        """Encode and lay out at most *limit* of the rows on screen that are not yet, at the shown step (not while
        animating: a paint lays out two steps then); True when none is left."""
        c = self._canvas
        if c.regex_error or c.animating:
            return True
        step, width, height = c.shown_step, c.viewport().width(), c.viewport().height()
        row, top, done = c.first_row(), float(MARGIN), 0
        try:
            while row < c.n_rows and top < height:
                if not c.laid_out(row, step, width):
                    if done == limit:
                        return False
                    done += 1
                top += c.row_layout(row, step, width)[0] + ROW_GAP
                row += 1
        except RegexTimeout:
            pass  # (the canvas shows the error: nothing to draw ahead)
        return True
