"""Painting token boxes: colours, pens, cached box pictures, a row at rest and a row mid-merge.

:class:`BoxPainter` holds the font metrics and the caches painting needs (label widths, prepared label
texts, one picture per (token, label, pen) drawn once: drawing a cached pixmap costs about a tenth of an
antialiased rounded rectangle plus its text).  It leaves out which rows are on screen, their layout
(:mod:`.layout`) and the animation's timing (:mod:`.animation`): it is handed a progress value.
"""

from __future__ import annotations

import math

from PySide6 import QtCore, QtGui

from ...core.tokenizers.model import BPEModel
from ...core.tokenizers.tokenizer import UNKNOWN_ID
from ...core.views.labels import token_hue, visible_text
from ...core.views.segmentation import PACK, Segment
from ..widgets import theme
from ..widgets.lru import LRU
from .animation import phases
from .layout import MARGIN, PAD_X, PackedLayout, unpack_layout

#: cached box pictures (~4 KB each), least recently drawn dropped first.  Each is a Qt wrapper object that a
#: full garbage collection scans (about 0.5 us each): enough for several screens, not the whole vocabulary.
BOX_PIXMAP_LIMIT = 1_500
STATIC_LIMIT = 512  # prepared label texts (only drawn into new pictures and mid-animation); emptied when full
BOX_PIXMAP_MARGIN = 2  # transparent pixels round a cached box picture (room for the 2.2 px selection pen)
#: most box pictures :meth:`BoxPainter.make_pictures` draws in one turn: a screen of new tokens (a new run's first
#: rows, a followed step far ahead) is drawn into pictures over a few turns before the paint that shows them
PICTURES_PER_TURN = 16

PixmapKey = tuple[int, str, int, int]  # (token id, label, 0 plain | 1 selected | 2 latest, fill_class)


def fill_class(token_id: int, n_base: int, n_tokens: int) -> int:
    """What a box's fill colour depends on besides its id: 0 a base symbol, 1 beyond the tokens, 2 a merge
    (in the picture cache's key, so a picture kept across models -- a retrain -- never shows an id in another
    model's colour)."""
    return 0 if token_id < n_base else 1 if token_id >= n_tokens else 2


def _mix(
    x0: float, y0: float, w0: float, x1: float, y1: float, w1: float, t: float, top: float, h: float
) -> QtCore.QRectF:
    """The rectangle between (x0, y0, w0) and (x1, y1, w1) at t in 0..1, shifted down by *top*."""
    return QtCore.QRectF(x0 + (x1 - x0) * t, top + y0 + (y1 - y0) * t, w0 + (w1 - w0) * t, h)


class BoxPainter:
    """Draws token boxes for one widget; :meth:`setup` after a font or palette change."""

    def __init__(self, font: QtGui.QFont, palette: QtGui.QPalette) -> None:
        self.model: BPEModel | None = None  # whose token ids are painted (set by the canvas)
        self.selected: int | None = None
        self.pixmaps: LRU[PixmapKey, QtGui.QPixmap] = LRU(BOX_PIXMAP_LIMIT)
        self.pixmaps_made = 0  # (tests, benchmarks)
        self.dpr = 1.0  # device pixel ratio the box pictures were drawn for
        self._widths: dict[str, float] = {}
        self._statics: dict[str, QtGui.QStaticText] = {}  # label -> prepared text (at most STATIC_LIMIT)
        self.setup(font, palette)

    def setup(self, font: QtGui.QFont, palette: QtGui.QPalette) -> None:
        """Take the widget's font and palette: metrics, pens; every cached picture is dropped."""
        self.font = font
        fm = QtGui.QFontMetricsF(font)
        self.fm = fm
        self.box_h = math.ceil(fm.height()) + 6
        self.ascent = fm.ascent()
        self._widths.clear()
        self._statics.clear()
        self.pixmaps.clear()
        self.text_dy = (self.box_h - fm.height()) / 2
        self.dark = palette.color(QtGui.QPalette.ColorRole.Base).lightness() < 128
        self.theme = theme.DARK if self.dark else theme.LIGHT  # box colours for the widget's palette
        self.special_pens = (
            QtGui.QPen(QtGui.QColor(self.theme.select_pen), 2.2),  # selected token
            QtGui.QPen(QtGui.QColor(self.theme.latest_pen), 1.6),  # made by the latest merge
        )

    def set_view(self, dpr: float, model: BPEModel | None, selected: int | None) -> None:
        """What the pictures are drawn for: the screen's density (another one: every picture is drawn again), the
        model whose ids are painted and the selected token (the canvas's paint and its drawing ahead set it)."""
        if dpr != self.dpr:
            self.pixmaps.clear()
            self.dpr = dpr
        self.model, self.selected = model, selected

    def width(self, label: str) -> float:
        w = self._widths.get(label)
        if w is None:
            w = self._widths[label] = self.fm.horizontalAdvance(label)
        return w

    def color(self, token_id: int) -> QtGui.QColor:
        """Fill colour of a token: neutral for base symbols, a stable hue per merged token."""
        t = self.theme
        if token_id == UNKNOWN_ID:
            return QtGui.QColor(t.token_unknown)
        kind = fill_class(token_id, *self._fill_bounds())
        if kind == 0:
            return QtGui.QColor(t.token_base)
        if kind == 1:
            return QtGui.QColor(t.token_gap)
        return theme.token_fill(token_hue(token_id), t)

    def pen(self, token_id: int, latest: int | None) -> QtGui.QPen:
        if token_id == self.selected:
            return self.special_pens[0]
        if token_id == latest:
            return self.special_pens[1]
        if token_id == UNKNOWN_ID:
            return QtGui.QPen(QtGui.QColor("#c03030"), 1.0, QtCore.Qt.PenStyle.DashLine)
        return QtGui.QPen(self.color(token_id).darker(70 if self.dark else 135), 1.0)

    def _static(self, label: str) -> QtGui.QStaticText:
        st = self._statics.get(label)
        if st is None:
            if len(self._statics) >= STATIC_LIMIT:
                self._statics.clear()
            st = self._statics[label] = QtGui.QStaticText(label)
            st.setTextFormat(QtCore.Qt.TextFormat.PlainText)
            st.prepare(QtGui.QTransform(), self.font)
        return st

    # -- one box --------------------------------------------------------------------------------------
    def draw_box(
        self, painter: QtGui.QPainter, rect: QtCore.QRectF, seg: Segment, latest: int | None,
        text: QtGui.QColor, opacity: float = 1.0,
    ) -> None:
        if opacity <= 0.01:
            return
        i = seg.id
        assert i is not None
        if opacity < 1.0:
            painter.setOpacity(opacity)
        if abs(rect.width() - self.width(seg.label) - 2 * PAD_X) < 0.01:  # its natural size: the cached picture
            painter.drawPixmap(
                QtCore.QPoint(int(rect.x() + 0.5) - BOX_PIXMAP_MARGIN, int(rect.y() + 0.5) - BOX_PIXMAP_MARGIN),
                self.box_pixmap(i, seg.label, latest, text),
            )
            if opacity < 1.0:
                painter.setOpacity(1.0)
            return
        painter.setPen(self.pen(i, latest))
        painter.setBrush(self.color(i))
        painter.drawRoundedRect(rect.adjusted(0.5, 0.5, -0.5, -0.5), 4, 4)
        painter.setPen(text)
        st = self._static(seg.label)
        painter.drawStaticText(
            QtCore.QPointF(rect.x() + (rect.width() - self.width(seg.label)) / 2, rect.y() + self.text_dy), st
        )
        if opacity < 1.0:
            painter.setOpacity(1.0)

    def _fill_bounds(self) -> tuple[int, int]:
        """(base symbols, tokens) of the model shown, for :func:`fill_class`."""
        m = self.model
        return (m.n_base, len(m.tokens)) if m is not None else (1 << 62, 1 << 62)

    def box_pixmap(self, i: int, label: str, latest: int | None, text: QtGui.QColor) -> QtGui.QPixmap:
        """The picture of a token box at its natural width (border, fill and label), drawn once and cached,
        with a margin of :data:`BOX_PIXMAP_MARGIN` pixels all round so the thicker selection border fits."""
        kind = 1 if i == self.selected else 2 if i == latest else 0
        key = (i, label, kind, fill_class(i, *self._fill_bounds()))
        pm = self.pixmaps.hit(key)
        if pm is not None:
            return pm
        m = BOX_PIXMAP_MARGIN
        w, h = self.width(label) + 2 * PAD_X, self.box_h
        dpr = self.dpr
        pm = QtGui.QPixmap(math.ceil((w + 2 * m) * dpr), math.ceil((h + 2 * m) * dpr))
        pm.setDevicePixelRatio(dpr)
        pm.fill(QtCore.Qt.GlobalColor.transparent)
        p = QtGui.QPainter(pm)
        try:
            p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
            p.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing)
            p.setFont(self.font)
            p.setPen(self.pen(i, latest))
            p.setBrush(self.color(i))
            p.drawRoundedRect(QtCore.QRectF(m + 0.5, m + 0.5, w - 1, h - 1), 4, 4)
            p.setPen(text)
            p.drawStaticText(QtCore.QPointF(m + PAD_X, m + self.text_dy), self._static(label))
        finally:
            p.end()
        self.pixmaps.put(key, pm)
        self.pixmaps_made += 1
        return pm

    def make_pictures(self, layouts: list[PackedLayout], latest: int | None, text: QtGui.QColor,
                      limit: int = PICTURES_PER_TURN) -> bool:
        """Draw at most *limit* of the box pictures that a paint of *layouts* would find missing (the same ones
        :meth:`paint_boxes` would draw); True when none is missing any more."""
        n_base, n_tok = self._fill_bounds()
        sel = self.selected
        wanted = {(i, label, 1 if i == sel else 2 if i == latest else 0, fill_class(i, n_base, n_tok))
                  for _, segs, _ in layouts for i, label in zip(segs[0::PACK], segs[3::PACK], strict=True)
                  if i is not None}
        if len(wanted) > self.pixmaps.limit:
            return True  # more than the cache keeps: the paint draws what it must (drawn ahead, some would go)
        missing = [key for key in wanted if key not in self.pixmaps]
        for i, label, _, _ in missing[:limit]:
            self.box_pixmap(i, label, latest, text)
        return len(missing) <= limit

    def prefix_widths(self, words: list[tuple[str, int]] | None, n_rows: int) -> tuple[float, float, float]:
        """(left column, word, count) widths: a word table's words and counts (*words*), else line numbers."""
        fm = self.fm
        if words is not None:
            sample = words[:2000]
            ww = max((fm.horizontalAdvance(visible_text(w)) for w, _ in sample), default=0)
            cw = max((fm.horizontalAdvance(f"{c:,}") for _, c in sample), default=0)
            return MARGIN + ww + 12 + cw + 16, ww, cw
        digits = len(str(max(1, n_rows)))
        return MARGIN + fm.horizontalAdvance("9" * digits) + 12, 0.0, 0.0

    # -- rows -----------------------------------------------------------------------------------------
    def paint_prefix_words(self, painter: QtGui.QPainter, top: float, word: str, count: int, word_w: float,
                           count_w: float, dim: QtGui.QColor, text: QtGui.QColor) -> None:
        """A word-table row's left column: the word, then its count right-aligned."""
        y = top + (self.box_h + self.ascent - self.fm.descent()) / 2
        painter.setPen(text)
        painter.drawText(QtCore.QPointF(MARGIN, y), visible_text(word))
        painter.setPen(dim)
        c = f"{count:,}"
        painter.drawText(QtCore.QPointF(MARGIN + word_w + 12 + count_w - self.fm.horizontalAdvance(c), y), c)

    def paint_prefix_number(self, painter: QtGui.QPainter, top: float, number: int, prefix_w: float,
                            dim: QtGui.QColor) -> None:
        """A text row's line number, right-aligned in the left column."""
        y = top + (self.box_h + self.ascent - self.fm.descent()) / 2
        painter.setPen(dim)
        num = str(number)
        painter.drawText(QtCore.QPointF(prefix_w - 12 - self.fm.horizontalAdvance(num), y), num)

    def paint_boxes(
        self, painter: QtGui.QPainter, top: float, lay: PackedLayout, latest: int | None,
        dim: QtGui.QColor, text: QtGui.QColor,
    ) -> None:
        """A row at rest: the cached picture of each token box, the gaps between tokens as dim text."""
        h = self.box_h
        m = BOX_PIXMAP_MARGIN
        cache = self.pixmaps
        touch = cache.move_to_end
        n_base, n_tok = self._fill_bounds()
        sel = self.selected
        draw = painter.drawPixmap
        point = QtCore.QPoint
        _, segs, geom = lay
        for i, label, x, y, w in zip(segs[0::PACK], segs[3::PACK], geom[0::3], geom[1::3], geom[2::3], strict=True):
            if i is None:
                painter.setPen(dim)
                painter.drawText(QtCore.QRectF(x, top + y, w, h), QtCore.Qt.AlignmentFlag.AlignCenter, label)
                continue
            key = (i, label, 1 if i == sel else 2 if i == latest else 0, fill_class(i, n_base, n_tok))
            pm = cache.get(key)
            if pm is None:
                pm = self.box_pixmap(i, label, latest, text)
            else:
                touch(key)  # least recently drawn pictures are dropped first
            draw(point(int(x + 0.5) - m, int(top + y + 0.5) - m), pm)

    def paint_animated(
        self, painter: QtGui.QPainter, top: float, packed_lo: PackedLayout, packed_hi: PackedLayout,
        progress: float, latest: int | None, dim: QtGui.QColor, text: QtGui.QColor,
    ) -> None:
        """A row between step lo (*progress* 0) and lo+1 (*progress* 1)."""
        h = self.box_h
        if len(packed_lo[1]) == len(packed_hi[1]):  # the merge does not occur in this row
            self.paint_boxes(painter, top, packed_hi, latest, dim, text)
            return
        # the few rows the merge changes: Box objects for this paint only
        lay_lo, lay_hi = unpack_layout(packed_lo), unpack_layout(packed_hi)
        slide, fuse, glow = phases(progress)
        lo_boxes = lay_lo.boxes
        by_span = {(b.seg.start, b.seg.end): i for i, b in enumerate(lo_boxes)}
        first_at: dict[int, int] = {}  # start -> index of the first token box there (a marker can be empty)
        for i, b in enumerate(lo_boxes):
            if b.seg.id is not None:
                first_at.setdefault(b.seg.start, i)
        glow_col = QtGui.QColor(255, 190, 0)
        for hb in lay_hi.boxes:
            same = by_span.get((hb.seg.start, hb.seg.end))
            if same is not None and lo_boxes[same].seg.id == hb.seg.id:
                lb = lo_boxes[same]
                if abs(lb.y - hb.y) < 1:
                    places = [(_mix(lb.x, lb.y, lb.w, hb.x, hb.y, hb.w, slide, top, h), 1.0)]
                else:
                    places = [(QtCore.QRectF(lb.x, top + lb.y, lb.w, h), 1.0 - fuse),
                              (QtCore.QRectF(hb.x, top + hb.y, hb.w, h), fuse)]
                for rect, alpha in places:
                    if hb.seg.id is None:
                        painter.setOpacity(alpha)
                        painter.setPen(dim)
                        painter.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter, hb.seg.label)
                        painter.setOpacity(1.0)
                    else:
                        self.draw_box(painter, rect, hb.seg, latest, text, alpha)
                continue
            li = first_at.get(hb.seg.start)
            if li is None or li + 1 >= len(lo_boxes) or hb.seg.id is None:
                continue
            lb, rb = lo_boxes[li], lo_boxes[li + 1]
            if rb.seg.id is None:
                continue
            wl = lb.w / (lb.w + rb.w)
            tl = QtCore.QRectF(hb.x, hb.y, hb.w * wl, h)
            tr = QtCore.QRectF(hb.x + hb.w * wl, hb.y, hb.w * (1 - wl), h)
            left = _mix(lb.x, lb.y, lb.w, tl.x(), tl.y(), tl.width(), slide, top, h)
            right = _mix(rb.x, rb.y, rb.w, tr.x(), tr.y(), tr.width(), slide, top, h)
            if glow > 0.01:
                g = QtGui.QColor(glow_col)
                g.setAlphaF(0.75 * glow)
                painter.setPen(QtCore.Qt.PenStyle.NoPen)
                painter.setBrush(g)
                for r in (left, right) if abs(left.y() - right.y()) > 1 else (left.united(right),):
                    painter.drawRoundedRect(r.adjusted(-4, -4, 4, 4), 7, 7)
            self.draw_box(painter, left, lb.seg, latest, text, 1.0 - fuse)
            self.draw_box(painter, right, rb.seg, latest, text, 1.0 - fuse)
            self.draw_box(painter, QtCore.QRectF(hb.x, top + hb.y, hb.w, h), hb.seg, latest, text, fuse)
