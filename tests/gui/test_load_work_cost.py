"""Issue 25 (the Extend flow's latency): showing a run costs the GUI thread work counted here, not timed --
the corpus editor copies its text out of its document once per change, however many slots ask for the
corpus while a run is loaded (each copy of a preview-sized text is a measurable stall), a big file's
preview is left to later turns, and the window's paint is the turn after the load's."""

from __future__ import annotations

from typing import Any

from PySide6 import QtCore

from bpe_desktop.core import CorpusSource
from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.counting.pieces import count_text
from bpe_desktop.core.training.trainer import Trainer
from bpe_desktop.gui import app as gui_app
from bpe_desktop.gui.panes.corpus_editor import LARGE_FILE_BYTES, PREVIEW_FIRST_CHARS
from bpe_desktop.gui.widgets.repaint_hold import repaint_held
from bpe_desktop.gui.work import Work
from support import ROBOT_SAMPLE_FILE


def _run(source: CorpusSource, text: str) -> Work:
    config = TrainConfig(mode="bytes", pretokenizer="cl100k", merges=20)
    words = count_text(text, config)
    t = Trainer(words, config)
    return Work(source, config, t.model, t.run(), word_counts=words, name="logs")


def _counting_copies(editor: Any) -> list[int]:
    n = [0]
    real = editor.toPlainText

    def copy() -> str:
        n[0] += 1
        return real()

    editor.toPlainText = copy  # the Python calls only: what the panes ask for
    return n


def test_loading_a_run_copies_the_editors_text_once(qtbot, dialogs) -> None:
    text = ROBOT_SAMPLE_FILE.read_text(encoding="utf-8")
    gui_app.make_app()
    w = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(w)
    w.show()
    copies = _counting_copies(w.corpus.editor)
    for source in (CorpusSource.from_text(text, name="robot"), CorpusSource.from_files([str(ROBOT_SAMPLE_FILE)])):
        copies[0] = 0
        w.session.load(_run(source, text))
        assert w.corpus.source().text == w.corpus.text() == text  # the run's corpus (a small file: its text)
        assert copies[0] <= 1, copies[0]  # (10 copies before: one per slot that asked for the corpus)
    w.corpus.editor.setPlainText("edited\n" + text)  # an edit is seen at once: the copy is redone
    assert w.corpus.text() == "edited\n" + text and w.corpus.typed_source() is not None
    assert dialogs == []


def test_loading_a_run_on_a_big_file_leaves_its_preview_to_later_turns(qtbot, dialogs, tmp_path) -> None:
    """The editor says ``edited`` once the file is named (no passing text corpus for the stale check to read),
    so nothing in the load puts the whole preview in at once."""
    text = ROBOT_SAMPLE_FILE.read_text(encoding="utf-8")
    big = tmp_path / "big.log"
    big.write_text(text * (LARGE_FILE_BYTES // len(text) + 1), encoding="utf-8")
    gui_app.make_app()
    w = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(w)
    w.show()
    seen: list[CorpusSource] = []
    w.corpus.edited.connect(lambda: seen.append(w.corpus.source()))
    source = CorpusSource.from_files([str(big)])
    w.session.load(_run(source, text))
    assert seen and all(s == source for s in seen), seen  # (a text corpus of the preview first, before)
    assert w.corpus.editor.document().characterCount() <= PREVIEW_FIRST_CHARS + 1  # (all of it before)
    assert w.statusBar().currentMessage() != w.STALE  # the corpus is the run's
    w.corpus.settle()
    assert text.startswith(w.corpus.editor.toPlainText()[:1000]) and w.corpus.source() == source
    assert dialogs == []


class _Events(QtCore.QObject):
    """The events of *types* the objects it is installed on receive, by name."""

    def __init__(self, *types: QtCore.QEvent.Type) -> None:
        super().__init__()
        self.types = types
        self.seen: list[str] = []

    def eventFilter(self, obj: QtCore.QObject, ev: QtCore.QEvent) -> bool:
        if ev.type() in self.types:
            self.seen.append(ev.type().name)
        return False


def _shown_window(qtbot) -> Any:
    gui_app.make_app()
    w = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def test_loading_a_run_shows_no_banner_or_notice_only_to_take_it_back(qtbot, dialogs) -> None:
    """Between the load's first signals and ``workLoaded`` the settings form and the editor still show the last
    run: the settings banner ("the settings differ") and the status bar's stale notice used to be shown there
    and taken back a moment later -- each a layout of the whole window -- when neither is due for the run."""
    text = ROBOT_SAMPLE_FILE.read_text(encoding="utf-8")
    w = _shown_window(qtbot)
    run = _run(CorpusSource.from_text(text, name="robot"), text)
    assert run.config != w.settings.config() and not w.session.records  # other settings, another corpus
    banner = _Events(QtCore.QEvent.Type.Show, QtCore.QEvent.Type.Hide)
    w.settings._banner_row.installEventFilter(banner)
    messages: list[str] = []
    w.statusBar().messageChanged.connect(messages.append)
    w.session.load(run)
    assert banner.seen == [] and messages == []  # (["Show", "Hide"] and [STALE, ""] before)
    assert not w.settings.banner_shown and w.statusBar().currentMessage() != w.STALE
    w.corpus.editor.setPlainText("edited\n" + text)  # and they still say what they must, at once
    assert w.statusBar().currentMessage() == w.STALE
    w.settings.set_config(run.config.with_(merges=21))
    assert w.settings.banner_shown
    assert dialogs == []



def test_a_run_shown_is_painted_on_the_next_turn_once(qtbot, dialogs) -> None:
    """Showing a run changes every pane: their reactions are one turn and the window's paint the next, so a
    timer due meanwhile (input) runs between the two; nothing is painted twice or left unpainted."""
    text = ROBOT_SAMPLE_FILE.read_text(encoding="utf-8")
    w = _shown_window(qtbot)
    qtbot.wait(100)
    paints = _Events(QtCore.QEvent.Type.Paint)
    w.merges.view.viewport().installEventFilter(paints)
    run = _run(CorpusSource.from_text(text, name="robot"), text)
    w.session.load(run)
    QtCore.QCoreApplication.sendPostedEvents()  # the rest of the load's turn: layouts, no paint
    assert paints.seen == [] and repaint_held(w)  # (painted here before)
    qtbot.waitUntil(lambda: bool(paints.seen))
    qtbot.wait(100)
    assert len(paints.seen) == 1 and not repaint_held(w)
    w.merges.view.viewport().update()  # anything else is painted within its own turn, as before
    QtCore.QCoreApplication.sendPostedEvents()
    assert len(paints.seen) == 2 and not repaint_held(w)
    assert dialogs == []


def _big_file(tmp_path: Any, text: str) -> Any:
    big = tmp_path / "big.log"
    big.write_text(text * (LARGE_FILE_BYTES // len(text) + 1), encoding="utf-8")
    return big


def test_a_big_files_preview_is_filled_on_a_turn_of_its_own_before_the_windows_paint(qtbot, dialogs,
                                                                                    tmp_path) -> None:
    """What the editor says changes with the run (its corpus, the file named, ``edited``); its preview, notice
    and title are filled on the next turn -- after a timer due by then --, and the window is painted on the
    turn after that, once, with them (it never shows the old text beside the new run)."""
    text = ROBOT_SAMPLE_FILE.read_text(encoding="utf-8")
    big = _big_file(tmp_path, text)
    w = _shown_window(qtbot)
    qtbot.wait(100)
    old = w.corpus.editor.toPlainText()
    assert w.corpus.notice.isHidden() and old and not text.startswith(old[:200])
    order: list[str] = []
    painted: list[str] = []
    viewport = w.corpus.editor.viewport()
    shows = _Events(QtCore.QEvent.Type.Show)
    w.corpus.notice.installEventFilter(shows)

    class _Painted(QtCore.QObject):
        def eventFilter(self, obj: QtCore.QObject, ev: QtCore.QEvent) -> bool:
            if obj is viewport and ev.type() == QtCore.QEvent.Type.Paint:
                painted.append(w.corpus.editor.toPlainText()[:50])
                order.append("paint")
            elif obj is w.corpus.notice and ev.type() == QtCore.QEvent.Type.Show:
                order.append(f"filled, painted {len(painted)}, held {repaint_held(w)}")
            return False

    spy = _Painted()
    viewport.installEventFilter(spy)
    w.corpus.notice.installEventFilter(spy)
    source = CorpusSource.from_files([str(big)])
    w.session.load(_run(source, text))
    QtCore.QTimer.singleShot(0, lambda: order.append(f"timer, notice shown {shows.seen == ['Show']}"))
    assert w.corpus.source() == source and w.corpus.path == str(big) and w.corpus.editor.isReadOnly()
    QtCore.QCoreApplication.sendPostedEvents()  # the rest of the load's turn
    assert w.corpus.editor.toPlainText() == old and w.corpus.notice.isHidden() and painted == []
    qtbot.waitUntil(lambda: bool(painted))
    qtbot.wait(50)
    assert order[:3] == ["timer, notice shown False", "filled, painted 0, held True", "paint"], order
    assert "big.log" in w.corpus.notice.text() and text.startswith(w.corpus.editor.toPlainText()[:1000])
    assert painted[0] == text[:50] and painted.count(text[:50]) == len(painted)
    assert "big.log" in w.corpus.title.toolTip()
    assert dialogs == []


def test_whatever_the_user_does_before_the_preview_is_filled_comes_after_it(qtbot, dialogs, tmp_path) -> None:
    """Reading the editor's text fills it at once; a text set (a key's edit, a file opened) before the preview's
    turn is not overwritten by it; a key meanwhile reaches no old editable text (the editor is read-only)."""
    text = ROBOT_SAMPLE_FILE.read_text(encoding="utf-8")
    big = _big_file(tmp_path, text)
    w = _shown_window(qtbot)
    source = CorpusSource.from_files([str(big)])
    w.session.load(_run(source, text))
    assert w.corpus.editor.isReadOnly()
    assert text.startswith(w.corpus.text()[:1000])  # read: filled (and the whole preview put in) now
    assert not w.corpus.notice.isHidden()
    w.session.load(_run(CorpusSource.from_text(text, name="robot"), text))  # a run on a text ...
    w.session.load(_run(source, text))  # ... then the big file's again, and before its turn:
    w.corpus.set_text("mine\n", name="typed")
    qtbot.wait(50)
    assert w.corpus.editor.toPlainText() == "mine\n" and w.corpus.notice.isHidden()
    assert w.corpus.source() == CorpusSource.from_text("mine\n", name="typed") and not w.corpus.editor.isReadOnly()
    assert "typed" in w.corpus.title.toolTip()
    assert dialogs == []
