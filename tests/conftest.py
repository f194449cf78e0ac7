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
