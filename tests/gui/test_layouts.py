"""The window's named layouts, the dock-placing API, and the fit check: nothing on screen is cut off without
elision at 1280×800, 1440×900 and 1920×1080 (and at a device pixel ratio of 2), after training."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets

from bpe_desktop.gui import app as gui_app
from bpe_desktop.gui import layouts
from bpe_desktop.gui.widgets.elided_label import ElidedLabel, Part, fit_parts
from bpe_desktop.gui.widgets.on_screen import on_screen
from support import ROOT, SEED_TABLE, fit_check

SIZES = ((1280, 800), (1440, 900), (1920, 1080))


def _pump(n: int = 6) -> None:
    for _ in range(n):
        QtWidgets.QApplication.processEvents()


def trained_window(qtbot, size: tuple[int, int], text: str = SEED_TABLE, word_counts: bool = True,
                   merges: int = 7):
    """A main window of *size* showing a finished run on *text* (trained in this process)."""
    from bpe_desktop.core import CorpusSource, TrainConfig, Trainer, count_source

    gui_app.make_app()
    w = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(w)
    w.resize(*size)
    w.show()
    qtbot.waitExposed(w)
    w.corpus.set_text(text, name="seed word counts" if word_counts else "sample", word_counts=word_counts)
    cfg = TrainConfig(merges=merges)
    src = CorpusSource.from_text(text, word_counts=word_counts)
    t = Trainer(count_source(src, cfg), cfg)
    recs = t.run()
    w.session.set_corpus(src, cfg)
    w.session.reset_model(copy.deepcopy(t.model), recs)
    front = [d for d in w.docks.values() if on_screen(d)]
    w.docks["plots"].raise_()  # a plots pane behind another tab computes but draws nothing
    qtbot.waitUntil(lambda: w.plots.zipf.data is not None and w.plots.zipf.data.step == w.session.step,
                    timeout=20_000)
    for d in front:  # the layout's own front tabs again
        d.raise_()
    _pump()
    return w


def every_clipped_text(w) -> list[str]:
    """Bring each dock (and each plot tab) to the front in turn and collect what the fit check finds."""
    found: set[str] = set()
    for key, dock in w.docks.items():
        dock.raise_()
        _pump()
        found.update(str(c) for c in fit_check.clipped(w))
        if key == "plots":
            for i in range(w.plots.tabs.count()):
                w.plots.tabs.setCurrentIndex(i)
                _pump()
                found.update(str(c) for c in fit_check.clipped_plot_items(w.plots.tabs.currentWidget()))
            w.plots.tabs.setCurrentIndex(0)
    return sorted(found)


# -- layouts --------------------------------------------------------------------------------------------------
def test_learn_layout_gives_the_token_stream_forty_percent_of_the_window(qtbot, dialogs) -> None:
    w = trained_window(qtbot, (1440, 900))
    assert layouts.current(w) == "Learn"
    view = w.token_view
    assert view.visibleRegion().boundingRect().size() == view.size()  # in front, not a background tab
    assert view.width() * view.height() >= 0.40 * w.width() * w.height()
    # the panes a newcomer does not need at first share one tab area; compare waits behind the token stream
    assert w.docks["plots"] in w.tabifiedDockWidgets(w.docks["why"])
    assert w.docks["compare"] in w.tabifiedDockWidgets(w.docks["tokens"])


@pytest.mark.parametrize("name", list(layouts.LAYOUTS))
def test_each_named_layout_docks_and_shows_every_pane(qtbot, dialogs, name: str) -> None:
    w = trained_window(qtbot, (1440, 900))
    w.docks["plots"].setFloating(True)
    w.docks["why"].hide()
    layouts.apply(w, name)
    _pump()
    assert layouts.current(w) == name
    for key, d in w.docks.items():
        assert not d.isFloating() and not d.isHidden(), key
        assert w.dockWidgetArea(d) != QtCore.Qt.DockWidgetArea.NoDockWidgetArea, key
    assert not w.docks["tokens"].visibleRegion().isEmpty()  # the token stream is in front in every layout
    w.reset_layout()
    assert layouts.current(w) == "Learn"


def test_view_menu_switches_layouts_and_theme(qtbot, dialogs) -> None:
    from bpe_desktop.gui.widgets import theme

    w = trained_window(qtbot, (1440, 900))
    train = w.findChild(type(w.train_action), "layoutTrain")
    train.trigger()
    _pump()
    assert layouts.current(w) == "Train"
    assert w.docks["why"] in w.tabifiedDockWidgets(w.docks["merges"])
    w.token_view.show_derivation(w.session.records[-1].token_id)
    dark = w.findChild(type(w.train_action), "themeDark")
    dark.trigger()
    try:
        assert theme.current() is theme.DARK
        row = w.token_view.tree.topLevelItem(0)  # the derivation tree is recoloured, its text readable
        assert row.background(0).color().lightness() < 128
        assert theme.contrast(row.background(0).color(), row.foreground(0).color()) >= 4.5
        assert QtWidgets.QApplication.palette().color(QtWidgets.QApplication.palette().ColorRole.Base).lightness() < 80
        assert w.token_view.canvas.boxes.dark  # the token boxes follow the palette
    finally:
        theme.choose(theme.Scheme.LIGHT)
    assert theme.current() is theme.LIGHT and not w.token_view.canvas.boxes.dark


def test_place_puts_a_new_dock_in_its_group_in_every_layout(qtbot, dialogs) -> None:
    w = trained_window(qtbot, (1440, 900))
    dock = QtWidgets.QDockWidget("Vocabulary", w)
    dock.setWidget(QtWidgets.QLabel("a pane added by another module"))
    layouts.place(w, "vocab", dock, group="secondary")
    assert w.docks["vocab"] is dock and dock.objectName() == "dock_vocab"
    assert dock in w.tabifiedDockWidgets(w.docks["why"])
    assert not w.docks["why"].visibleRegion().isEmpty()  # the tab in front stays in front
    view = next(m for m in w.menuBar().findChildren(QtWidgets.QMenu) if m.title() == "&View")
    view.aboutToShow.emit()
    assert dock.toggleViewAction() in view.actions()
    layouts.apply(w, "Train")
    assert dock in w.tabifiedDockWidgets(w.docks["plots"])
    centre = QtWidgets.QDockWidget("Runs", w)
    layouts.place(w, "runs", centre, group="centre")
    assert centre in w.tabifiedDockWidgets(w.docks["tokens"])
    with pytest.raises(ValueError, match="unknown dock group"):
        layouts.place(w, "x", QtWidgets.QDockWidget("x", w), group="middle")


def test_splitters_and_column_widths_are_remembered(qtbot, dialogs) -> None:
    from bpe_desktop.gui.main_window import MainWindow

    w = MainWindow()  # its size fits the test screen (800×800), so the geometry is restored as it was
    qtbot.addWidget(w)
    w.show()
    _pump()
    layouts.apply(w, "Inspect")
    _pump()
    sizes = w.token_view.splitter.sizes()
    w.token_view.splitter.setSizes([sizes[0] - 60, sizes[1] + 60])
    remembered = w.token_view.splitter.sizes()
    w.merges.view.horizontalHeader().resizeSection(1, 97)
    w.close()
    again = MainWindow()
    qtbot.addWidget(again)
    again.show()
    _pump()
    assert layouts.current(again) == "Inspect"
    # (the docks come back within a few pixels; the default split would give the tree ~60 px less)
    assert all(abs(a - b) <= 4 for a, b in zip(again.token_view.splitter.sizes(), remembered, strict=True))
    assert again.merges.view.horizontalHeader().sectionSize(1) == 97


# -- fit ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", list(layouts.LAYOUTS))
def test_nothing_is_cut_off_without_elision(qtbot, dialogs, size: tuple[int, int], name: str) -> None:
    w = trained_window(qtbot, size)
    layouts.apply(w, name)
    _pump()
    assert every_clipped_text(w) == []


def test_nothing_is_cut_off_on_a_real_corpus(qtbot, dialogs) -> None:
    from bpe_desktop.gui import resources

    text = resources.read_text(resources.ROBOT_LOGS)[:40_000]
    w = trained_window(qtbot, (1280, 800), text=text, word_counts=False, merges=200)
    assert every_clipped_text(w) == []


def test_the_fit_check_finds_a_cut_label_and_accepts_an_elided_one(qtbot) -> None:
    box = QtWidgets.QWidget()
    qtbot.addWidget(box)
    lay = QtWidgets.QHBoxLayout(box)
    long = "merge 317: plan + ner → planner (count 1,234)"
    plain = QtWidgets.QLabel(long)
    plain.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
    elided = ElidedLabel(long)
    elided.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
    lay.addWidget(plain)
    lay.addWidget(elided)
    box.resize(200, 40)
    box.show()
    qtbot.waitExposed(box)
    found = fit_check.clipped(box)
    assert [c.text for c in found] == [long]  # the plain label only
    assert elided.is_cut() and elided.shown_text().endswith("…") and elided.toolTip() == long
    assert elided.fontMetrics().horizontalAdvance(elided.shown_text()) <= elided.width()


def test_header_parts_are_shed_in_order() -> None:
    parts = [Part("step 7"), Part(" of 7"), Part(" · merge 7: ", drop=3), Part("ew + est → ewest"),
             Part(" (count 6)", drop=4)]

    def measure(p: Part) -> float:
        return float(len(p.text))

    def elide(p: Part, w: float) -> str:
        return p.text if len(p.text) <= w else (p.text[: int(w) - 1] + "…" if w >= 2 else "")

    full = "".join(p.text for p in parts)
    assert "".join(p.text for p in fit_parts(parts, len(full), measure, elide)) == full
    no_count = full.replace(" (count 6)", "")
    assert "".join(p.text for p in fit_parts(parts, len(no_count), measure, elide)) == no_count
    assert "".join(p.text for p in fit_parts(parts, 30, measure, elide)) == "step 7 of 7ew + est → ewest"
    assert "".join(p.text for p in fit_parts(parts, 15, measure, elide)) == "step 7 of 7ew…"
    assert "".join(p.text for p in fit_parts(parts, 8, measure, elide)) == "step 7…"


_DPR2_SCRIPT = """
import sys
sys.path[:0] = {paths!r}  # tests/gui (this module) and tests (support)
from PySide6 import QtWidgets
import pytest
from bpe_desktop.gui import app as gui_app, layouts
import test_layouts as t

class Bot:
    def addWidget(self, w): pass
    def waitExposed(self, w):
        for _ in range(10): QtWidgets.QApplication.processEvents()
    def waitUntil(self, cond, timeout):
        import time
        end = time.monotonic() + timeout / 1000
        while not cond() and time.monotonic() < end:
            QtWidgets.QApplication.processEvents(); time.sleep(0.01)

gui_app.make_app()
print("DPR", QtWidgets.QApplication.primaryScreen().devicePixelRatio())
for size in ((1280, 800), (1440, 900)):
    w = t.trained_window(Bot(), size)
    for name in layouts.LAYOUTS:
        layouts.apply(w, name)
        for c in t.every_clipped_text(w):
            print("CLIPPED", size, name, c)
    w.close()
"""


def test_nothing_is_cut_off_at_device_pixel_ratio_two(tmp_path: Path) -> None:
    script = tmp_path / "dpr2.py"
    script.write_text(_DPR2_SCRIPT.format(paths=[str(ROOT / "tests" / "gui"), str(ROOT / "tests")]), encoding="utf-8")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", QT_SCALE_FACTOR="2", PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=600,
                         cwd=str(tmp_path))
    assert res.returncode == 0, res.stderr[-3000:]
    assert "DPR 2.0" in res.stdout
    assert [ln for ln in res.stdout.splitlines() if ln.startswith("CLIPPED")] == []
