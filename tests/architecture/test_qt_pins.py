"""Why PySide6 and pyqtgraph are pinned, as tests: what the next version must still do before a bump.

PySide6 6.12.0 on CPython 3.11 drops a reference to ``None`` on every void call (setText, setPen, ...) and
dies with 'Fatal Python error: none_dealloc' after a few thousand; PySide6 >= 6.11 breaks pyqtgraph's SVG
export (Qt emits closed paths 'Z'; pyqtgraph 0.14.0 does not read them).  Text needs a real font family
(fontconfig + fonts-dejavu-core), else it renders as boxes.  A bump that fails here fails CI.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pyqtgraph as pg
import pyqtgraph.exporters
from PySide6 import QtGui, QtWidgets


def test_void_calls_keep_the_reference_to_none(qtbot) -> None:
    label = QtWidgets.QLabel()
    qtbot.addWidget(label)
    before = sys.getrefcount(None)
    for _ in range(200):
        label.setText("x")
    assert sys.getrefcount(None) - before >= -5  # 6.12.0: about -200


def test_pyqtgraph_exports_png_and_svg(qtbot, tmp_path: Path) -> None:
    pw = pg.PlotWidget()
    qtbot.addWidget(pw)
    pw.plot([0, 1, 2], [0, 1, 4])
    pw.resize(300, 200)
    pw.show()
    QtWidgets.QApplication.processEvents()
    for name, cls in (("png", pyqtgraph.exporters.ImageExporter), ("svg", pyqtgraph.exporters.SVGExporter)):
        cls(pw.plotItem).export(str(tmp_path / f"p.{name}"))
        assert (tmp_path / f"p.{name}").stat().st_size > 100, name


def test_a_real_font_family_is_installed(qtbot) -> None:
    real = [f for f in QtGui.QFontDatabase.families() if f not in ("Monospace", "Sans Serif", "Serif")]
    assert real, "no font family: text renders as boxes (install fontconfig and fonts-dejavu-core)"
