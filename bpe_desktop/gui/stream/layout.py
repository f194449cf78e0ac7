"""Layout maths of the token stream: where each token box of a row goes, wrapped to a width.

Qt-free.  A row's layout is cached as a :data:`PackedLayout` of atomic values only (height, the packed
segments, flat ``(x, y, w)`` per segment), which Python's garbage collector stops tracking, so thousands of
cached rows add nothing to a full collection; :class:`Box` / :class:`RowLayout` objects are made on demand
(:func:`unpack_layout`).  It leaves out measuring text (the caller passes a width function) and drawing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...core.views.segmentation import PACK, PackedSegments, Segment, unpack_segments

PAD_X = 4  # horizontal padding inside a box
GAP_X = 3  # space between boxes
GAP_Y = 4  # space between wrapped lines of one row
ROW_GAP = 7  # space between rows
MARGIN = 8

#: a cached layout: (height, packed segments, flat (x, y, w) per segment) -- atomic values only
PackedLayout = tuple[float, PackedSegments, tuple[float, ...]]


@dataclass(slots=True)
class Box:
    """One laid-out segment, relative to its row's top-left corner."""

    x: float
    y: float
    w: float
    seg: Segment


@dataclass(slots=True)
class RowLayout:
    boxes: list[Box]
    height: float


@dataclass(slots=True)
class VisibleRow:
    """A row as last painted: index, top in viewport pixels, layout (at the shown step)."""

    row: int
    top: float
    layout: RowLayout


def unpack_layout(lay: PackedLayout) -> RowLayout:
    height, segs, geom = lay
    return RowLayout(
        [Box(geom[3 * k], geom[3 * k + 1], geom[3 * k + 2], seg) for k, seg in enumerate(unpack_segments(segs))],
        height,
    )


def layout_row(segs: PackedSegments, x0: float, width: int, box_h: float,
               width_of: Callable[[str], float]) -> PackedLayout:
    """Lay out *segs* from *x0*, wrapping before ``width - MARGIN``; a token box is its label's width plus
    padding, a gap between tokens its text's width.

    >>> lay = layout_row((1, 0, 1, "ab", 2, 1, 2, "cd"), 10.0, 40, 12.0, lambda s: 10.0 * len(s))
    >>> lay[0], lay[2]
    (28.0, (10.0, 0.0, 28.0, 10.0, 16.0, 28.0))
    """
    right = max(width - MARGIN, x0 + 40)
    x, y = x0, 0.0
    pad = 2 * PAD_X
    geom: list[float] = []
    add = geom.extend
    for i, label in zip(segs[0::PACK], segs[3::PACK], strict=True):
        w = width_of(label) + (pad if i is not None else 0)
        if x + w > right and x > x0:
            x = x0
            y += box_h + GAP_Y
        add((x, y, w))
        x += w + GAP_X
    return (y + box_h, segs, tuple(geom))


def box_at(rows: list[VisibleRow], x: float, y: float, box_h: float) -> tuple[int, Segment] | None:
    """(row, segment) of the token box under viewport position (*x*, *y*), or None."""
    for vr in rows:
        if not vr.top <= y <= vr.top + vr.layout.height:
            continue
        for b in vr.layout.boxes:
            if b.seg.id is not None and b.x <= x <= b.x + b.w and vr.top + b.y <= y <= vr.top + b.y + box_h:
                return vr.row, b.seg
        return None
    return None
