"""Issue 23 in the window: the well-known tokenizers are there after the install (File menu, compare pane,
log inspector), o200k's 200k tokens open in the Vocabulary pane, and a rank file that is no known encoding
asks for its pattern (cancelled: nothing changes) instead of being read with a guessed one."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6 import QtWidgets

from bpe_desktop.core import CorpusSource, TrainConfig
from bpe_desktop.core.formats.presets import PRESETS, bundled_data
from bpe_desktop.gui import file_actions
from bpe_desktop.gui.compare.panel import ComparePanel
from bpe_desktop.gui.inspect.job import installed_references, load_choice
from bpe_desktop.gui.session import Session
from bpe_desktop.gui.vocab.pane import VocabPane


def _unknown_rank_file(tmp_path: Path) -> Path:
    path = tmp_path / "mine.tiktoken"
    path.write_bytes(b"".join(bundled_data(PRESETS["gpt2"]).splitlines(keepends=True)[:300]))
    return path


def test_the_references_are_bundled(qtbot) -> None:
    panel = ComparePanel(Session())
    qtbot.addWidget(panel)
    refs = {r.name: (r.spec, r.enabled) for r in panel.references}
    assert refs == {"cl100k_base": ("cl100k", True), "o200k_base": ("o200k", False), "gpt2": ("gpt2", False)}
    choices = installed_references()
    assert [c.name for c in choices] == ["cl100k_base", "o200k_base", "gpt2"]
    o200k = load_choice(choices[1]).tokenizer
    assert o200k.special_tokens["<|endoftext|>"] == 199999


def test_an_unknown_rank_file_asks_for_its_pattern(qtbot, dialogs, monkeypatch, tmp_path) -> None:
    path = _unknown_rank_file(tmp_path)
    asked: list[str] = []
    answer: list[tuple[str, bool]] = [("", False)]

    def get_item(parent, title, label, items, current=0, editable=True):
        asked.append(label)
        return answer[0]

    monkeypatch.setattr(QtWidgets.QInputDialog, "getItem", staticmethod(get_item))
    s = Session()
    parent = QtWidgets.QWidget()
    qtbot.addWidget(parent)
    before = s.model
    assert file_actions.open_tokenizer(parent, s, str(path)) is None  # cancelled
    assert asked and "no known encoding" in asked[0] and s.model is before and not dialogs
    answer[0] = ("cl100k", True)
    model = file_actions.open_tokenizer(parent, s, str(path))
    assert model is not None and model.pretokenizer == "cl100k" and len(model.merges) == 300 - 256
    answer[0] = ("(a+)+(", True)  # a regex that does not compile: a dialog, the loaded tokenizer kept
    assert file_actions.open_tokenizer(parent, s, str(path)) is None
    assert dialogs and dialogs[-1][0] == "Cannot open tokenizer" and s.model is model


@pytest.mark.slow
def test_o200k_opens_in_the_vocabulary_pane(qtbot) -> None:
    s = Session()
    s.set_corpus(CorpusSource.from_text("Hello robot, status OK\n"), TrainConfig(mode="bytes", pretokenizer="o200k"))
    pane = VocabPane(s)
    qtbot.addWidget(pane)
    pane.resize(1100, 500)
    pane.show()
    qtbot.waitExposed(pane)
    assert file_actions.open_tokenizer(pane, s, "o200k") is not None  # File > Open well-known tokenizer's work
    assert s.loaded_format == "tiktoken"
    qtbot.waitUntil(lambda: not pane.busy and pane.table_model.audit is pane.feed.audit, timeout=120_000)
    m = pane.table_model
    assert m.rowCount() == 199_998 + 2
    hello = s.tokenizer.encode("Hello")
    assert hello == [13225] and m.data(m.index(m.row_of_id(13225), 1)) == "Hello"
