"""Issue 10, GUI half: a catastrophic custom pre-tokenizer never blocks the window, and one very long line
is shown as bounded display rows.

Real widgets offscreen.  The stall budget itself (under 100 ms) is measured in
``benchmarks/bench_gui_trust.py``; here the structural properties: the encoding runs under the window's
small per-paint regex budget, the error is shown inline and in one dialog, and the window keeps working;
a long line becomes rows of at most ``MAX_ROW_CHARS`` whose text is the whole line and whose tokens are
the whole line's tokens.
"""

from __future__ import annotations

import copy

import pytest
from PySide6 import QtCore

from bpe_desktop.core import CorpusSource, TrainConfig, Trainer, train
from bpe_desktop.core.counting.pieces import count_text
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer
from bpe_desktop.gui import app as gui_app
from bpe_desktop.gui.regex_guard import PAINT_BUDGET_S, TEXT_BUDGET_S
from bpe_desktop.gui.session import Session
from bpe_desktop.gui.stream.rows import MAX_ROW_CHARS, split_long_line
from bpe_desktop.gui.stream.view import TokenStreamView

PATTERN = "(a+)+$"
EVIL = "a" * 5000 + "b"  # the line (the token view cuts it into rows of 1,000 characters)
EVIL_ROW = "a" * 900 + "b"  # catastrophic within one display row


@pytest.fixture
def evil_window(qtbot, dialogs):
    """A window whose model uses the catastrophic pattern (trained on harmless text) and whose corpus holds
    the line that makes it backtrack."""
    cfg = TrainConfig(mode="bytes", pretokenizer=PATTERN, merges=3)
    model, records = train({"aa": 5, "aaa": 3}, cfg)
    gui_app.make_app()
    w = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(w)
    w.resize(1200, 800)
    w.show()
    qtbot.waitExposed(w)
    w.corpus.set_text(f"aaa\n{EVIL_ROW}\n{EVIL}\naa\n", word_counts=False)
    w.session.set_corpus(w.corpus.source(), cfg)
    w.session.set_counted(w.session.word_counts, records[0].symbols_before, w.session.held_out)
    w.session.reset_model(model, records)
    return w


def test_catastrophic_pattern_shows_an_error_and_the_window_stays_usable(qtbot, dialogs, evil_window):
    w = evil_window
    canvas = w.token_view.canvas
    canvas.viewport().repaint()
    qtbot.waitUntil(lambda: bool(dialogs), timeout=10_000)
    title, message = dialogs[0]
    assert title == "Custom pre-tokenizer timed out"
    assert f"«{PATTERN}»" in message and "simplify nested quantifiers" in message
    assert f"{PAINT_BUDGET_S:.3g} s time budget while drawing the token view" in message  # the small budget
    assert canvas.regex_error and canvas.screen_rows.rows() == []  # no silent empty view: the error is the view
    for _ in range(3):  # repaints neither retry the pattern nor ask again
        canvas.viewport().repaint()
    qtbot.wait(50)
    assert len(dialogs) == 1
    # the window still works: a timer fires, the timeline moves on a click
    fired = []
    QtCore.QTimer.singleShot(20, lambda: fired.append(True))
    qtbot.waitUntil(lambda: bool(fired), timeout=5_000)
    w.timeline.slider.setValue(1)
    assert w.session.step == 1
    # a new model (a sound pattern) clears the error
    good, recs = train({"aa": 5, "aaa": 3}, TrainConfig(mode="bytes", pretokenizer="gpt2", merges=3))
    w.session.reset_model(good, recs)
    canvas.viewport().repaint()
    assert not canvas.regex_error and canvas.screen_rows.rows()


def test_follow_merges_stops_quietly_on_a_catastrophic_pattern(qtbot, dialogs, evil_window):
    """Stepping forward makes the follower encode rows to find the merge: a runaway pattern there ends the
    search (the view already shows the error) instead of raising out of a Qt slot."""
    w = evil_window
    assert w.follow_merges.enabled
    w.session.set_step(1)
    w.session.set_step(2)  # one step forward: the follower looks for merge 2's next occurrence
    qtbot.wait(50)
    assert w.session.step == 2 and w.follow_merges.follow(2) is None


def test_catastrophic_pattern_in_the_compare_pane(qtbot, dialogs, evil_window):
    w = evil_window
    w.docks["compare"].raise_()
    w.compare.set_text(EVIL)
    w.compare.refresh()
    row = w.compare.own_row
    assert row.result is None and "timed out" in row.detail.text()
    qtbot.waitUntil(lambda: any("comparing tokenizers" in m for _, m in dialogs), timeout=10_000)
    assert any(f"{TEXT_BUDGET_S:.3g} s" in m for _, m in dialogs)


# -- long lines ----------------------------------------------------------------------------------------------
def long_line(n_chars: int) -> str:
    words = ["robot", "arm", "moved", "to", "x=12.5,", "y=3", "(ok)", "error:", "timeout"]
    out, size, k = [], 0, 0
    while size < n_chars:
        wd = words[k % len(words)] + ("" if k % 7 else "  ")  # some double spaces: not a cut point
        out.append(wd)
        size += len(wd) + 1
        k += 1
    return " ".join(out)


def test_split_long_line_is_complete_and_bounded() -> None:
    line = long_line(50_000) + "\n"
    rows = split_long_line(line)
    assert "".join(rows) == line and all(0 < len(r) <= MAX_ROW_CHARS for r in rows)
    assert all(len(r) >= MAX_ROW_CHARS // 2 for r in rows[:-1])  # cuts come late in a row, not anywhere
    no_space = "x" * 2_500
    assert split_long_line(no_space) == ["x" * 1000, "x" * 1000, "x" * 500]


@pytest.mark.parametrize("pretokenizer", ["gpt2", "cl100k", "whitespace"])
def test_rows_of_a_long_line_tokenize_as_the_whole_line(pretokenizer) -> None:
    line = long_line(60_000)
    mode = "chars" if pretokenizer == "whitespace" else "bytes"
    cfg = TrainConfig(mode=mode, pretokenizer=pretokenizer, merges=200)
    model, _ = train(count_text(line, cfg), cfg)
    tok = Tokenizer(model, unknown="keep")
    rows = split_long_line(line)
    assert len(rows) > 50
    assert [i for r in rows for i in tok.encode(r)] == tok.encode(line)


def test_a_2mb_line_is_shown_as_bounded_rows_to_its_end(qtbot) -> None:
    line = long_line(2_000_000)
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", merges=50)
    s = Session()
    s.set_corpus(CorpusSource.from_text(line), cfg)
    t = Trainer(count_text(line[:100_000], cfg), cfg)
    recs = t.run()
    view = TokenStreamView(s)
    qtbot.addWidget(view)
    view.resize(900, 500)
    view.show()
    qtbot.waitExposed(view)
    s.reset_model(copy.deepcopy(t.model), recs)
    c = view.canvas
    assert c.n_rows >= len(line) // MAX_ROW_CHARS
    assert "".join(c.row_text(r) for r in range(c.n_rows)) == line  # content complete
    assert all(len(c.row_text(r)) <= MAX_ROW_CHARS for r in range(c.n_rows))
    assert {c.rows.line_number(r) for r in range(c.n_rows)} == {1}
    assert "shown in several rows" in c.note
    c.screen_rows.rows()
    painted = c.rows_encoded
    assert 0 < painted < 40  # a screenful of rows was encoded, not the line
    c.scroll_to_row(c.n_rows - 1)
    c.screen_rows.rows()
    assert c.screen_rows.rows()[-1].row == c.n_rows - 1  # scrolling reaches the end
    assert c.rows_encoded - painted < 40
    last = c.screen_rows.tokens()[-1]
    assert "".join(last).replace("·", " ") == c.row_text(c.n_rows - 1)  # every token of the last row
    s.set_step(10)  # scrubbing re-encodes only the screen
    before = c.rows_encoded
    c.finish_animation()
    c.screen_rows.rows()
    assert c.rows_encoded - before < 40


def test_a_file_with_a_long_line_opens_as_a_preview_the_trainer_reads_whole(qtbot, dialogs, tmp_path) -> None:
    from bpe_desktop.gui.panes.corpus_editor import LONG_LINE_CHARS

    p = tmp_path / "one_line.txt"
    line = long_line(200_000)
    p.write_text(line + "\nshort line\n", encoding="utf-8")
    gui_app.make_app()
    w = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(w)
    w.open_corpus(str(p))
    assert w.corpus.editor.isReadOnly() and w.corpus.source().paths == (str(p),)  # the worker reads it all
    shown = w.corpus.editor.toPlainText().split("\n")
    assert len(shown[0]) <= LONG_LINE_CHARS + 2 and shown[0].endswith("…") and shown[1] == "short line"
    assert "lines longer than" in w.corpus.notice.text()


def test_a_big_corpus_file_is_read_into_rows_off_the_gui_thread(qtbot, tmp_path) -> None:
    from bpe_desktop.gui.stream.row_loader import READING_NOTE, THREAD_BYTES

    p = tmp_path / "one_line.txt"
    line = long_line(THREAD_BYTES + 200_000)
    p.write_text(line, encoding="utf-8")
    s = Session()
    view = TokenStreamView(s)
    qtbot.addWidget(view)
    view.show()
    c = view.canvas
    s.set_corpus(CorpusSource.from_files([p]), TrainConfig(mode="bytes", pretokenizer="gpt2"))
    assert c.loader.threaded == 1
    if c.loader.busy:  # the thread may already be done on a fast machine
        assert c.n_rows == 0 and c.note == READING_NOTE
    qtbot.waitUntil(lambda: not c.loader.busy, timeout=30_000)
    assert "".join(c.row_text(r) for r in range(c.n_rows)) == line
    assert c.screen_rows.tokens()[0]
    n = c.n_rows
    s.set_corpus(CorpusSource.from_files([p]), TrainConfig(mode="bytes", pretokenizer="gpt2"))  # a retrain
    assert c.loader.threaded == 1 and not c.loader.busy and c.n_rows == n  # the same rows at once, no blink
    p.write_text(line[:-1] + "x", encoding="utf-8")  # the file changed: read again, off the GUI thread
    s.set_corpus(CorpusSource.from_files([p]), TrainConfig(mode="bytes", pretokenizer="gpt2"))
    assert c.loader.threaded == 2
    qtbot.waitUntil(lambda: not c.loader.busy, timeout=30_000)
    s.set_corpus(CorpusSource.from_text("small\n"), TrainConfig())  # in memory: at once, and a late thread
    assert c.n_rows == 1  # (a late thread result for the old file would be dropped)
