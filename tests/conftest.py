"""Fixtures every area shares: a hand-moved clock, real text every machine has (Python's own docs), the
environment that keeps the tests' settings and autosaves away from the user's.  GUI fixtures: gui/conftest.py."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

from support import ManualClock

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
