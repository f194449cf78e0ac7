"""What the token canvas shows right now, for tests, tooltips and clicks: the visible rows with their
token boxes, their labels and ids, the box under a point and the centre of a box.

A mixin of :class:`~.canvas.TokenCanvas` (which fills ``_visible`` when it lays out the screen); it reads
the packed layouts and never encodes or paints anything itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6 import QtCore

from ...core.views.segmentation import PACK, Segment
from .layout import PackedLayout, VisibleRow, box_at, unpack_layout

if TYPE_CHECKING:
    from .painting import BoxPainter


class VisibleQueries:
    _visible: list[tuple[int, float, PackedLayout]]
    boxes: BoxPainter

    def _compute_visible(self) -> list[Any]:  # the canvas lays out the screen
        raise NotImplementedError

    def visible_rows(self) -> list[VisibleRow]:
        """Rows on screen as laid out by the last paint (lays them out now if nothing was painted yet).

        The :class:`VisibleRow` s are made on each call from the packed cache (the canvas keeps none).
        """
        if not self._visible:
            self._compute_visible()
        return [VisibleRow(row, top, unpack_layout(lay)) for row, top, lay in self._visible]

    def visible_tokens(self) -> list[list[str]]:
        """Token labels per visible row at the shown step (gaps between tokens left out)."""
        if not self._visible:
            self._compute_visible()
        return [
            [lab for i, lab in zip(segs[0::PACK], segs[3::PACK], strict=True) if i is not None]
            for _, _, (_, segs, _) in self._visible
        ]

    def visible_ids(self) -> list[list[int]]:
        if not self._visible:
            self._compute_visible()
        return [[i for i in segs[0::PACK] if i is not None] for _, _, (_, segs, _) in self._visible]

    def token_at(self, pos: QtCore.QPointF | QtCore.QPoint) -> tuple[int, Segment] | None:
        """(row, segment) of the token box under a viewport position, or None."""
        return box_at(self.visible_rows(), float(pos.x()), float(pos.y()), self.boxes.box_h)

    def box_center(self, row: int, seg_index: int) -> QtCore.QPoint:
        """Viewport position of the centre of token number *seg_index* (gaps not counted) of a visible row."""
        for vr in self.visible_rows():
            if vr.row == row:
                boxes = [b for b in vr.layout.boxes if b.seg.id is not None]
                b = boxes[seg_index]
                return QtCore.QPoint(int(b.x + b.w / 2), int(vr.top + b.y + self.boxes.box_h / 2))
        raise IndexError(f"row {row} is not visible")

