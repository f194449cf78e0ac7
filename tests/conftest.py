"""Shared fixtures: the seeds' corpora and real text every machine has (Python's own docs)."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Windows remember their layout in QSettings: keep the tests' settings away from the user's.
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="bpe-desktop-test-config-")
# Autosaves (gui/session_io/autosave.py) go to a temporary folder, never the user's data folder.
os.environ["BPE_DESKTOP_DATA_DIR"] = tempfile.mkdtemp(prefix="bpe-desktop-test-data-")

SEED_000 = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
# Seed 001's corpus in first-appearance order (its own listing is cut short; this is its full table).
SEED_001 = {"low": 4, "new": 4, "lower": 2, "lowest": 1, "newest": 2, "newer": 1, "the": 1}


class ManualClock:
    """A clock a test moves by hand, for the injectable clocks (animation timing, follow and GC policies)."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture(scope="session")
def topics_text() -> str:
    """≈750 KB of English: the text of Python's pydoc topics."""
    import pydoc_data.topics as t

    return "\n\n".join(t.topics.values())


@pytest.fixture(scope="session")
def topics_file(tmp_path_factory: pytest.TempPathFactory, topics_text: str) -> Path:
    p = tmp_path_factory.mktemp("corpus") / "topics.txt"
    p.write_text(topics_text, encoding="utf-8")
    return p


@pytest.fixture(autouse=True)
def _forget_window_layout():
    """Each test starts from the default window layout, whatever an earlier test's window saved."""
    yield
    if "bpe_desktop.gui.window_state" in sys.modules:
        sys.modules["bpe_desktop.gui.window_state"].forget()


# -- GUI fixtures (imported lazily: the core tests never load Qt) ---------------------------------------------
SEED_TABLE = "\n".join(f"{w} {c}" for w, c in SEED_000.items())  # "low 5\nlower 2\nnewest 6\nwidest 3"


@pytest.fixture
def seeded():  # type: ignore[no-untyped-def]
    """(session, trainer, records): a session on the seeds' word-count table (7 merges) and a trainer that
    ran to the end (its model is not in the session yet: ``session.reset_model(copy.deepcopy(t.model), recs)``)."""
    from bpe_desktop.core import CorpusSource, TrainConfig, Trainer, count_source
    from bpe_desktop.gui.session import Session

    s = Session()
    cfg = TrainConfig(merges=7)
    s.set_corpus(CorpusSource.from_text(SEED_TABLE, word_counts=True), cfg)
    t = Trainer(count_source(s.source, cfg), cfg)
    return s, t, t.run()


@pytest.fixture
def dialogs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Record error dialogs instead of blocking on them."""
    from PySide6 import QtWidgets

    shown: list[tuple[str, str]] = []

    def critical(parent: object, title: str, text: str, *a: object, **k: object) -> int:
        shown.append((title, text))
        return 0

    monkeypatch.setattr(QtWidgets.QMessageBox, "critical", staticmethod(critical))
    return shown


class Asked(list):  # type: ignore[type-arg]
    """The questions asked so far; ``answer`` is what the next one gets."""

    answer: object = None


@pytest.fixture
def questions(monkeypatch: pytest.MonkeyPatch) -> Asked:
    """Record yes/no questions instead of blocking on them (answered No unless a test says otherwise)."""
    from PySide6 import QtWidgets

    asked = Asked()
    asked.answer = QtWidgets.QMessageBox.StandardButton.No

    def question(parent: object, title: str, text: str, *a: object, **k: object) -> object:
        asked.append(text)
        return asked.answer

    monkeypatch.setattr(QtWidgets.QMessageBox, "question", staticmethod(question))
    return asked


@pytest.fixture
def window(qtbot, dialogs):  # type: ignore[no-untyped-def]
    """The main window as the program opens it (the seeds' table, seed settings), shown; closed after."""
    from bpe_desktop.gui import app as gui_app

    gui_app.make_app()
    w = gui_app.make_window()
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.close()


def finished_session(text: str, config, words, model, records):  # type: ignore[no-untyped-def]
    """A GUI session as the window leaves it after training *text* to the end (no worker involved): corpus,
    word counts, model, records, stopped at the merge limit."""
    import copy

    from bpe_desktop.core import CorpusSource
    from bpe_desktop.gui.session import Session
    from bpe_desktop.gui.training.protocol import StopReason, TrainingState

    s = Session()
    s.set_corpus(CorpusSource.from_text(text), config)
    s.word_counts = words
    s.initial_symbols = records[0].symbols_before
    s.reset_model(copy.deepcopy(model), list(records))
    s.set_stop(StopReason.MERGES, f"reached {len(records)} merges")
    s.set_state(TrainingState.FINISHED)
    return s
