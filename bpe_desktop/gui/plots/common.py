"""What the plots pane's three plots share: the theme's colours, titles that fit, a readable log axis, export
as PNG, SVG and CSV.

Colours come from :mod:`..widgets.theme` (background, ink, grid; the series colours read on both themes);
a card restyles its plots, titles and text items when the theme changes.  :func:`set_title` gives a plot
the longest of several titles that fits its width (elided if none does).

:class:`LogAxis` labels a log10 axis at round numbers only (1, 2, 5, 10, ... as plain numbers, fewer when
space is short) instead of pyqtgraph's defaults (labels such as "0.91" and "10¹" that collide with "9").

:class:`PlotCard` is a pyqtgraph ``GraphicsLayoutWidget`` that knows its CSV columns and rows and writes
its picture or numbers atomically (:func:`bpe_desktop.core.io.atomic.atomic_write`).  It computes nothing
and does not observe the session; :mod:`.panel` feeds it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

import pyqtgraph as pg
import pyqtgraph.exporters as pg_exporters
from PySide6 import QtCore, QtGui, QtWidgets

from ...core.errors import BpeError
from ...core.io.atomic import atomic_write
from ...core.io.csv_table import csv_text
from ..widgets import theme

INK = theme.LIGHT.plot_ink  # the light theme's; painting code asks ink() for the current one
LINE = "#2f6fc0"  # main series (these four read on the light and the dark background)
ACCENT = "#e0552f"  # the current step / the pair about to be merged
FIT = "#6f9f3a"
SECOND = "#8a5cc0"
TITLE_SIZE = "11pt"


def ink() -> str:
    return theme.current().plot_ink


def set_title(plot: pg.PlotItem, *titles: str) -> str:
    """Give *plot* the first of *titles* (longest first) that fits its width, else the last one elided;
    the full first title is the title's tooltip.  Returns the text shown."""
    plot._title_variants = titles  # re-fitted when the card is resized
    views = plot.scene().views() if plot.scene() is not None else []
    card = views[0] if views else None
    width = card.title_room(plot) if isinstance(card, PlotCard) else 10_000.0
    font = QtGui.QFont()
    font.setPointSizeF(float(TITLE_SIZE[:-2]))
    fm = QtGui.QFontMetricsF(font)
    index = next((i for i, t in enumerate(titles) if fm.horizontalAdvance(t) <= width), len(titles))
    shown = titles[index] if index < len(titles) else fm.elidedText(
        titles[-1], QtCore.Qt.TextElideMode.ElideRight, max(width, 20.0))
    if shown != getattr(plot, "_title_shown", None) or plot.titleLabel.opts.get("color") != ink():
        plot.setTitle(shown, color=ink(), size=TITLE_SIZE)
        plot._title_shown = shown
        if index != getattr(plot, "_title_index", None):  # a shorter kind of title: the layout may shrink
            plot._title_index = index  # (not for a new step number in the same kind: each is a relayout)
            if isinstance(card, PlotCard) and card.isVisible():
                card.fit_view()
    plot.titleLabel.setToolTip(titles[0] if shown != titles[0] else "")  # also when only the variants changed
    return shown


PNG_WIDTH = 1400  # pixels of an exported PNG (height follows the widget's aspect ratio)


def compact_number(v: float) -> str:
    """Axis text for a positive round number: ``7``, ``250``, ``2,000``, ``50k``, ``3M``.

    >>> [compact_number(v) for v in (1, 20, 2000, 50_000, 3_000_000)]
    ['1', '20', '2,000', '50k', '3M']
    """
    if v >= 1e6 and v % 1e6 == 0:
        return f"{v / 1e6:.0f}M"
    if v >= 1e4 and v % 1e3 == 0:
        return f"{v / 1e3:.0f}k"
    return f"{v:,.0f}" if v >= 1 else f"{v:g}"


def log_ticks(lo: float, hi: float, pixels: float, label_px: float) -> list[float]:
    """Round values (1, 2, 5 times a power of ten, or sparser) between ``10**lo`` and ``10**hi``, as many
    as fit when each label needs *label_px* pixels of an axis *pixels* long.  Values below 1 are never
    returned unless the whole range is below 1.

    >>> log_ticks(0, 2, 400, 30)
    [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]
    >>> log_ticks(0, 4, 120, 30)
    [1.0, 100.0, 10000.0]
    """
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo or pixels <= 0:
        return []
    fits = max(2.0, pixels / max(label_px, 1.0))  # labels that fit on the axis
    decades = hi - lo
    floor_lo = 0 if lo >= -1e-9 else math.floor(lo)
    for mantissas, every in (((1, 2, 3, 4, 5, 6, 7, 8, 9), 1), ((1, 2, 5), 1), ((1, 3), 1), ((1,), 1),
                             ((1,), 2), ((1,), 3), ((1,), 5)):
        per_decade = len(mantissas) / every
        if decades * per_decade + 1 <= fits or (mantissas, every) == ((1,), 5):
            break
    out = []
    for e in range(max(floor_lo, math.floor(lo)), math.ceil(hi) + 1):
        if e % every:
            continue
        for m in mantissas:
            v = m * 10.0**e
            x = math.log10(v)
            if lo - 1e-9 <= x <= hi + 1e-9 and (v >= 1 or hi < 0):
                out.append(v)
    if not out:  # a range inside one step: its ends
        out = [10.0**lo, 10.0**hi] if hi >= 0 else []
    return out


class GroupedAxis(pg.AxisItem):
    """A linear axis that writes whole numbers of five digits or more with thousands separators ("100,260": an
    extension's vocabulary sizes, a corpus's symbols); other ticks as pyqtgraph writes them."""

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        out = super().tickStrings(values, scale, spacing)
        scaled = [v * scale for v in values]
        if scaled and max(abs(v) for v in scaled) >= 10_000 and all(float(v).is_integer() for v in scaled):
            return [f"{v:,.0f}" for v in scaled]
        return list(out)


class LogAxis(pg.AxisItem):
    """A log10 axis labelled at round numbers written plainly (see :func:`log_ticks`)."""

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list[tuple[float, list[float]]]:
        if not self.logMode:
            return super().tickValues(minVal, maxVal, size)
        lo, hi = sorted((minVal, maxVal))
        vertical = self.orientation in ("left", "right")
        values = log_ticks(lo, hi, size, 22 if vertical else 46)
        return [(1.0, [math.log10(v) for v in values])]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        if not self.logMode:
            return super().tickStrings(values, scale, spacing)
        out = []
        for x in values:
            v = 10.0**x
            r = round(v, 6)
            out.append(compact_number(round(r)) if r >= 1 else f"{r:g}")
        return out


def style_plot(plot: pg.PlotItem, title: str, bottom: str, left: str) -> None:
    """The theme's ink on its background, grid, axis labels and a title."""
    set_title(plot, title)
    plot._axis_texts = {"bottom": bottom, "left": left}
    _style_axes(plot, theme.current())
    plot.getAxis("left").setWidth(64)  # stacked plots line up
    plot.showGrid(x=True, y=True, alpha=0.18)
    plot.setMenuEnabled(True)


def fit_text(item: pg.TextItem, plot: pg.PlotItem, x: float, right_of: bool, *variants: str) -> str:
    """Give the text item at data x *x* the first of *variants* that fits between x and the plot's right
    edge (*right_of*) or its left edge; the last one if none does."""
    vb = plot.vb
    (x0, x1), _ = vb.viewRange()
    px = (x - x0) / (x1 - x0) * vb.width() if x1 > x0 else 0.0
    room = (vb.width() - px if right_of else px) - 4
    fm = QtGui.QFontMetricsF(item.textItem.font())
    pad = 2 * item.textItem.document().documentMargin()
    text = next((v for v in variants if fm.horizontalAdvance(v) + pad <= room), variants[-1])
    if text != item.toPlainText():
        item.setText(text)
    return text


def _style_axes(plot: pg.PlotItem, t: theme.Theme) -> None:
    for name, text in getattr(plot, "_axis_texts", {}).items():
        ax = plot.getAxis(name)
        ax.setPen(pg.mkPen(t.plot_grid))
        ax.setTextPen(pg.mkPen(t.plot_ink))
        ax.setLabel(text, color=t.plot_ink)


class PlotCard(pg.GraphicsLayoutWidget):
    """One exportable plot (or a stack of plots sharing an axis)."""

    #: short name used in file names and tab titles
    name = "plot"
    #: CSV header of :meth:`csv_rows`
    csv_header: Sequence[str] = ()

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent, show=False, size=None, title=None)
        self._theme = theme.current()
        self.setBackground(self._theme.plot_bg)
        self.ci.setContentsMargins(6, 6, 14, 6)
        self.setMinimumSize(320, 220)
        theme.notifier().changed.connect(self.apply_theme)

    def title_room(self, plot: pg.PlotItem) -> float:
        """Pixels a title of *plot* may take: the card's width less the left axis and the margins."""
        if self.width() <= 0 or not self.isVisible():
            return 10_000.0  # laid out later: the resize re-fits the title
        return float(self.viewport().width() - plot.getAxis("left").width() - 36)

    def plot_items(self) -> list[pg.PlotItem]:
        return [i for i in self.ci.items if isinstance(i, pg.PlotItem)]

    def apply_theme(self, t: theme.Theme) -> None:
        """Restyle for theme *t*: background, axes, titles and every text drawn in the old ink."""
        try:
            self._apply_theme(t)
        except RuntimeError:  # a card being destroyed: its items are gone
            theme.notifier().changed.disconnect(self.apply_theme)

    def _apply_theme(self, t: theme.Theme) -> None:
        old, self._theme = self._theme.plot_ink, t
        self.setBackground(t.plot_bg)
        for plot in self.plot_items():
            _style_axes(plot, t)
            variants = getattr(plot, "_title_variants", None)
            if variants:
                plot._title_shown = None
                set_title(plot, *variants)
        for item in self.scene().items():
            if isinstance(item, pg.TextItem) and item.color.name() == QtGui.QColor(old).name():
                item.setColor(t.plot_ink)
            elif isinstance(item, pg.LabelItem) and item.opts.get("color") == old:
                item.setText(item.text, color=t.plot_ink)

    def resizeEvent(self, ev: QtGui.QResizeEvent) -> None:
        super().resizeEvent(ev)
        self.fit_titles()

    def showEvent(self, ev: QtGui.QShowEvent) -> None:
        super().showEvent(ev)
        self.fit_titles()

    def fit_titles(self) -> None:
        for plot in self.plot_items() if hasattr(self, "ci") else ():
            variants = getattr(plot, "_title_variants", None)
            if variants:
                set_title(plot, *variants)
        self.fit_view()

    def fit_view(self) -> None:
        """Size the plots' layout to the view again: with a shorter title its minimum width shrinks, but a
        layout once widened past the view (by a longer title) stays so until it is resized after relayout."""
        if hasattr(self, "ci"):
            self.ci.layout.invalidate()
            self.ci.layout.activate()
            self.ci.resize(QtCore.QSizeF(self.viewport().size()))

    def csv_rows(self) -> list[Sequence[object]]:
        """The numbers behind the picture (what is plotted now)."""
        return []

    def has_data(self) -> bool:
        return bool(self.csv_rows())

    # -- exports --------------------------------------------------------------------------------------
    def export_png(self, path: str | os.PathLike[str], width: int = PNG_WIDTH) -> None:
        exp = pg_exporters.ImageExporter(self.scene())
        exp.parameters()["width"] = int(width)
        image = exp.export(toBytes=True)
        if image is None or image.isNull():
            raise BpeError(f"{os.fspath(path)}: could not render the plot -- make the window larger and retry")
        buf = QtCore.QBuffer()
        buf.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
        image.save(buf, "PNG")
        self._write(path, bytes(buf.data().data()))

    def export_svg(self, path: str | os.PathLike[str]) -> None:
        exp = pg_exporters.SVGExporter(self.scene())
        data = exp.export(toBytes=True)
        if isinstance(data, str):
            data = data.encode("utf-8")
        self._write(path, bytes(data))

    def export_csv(self, path: str | os.PathLike[str]) -> None:
        with atomic_write(path) as f:
            f.write(csv_text(self.csv_header, self.csv_rows()))

    @staticmethod
    def _write(path: str | os.PathLike[str], data: bytes) -> None:
        try:
            with atomic_write(path, "wb") as f:
                f.write(data)
        except OSError as e:
            raise BpeError(f"{os.fspath(path)}: cannot write ({e.strerror}) -- choose another file") from None
