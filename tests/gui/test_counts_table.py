"""A counts table written by ``bpe-desktop count`` opens in the window and trains like the text it counts."""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtWidgets

from bpe_desktop.core import CorpusSource, TrainConfig, Trainer, count_source
from bpe_desktop.core.counting.count_table import write_table
from bpe_desktop.gui.training.protocol import TrainingState

START_S = 30_000  # ms: a spawned worker takes about a second to start on a busy machine


@pytest.fixture()
def table(tmp_path, topics_text):
    """Python's docs (first 60 KB) counted in bytes mode with the GPT-2 pattern, as a counts table."""
    text = topics_text[:60_000]
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=40)
    words = count_source(CorpusSource.from_text(text), cfg)
    path = tmp_path / "counts.tsv"
    write_table(path, words.counts, cfg)
    return path, text, cfg


def test_a_counts_table_opens_as_word_counts_with_its_settings(window, table) -> None:
    path, _, _ = table
    window.open_corpus(str(path))
    src = window.corpus.source()
    assert src.paths == (str(path),) and src.word_counts
    assert window.corpus.editor.isReadOnly()
    cfg = window.settings.config()
    assert (cfg.mode, cfg.pretokenizer) == ("bytes", "gpt2")  # the window was on the seeds' chars settings


def test_training_a_counts_table_gives_the_merges_of_its_text(qtbot, window, table) -> None:
    path, text, cfg = table
    expected = [(r.left, r.right) for r in Trainer(count_source(CorpusSource.from_text(text), cfg), cfg).run()]
    window.open_corpus(str(path))
    window.settings.set_config(window.settings.config().with_(tie_break="hf", merges=40, vocab_size=None))
    button = window.findChild(QtWidgets.QToolBar).widgetForAction(window.train_action)
    qtbot.mouseClick(button, QtCore.Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.session.state in (TrainingState.FINISHED, TrainingState.ERROR)
                    and not window.controller.running, timeout=START_S)
    assert window.session.state is TrainingState.FINISHED, window.session.error
    assert [(r.left, r.right) for r in window.session.records] == expected
    assert len(window.token_view.canvas.rows.words) == len(count_source(CorpusSource.from_text(text), cfg).counts)


def test_a_damaged_counts_table_is_refused_with_a_dialog(window, tmp_path, dialogs) -> None:
    bad = tmp_path / "bad.tsv"
    bad.write_text("#bpe-desktop-counts 1 {not json\n", encoding="utf-8")
    before = window.corpus.source()
    window.open_corpus(str(bad))
    assert dialogs and "counts table header is malformed" in dialogs[-1][1]
    assert window.corpus.source() == before
