"""Fixtures every area shares: a hand-moved clock, real text every machine has (Python's own docs), the
environment that keeps the tests' settings and autosaves away from the user's.  GUI fixtures: gui/conftest.py."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from bpe_desktop.core import BPEModel, MergeRecord, TrainConfig, Trainer, WordCounts, count_text
from support import ManualClock, cl100k_file

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Windows remember their layout in QSettings: keep the tests' settings away from the user's.
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="bpe-desktop-test-config-")
# Autosaves (gui/session_io/autosave.py) go to a temporary folder, never the user's data folder.
os.environ["BPE_DESKTOP_DATA_DIR"] = tempfile.mkdtemp(prefix="bpe-desktop-test-data-")



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


@pytest.fixture(scope="session")
def cl100k() -> str:
    """The path of the cl100k_base rank file the program finds (a test dependency: missing fails, never skips)."""
    return cl100k_file()


class Trained(NamedTuple):
    """A text trained to the end: what the tests' ``trained`` fixtures build from it."""

    text: str
    words: WordCounts
    trainer: Trainer
    records: list[MergeRecord]

    @property
    def config(self) -> TrainConfig:
        return self.trainer.config

    @property
    def model(self) -> BPEModel:
        return self.trainer.model


@pytest.fixture(scope="session")
def trained_on() -> Callable[[str, TrainConfig], Trained]:
    """``trained_on(text, config)``: *text* counted and trained to the end under *config*, once per session
    for each (text, config) — treat the result as read-only (copy the model before changing it)."""
    done: dict[tuple[str, TrainConfig], Trained] = {}

    def make(text: str, config: TrainConfig) -> Trained:
        key = (text, config)
        if key not in done:
            words = count_text(text, config)
            t = Trainer(words, config)
            done[key] = Trained(text, words, t, t.run())
        return done[key]

    return make
