"""The pair plot's CSV: every pair at the step it shows, exact or refused.  The statistics process writes a big
corpus's itself; its file equals the in-window history's export byte for byte (the oracle: the same session with
the history in the window, and ``csv_text`` over ``SegmentationHistory.zipf``'s rows), at several steps,
forwards and backwards.  Hostile cases: the process killed with the export outstanding, the corpus changed
between the ask and the answer, an export asked before the step is reached, a path that cannot be written --
each either writes the whole file or says why and leaves nothing.

The process path is forced on a small corpus (``PROCESS_PIECES`` 0); waits are bounded, never asserted.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator

import pytest
from PySide6 import QtWidgets

from bpe_desktop.core import TrainConfig
from bpe_desktop.core.counting.parted import PartedCounts
from bpe_desktop.core.errors import BpeError
from bpe_desktop.core.measure.stats import ZIPF_COLUMNS, SegmentationHistory, csv_text
from bpe_desktop.gui.plots import feed as feed_mod
from bpe_desktop.gui.plots.remote_history import ExportState, RemoteHistory
from support.plots import WordCountsParted, panel_for, session_of, until

MERGES = 120


@pytest.fixture(scope="module")
def trained(topics_text, trained_on):
    return trained_on(topics_text, TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=MERGES))


def whole_csv(wc, model, k: int) -> str:
    return csv_text(ZIPF_COLUMNS, SegmentationHistory(wc, model).zipf(k).rows())


def finished(qtbot, feed, state: ExportState) -> ExportState:
    qtbot.waitUntil(lambda: (feed.poll(0.01) and False) or state.finished, timeout=30_000)
    return state


def test_the_process_s_export_is_the_in_window_export_byte_for_byte(qtbot, trained, tmp_path, monkeypatch) -> None:
    _text, wc, t, _ = trained
    here = panel_for(qtbot, session_of(trained))  # (the history in the window)
    qtbot.waitUntil(lambda: here.feed.history is not None, timeout=30_000)
    monkeypatch.setattr(feed_mod, "PROCESS_PIECES", 0)
    s = session_of(trained, WordCountsParted(wc))
    there = panel_for(qtbot, s)  # (the history in the statistics process)
    try:
        for k in (MERGES, 37, 0, 99):
            here.session.set_step(k)
            s.set_step(k)
            for p in (here, there):
                qtbot.waitUntil(lambda p=p, k=k: p.zipf.data is not None and p.zipf.data.step == k, timeout=30_000)
            assert here.export("csv", tmp_path / "here.csv", here.zipf).finished  # (written at once)
            state = there.export("csv", tmp_path / "there.csv", there.zipf)
            assert there.feed.remote is not None and there.feed.history is None
            finished(qtbot, there.feed, state)
            assert state.error == "" and state.rows == there.zipf.data.n_pairs == state.total == state.done
            data = (tmp_path / "there.csv").read_bytes()
            assert data == (tmp_path / "here.csv").read_bytes() == whole_csv(wc, t.model, k).encode(), k
    finally:
        there.feed.close()


@contextlib.contextmanager
def remote_at(qtbot, wc, model, merges: int) -> Iterator[RemoteHistory]:
    """A statistics process over *wc* that has *model*'s first *merges* merges (closed afterwards)."""
    r = RemoteHistory()
    try:
        r.begin(PartedCounts.cut(wc.counts, 50), model.truncated(0))
        r.follow(model.merges[:merges])
        until(qtbot, r, lambda: r.n_merges == merges)
        yield r
    finally:
        r.close()


def test_an_export_asked_before_its_step_is_reached_waits_for_it(qtbot, trained, tmp_path) -> None:
    _text, wc, t, _ = trained
    with remote_at(qtbot, wc, t.model, 40) as r:
        state = r.exports[r.export(90, tmp_path / "z.csv")]
        for _ in range(30):
            r.poll(0.01)
        assert not state.finished and not state.started and not (tmp_path / "z.csv").exists()  # (never step 40's)
        r.follow(t.model.merges)
        until(qtbot, r, lambda: state.finished)
        assert state.error == "" and state.started and state.done == state.total == state.rows
        assert (tmp_path / "z.csv").read_text() == whole_csv(wc, t.model, 90)


def test_killed_with_an_export_outstanding_it_writes_nothing_and_says_so(qtbot, trained, tmp_path) -> None:
    _text, wc, t, _ = trained
    with remote_at(qtbot, wc, t.model, 40) as r:
        waiting = r.exports[r.export(90, tmp_path / "waiting.csv")]  # (its step not reached: outstanding)
        racing = r.exports[r.export(40, tmp_path / "racing.csv")]  # (may be written before the signal lands)
        os.kill(r.pid, signal.SIGKILL)
        until(qtbot, r, lambda: waiting.finished and racing.finished)
        assert waiting.error.startswith("the statistics process ended (")  # (its signal, once it is reaped)
        assert "before the CSV was written -- nothing was written" in waiting.error
        assert not (tmp_path / "waiting.csv").exists()
        if racing.error:  # (either nothing, or the whole file)
            assert not (tmp_path / "racing.csv").exists()
        else:
            assert (tmp_path / "racing.csv").read_text() == whole_csv(wc, t.model, 40)
        assert [p.name for p in tmp_path.iterdir()] in ([], ["racing.csv"])  # (no temporary file is left
        late = r.exports[r.export(40, tmp_path / "late.csv")]  # ... unless the kill landed mid-write)
        assert late.finished and "the statistics process ended" in late.error


def test_a_corpus_changed_between_the_ask_and_the_answer_fails_the_export(qtbot, trained, tmp_path) -> None:
    _text, wc, t, _ = trained
    with remote_at(qtbot, wc, t.model, 40) as r:
        state = r.exports[r.export(90, tmp_path / "old.csv")]
        r.begin({"other": 3, "words": 2}, t.model.truncated(0))  # (a new corpus before step 90 was reached)
        until(qtbot, r, lambda: state.finished)
        assert "changed before the CSV was written" in state.error and not (tmp_path / "old.csv").exists()
        r.forget()  # (an export of a generation already dropped: answered at once, by the process)
        stale = r.exports[r.export(0, tmp_path / "stale.csv")]
        until(qtbot, r, lambda: stale.finished)
        assert "changed" in stale.error and list(tmp_path.iterdir()) == []


def test_a_path_that_cannot_be_written_is_refused_and_the_statistics_go_on(qtbot, trained, tmp_path) -> None:
    _text, wc, t, _ = trained
    with remote_at(qtbot, wc, t.model, MERGES) as r:
        state = r.exports[r.export(MERGES, tmp_path / "missing" / "z.csv")]
        until(qtbot, r, lambda: state.finished)
        assert "does not exist -- create it or choose another path" in state.error and not r.failure
        r.ask(5)
        until(qtbot, r, lambda: 5 in r.answers)  # (the generation goes on)
        assert r.answers[5] == SegmentationHistory(wc, t.model).zipf(5).view()


def test_a_step_not_reached_is_refused_by_the_feed(qtbot, trained, tmp_path, monkeypatch) -> None:
    wc = trained[1]
    monkeypatch.setattr(feed_mod, "PROCESS_PIECES", 0)
    s = session_of(trained, WordCountsParted(wc))
    panel = panel_for(qtbot, s)
    try:
        qtbot.waitUntil(lambda: panel.feed.n_merges == MERGES, timeout=30_000)
        with pytest.raises(BpeError, match="not ready yet -- wait until the plot shows that step"):
            panel.feed.export_zipf(MERGES + 1, tmp_path / "z.csv")
        assert list(tmp_path.iterdir()) == []
    finally:
        panel.feed.close()


def test_the_export_button_waits_with_progress_then_the_file_is_whole(qtbot, trained, tmp_path, monkeypatch) -> None:
    _text, wc, t, _ = trained
    monkeypatch.setattr(feed_mod, "PROCESS_PIECES", 0)
    s = session_of(trained, WordCountsParted(wc))
    panel = panel_for(qtbot, s)
    out = tmp_path / "pairs.csv"
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    warned: list[str] = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "warning", lambda _p, _t, text: warned.append(text))
    try:
        qtbot.waitUntil(lambda: panel.zipf.data is not None and panel.zipf.data.step == MERGES, timeout=30_000)
        panel.ask_export("csv")  # (its dialog runs until the process has written the file)
        assert warned == [] and out.read_text() == whole_csv(wc, t.model, MERGES)
    finally:
        panel.feed.close()
