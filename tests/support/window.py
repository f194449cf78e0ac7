"""Driving the real main window in tests: press Train, wait for the run's end, read the merge table.

Plain helpers (the ``window`` fixture itself is in tests/gui/conftest.py)."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from bpe_desktop.core import Trainer, count_source
from bpe_desktop.core.errors import BpeError
from bpe_desktop.core.stopping import StopReason
from bpe_desktop.gui.training.protocol import TrainingState
from bpe_desktop.gui.widgets.token_labels import token_plain
from bpe_desktop.gui.work import same_corpus

SEED_MERGES = [("e", "s"), ("es", "t"), ("est", "</w>"), ("l", "o"), ("lo", "w"), ("e", "w"), ("ew", "est</w>")]
START_S = 30_000  # ms: spawned processes take about a second to start on a busy machine


def click_train(qtbot, w) -> None:
    button = w.findChild(QtWidgets.QToolBar).widgetForAction(w.train_action)
    qtbot.mouseClick(button, QtCore.Qt.MouseButton.LeftButton)


def wait_finished(qtbot, w) -> None:
    qtbot.waitUntil(lambda: w.session.state in (TrainingState.FINISHED, TrainingState.ERROR)
                    and not w.controller.running,
                    timeout=START_S)
    assert w.session.state is TrainingState.FINISHED, w.session.error


def table_pairs(w) -> list[tuple[str, str]]:
    m = w.merges.proxy
    return [(m.index(r, 1).data(QtCore.Qt.ItemDataRole.UserRole), m.index(r, 2).data(QtCore.Qt.ItemDataRole.UserRole))
            for r in range(m.rowCount())]


def shown_pairs(w) -> list[tuple[str, str]]:
    """The merges as the merge table should show them (its characters: bytes mode shows Ġ as a space; an
    extension run's added merges only)."""
    mode = w.session.model.mode
    return [(token_plain(r.left, mode), token_plain(r.right, mode)) for r in w.session.records[w.session.origin:]]


def check_run_labels(w) -> None:
    """Each row of the Runs list says as many merges as its run holds ("1 merge", "not trained yet"), the
    first run's name says its merge limit, and an untrained shown run has the settings the form shows."""
    s, pane = w.session, w.runs.pane
    assert pane.list.count() == len(s.runs)
    for i, run in enumerate(s.runs):
        text = pane.list.item(i).text()
        n = len(run.records) - run.start  # (an extension run: the merges added to the original)
        noun = "new merge" if run.extension is not None else "merge"
        if not n and run.extension is None:
            count = "not trained yet"
        else:  # (an extension with no merge added is the original itself: "0 new merges")
            count = f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"
        assert text.startswith(f"{i + 1}. {run.name}   —   {count}"), (text, n)
        if i == 0 and not run.renamed and run.origin.parent is None and run.extension is None:
            limit = run.config.merges
            assert ("no merge limit" if limit is None else f"up to {limit:,} merge") in run.name, run.name
    if not s.records:
        try:
            shown = w.settings.config()
        except BpeError:
            return
        assert s.work.config == shown, "an untrained run is what the settings form says"


def check_one_truth(w) -> None:
    """The invariant: the merges shown are the shown run's, trained on the corpus shown with the settings
    shown -- or the window says, where the user looks, that the corpus or settings changed since."""
    s = w.session
    work = s.work
    assert any(r is work for r in s.runs)
    assert table_pairs(w) == shown_pairs(w) and w.timeline.slider.maximum() == len(s.records)
    assert w.timeline.slider.minimum() == s.origin <= s.step  # an extension run's timeline starts at the original
    if work.extension is not None:  # ... its rows are the added merges; a rank table encodes by tiktoken's rule
        assert w.merges.table_model.rowCount() == len(s.records) - work.extension.start
        assert type(s.tokenizer).__name__ == ("RankRuleTokenizer" if work.extension.rule == "ranks" else "Tokenizer")
    if not s.state.active:
        check_run_labels(w)
    if not s.records or s.state.active:
        return
    if not same_corpus(w.corpus.source(), work.source):
        notice = w.statusBar().currentMessage()
        assert notice == w.STALE or notice.startswith("Session saved"), notice  # (a notice lasts 5 s)
    try:
        shown = w.settings.config()
    except BpeError:
        shown = None
    if shown != work.config:
        assert w.settings.banner_shown
    if work.stop_reason is not StopReason.LOADED:  # trained here: the core gives the same merges
        cfg = work.config.with_(merges=len(s.records), vocab_size=None)
        fresh = Trainer(count_source(work.source, cfg), cfg).run()
        if work.origin.parent is None:
            assert [(r.left, r.right) for r in fresh] == [(r.left, r.right) for r in s.records]
