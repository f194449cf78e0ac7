"""A new screen of the token canvas drawn ahead of its paint, a few box pictures a turn.

New rows (the Train press), a new model or a followed step far ahead put dozens of tokens on screen whose box
pictures (:mod:`.painting`) are not drawn yet, and one paint drawing them all is one long turn of the GUI thread.
:class:`Ahead` lays the screen out in a turn of its own, draws at most
:data:`~.painting.PICTURES_PER_TURN` of the missing pictures a turn, and repaints once none is missing.  Held
(new rows, whose scroll bar narrows the viewport and so would paint it at once), the viewport keeps its old frame
until then.  A paint that comes anyway draws whatever is still missing itself, so what is drawn never depends on
it.  It leaves out which rows are on screen and how they are laid out (the canvas's *lay_out*) and the painting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6 import QtGui

from ..widgets.timers import one_shot

if TYPE_CHECKING:
    from .canvas import TokenCanvas, Visible


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

    def start(self, hold: bool = False) -> None:
        """Draw the screen ahead from the next turn on, then repaint; *hold*: the viewport paints nothing until
        then.  A canvas that cannot be seen is only marked for a repaint."""
        c = self._canvas
        if not c.isVisible():
            c.viewport().update()
            return
        if hold:
            c.viewport().setUpdatesEnabled(False)
        self.timer.start()

    def _turn(self) -> None:
        c = self._canvas
        self.turns += 1
        rows, boxes = self._lay_out(), c.boxes  # (the encoding of rows not cached yet happens here)
        boxes.set_dpr(c.devicePixelRatioF())
        boxes.model, boxes.selected = c.session.model, c.selected
        text = c.palette().color(QtGui.QPalette.ColorRole.Text)
        if not boxes.make_pictures([lay for r in rows for lay in r[2:4] if lay is not None], self._latest(), text):
            self.timer.start()  # the rest on the next turn
            return
        c.viewport().setUpdatesEnabled(True)  # (a repaint, when it was held)
        c.viewport().update()
