"""The token strip of the compare pane: one tokenized text drawn as coloured boxes that wrap like the text.

:class:`TokenStrip` lays its segments out left to right, breaking after every segment that ends a line
(its label ends with ``↵``) and where the width runs out; its height follows its width
(``heightForWidth``, cached per width until the content changes: Qt's layouts ask for it many times per
pass; the boxes are measured once per content and a height is counted from those widths without laying out
rectangles), so a column of strips sits in a scroll area.  Each token gets a stable colour per id
(:func:`~bpe_desktop.core.views.segmentation.token_hue`); unknown characters (id -1) are red, gaps that no token
covers (spaces the ``whitespace`` pre-tokenizer drops) are plain grey text.  Hovering a box shows its text,
id and size in a tooltip.  A long strip shows its first :data:`COLLAPSED_LINES` lines until
:meth:`TokenStrip.set_expanded` (the row's "show all"); ``overflowChanged(int)`` says how many lines are cut.

It does not tokenize (:mod:`.sources`) and knows nothing of the session.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from PySide6 import QtCore, QtGui, QtWidgets

from ...core.tokenizers.tokenizer import UNKNOWN_ID
from ...core.views.labels import token_hue
from ...core.views.segmentation import Segment
from ..widgets import theme

PAD_X = 3
GAP_X = 2
GAP_Y = 3
MARGIN = 4
MAX_LABEL = 48  # longer labels are cut with an ellipsis (the tooltip has the whole text)
COLLAPSED_LINES = 4  # a collapsed strip shows this many lines of boxes


def token_color(token_id: int | None, n_base: int = 256) -> QtGui.QColor:
    """Box colour in the current theme: a stable hue per merged token, neutral for base symbols, red for unknowns."""
    t = theme.current()
    if token_id is None:
        return QtGui.QColor(0, 0, 0, 0)
    if token_id == UNKNOWN_ID:
        return QtGui.QColor(t.token_unknown)
    if token_id < n_base:
        return QtGui.QColor(t.token_base)
    return theme.token_fill(token_hue(token_id), t)


class TokenStrip(QtWidgets.QWidget):
    """Coloured token boxes for one tokenized text; ``set_segments`` replaces them."""

    overflowChanged = QtCore.Signal(int)  # lines not shown while collapsed (0: everything fits)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.expanded = False
        self.hidden_lines = 0
        font = QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont)
        font.setPointSizeF(max(8.0, self.font().pointSizeF() - 0.5))
        self.setFont(font)
        self._fm = QtGui.QFontMetricsF(font)
        self._segments: tuple[Segment, ...] = ()
        self._n_base = 256
        self._boxes: list[tuple[QtCore.QRectF, int]] = []  # laid-out rect -> segment index
        self._measured: tuple[list[float], list[bool]] | None = None  # box widths, line ends (per content)
        self._layout_width = -1
        self._heights: dict[int, int] = {}  # width -> height for the current content
        self._placeholder = ""
        self.setMouseTracking(True)
        sp = QtWidgets.QSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Preferred)
        sp.setHeightForWidth(True)
        self.setSizePolicy(sp)

    # -- content ------------------------------------------------------------------------------------
    def set_segments(self, segments: Sequence[Segment], n_base: int = 256) -> None:
        self._segments = tuple(segments)
        self._n_base = n_base
        self._placeholder = ""
        self._layout_width = -1
        self._measured = None
        self._heights.clear()
        self._fit_height()
        self.update()

    def set_placeholder(self, text: str) -> None:
        """Show *text* (grey) instead of tokens."""
        self._segments = ()
        self._placeholder = text
        self._layout_width = -1
        self._measured = None
        self._heights.clear()
        self._fit_height()
        self.update()

    @property
    def segments(self) -> tuple[Segment, ...]:
        return self._segments

    # -- layout -------------------------------------------------------------------------------------
    def _box_width(self, label: str) -> float:
        if len(label) > MAX_LABEL:
            label = label[: MAX_LABEL - 1] + "…"
        return self._fm.horizontalAdvance(label) + 2 * PAD_X

    def _measure(self) -> tuple[list[float], list[bool]]:
        """Each segment's box width and whether it ends a line (measured once per content)."""
        if self._measured is None:
            segs = self._segments
            self._measured = ([self._box_width(s.label) for s in segs], [s.label.endswith("↵") for s in segs])
        return self._measured

    def _lines(self, width: int) -> list[int]:
        """The line of boxes (0, 1, ...) each segment sits on at *width*: the one wrapping rule that both
        the heights and the painted layout follow."""
        widths, ends = self._measure()
        right = max(width - MARGIN, MARGIN + 40)
        x, line = float(MARGIN), 0
        out: list[int] = []
        for w, end in zip(widths, ends, strict=True):
            if x > MARGIN and x + w > right:
                x, line = float(MARGIN), line + 1
            out.append(line)
            x = float(MARGIN) if end else x + w + GAP_X
            line += end
        return out

    def _bottom(self, lines: int) -> float:
        """Where *lines* lines of boxes end, with the margin below."""
        return MARGIN + lines * (self._fm.height() + 4 + GAP_Y) - GAP_Y + MARGIN

    def _compute(self, width: int) -> tuple[list[tuple[QtCore.QRectF, int]], float]:
        h = self._fm.height() + 4
        widths, _ = self._measure()
        boxes: list[tuple[QtCore.QRectF, int]] = []
        x, last = float(MARGIN), -1
        for i, line in enumerate(self._lines(width)):
            if line != last:
                x, last = float(MARGIN), line
            boxes.append((QtCore.QRectF(x, MARGIN + line * (h + GAP_Y), widths[i], h), i))
            x += widths[i] + GAP_X
        return boxes, self._bottom(last + 1 if boxes else 1)

    def _ensure_layout(self) -> None:
        if self._layout_width != self.width():
            self._boxes, _ = self._compute(self.width())
            self._layout_width = self.width()

    def hasHeightForWidth(self) -> bool:
        return True

    def set_expanded(self, on: bool) -> None:
        """Show every line (True) or the first :data:`COLLAPSED_LINES` (False)."""
        if on != self.expanded:
            self.expanded = on
            self._heights.clear()
            self._fit_height()
            self.update()

    def line_count(self, width: int | None = None) -> int:
        """Lines of boxes at *width* (default: the current width)."""
        lines = self._lines(max(self.width(), 200) if width is None else width)
        return lines[-1] + 1 if lines else 0

    def heightForWidth(self, width: int) -> int:
        if not self._segments:
            return int(self._fm.height() + 4 + 2 * MARGIN)
        h = self._heights.get(width)
        if h is None:
            if len(self._heights) >= 16:
                self._heights.clear()
            lines = self.line_count(width)
            if not self.expanded:
                lines = min(lines, COLLAPSED_LINES)
            h = self._heights[width] = int(self._bottom(lines) + 0.5)
        return h

    def sizeHint(self) -> QtCore.QSize:
        w = max(self.width(), 400)
        return QtCore.QSize(w, self.heightForWidth(w))

    def minimumSizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(120, int(self._fm.height() + 4 + 2 * MARGIN))

    def _fit_height(self) -> None:
        """Fix the height to what the boxes need at the current width (nested layouts do not propagate
        height-for-width reliably, so the strip sets it itself)."""
        width = max(self.width(), 200)
        h = self.heightForWidth(width)
        if h != self.height() or self.minimumHeight() != h:
            self.setFixedHeight(h)
        hidden = max(0, self.line_count(width) - COLLAPSED_LINES) if self._segments else 0
        if hidden != self.hidden_lines:
            self.hidden_lines = hidden
            self.overflowChanged.emit(hidden)

    def resizeEvent(self, e: QtGui.QResizeEvent) -> None:
        super().resizeEvent(e)  # the box layout follows the width (_ensure_layout); a new height changes nothing
        if e.size().width() != e.oldSize().width():
            self._fit_height()

    # -- hover --------------------------------------------------------------------------------------
    def segment_at(self, pos: QtCore.QPointF | QtCore.QPoint) -> Segment | None:
        """The segment drawn at *pos* (widget coordinates), if any."""
        self._ensure_layout()
        p = QtCore.QPointF(pos)
        for rect, i in self._boxes:
            if rect.contains(p):
                return self._segments[i]
        return None

    def box_center(self, index: int) -> QtCore.QPoint:
        """Where segment *index* is drawn (for tests and keyboard users)."""
        self._ensure_layout()
        return self._boxes[index][0].center().toPoint()

    def tooltip_at(self, pos: QtCore.QPointF | QtCore.QPoint) -> str:
        """The hover text at *pos*: the token's text and id ("" over no token)."""
        seg = self.segment_at(pos)
        if seg is None:
            return ""
        size = seg.end - seg.start
        if seg.id is None:
            return f"“{seg.label}” — not part of any token (dropped by the pre-tokenizer)"
        if seg.id == UNKNOWN_ID:
            return f"“{seg.label}” — unknown character (id -1): not in this tokenizer's alphabet"
        return f"“{seg.label}” — id {seg.id} · {size} byte{'s' if size != 1 else ''}"

    def event(self, e: QtCore.QEvent) -> bool:
        if e.type() == QtCore.QEvent.Type.ToolTip:
            he = cast(QtGui.QHelpEvent, e)
            text = self.tooltip_at(he.pos())
            if text:
                QtWidgets.QToolTip.showText(he.globalPos(), text, self)
            else:
                QtWidgets.QToolTip.hideText()
                e.ignore()
            return True
        return super().event(e)

    # -- painting -----------------------------------------------------------------------------------
    def paintEvent(self, e: QtGui.QPaintEvent) -> None:
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        p.setFont(self.font())
        pal = self.palette()
        if self._placeholder:
            p.setPen(pal.color(QtGui.QPalette.ColorRole.PlaceholderText))
            p.drawText(QtCore.QRectF(MARGIN, MARGIN, self.width() - 2 * MARGIN, self._fm.height() + 4),
                       QtCore.Qt.AlignmentFlag.AlignVCenter, self._placeholder)
            return
        self._ensure_layout()
        clip = QtCore.QRectF(e.rect())
        text_pen = QtGui.QPen(QtGui.QColor(theme.current().token_text))
        gap_pen = QtGui.QPen(QtGui.QColor(theme.current().token_gap))
        for rect, i in self._boxes:
            if rect.bottom() < clip.top() or rect.top() > clip.bottom() or rect.bottom() > self.height():
                continue  # (a collapsed strip draws no half line)
            seg = self._segments[i]
            label = seg.label if len(seg.label) <= MAX_LABEL else seg.label[: MAX_LABEL - 1] + "…"
            if seg.id is None:
                p.setPen(gap_pen)
            else:
                fill = token_color(seg.id, self._n_base)
                p.setPen(QtGui.QPen(fill.darker(125), 1.0))
                p.setBrush(fill)
                p.drawRoundedRect(rect.adjusted(0.5, 0.5, -0.5, -0.5), 3, 3)
                p.setPen(text_pen)
            p.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter, label)
        p.end()
