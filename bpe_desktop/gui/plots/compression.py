"""The compression plot: total symbols in the corpus vs merges (top) and the reduction per merge (bottom).

The bottom plot shows ``n_j``, the occurrences merge ``j`` replaced (log scale: diminishing returns); both
mark the current step with a vertical line.  Items are created once and updated with ``setData``.  It
computes nothing (numbers from :class:`bpe_desktop.core.measure.stats.CompressionCurve`) and does not observe the
session.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6 import QtWidgets

from ...core.measure.stats import CURVE_COLUMNS, CompressionCurve
from .common import ACCENT, LINE, SECOND, GroupedAxis, PlotCard, fit_text, ink, set_title, style_plot


class CompressionPlot(PlotCard):
    name = "compression"
    csv_header = CURVE_COLUMNS

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.data: CompressionCurve | None = None
        self.step = 0
        top = self.top_plot = self.addPlot(row=0, col=0, axisItems={"left": GroupedAxis("left")})
        style_plot(top, "Compression: total symbols in the corpus", "merges", "symbols")
        set_title(top, "Compression: total symbols in the corpus", "Total symbols in the corpus", "Total symbols")
        bottom = self.bottom_plot = self.addPlot(row=1, col=0)
        style_plot(bottom, "Symbols removed by each merge, n\u2c7c", "merge j", "n\u2c7c (log)")
        set_title(bottom, "Symbols removed by each merge, n\u2c7c", "Removed by merge j, n\u2c7c", "n\u2c7c")
        for plot in (top, bottom):
            plot.vb.setDefaultPadding(0.05)  # the last point's dot stays inside
        bottom.setLogMode(y=True)
        bottom.setXLink(top)
        self.ci.layout.setRowStretchFactor(0, 3)
        self.ci.layout.setRowStretchFactor(1, 2)
        self.symbols = top.plot([], [], pen=pg.mkPen(LINE, width=2), antialias=True)
        self.here = top.plot([], [], pen=None, symbol="o", symbolSize=9, symbolBrush=ACCENT, symbolPen=None)
        self.merged = bottom.plot([], [], pen=pg.mkPen(SECOND, width=1.2), antialias=True)
        pen = pg.mkPen(ACCENT, width=1.5)
        self.step_line = pg.InfiniteLine(0, angle=90, movable=False, pen=pen)
        self.step_line_bottom = pg.InfiniteLine(0, angle=90, movable=False, pen=pen)
        top.addItem(self.step_line, ignoreBounds=True)
        bottom.addItem(self.step_line_bottom, ignoreBounds=True)
        self.here_label = pg.TextItem("", color=ink(), anchor=(0, 1))
        top.addItem(self.here_label, ignoreBounds=True)
        for sig in (top.vb.sigResized, top.vb.sigXRangeChanged):  # the label's length fits the width
            sig.connect(lambda *_: self.set_step(self.step))

    def set_data(self, curve: CompressionCurve | None, step: int | None = None) -> None:
        self.data = curve
        if curve is None or not curve.steps:
            self.symbols.setData([], [])
            self.merged.setData([], [])
            self.here.setData([], [])
            self.here_label.setText("")
            return
        self.symbols.setData(np.asarray(curve.steps, float), np.asarray(curve.symbols, float))
        if len(curve.steps) > 1:
            self.merged.setData(np.asarray(curve.steps[1:], float), np.asarray(curve.merged[1:], float))
        else:
            self.merged.setData([], [])
        self.set_step(self.step if step is None else step)

    def set_step(self, step: int) -> None:
        self.step = step
        self.step_line.setValue(step)
        self.step_line_bottom.setValue(step)
        curve = self.data
        if curve is None or not curve.steps:
            return
        k = max(0, min(step, len(curve.symbols) - 1))
        s = curve.symbols[k]
        self.here.setData([float(k)], [float(s)])
        first = curve.symbols[0]
        pct = 100.0 * (first - s) / first if first else 0.0
        self.here_label.setPos(k, s)
        # keep the label inside the plot: left of the line once past the middle, under the point in the top half,
        # shorter when the plot is narrow
        lo, hi = min(curve.symbols), max(curve.symbols)
        left = k >= (len(curve.steps) - 1) / 2
        self.here_label.setAnchor((1 if left else 0, 0 if s > (lo + hi) / 2 else 1))
        fit_text(self.here_label, self.top_plot, k, not left, f" step {k:,}: {s:,} symbols ({pct:.1f}% fewer) ",
                 f" {s:,} symbols ({pct:.1f}% fewer) ", f" {s:,} (−{pct:.1f}%) ", f" −{pct:.0f}% ")

    def csv_rows(self) -> list[Sequence[object]]:
        return list(self.data.rows()) if self.data is not None else []
