"""Issue 25 (the window stays responsive when a big log's result arrives): the Log inspector's tokens tab
shows a result's tables, bars and text at once and its sparkline (a pyqtgraph plot) on a later turn of the
event loop, so the two costs do not add up in one tick; the result's paint and the other tab come on turns of
their own too.  Counted, not timed: how often the plot is filled, what is painted before what."""

from __future__ import annotations

from typing import Any

from PySide6 import QtCore

from bpe_desktop.core import CorpusSource, TrainConfig, train
from bpe_desktop.core.logs.log_inspect import NamedTokenizer, inspect_text
from bpe_desktop.core.logs.robotlogs import generate
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer
from bpe_desktop.gui.inspect.job import InspectJob, TokenizerChoice, inspect_job
from bpe_desktop.gui.inspect.panel import LogInspector
from bpe_desktop.gui.inspect.tokens_tab import TokensTab
from bpe_desktop.gui.session import Session
from bpe_desktop.gui.widgets.repaint_hold import repaint_held
from support import shown


def _counting(tab: TokensTab) -> list[Any]:
    filled: list[Any] = []
    real = tab.sparkline.set_reports

    def fill(reports: Any) -> None:
        filled.append(tuple(reports))
        real(reports)

    tab.sparkline.set_reports = fill  # type: ignore[method-assign]
    return filled


def _two_results() -> tuple[Any, Any]:
    """Two inspections of a generated log (the second of its first half), by a 3-merge tokenizer."""
    text = generate(60, seed=5)
    model, _ = train({"INFO": 9, "node": 5}, TrainConfig(mode="bytes", pretokenizer="gpt2", merges=3))
    return (inspect_text(text, [NamedTokenizer("t", Tokenizer(model))]),
            inspect_text(text[: len(text) // 2], [NamedTokenizer("u", Tokenizer(model))]))


def test_the_sparkline_is_filled_a_turn_after_the_tables_and_only_for_the_newest_result(qtbot) -> None:
    first, newest = _two_results()
    tab = TokensTab()
    qtbot.addWidget(tab)
    tab.show()
    filled = _counting(tab)
    tab.set_result(first)
    assert tab.summary.item(0, 0).text() == f"{first.reports[0].tokens:,}"  # the tables at once
    assert filled == []  # (filled within set_result before)
    tab.set_result(newest)
    assert tab.summary.item(0, 0).text() == f"{newest.reports[0].tokens:,}" and filled == []
    qtbot.waitUntil(lambda: filled != [])  # a later turn, by itself
    assert filled == [newest.reports]  # the superseded result's plot is never drawn
    _x, y = tab.sparkline.curves[0].getData()
    assert y.tolist() == newest.reports[0].per_line.tolist()
    tab.settle()  # nothing pending: nothing redone
    tab.set_result(first)
    tab.settle()  # what a test reads the plot after: drawn now
    assert filled == [newest.reports, first.reports]
    qtbot.wait(60)
    assert len(filled) == 2


class _Paints(QtCore.QObject):
    """Paint events of the widgets it is installed on (and what had happened by the first one)."""

    def __init__(self, seen: list[str]) -> None:
        super().__init__()
        self.n = 0
        self.seen = seen

    def eventFilter(self, obj: QtCore.QObject, ev: QtCore.QEvent) -> bool:
        if ev.type() == QtCore.QEvent.Type.Paint:
            self.n += 1
            self.seen.append("tokens tab painted")
        return False


def test_a_result_is_painted_on_the_next_turn_and_the_other_tab_filled_after_that(qtbot) -> None:
    """The result's costs -- filling the first tab, painting it, filling the second, the first one's sparkline --
    fall in turns of their own: the first tab is not painted within the result's turn (nor in the posted events
    after it), the second is filled only after that paint, on a timer (so what fell due during the paint, input,
    runs first), and the sparkline after that."""
    text = generate(60, seed=5)
    model, recs = train({"INFO": 9, "node": 5}, TrainConfig(mode="bytes", pretokenizer="gpt2", merges=3))
    s = Session()
    s.set_corpus(CorpusSource.from_text("x"), TrainConfig(mode="bytes", pretokenizer="gpt2"))
    s.reset_model(model, list(recs))
    pane = shown(qtbot, LogInspector(s), 900, 700)
    pane.set_text(text)
    done = inspect_job(InspectJob((TokenizerChoice("t", model=model),), text=text))
    qtbot.wait(50)
    seen: list[str] = []
    paints = _Paints(seen)
    pane.tokens_tab.summary.viewport().installEventFilter(paints)
    real = pane.differ_tab.set_done

    def second(d: Any) -> None:
        seen.append("second tab filled")
        real(d)
        QtCore.QTimer.singleShot(0, lambda: seen.append("a timer due then"))

    pane.differ_tab.set_done = second  # type: ignore[method-assign]
    real_spark = pane.tokens_tab.sparkline.set_reports
    pane.tokens_tab.sparkline.set_reports = lambda r: (seen.append("sparkline filled"), real_spark(r))  # type: ignore
    pane._finished(done)
    assert pane.tokens_tab.summary.item(0, 0).text() == f"{done.inspection.reports[0].tokens:,}"
    QtCore.QCoreApplication.sendPostedEvents()  # the rest of the result's turn
    assert seen == [] and repaint_held(pane)  # (painted here before, and the second tab a timer later)
    qtbot.waitUntil(lambda: "sparkline filled" in seen)
    assert pane.differ_tab.done is done
    firsts = list(dict.fromkeys(seen))
    assert firsts == ["tokens tab painted", "second tab filled", "a timer due then", "sparkline filled"], seen


def test_until_its_sparkline_is_drawn_a_result_shows_a_blank_in_its_place(qtbot) -> None:
    """Neither the last result's curves beside the new tables nor empty axes (painting the axes alone was most
    of the first result's paint): the plot is not painted until it holds the shown result's curves."""
    first, newest = _two_results()
    tab = TokensTab()
    qtbot.addWidget(tab)
    tab.resize(700, 900)
    tab.show()
    qtbot.waitExposed(tab)
    seen: list[str] = []
    paints = _Paints(seen)
    tab.sparkline.viewport().installEventFilter(paints)
    for result in (first, newest):
        tab.set_result(result)
        assert not tab.sparkline.isVisible() and tab.summary.isVisible()
        qtbot.wait(50)  # the tables painted, the plot still to come
        assert paints.n == 0 and not tab.sparkline.isVisible()
        qtbot.waitUntil(lambda: paints.n > 0)  # drawn, then painted
        assert tab.sparkline.isVisible()
        _x, y = tab.sparkline.curves[0].getData()
        assert y.tolist() == result.reports[0].per_line.tolist()
        paints.n = 0
