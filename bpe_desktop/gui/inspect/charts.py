"""The inspector's small charts: stacked bars of tokens per category, and a per-line sparkline.

* :class:`CategoryBars` -- one horizontal bar per tokenizer, cut into the share of its tokens per
  :class:`~bpe_desktop.core.logs.logclass.Category` (colours :data:`CATEGORY_COLORS`, a legend below); bars are
  as long as the tokenizer's total relative to the largest, so a shorter bar means fewer tokens.
* :class:`LineSparkline` -- tokens per line for each tokenizer (pyqtgraph, one curve each, long logs
  reduced to at most :data:`SPARK_POINTS` points by taking each bucket's maximum, so spikes stay visible);
  ``lineClicked(int)`` gives the 0-based line under a click.

They draw what they are given (:class:`~bpe_desktop.core.logs.log_inspect.TokenizerReport` s) and compute nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from ...core.logs.log_inspect import TokenizerReport
from ...core.logs.logclass import Category
from ..widgets import theme

CATEGORY_COLORS = {
    Category.TIMESTAMP: "#2563eb", Category.LEVEL: "#7c3aed", Category.HEX: "#db2777", Category.FLOAT: "#ea580c",
    Category.INTEGER: "#f59e0b", Category.NAME: "#059669", Category.WORD: "#10b981", Category.PUNCT: "#6b7280",
    Category.SPACE: "#d1d5db",
}
#: one colour per tokenizer, in order (curves, name chips)
TOKENIZER_COLORS = ("#1d4ed8", "#c2410c", "#047857", "#7e22ce", "#be123c", "#0e7490")
SPARK_POINTS = 2000


class CategoryBars(QtWidgets.QWidget):
    """Stacked horizontal bars: where each tokenizer's tokens go."""

    BAR_H = 18
    GAP = 6
    NAME_W = 120

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self._reports: tuple[TokenizerReport, ...] = ()
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Fixed)

    def set_reports(self, reports: Sequence[TokenizerReport]) -> None:
        self._reports = tuple(reports)
        self.setFixedHeight(self._height())
        self.update()

    def _legend_rows(self, width: int) -> list[list[Category]]:
        fm = self.fontMetrics()
        rows: list[list[Category]] = [[]]
        x = 0
        for c in Category:
            w = 16 + fm.horizontalAdvance(c.label) + 12
            if x + w > width and rows[-1]:
                rows.append([])
                x = 0
            rows[-1].append(c)
            x += w
        return rows

    def _height(self) -> int:
        n = len(self._reports)
        legend = len(self._legend_rows(max(self.width(), 300))) * (self.fontMetrics().height() + 4)
        return 8 + n * (self.BAR_H + self.GAP) + legend + 4

    def resizeEvent(self, e: QtGui.QResizeEvent) -> None:
        super().resizeEvent(e)
        if self._height() != self.height():
            self.setFixedHeight(self._height())

    def sizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(420, self._height())

    def paintEvent(self, e: QtGui.QPaintEvent) -> None:
        p = QtGui.QPainter(self)
        fm = self.fontMetrics()
        top = max((r.tokens for r in self._reports), default=0)
        name_w = min(self.NAME_W, max((fm.horizontalAdvance(r.name) for r in self._reports), default=0) + 10)
        width = max(self.width() - name_w - 80, 40)
        y = 6
        for r in self._reports:
            p.setPen(QtGui.QColor(theme.current().text))
            p.drawText(QtCore.QRectF(0, y, name_w - 6, self.BAR_H),
                       QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter,
                       fm.elidedText(r.name, QtCore.Qt.TextElideMode.ElideMiddle, name_w - 6))
            x = float(name_w)
            length = width * (r.tokens / top) if top else 0.0
            for c in Category:
                w = length * r.share(c)
                if w > 0:
                    p.fillRect(QtCore.QRectF(x, y, w, self.BAR_H), QtGui.QColor(CATEGORY_COLORS[c]))
                x += w
            p.setPen(QtGui.QColor(theme.current().muted))
            p.drawText(QtCore.QRectF(x + 6, y, 90, self.BAR_H), QtCore.Qt.AlignmentFlag.AlignVCenter, f"{r.tokens:,}")
            y += self.BAR_H + self.GAP
        y += 2
        lh = fm.height() + 4
        for row in self._legend_rows(self.width()):
            x = 0.0
            for c in row:
                p.fillRect(QtCore.QRectF(x, y + (lh - 10) / 2, 10, 10), QtGui.QColor(CATEGORY_COLORS[c]))
                p.setPen(QtGui.QColor(theme.current().muted))
                p.drawText(QtCore.QRectF(x + 14, y, 200, lh), QtCore.Qt.AlignmentFlag.AlignVCenter, c.label)
                x += 16 + fm.horizontalAdvance(c.label) + 12
            y += lh
        p.end()


def reduce_max(values: np.ndarray, points: int = SPARK_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """(x, y): *values* themselves when short, else the maximum of each of *points* equal buckets.

    >>> [a.tolist() for a in reduce_max(np.array([1, 5, 2, 2, 9, 0]), 3)]
    [[0, 2, 4], [5, 2, 9]]
    """
    n = len(values)
    if n <= points:
        return np.arange(n), values
    edges = np.linspace(0, n, points + 1).astype(np.int64)
    return edges[:-1], np.maximum.reduceat(values, edges[:-1])


class LineSparkline(pg.PlotWidget):
    """Tokens per line, one curve per tokenizer; click to ask for that line."""

    lineClicked = QtCore.Signal(int)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent, background=theme.current().plot_bg)
        self.setFixedHeight(96)
        self.setMenuEnabled(False)
        self.setMouseEnabled(x=False, y=False)
        self.hideButtons()
        pi = self.getPlotItem()
        pi.showGrid(x=False, y=True, alpha=0.15)
        pi.setLabel("left", "tokens")
        pi.getAxis("bottom").setStyle(tickLength=-4)
        self.curves: list[pg.PlotDataItem] = []
        self.scene().sigMouseClicked.connect(self._clicked)
        self.apply_theme(theme.current())
        theme.notifier().changed.connect(self.apply_theme)

    def apply_theme(self, t: theme.Theme) -> None:
        """The theme's plot background, ink and grid."""
        try:
            self.setBackground(t.plot_bg)
            for name in ("left", "bottom"):
                ax = self.getPlotItem().getAxis(name)
                ax.setPen(pg.mkPen(t.plot_grid))
                ax.setTextPen(pg.mkPen(t.plot_ink))
        except RuntimeError:  # the widget is gone
            theme.notifier().changed.disconnect(self.apply_theme)

    def set_reports(self, reports: Sequence[TokenizerReport]) -> None:
        pi = self.getPlotItem()
        pi.clear()
        self.curves = []
        n = 0
        for k, r in enumerate(reports):
            x, y = reduce_max(r.per_line)
            n = max(n, len(r.per_line))
            self.curves.append(pi.plot(x + 1, y, pen=pg.mkPen(TOKENIZER_COLORS[k % len(TOKENIZER_COLORS)], width=1)))
        if n:
            pi.setXRange(1, n, padding=0.01)

    def _clicked(self, ev: object) -> None:
        pos = ev.scenePos()  # type: ignore[attr-defined]
        vb = self.getPlotItem().vb
        if vb.sceneBoundingRect().contains(pos):
            self.lineClicked.emit(max(round(vb.mapSceneToView(pos).x()) - 1, 0))
