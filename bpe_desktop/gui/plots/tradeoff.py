"""The vocabulary trade-off plot: vocabulary size vs average tokens per word (top) and bytes per token
(bottom), with the current step marked.

Items are created once and updated with ``setData``.  It computes nothing (numbers from
:class:`bpe_desktop.core.measure.stats.TradeOff`) and does not observe the session.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6 import QtWidgets

from ...core.measure.stats import TRADEOFF_COLUMNS, TradeOff
from .common import ACCENT, LINE, SECOND, GroupedAxis, PlotCard, fit_text, ink, set_title, style_plot


class TradeoffPlot(PlotCard):
    name = "tradeoff"
    csv_header = TRADEOFF_COLUMNS

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.data: TradeOff | None = None
        self.step = 0
        top = self.top_plot = self.addPlot(row=0, col=0, axisItems={"bottom": GroupedAxis("bottom")})
        style_plot(top, "Tokens per word", "vocabulary size", "tokens / word")
        bottom = self.bottom_plot = self.addPlot(row=1, col=0, axisItems={"bottom": GroupedAxis("bottom")})
        style_plot(bottom, "Bytes per token", "vocabulary size", "bytes / token")
        bottom.setXLink(top)
        for plot in (top, bottom):
            plot.vb.setDefaultPadding(0.05)  # the last point's dot stays inside
        self.tpw = top.plot([], [], pen=pg.mkPen(LINE, width=2), antialias=True)
        self.bpt = bottom.plot([], [], pen=pg.mkPen(SECOND, width=2), antialias=True)
        dot = {"pen": None, "symbol": "o", "symbolSize": 9, "symbolBrush": ACCENT, "symbolPen": None}
        self.tpw_here = top.plot([], [], **dot)
        self.bpt_here = bottom.plot([], [], **dot)
        pen = pg.mkPen(ACCENT, width=1.2)
        self.lines = [pg.InfiniteLine(0, angle=90, movable=False, pen=pen) for _ in range(2)]
        top.addItem(self.lines[0], ignoreBounds=True)
        bottom.addItem(self.lines[1], ignoreBounds=True)
        self.labels = [pg.TextItem("", color=ink(), anchor=(0, 1)) for _ in range(2)]
        top.addItem(self.labels[0], ignoreBounds=True)
        bottom.addItem(self.labels[1], ignoreBounds=True)
        for sig in (top.vb.sigResized, top.vb.sigXRangeChanged):  # the labels' length fits the width
            sig.connect(lambda *_: self.set_step(self.step))

    def set_data(self, data: TradeOff | None, step: int | None = None) -> None:
        self.data = data
        if data is None or not data.steps:
            for item in (self.tpw, self.bpt, self.tpw_here, self.bpt_here):
                item.setData([], [])
            for t in self.labels:
                t.setText("")
            return
        v = np.asarray(data.vocab_sizes, float)
        self.tpw.setData(v, np.asarray(data.tokens_per_word, float))
        self.bpt.setData(v, np.asarray(data.bytes_per_token, float))
        self.set_step(self.step if step is None else step)

    def set_step(self, step: int) -> None:
        self.step = step
        d = self.data
        if d is None or not d.steps:
            return
        k = max(0, min(step, len(d.steps) - 1))
        v = float(d.vocab_sizes[k])
        right = v >= (d.vocab_sizes[0] + d.vocab_sizes[-1]) / 2
        for line in self.lines:
            line.setValue(v)
        set_title(self.top_plot, f"Tokens per word (vocabulary {int(v):,} at step {k:,})",
                  f"Tokens per word (vocab {int(v):,}, step {k:,})", "Tokens per word")
        self.tpw_here.setData([v], [d.tokens_per_word[k]])
        self.bpt_here.setData([v], [d.bytes_per_token[k]])
        for t, plot, ys, unit in (
            (self.labels[0], self.top_plot, d.tokens_per_word, "tokens/word"),
            (self.labels[1], self.bottom_plot, d.bytes_per_token, "bytes/token"),
        ):
            t.setPos(v, ys[k])
            upper = ys[k] > (min(ys) + max(ys)) / 2  # in the top half: the label goes under the point
            t.setAnchor((1 if right else 0, 0 if upper else 1))
            fit_text(t, plot, v, not right, f" {ys[k]:.3g} {unit} ", f" {ys[k]:.3g} ")

    def csv_rows(self) -> list[Sequence[object]]:
        return list(self.data.rows()) if self.data is not None else []
