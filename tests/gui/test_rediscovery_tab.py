"""Compare runs → Rediscovery: a run trained on the robot-log sample against cl100k shows the core's numbers
(share by step, the run's tokens cl100k lacks by coverage, shared tokens' ranks) and exports PNG, SVG and CSV.
The comparison runs on the ``measure`` helper thread; a result computed for a run or reference no longer
chosen is dropped."""

from __future__ import annotations

import csv
import threading

import pytest

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
    assert page.computing and page.summary.text().startswith("Computing")
    qtbot.waitUntil(lambda: not page.busy, timeout=60_000)
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
    assert page.compare()
    qtbot.waitUntil(lambda: not page.busy, timeout=10_000)
    assert page.result is None and not page.computing
    assert len(dialogs) == 1 and dialogs[-1][0] == "Cannot compare" and "no such file" in dialogs[-1][1]


def _two_runs() -> list[Work]:
    out = []
    for text, merges in (("hello hello world wide web", 6), ("lower lowest newer newest", 8)):
        config = TrainConfig(mode="bytes", pretokenizer="gpt2", merges=merges)
        words = count_text(text, config)
        t = Trainer(words, config)
        out.append(Work(CorpusSource.from_text(text), config, t.model, t.run(), word_counts=words, name=text[:5]))
    return out


@pytest.fixture
def held_reference(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, list[str]]:
    """The reference read waits for the event (the job "still computing"); the threads rediscover ran on."""
    from bpe_desktop.gui.runs import rediscovery

    release, threads = threading.Event(), []
    real_load, real_rediscover = rediscovery.load_tokenizer, rediscovery.rediscover

    def load(spec: str):  # type: ignore[no-untyped-def]
        assert release.wait(30)
        return real_load(spec)

    def spy(*a, **k):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread().name)
        return real_rediscover(*a, **k)

    monkeypatch.setattr(rediscovery, "load_tokenizer", load)
    monkeypatch.setattr(rediscovery, "rediscover", spy)
    return release, threads


def _oracle(run: Work, spec: str):  # type: ignore[no-untyped-def]
    return rediscover(Tokenizer(run.model), load_tokenizer(spec), run.word_counts.counts)


def test_the_comparison_runs_off_the_gui_thread_and_a_changed_run_drops_its_result(qtbot, dialogs,
                                                                                   held_reference) -> None:
    release, threads = held_reference
    runs = _two_runs()
    page = RediscoveryPage(runs)
    qtbot.addWidget(page)
    page.reference.setCurrentIndex(2)  # gpt2
    assert page.compare() and page.computing
    page.run_pick.setCurrentIndex(1)  # the run changes while the first is computed
    assert not page.computing and page.compare_button.text() == "Compare"
    release.set()
    qtbot.waitUntil(lambda: not page.busy, timeout=30_000)
    assert page.result is None and page.lacking.rowCount() == 0  # the stale result was dropped
    assert threads == ["bpe-desktop-measure_0"]
    assert page.compare()
    qtbot.waitUntil(lambda: not page.busy, timeout=30_000)
    assert page.result == _oracle(runs[1], "gpt2") and page.result != _oracle(runs[0], "gpt2")
    assert threads == ["bpe-desktop-measure_0"] * 2 and threading.main_thread().name not in threads
    assert not dialogs


def test_compare_again_with_another_reference_shows_only_the_last(qtbot, dialogs, held_reference) -> None:
    release, _ = held_reference
    runs = _two_runs()
    page = RediscoveryPage(runs)
    qtbot.addWidget(page)
    page.reference.setCurrentIndex(2)
    assert page.compare()
    page.reference.setCurrentIndex(0)  # cl100k, pressed again before the first ends
    assert page.compare()
    release.set()
    qtbot.waitUntil(lambda: not page.busy, timeout=60_000)
    assert page.result == _oracle(runs[0], "cl100k") and "cl100k's" in page.summary.text()
    assert not dialogs
