"""What the token canvas shows right now: :class:`ScreenRows`, the rows as last laid out on screen.

The canvas holds one (``canvas.screen_rows``), puts each layout of the screen into it and empties it when the
rows, step or size change; tests, tooltips, clicks and the follow-merge policy ask it for the visible rows
with their token boxes, labels and ids, the box under a point and the centre of a box.  It reads the
packed layouts only: it never encodes, lays out or paints (it asks the canvas to lay out when empty).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6 import QtCore

from ...core.views.segmentation import PACK, Segment
from .layout import PackedLayout, VisibleRow, box_at, unpack_layout


class ScreenRows:
    """The visible rows, ``packed`` as ``(row, top, layout)``, and the questions asked of them."""

    def __init__(self, lay_out: Callable[[], object], box_height: Callable[[], float]) -> None:
        self.packed: list[tuple[int, float, PackedLayout]] = []  # (row, top, layout) as last painted
        self._lay_out = lay_out  # fills ``packed`` (the canvas's layout of the screen)
        self._box_height = box_height

    def clear(self) -> None:
        """Forget the layout (the next question lays the screen out again)."""
        self.packed = []

    def _current(self) -> list[tuple[int, float, PackedLayout]]:
        if not self.packed:
            self._lay_out()
        return self.packed

    def rows(self) -> list[VisibleRow]:
        """Rows on screen as laid out by the last paint (lays them out now if nothing was painted yet).

        The :class:`VisibleRow` s are made on each call from the packed layouts (none are kept).
        """
        return [VisibleRow(row, top, unpack_layout(lay)) for row, top, lay in self._current()]

    def tokens(self) -> list[list[str]]:
        """Token labels per visible row at the shown step (gaps between tokens left out)."""
        return [
            [lab for i, lab in zip(segs[0::PACK], segs[3::PACK], strict=True) if i is not None]
            for _, _, (_, segs, _) in self._current()
        ]

    def ids(self) -> list[list[int]]:
        """Token ids per visible row at the shown step (gaps left out)."""
        return [[i for i in segs[0::PACK] if i is not None] for _, _, (_, segs, _) in self._current()]

    def token_at(self, pos: QtCore.QPointF | QtCore.QPoint) -> tuple[int, Segment] | None:
        """(row, segment) of the token box under a viewport position, or None."""
        return box_at(self.rows(), float(pos.x()), float(pos.y()), self._box_height())

    def box_center(self, row: int, seg_index: int) -> QtCore.QPoint:
        """Viewport position of the centre of token number *seg_index* (gaps not counted) of a visible row."""
        for vr in self.rows():
            if vr.row == row:
                boxes = [b for b in vr.layout.boxes if b.seg.id is not None]
                b = boxes[seg_index]
                return QtCore.QPoint(int(b.x + b.w / 2), int(vr.top + b.y + self._box_height() / 2))
        raise IndexError(f"row {row} is not visible")
