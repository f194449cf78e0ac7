"""What the plots pane's three plots share: a light theme, and export as PNG, SVG and CSV.

:class:`PlotCard` is a pyqtgraph ``GraphicsLayoutWidget`` that knows its CSV columns and rows and writes
its picture or numbers atomically (:func:`bpe_desktop.core.atomic.atomic_write`).  It computes nothing
and does not observe the session; :mod:`.plots` feeds it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import pyqtgraph as pg
import pyqtgraph.exporters as pg_exporters
from PySide6 import QtCore

from ..core.atomic import atomic_write
from ..core.errors import BpeError
from ..core.stats import csv_text

INK = "#222222"
GRID_INK = "#9a9a9a"
LINE = "#1f5fa8"  # main series
ACCENT = "#d2492a"  # the current step / the pair about to be merged
FIT = "#6a9a3a"
SECOND = "#7a4fa0"
PNG_WIDTH = 1400  # pixels of an exported PNG (height follows the widget's aspect ratio)


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

    def __init__(self, parent=None) -> None:  # type: ignore[no-untyped-def]
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
