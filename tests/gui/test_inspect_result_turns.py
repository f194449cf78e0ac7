"""Issue 25 (the window stays responsive when a big log's result arrives): the Log inspector's tokens tab
shows a result's tables, bars and text at once and its sparkline (a pyqtgraph plot) on a later turn of the
event loop, so the two costs do not add up in one tick.  Counted, not timed: how often the plot is filled."""

from __future__ import annotations

from typing import Any

from bpe_desktop.core import TrainConfig, train
from bpe_desktop.core.logs.log_inspect import NamedTokenizer, inspect_text
from bpe_desktop.core.logs.robotlogs import generate
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer
from bpe_desktop.gui.inspect.tokens_tab import TokensTab


def _counting(tab: TokensTab) -> list[Any]:
    filled: list[Any] = []
    real = tab.sparkline.set_reports

    def fill(reports: Any) -> None:
        filled.append(tuple(reports))
        real(reports)

    tab.sparkline.set_reports = fill  # type: ignore[method-assign]
    return filled


def test_the_sparkline_is_filled_a_turn_after_the_tables_and_only_for_the_newest_result(qtbot) -> None:
    text = generate(60, seed=5)
    model, _ = train({"INFO": 9, "node": 5}, TrainConfig(mode="bytes", pretokenizer="gpt2", merges=3))
    first = inspect_text(text, [NamedTokenizer("t", Tokenizer(model))])
    newest = inspect_text(text[: len(text) // 2], [NamedTokenizer("u", Tokenizer(model))])
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
