"""Compare runs → Rediscovery: a run trained on the robot-log sample against cl100k shows the core's numbers
(share by step, the run's tokens cl100k lacks by coverage, shared tokens' ranks) and exports PNG, SVG and CSV."""

from __future__ import annotations

import csv

from bpe_desktop.core import CorpusSource
from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.counting.pieces import count_text
from bpe_desktop.core.formats import load_tokenizer
from bpe_desktop.core.measure.rediscovery import rediscover
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer
from bpe_desktop.core.training.trainer import Trainer
from bpe_desktop.gui.runs.rediscovery import RediscoveryPage
from bpe_desktop.gui.work import Work
from support import ROBOT_SAMPLE_FILE


def test_the_tab_shows_and_exports_the_core_numbers(qtbot, tmp_path, dialogs) -> None:
    text = ROBOT_SAMPLE_FILE.read_text(encoding="utf-8")
    config = TrainConfig(mode="bytes", pretokenizer="cl100k", merges=200)
    words = count_text(text, config)
    t = Trainer(words, config)
    records = t.run()
    run = Work(CorpusSource.from_text(text), config, t.model, records, word_counts=words, name="logs")
    page = RediscoveryPage([run])
    qtbot.addWidget(page)
    page.resize(1000, 700)
    page.show()
    assert page.compare()
    core = rediscover(Tokenizer(t.model), load_tokenizer("cl100k"), words.counts)
    assert page.result == core
    assert page.lacking.rowCount() == len(core.lacking) and page.shared.rowCount() == len(core.shared)
    assert page.lacking.item(0, 0).text() == core.lacking[0].token == "[INFO"
    assert page.shared.item(0, 2).text() == str(core.shared[0].rank_there)
    assert f"of cl100k's {core.n_reference:,} merged tokens" in page.summary.text()
    for ext in ("png", "svg", "csv"):
        page.export(str(tmp_path / f"r.{ext}"))
        assert (tmp_path / f"r.{ext}").stat().st_size > 100
    rows = list(csv.reader((tmp_path / "r.csv").open(encoding="utf-8")))
    assert rows[0] == ["step", "found", "share"] and len(rows) == 201
    assert [int(r[1]) for r in rows[1:]] == list(core.found)
    assert not dialogs
    page.grab().save(str(tmp_path / "rediscovery.png"))


def test_an_unreadable_reference_is_a_dialog(qtbot, dialogs, tmp_path) -> None:
    config = TrainConfig(mode="bytes", pretokenizer="gpt2", merges=5)
    words = count_text("hello hello world", config)
    t = Trainer(words, config)
    run = Work(CorpusSource.from_text("hello hello world"), config, t.model, t.run(), word_counts=words)
    page = RediscoveryPage([run])
    qtbot.addWidget(page)
    page.add_reference(str(tmp_path / "missing.json"))
    assert not page.compare()
    assert dialogs[-1][0] == "Cannot compare" and "no such file" in dialogs[-1][1]
