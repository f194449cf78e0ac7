"""The pair-frequency (Zipf) plot: rank vs count of every adjacent pair at one step, log-log.

Shows the fitted log-log slope, labels the top pairs and highlights the pair about to be merged.  The
top pairs are spelled out in a table beside the plot (below it, on one wrapped line, when the card is
narrow), never over the curve; the axes are :class:`~.plot_common.LogAxis`.  Plot items are created
once; :meth:`ZipfPlot.set_data` only calls ``setData``/``setText``.  It computes nothing (it draws a
:class:`bpe_desktop.core.measure.stats.ZipfView`: the counts at the ranks drawn -- each of the first, then
log-spaced ones, :func:`~bpe_desktop.core.measure.stats.drawn_ranks` --, the top pairs, the fit and the next
pair's rank) and does not observe the session.  It holds no table of every pair, so its CSV is written by the
plots pane from the feed (:meth:`~.feed.PlotFeed.export_zipf`), never from here.
"""

from __future__ import annotations

import html
import math
import os
from collections.abc import Sequence

import numpy as np
import numpy.ma  # pyqtgraph imports it on the first draw: now, with the pane, instead
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from ...core.choices import Mode
from ...core.errors import BpeError
from ...core.measure.stats import ZIPF_COLUMNS, ZipfView
from ..widgets.token_labels import token_label
from .common import ACCENT, FIT, LINE, LogAxis, PlotCard, ink, set_title, style_plot

N_LABELS = 5  # top pairs labelled
NARROW_PX = 560  # narrower cards show the top pairs under the plot instead of beside it
MIN_LABEL_GAP_PX = 16  # rank numbers closer than this to the previous shown one are hidden
THIN_ABOVE = 2000  # pairs above which the curve is drawn 1 pixel wide
MAX_LABEL = 14  # characters of a token shown in the top-pairs table (longer ones are cut with "…")


def pair_text(a: str, b: str) -> str:
    return f"{a} + {b}"


def _cut(t: str) -> str:
    return t if len(t) <= MAX_LABEL else t[: MAX_LABEL - 1] + "…"


class HtmlBox(pg.LabelItem):
    """A few lines of HTML (the key, the top-pairs table) laid out beside or under the plot."""

    def __init__(self) -> None:
        super().__init__("", justify="left", color=ink())
        self.wrap_width: float | None = None
        self._shown: tuple[object, ...] | None = None

    @property
    def textItem(self) -> QtWidgets.QGraphicsTextItem:
        return self.item

    def set_html(self, text: str) -> None:
        """Show *text* (nothing is done when it, the width and the colour are as shown: each new text lays out
        the plot again, and while the statistics catch up the key and the top pairs rarely change)."""
        key = (text, self.wrap_width, repr(self.opts.get("color")))
        if key == self._shown:
            return
        self._shown = key
        self.item.setTextWidth(-1 if self.wrap_width is None else self.wrap_width)
        self.setText(text)


class ZipfPlot(PlotCard):
    name = "pairs"
    csv_header = ZIPF_COLUMNS

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.data: ZipfView | None = None
        self.next_rank: int | None = None
        p = self.plot = self.addPlot(row=0, col=0, axisItems={"bottom": LogAxis("bottom"), "left": LogAxis("left")})
        style_plot(p, "Pair frequencies", "rank of the pair (log)", "count (log)")
        p.setLogMode(x=True, y=True)
        p.vb.setDefaultPadding(0.12)  # room for the rank numbers over the top points
        self.curve = p.plot([], [], pen=pg.mkPen(LINE, width=2), antialias=True)
        self.fit = p.plot([], [], pen=pg.mkPen(FIT, width=1.5, style=QtCore.Qt.PenStyle.DashLine))
        self.top = p.plot([], [], pen=None, symbol="o", symbolSize=6, symbolBrush=LINE, symbolPen=None)
        self.next = p.plot([], [], pen=None, symbol="o", symbolSize=13, symbolBrush=None,
                           symbolPen=pg.mkPen(ACCENT, width=2.5))
        self.labels = []  # rank numbers beside the top points
        for i in range(N_LABELS):  # rank 1 sits on the left edge: its number goes right of the point
            t = pg.TextItem("", color=ink(), anchor=(0 if i == 0 else 0.5, 1.1))
            p.addItem(t, ignoreBounds=True)
            self.labels.append(t)
        self.next_label = pg.TextItem("", color=ACCENT, anchor=(0, 0))
        p.addItem(self.next_label, ignoreBounds=True)
        # the key and the top pairs spelled out, beside the plot (under it when narrow): never over the
        # curve.  Layout items, not a LegendItem, so that they scale with the rest in exported images.
        self.key = HtmlBox()
        self._key_parts: list[str] = []
        self.top_box = HtmlBox()
        self.side = pg.GraphicsLayout()
        self.side.setContentsMargins(4, 0, 0, 0)
        self.side.addItem(self.key, row=0, col=0)
        self.side.addItem(self.top_box, row=1, col=0)
        p.vb.sigResized.connect(self._thin_labels)
        p.vb.sigXRangeChanged.connect(self._thin_labels)
        p.vb.sigYRangeChanged.connect(self._thin_labels)
        self._narrow: bool | None = None
        self._top_rows: list[tuple[int, str, str, int, bool]] = []
        self._arrange()

    def set_data(self, data: ZipfView | None, note: str = "", mode: Mode = Mode.CHARS) -> None:
        """Show *data* (``None``: clear) with *note* in the title; ring its next pair if it occurs.

        Tokens are written as in the other panes (*mode* ``bytes``: ``·the``, not ``Ġthe``).
        """
        self.data = data
        self._mode = mode
        p = self.plot
        if data is None or not data.n_pairs:
            for item in (self.curve, self.fit, self.top, self.next):
                item.setData([], [])
            for t in (*self.labels, self.next_label):
                t.setText("")
            self._top_rows = []
            self._fill_top_box()
            self._key_parts = []
            self.next_rank = None
            if note:  # (a note too long for the card loses what follows its "…" -- a percentage --, then is elided:
                set_title(p, note, note.split("…")[0] + "…" if "…" in note else note)  # never a bare title)
            else:
                set_title(p, "Pair frequencies: no pairs", "Pair frequencies")
            self._fit_layout()
            return
        n = data.n_pairs
        few = n <= 60  # few pairs: show each as a dot
        # a 1-pixel line is Qt's fast path: a long curve paints several times faster than at width 2
        pen = pg.mkPen(LINE, width=1 if n > THIN_ABOVE else 2)
        self.curve.setData(np.array(data.ranks, dtype=float), np.array(data.counts, dtype=float),
                           pen=pen, symbol="o" if few else None, symbolSize=5, symbolBrush=LINE, symbolPen=None)
        n_top = min(N_LABELS, n, len(data.top))
        counts = np.array(data.counts[:n_top], dtype=float)  # (ranks 1..n_top: the first ranks are all drawn)
        self.top.setData(np.arange(1, n_top + 1, dtype=float), counts)
        for i, t in enumerate(self.labels):
            if i < n_top:
                t.setText(str(i + 1))
                t.setPos(math.log10(i + 1), math.log10(counts[i]))
            else:
                t.setText("")
        self._thin_labels()
        if math.isnan(data.slope):
            self.fit.setData([], [])
            slope = "too few pairs to fit"
        else:
            xs = np.array([1.0, float(n)])
            self.fit.setData(xs, 10 ** (data.intercept + data.slope * np.log10(xs)))
            slope = f"fit: slope {data.slope:.2f}"
        self.next_rank = r = data.next_rank
        if r is not None and data.next_label is not None:
            c = float(data.next_count)
            self.next.setData([float(r)], [c])
            a, b = data.next_label
            a, b = token_label(a, mode), token_label(b, mode)
            self.next_label.setText(f"next merge: {pair_text(a, b)} (rank {r})" if r > n_top else "")
            self.next_label.setPos(math.log10(r), math.log10(c))
        else:
            self.next.setData([], [])
            self.next_label.setText("")
        self._top_rows = [
            (i + 1, token_label(data.top[i][0], mode), token_label(data.top[i][1], mode), data.counts[i], r == i + 1)
            for i in range(n_top)
        ]
        self._key_parts = [
            f'<span style="color:{LINE}">━━</span>&nbsp;{n:,}&nbsp;pairs',
            f'<span style="color:{FIT}">┅┅</span>&nbsp;{slope.replace(" ", "&nbsp;")}',
            f'<span style="color:{ACCENT}">◯</span>&nbsp;next&nbsp;merge',
        ]
        self._fill_top_box()
        title = f"Pair frequencies at step {data.step:,}"
        set_title(p, f"{title} ({note})" if note else title, title, "Pair frequencies")
        self._fit_layout()  # the title may have become shorter

    def _thin_labels(self, *_: object) -> None:
        """Hide rank numbers that would sit on top of the previous one (ranks 2-5 crowd on a log axis)."""
        vb = self.plot.vb
        (x0, x1), (y0, y1) = vb.viewRange()
        px_per_unit = vb.width() / (x1 - x0) if x1 > x0 else 0.0
        last = -math.inf
        for i, t in enumerate(self.labels):
            x = math.log10(i + 1) * px_per_unit
            show = bool(t.toPlainText()) and x - last >= MIN_LABEL_GAP_PX
            t.setVisible(show)
            if show:
                last = x
                # over the point, unless that leaves the plot (a short plot): then under it
                ax = 0 if i == 0 else 0.5
                text_h = t.textItem.boundingRect().height() - t.textItem.document().documentMargin()
                above = (y1 - t.pos().y()) * vb.height() / (y1 - y0) if y1 > y0 else 0.0
                t.setAnchor((ax, 1.1 if above >= text_h * 1.1 else -0.1))

    def _fill_top_box(self) -> None:
        self.key.set_html((" &nbsp; " if self._narrow else "<br>").join(self._key_parts))
        rows = self._top_rows
        if not rows:
            self.top_box.set_html("")
            self._fit_layout()
            return
        nxt = f'<span style="color:{ACCENT}">◀&nbsp;next</span>'
        if self._narrow:
            items = [f"<b>{k}</b>&nbsp;{html.escape(pair_text(_cut(a), _cut(b))).replace(' ', '&nbsp;')}"
                     f"&nbsp;({c:,}){'&nbsp;' + nxt if n else ''}" for k, a, b, c, n in rows]
            self.top_box.set_html(f"<b>top pairs:</b> {' · '.join(items)}")
            self._fit_layout()
            return
        trs = "".join(
            f"<tr><td align=right>{k}&nbsp;</td><td>{html.escape(pair_text(_cut(a), _cut(b)))}&nbsp;</td>"
            f"<td align=right>{c:,}</td><td>{'&nbsp;' + nxt if n else ''}</td></tr>"
            for k, a, b, c, n in rows
        )
        self.top_box.set_html(f"<b>top pairs</b><table cellspacing=0>{trs}</table>")
        self._fit_layout()

    def _fit_layout(self) -> None:
        """Size the layout to the view again (the view only does so when it is resized itself, so a layout
        that once needed more room -- a longer text -- would stay wider than the card)."""
        self.ci.resize(QtCore.QSizeF(self.viewport().size()))

    def _arrange(self, card_width: int | None = None) -> None:
        """Put the key and top-pairs box beside the plot, or under it when the card is narrow."""
        cw = self.width() if card_width is None else card_width
        narrow = cw < NARROW_PX
        width = max(120.0, cw - 40.0)
        if narrow == self._narrow and (not narrow or self.top_box.wrap_width == width):
            return
        if self._narrow is not None:
            self.ci.removeItem(self.side)
        self._narrow = narrow
        self.top_box.wrap_width = self.key.wrap_width = width if narrow else None
        lay = self.ci.layout
        if narrow:
            self.ci.addItem(self.side, row=1, col=0)
            lay.setColumnStretchFactor(1, 0)
        else:
            self.ci.addItem(self.side, row=0, col=1)
            lay.setColumnStretchFactor(1, 0)
        lay.setRowStretchFactor(0, 1)
        lay.setRowStretchFactor(1, 0)
        lay.setColumnStretchFactor(0, 1)
        self._fill_top_box()

    def resizeEvent(self, ev: QtGui.QResizeEvent) -> None:
        if hasattr(self, "side"):
            self._arrange(ev.size().width())  # before the view sizes the layout to the new width
        super().resizeEvent(ev)

    def csv_rows(self) -> list[Sequence[object]]:
        return []  # (it draws a few ranks of the table: every pair comes from the feed, see the module's docstring)

    def has_data(self) -> bool:
        return self.data is not None and self.data.n_pairs > 0

    def export_csv(self, path: str | os.PathLike[str]) -> None:
        raise BpeError("the pair plot's CSV is written from every pair at its step -- export it from the plots "
                       "pane (PlotsPanel.export)")
