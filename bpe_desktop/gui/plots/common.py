"""What the plots pane's three plots share: a light theme, a readable log axis, export as PNG, SVG and CSV.

:class:`LogAxis` labels a log10 axis at round numbers only (1, 2, 5, 10, ... as plain numbers, fewer when
space is short) instead of pyqtgraph's defaults (labels such as "0.91" and "10¹" that collide with "9").

:class:`PlotCard` is a pyqtgraph ``GraphicsLayoutWidget`` that knows its CSV columns and rows and writes
its picture or numbers atomically (:func:`bpe_desktop.core.atomic.atomic_write`).  It computes nothing
and does not observe the session; :mod:`.panel` feeds it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

import pyqtgraph as pg
import pyqtgraph.exporters as pg_exporters
from PySide6 import QtCore

from ...core.atomic import atomic_write
from ...core.csv_table import csv_text
from ...core.errors import BpeError

INK = "#222222"
GRID_INK = "#9a9a9a"
LINE = "#1f5fa8"  # main series
ACCENT = "#d2492a"  # the current step / the pair about to be merged
FIT = "#6a9a3a"
SECOND = "#7a4fa0"
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


class LogAxis(pg.AxisItem):
    """A log10 axis labelled at round numbers written plainly (see :func:`log_ticks`)."""

    def tickValues(self, minVal, maxVal, size):
        if not self.logMode:
            return super().tickValues(minVal, maxVal, size)
        lo, hi = sorted((minVal, maxVal))
        vertical = self.orientation in ("left", "right")
        values = log_ticks(lo, hi, size, 22 if vertical else 46)
        return [(1.0, [math.log10(v) for v in values])]

    def tickStrings(self, values, scale, spacing):
        if not self.logMode:
            return super().tickStrings(values, scale, spacing)
        out = []
        for x in values:
            v = 10.0**x
            r = round(v, 6)
            out.append(compact_number(round(r)) if r >= 1 else f"{r:g}")
        return out


def style_plot(plot: pg.PlotItem, title: str, bottom: str, left: str) -> None:
    """Dark text on white, grid, axis labels and a title."""
    plot.setTitle(title, color=INK, size="11pt")
    for name, text in (("bottom", bottom), ("left", left)):
        ax = plot.getAxis(name)
        ax.setPen(pg.mkPen(GRID_INK))
        ax.setTextPen(pg.mkPen(INK))
        ax.setLabel(text, color=INK)
    plot.getAxis("left").setWidth(64)  # stacked plots line up
    plot.showGrid(x=True, y=True, alpha=0.18)
    plot.setMenuEnabled(True)


class PlotCard(pg.GraphicsLayoutWidget):
    """One exportable plot (or a stack of plots sharing an axis)."""

    #: short name used in file names and tab titles
    name = "plot"
    #: CSV header of :meth:`csv_rows`
    csv_header: Sequence[str] = ()

    def __init__(self, parent=None) -> None:
        super().__init__(parent, show=False, size=None, title=None)
        self.setBackground("w")
        self.ci.setContentsMargins(6, 6, 10, 6)
        self.setMinimumSize(320, 220)

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
