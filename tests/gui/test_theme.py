"""Light and dark themes: readable token boxes (contrast ≥ 4.5:1), one stylesheet template, following the system."""

from __future__ import annotations

import re

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from bpe_desktop.gui import app as gui_app
from bpe_desktop.gui import resources
from bpe_desktop.gui.widgets import theme


@pytest.fixture
def qapp_themed(qtbot):
    gui_app.make_app()
    yield QtWidgets.QApplication.instance()
    theme.choose(theme.Scheme.LIGHT)  # the next test starts light
    theme.choose(theme.Scheme.SYSTEM)


def _model(n_merges: int):
    """A byte-level model with *n_merges* merges (real ids for the token view's colours)."""
    from bpe_desktop.core import TrainConfig, Trainer, count_text

    text = resources.read_text(resources.ROBOT_LOGS)[:60_000]
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", merges=n_merges)
    t = Trainer(count_text(text, cfg), cfg)
    t.run()
    return t.model


def test_contrast_formula_matches_wcag() -> None:
    black, white = QtGui.QColor("#000000"), QtGui.QColor("#ffffff")
    assert theme.contrast(black, white) == pytest.approx(21.0)
    assert theme.contrast(white, white) == pytest.approx(1.0)
    assert theme.contrast(QtGui.QColor("#777777"), white) == pytest.approx(4.48, abs=0.01)  # WCAG's own example


@pytest.mark.parametrize("t", [theme.LIGHT, theme.DARK], ids=lambda t: t.name)
def test_token_boxes_are_readable_in_both_themes(qapp_themed, t: theme.Theme) -> None:
    """Every box colour the token view paints, against the text colour it paints with (the palette's Text)."""
    from bpe_desktop.core.tokenizers.tokenizer import UNKNOWN_ID
    from bpe_desktop.gui.stream.painting import BoxPainter

    pal = theme.palette(t)
    boxes = BoxPainter(QtGui.QFont(), pal)
    assert boxes.dark is t.dark
    boxes.model = _model(600)
    text = pal.color(QtGui.QPalette.ColorRole.Text)
    ids = [UNKNOWN_ID, 0, 65, 255, *range(256, 256 + 600)]
    worst = min(ids, key=lambda i: theme.contrast(boxes.color(i), text))
    assert theme.contrast(boxes.color(worst), text) >= 4.5, (worst, boxes.color(worst).name())
    # the compare pane's strips: their own text colour on their boxes
    from bpe_desktop.gui.compare.strip import token_color

    theme.apply(theme.Scheme.DARK if t.dark else theme.Scheme.LIGHT)
    ink = QtGui.QColor(t.token_text)
    assert min(theme.contrast(token_color(i), ink) for i in (UNKNOWN_ID, 3, *range(256, 856))) >= 4.5


@pytest.mark.parametrize("t", [theme.LIGHT, theme.DARK], ids=lambda t: t.name)
def test_texts_on_panels_are_readable(t: theme.Theme) -> None:
    c = QtGui.QColor
    for fg, bg in ((t.text, t.base), (t.window_text, t.window), (t.muted, t.window), (t.faint, t.base),
                   (t.banner_fg, t.banner_bg), (t.info_fg, t.info_bg), (t.accent_text, t.accent),
                   (t.error, t.base), (t.plot_ink, t.plot_bg), (t.selection_text, t.selection), (t.text, t.panel)):
        assert theme.contrast(c(fg), c(bg)) >= 4.5, (fg, bg)


def test_stylesheet_template_is_filled_in_both_themes() -> None:
    template = resources.read_text(resources.STYLESHEET)
    names = set(re.findall(r"\$(\w+)", template))
    assert names and names <= set(theme.LIGHT.__dataclass_fields__)
    for t in (theme.LIGHT, theme.DARK):
        sheet = theme.stylesheet(template, t)
        assert "$" not in sheet
        assert t.panel in sheet and t.accent in sheet
    # no pane sets a hard-coded colour of its own any more: they all go through the theme
    import pathlib

    gui = pathlib.Path(gui_app.__file__).parent
    offenders = [str(p.relative_to(gui)) for p in gui.rglob("*.py") if p.name != "theme.py"
                 and re.search(r'setStyleSheet\([^)]*#[0-9a-fA-F]{3,6}', p.read_text(encoding="utf-8"))]
    assert offenders == []
    # nor a text colour (rich text or a QColor of its own): only a few pens chosen to read on both themes
    pens = {"help/tour.py", "inspect/lines.py", "stream/painting.py"}  # frame, diff marks, unknown-token dashes
    texts = [str(p.relative_to(gui)) for p in gui.rglob("*.py") if p.name != "theme.py"
             and re.search(r'color: ?#[0-9a-fA-F]{3,6}|QColor\("#', p.read_text(encoding="utf-8"))]
    assert sorted(set(texts) - pens) == []


def test_view_theme_choice_is_remembered_and_system_is_followed(qapp_themed, monkeypatch) -> None:
    assert theme.choose(theme.Scheme.DARK) is theme.DARK
    assert theme.saved_scheme() is theme.Scheme.DARK
    app = QtWidgets.QApplication.instance()
    assert app.palette().color(QtGui.QPalette.ColorRole.Window).name() == theme.DARK.window
    assert theme.DARK.panel in app.styleSheet()
    # the desktop switches scheme: Qt's styleHints().colorScheme() changes and colorSchemeChanged is emitted (the
    # offscreen platform has no scheme of its own, so the scheme is stood in for and the signal emitted by hand)
    hints = QtGui.QGuiApplication.styleHints()
    scheme = {"now": QtCore.Qt.ColorScheme.Light}
    monkeypatch.setattr(theme, "system_is_dark", lambda: scheme["now"] == QtCore.Qt.ColorScheme.Dark)
    theme.choose(theme.Scheme.SYSTEM)
    assert theme.current() is theme.LIGHT
    scheme["now"] = QtCore.Qt.ColorScheme.Dark
    hints.colorSchemeChanged.emit(scheme["now"])
    assert theme.current() is theme.DARK
    assert app.palette().color(QtGui.QPalette.ColorRole.Base).name() == theme.DARK.base
    scheme["now"] = QtCore.Qt.ColorScheme.Light
    hints.colorSchemeChanged.emit(scheme["now"])
    assert theme.current() is theme.LIGHT
    theme.choose(theme.Scheme.DARK)  # an override ignores the system
    hints.colorSchemeChanged.emit(scheme["now"])
    assert theme.current() is theme.DARK


def test_plots_restyle_when_the_theme_changes(qapp_themed, qtbot) -> None:
    from bpe_desktop.gui.plots.compression import CompressionPlot

    theme.choose(theme.Scheme.LIGHT)
    card = CompressionPlot()
    qtbot.addWidget(card)
    theme.choose(theme.Scheme.DARK)
    assert card.backgroundBrush().color().name() == theme.DARK.plot_bg
    assert card.top_plot.titleLabel.opts["color"] == theme.DARK.plot_ink
    assert card.here_label.color.name() == QtGui.QColor(theme.DARK.plot_ink).name()


def test_a_closed_window_is_freed_whole(qapp_themed, qtbot) -> None:
    """Nothing long-lived keeps a closed window's Python objects: the theme's notifier (which lives as long as the
    program) once held every widget styled through it by a closure, and with it the window, its session and
    pyqtgraph's parentless menus -- each closed window or dialog stayed in memory and in every later restyle."""
    import gc
    import weakref

    from bpe_desktop.gui.session import Session

    w = gui_app.make_window()
    w.show()
    qtbot.wait(400)  # the deferred panes are built (a pending single-shot timer holds its callable)
    theme.choose(theme.Scheme.DARK)  # the notifier's connections are live
    refs = [weakref.ref(w), weakref.ref(w.session)]
    assert isinstance(refs[1](), Session)
    w.close()
    w.deleteLater()
    del w
    QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    gc.unfreeze()
    gc.collect()
    assert [r() for r in refs] == [None, None]
