"""The pair-frequency (Zipf) plot: rank vs count of every adjacent pair at one step, log-log.

Shows the fitted log-log slope, labels the top pairs and highlights the pair about to be merged.  Plot
items are created once; :meth:`ZipfPlot.set_data` only calls ``setData``/``setText``.  It computes nothing
(the numbers come from :class:`bpe_desktop.core.stats.ZipfData`) and does not observe the session.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore

from ..core.stats import ZIPF_COLUMNS, Pair, ZipfData
from .plot_common import ACCENT, FIT, INK, LINE, PlotCard, style_plot

N_LABELS = 5  # top pairs labelled


def pair_text(a: str, b: str) -> str:
    return f"{a} + {b}"


class ZipfPlot(PlotCard):
    name = "pairs"
    csv_header = ZIPF_COLUMNS

    def __init__(self, parent=None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(parent)
        self.data: ZipfData | None = None
        self.next_rank: int | None = None
        p = self.plot = self.addPlot()
        style_plot(p, "Pair frequencies", "rank of the pair (log)", "count (log)")
        p.setLogMode(x=True, y=True)
        self.curve = p.plot([], [], pen=pg.mkPen(LINE, width=2), antialias=True)
        self.fit = p.plot([], [], pen=pg.mkPen(FIT, width=1.5, style=QtCore.Qt.PenStyle.DashLine))
        self.top = p.plot([], [], pen=None, symbol="o", symbolSize=6, symbolBrush=LINE, symbolPen=None)
        self.next = p.plot([], [], pen=None, symbol="o", symbolSize=13, symbolBrush=None,
                           symbolPen=pg.mkPen(ACCENT, width=2.5))
        self.labels = []  # rank numbers beside the top points
        for _ in range(N_LABELS):
            t = pg.TextItem("", color=INK, anchor=(0.5, 1.1))
            p.addItem(t, ignoreBounds=True)
            self.labels.append(t)
        self.next_label = pg.TextItem("", color=ACCENT, anchor=(0, 0))
        p.addItem(self.next_label, ignoreBounds=True)
        # the top pairs spelled out, in a box pinned to the bottom-left corner of the view
        self.top_box = pg.TextItem("", anchor=(0, 1), fill=pg.mkBrush(255, 255, 255, 225),
                                   border=pg.mkPen("#c8c8c8"))
        self.top_box.setParentItem(p.vb)
        # the key (a TextItem, not a LegendItem, so that it scales with the rest in exported images)
        self.key = pg.TextItem("", anchor=(1, 0), fill=pg.mkBrush(255, 255, 255, 225), border=pg.mkPen("#c8c8c8"))
        self.key.setParentItem(p.vb)
        p.vb.sigResized.connect(self._place_box)
        self._place_box()

    def set_data(self, data: ZipfData | None, next_pair: Pair | None = None, note: str = "") -> None:
        """Show *data* (``None``: clear) with *note* in the title; ring *next_pair* if it occurs."""
        self.data = data
        p = self.plot
        if data is None or not data.counts:
            for item in (self.curve, self.fit, self.top, self.next):
                item.setData([], [])
            for t in (*self.labels, self.next_label):
                t.setText("")
            self.top_box.setHtml("")
            self.key.setHtml("")
            self.next_rank = None
            p.setTitle(note or "Pair frequencies: no pairs", color=INK, size="11pt")
            return
        counts = np.asarray(data.counts, dtype=float)
        ranks = np.arange(1, len(counts) + 1, dtype=float)
        few = len(counts) <= 60  # few pairs: show each as a dot
        self.curve.setData(ranks, counts, symbol="o" if few else None, symbolSize=5, symbolBrush=LINE,
                           symbolPen=None)
        n_top = min(N_LABELS, len(counts))
        self.top.setData(ranks[:n_top], counts[:n_top])
        for i, t in enumerate(self.labels):
            if i < n_top:
                t.setText(str(i + 1))
                t.setPos(math.log10(i + 1), math.log10(counts[i]))
            else:
                t.setText("")
        if math.isnan(data.slope):
            self.fit.setData([], [])
            slope = "too few pairs to fit"
        else:
            xs = np.array([1.0, float(len(counts))])
            self.fit.setData(xs, 10 ** (data.intercept + data.slope * np.log10(xs)))
            slope = f"fit: slope {data.slope:.2f}"
        self.next_rank = data.rank_of(next_pair) if next_pair is not None else None
        r = self.next_rank
        if r is not None:
            c = counts[r - 1]
            self.next.setData([float(r)], [c])
            a, b = data.labels[r - 1]
            self.next_label.setText(f"next merge: {pair_text(a, b)} (rank {r})" if r > n_top else "")
            self.next_label.setPos(math.log10(r), math.log10(c))
        else:
            self.next.setData([], [])
            self.next_label.setText("")
        rows = []
        for i in range(n_top):
            a, b = data.labels[i]
            mark = f' <span style="color:{ACCENT}">◀ next merge</span>' if r == i + 1 else ""
            rows.append(f"<tr><td align=right>{i + 1}&nbsp;&nbsp;</td><td>{html.escape(pair_text(a, b))}"
                        f"&nbsp;&nbsp;</td><td align=right>{data.counts[i]:,}</td><td>{mark}</td></tr>")
        self.top_box.setHtml(f'<div style="color:{INK}"><b>top pairs</b><table>{"".join(rows)}</table></div>')
        self.key.setHtml(
            f'<div style="color:{INK}"><span style="color:{LINE}">━━</span> {len(counts):,} pairs<br>'
            f'<span style="color:{FIT}">┅┅</span> {slope}<br>'
            f'<span style="color:{ACCENT}">◯</span> next merge</div>'
        )
        title = f"Pair frequencies at step {data.step:,}"
        p.setTitle(f"{title} ({note})" if note else title, color=INK, size="11pt")

    def _place_box(self, *_: object) -> None:
        r = self.plot.vb.boundingRect()
        self.top_box.setPos(r.left() + 8, r.bottom() - 8)
        self.key.setPos(r.right() - 8, r.top() + 8)

    def csv_rows(self) -> list[Sequence[object]]:
        return list(self.data.rows()) if self.data is not None else []
