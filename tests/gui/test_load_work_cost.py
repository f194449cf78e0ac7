"""Issue 25 (the Extend flow's latency): showing a run costs the GUI thread work counted here, not timed --
the corpus editor copies its text out of its document once per change, however many slots ask for the
corpus while a run is loaded (each copy of a preview-sized text is a measurable stall)."""

from __future__ import annotations

from typing import Any

from bpe_desktop.core import CorpusSource
from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.counting.pieces import count_text
from bpe_desktop.core.training.trainer import Trainer
from bpe_desktop.gui import app as gui_app
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
