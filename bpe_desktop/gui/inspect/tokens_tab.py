"""The inspector's "Where the tokens go" tab: per tokenizer, totals, tokens per category, per line, and the
most expensive spans.

:class:`TokensTab` shows an :class:`~bpe_desktop.core.logs.log_inspect.Inspection` as: a summary table (tokens,
characters and bytes per token, tokens per line mean and p95), stacked category bars
(:class:`~.charts.CategoryBars`), the per-category table (tokens and share per tokenizer, the text's bytes
of that category, which tokenizer needs fewest), the per-line sparkline (:class:`~.charts.LineSparkline`;
a click asks for that line: ``lineRequested(int)``) and the most expensive span groups per tokenizer
("timestamp '9999999999.999999999': 31.0% of all tokens").  It only displays the core's numbers.

A result's tables, bars and text are shown at once; its sparkline (a pyqtgraph plot, of fixed height: nothing
moves when it comes) a moment later (:data:`SPARKLINE_AFTER_MS`), so that filling and painting it is a turn of
its own, not added to the tables' (the window stays responsive when a big log's result arrives, issue 25).  Until
then its place is blank: neither the last result's curves beside the new tables nor empty axes (painting the
plot's axes alone is ~8 ms).  :meth:`TokensTab.settle` draws a pending sparkline now.
"""

from __future__ import annotations

import html

from PySide6 import QtCore, QtGui, QtWidgets

from ...core.logs.log_inspect import Inspection
from ...core.logs.logclass import Category
from ..widgets.timers import one_shot
from .charts import CATEGORY_COLORS, TOKENIZER_COLORS, CategoryBars, LineSparkline

SUMMARY_COLUMNS = ("tokens", "chars/token", "bytes/token", "tokens/line", "p95/line")
EXPENSIVE_SHOWN = 5
#: the sparkline is filled this long after its result's tables at the latest: the inspector asks for it sooner, on
#: a turn after its other tab's (panel.py), so that the pieces of work fall in different turns of the event loop
SPARKLINE_AFTER_MS = 250
EMPTY_TEXT = ("Nothing inspected yet. Open a log, paste text or take the robot-log sample, tick the tokenizers "
              "to compare, and press Inspect: this tab then shows where each one's tokens go -- per category, "
              "per line, and the spans that cost the most.")


def _item(text: str, right: bool = True) -> QtWidgets.QTableWidgetItem:
    it = QtWidgets.QTableWidgetItem(text)
    if right:
        it.setTextAlignment(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
    return it


def _fit_height(t: QtWidgets.QTableWidget) -> None:
    """No inner scroll bar: the table is as tall as its rows (the tab scrolls)."""
    h = t.horizontalHeader().height() + sum(t.rowHeight(r) for r in range(t.rowCount())) + 2 * t.frameWidth() + 2
    t.setFixedHeight(h)


def _table(name: str) -> QtWidgets.QTableWidget:
    t = QtWidgets.QTableWidget(0, 0)
    t.setObjectName(name)
    t.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
    t.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.NoSelection)
    t.setVerticalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    t.verticalHeader().setDefaultSectionSize(21)
    t.horizontalHeader().setStretchLastSection(False)
    return t


def _heading(text: str) -> QtWidgets.QLabel:
    lab = QtWidgets.QLabel(text)
    lab.setObjectName("inspectHeading")
    return lab


class TokensTab(QtWidgets.QScrollArea):
    lineRequested = QtCore.Signal(int)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # everything wraps
        body = QtWidgets.QWidget()
        body.setObjectName("inspectBody")
        lay = QtWidgets.QVBoxLayout(body)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.setSpacing(6)
        self.summary = _table("inspectSummary")
        self.bars = CategoryBars()
        self.categories = _table("inspectCategories")
        self.sparkline = LineSparkline()
        self.sparkline.lineClicked.connect(self.lineRequested)
        self._spark_place = QtWidgets.QStackedWidget()  # the plot, or a blank of its size until it is drawn
        self._spark_place.addWidget(QtWidgets.QWidget())
        self._spark_place.addWidget(self.sparkline)
        self._spark_place.setFixedHeight(self.sparkline.maximumHeight())
        self.spark_caption = QtWidgets.QLabel("")
        self.spark_caption.setObjectName("inspectHint")
        self.spark_caption.setWordWrap(True)
        self.expensive = QtWidgets.QLabel("")
        self.expensive.setObjectName("inspectExpensive")
        self.expensive.setWordWrap(True)
        self.expensive.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.expensive.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.empty = QtWidgets.QLabel(EMPTY_TEXT)  # before any result: what to do, not empty tables and axes
        self.empty.setObjectName("inspectHint")
        self.empty.setWordWrap(True)
        lay.addWidget(self.empty)
        self._content: list[QtWidgets.QWidget] = [
            self.summary, _heading("Tokens per category"), self.bars, self.categories,
            _heading("Tokens per line"), self._spark_place, self.spark_caption,
            _heading("Most expensive spans"), self.expensive]
        for w in self._content:
            lay.addWidget(w)
        lay.addStretch(1)
        self.setWidget(body)
        self.result: Inspection | None = None
        self._sparkline_due = one_shot(self, SPARKLINE_AFTER_MS, self._draw_sparkline)
        self._show_content(False)

    def _show_content(self, shown: bool) -> None:
        self.empty.setVisible(not shown)
        for w in self._content:
            w.setVisible(shown)

    def set_result(self, result: Inspection | None) -> None:
        self.result = result
        self._show_content(result is not None)
        reps = result.reports if result is not None else ()
        s = self.summary
        s.clear()
        s.setRowCount(len(reps))
        s.setColumnCount(len(SUMMARY_COLUMNS))
        s.setHorizontalHeaderLabels(SUMMARY_COLUMNS)
        s.setVerticalHeaderLabels([r.name for r in reps])
        for row, r in enumerate(reps):
            cells = (f"{r.tokens:,}", f"{r.chars_per_token:.2f}", f"{r.bytes_per_token:.2f}",
                     f"{r.tokens_per_line_mean:.1f}", f"{r.tokens_per_line_p95:,}")
            for col, text in enumerate(cells):
                s.setItem(row, col, _item(text))
            head = s.verticalHeaderItem(row)
            if head is not None:
                head.setForeground(QtGui.QColor(TOKENIZER_COLORS[row % len(TOKENIZER_COLORS)]))
        s.resizeColumnsToContents()
        _fit_height(s)
        self.bars.set_reports(reps)
        self._fill_categories(result)
        self._spark_place.setCurrentIndex(0)  # (blank: no older result's curves beside these tables)
        self._sparkline_due.start()  # (a newer result restarts it: only the shown one is drawn)
        n_lines = len(reps[0].per_line) if reps else 0
        self.spark_caption.setText(
            f"{n_lines:,} lines; " + "; ".join(f"{r.name}: mean {r.tokens_per_line_mean:.1f}, p95 "
                                               f"{r.tokens_per_line_p95}, max {int(r.per_line.max()) if n_lines else 0}"
                                               for r in reps) + ". Click the plot to show that line." if reps else "")
        parts = []
        for k, r in enumerate(reps):
            color = TOKENIZER_COLORS[k % len(TOKENIZER_COLORS)]
            items = "".join(f"<li>{html.escape(e.describe(r.tokens))}</li>" for e in r.expensive[:EXPENSIVE_SHOWN])
            parts.append(f"<b style='color:{color}'>{html.escape(r.name)}</b><ul style='margin:0'>{items}</ul>")
        self.expensive.setText("".join(parts))

    def settle(self) -> None:
        """Draw the shown result's sparkline now if it is still to come (what a test reads it after)."""
        if self._sparkline_due.isActive():
            self._sparkline_due.stop()
            self._draw_sparkline()

    def _draw_sparkline(self) -> None:
        self.sparkline.set_reports(self.result.reports if self.result is not None else ())
        self._spark_place.setCurrentWidget(self.sparkline)

    def _fill_categories(self, result: Inspection | None) -> None:
        t = self.categories
        t.clear()
        reps = result.reports if result is not None else ()
        many = len(reps) > 1
        cols = ["text bytes", *(r.name for r in reps), *(["fewest tokens"] if many else [])]
        t.setColumnCount(len(cols))
        t.setRowCount(len(Category) if result is not None else 0)
        t.setHorizontalHeaderLabels(cols)
        if result is None:
            _fit_height(t)
            return
        verdicts = {v.category: v for v in result.verdicts}
        for row, c in enumerate(Category):
            head = QtWidgets.QTableWidgetItem(c.label)
            pix = QtGui.QPixmap(10, 10)
            pix.fill(QtGui.QColor(CATEGORY_COLORS[c]))
            head.setIcon(QtGui.QIcon(pix))
            t.setVerticalHeaderItem(row, head)
            t.setItem(row, 0, _item(f"{result.category_bytes[c]:,}"))
            for k, r in enumerate(reps):
                t.setItem(row, 1 + k, _item(f"{r.categories[c]:,} ({100 * r.share(c):.1f}%)"))
            if many:
                v = verdicts[c]
                best = ", ".join(v.best) if len(v.best) < len(reps) else "tie"
                t.setItem(row, 1 + len(reps), _item(best, right=False))
        t.resizeColumnsToContents()
        _fit_height(t)

    def category_numbers(self) -> dict[str, dict[str, int]]:
        """What the category table shows, parsed back: tokenizer -> category label -> tokens (for tests)."""
        out: dict[str, dict[str, int]] = {}
        t = self.categories
        def text(item: QtWidgets.QTableWidgetItem | None) -> str:
            return item.text() if item is not None else ""

        for k in range(1, t.columnCount()):
            name = text(t.horizontalHeaderItem(k))
            if name == "fewest tokens":
                continue
            out[name] = {text(t.verticalHeaderItem(r)): int(text(t.item(r, k)).split(" ")[0].replace(",", ""))
                         for r in range(t.rowCount())}
        return out
