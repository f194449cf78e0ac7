"""The inspector's "Where they differ" tab: the spans two or more tokenizers cut differently, listed and
shown in the token strips, and which tokenizer needs fewest tokens per category.

On the left, the verdict ("fewest tokens — trained: timestamp, integer …; cl100k_base: word") above the
list of differing spans as the core groups them (``"`_controller`: 1 token vs 2 (x2053)"``, biggest token
difference first, :data:`LIST_LIMIT` at most).  Clicking an entry shows its first occurrence in the line
view (:class:`~.lines.LinesView`: the region filled, every differing token outlined); clicking it again
goes to the next occurrence.  Above the line view: the first line shown and Previous/Next page.
It displays :class:`~.job.Done` and computes only where an entry occurs (:func:`~.strip_data.occurrences`).
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from .charts import TOKENIZER_COLORS
from .job import Done
from .lines import DEFAULT_LINES, LinesView
from .strip_data import occurrences

LIST_LIMIT = 500
EMPTY_TEXT = ("Nothing inspected yet. Inspect a log with two or more tokenizers: this tab then lists the spans "
              "they cut differently, outlines them in each tokenizer's strip, and says which categories each "
              "needs fewest tokens for.")


def verdict_text(done: Done) -> str:
    """Per tokenizer, the categories it needs fewest tokens for (ties left out)."""
    reps = done.inspection.reports
    if len(reps) < 2:
        return "Inspect with two or more tokenizers to see where they differ."
    wins: dict[str, list[str]] = {r.name: [] for r in reps}
    ties = []
    for v in done.inspection.verdicts:
        if len(v.best) == 1:
            wins[v.best[0]].append(v.category.label)
        else:
            ties.append(v.category.label)
    parts = [f"<b>{n}</b>: {', '.join(c) if c else '—'}" for n, c in wins.items()]
    tie = f"; tie: {', '.join(ties)}" if ties else ""
    return "Fewest tokens per category — " + "; ".join(parts) + tie


class DifferTab(QtWidgets.QWidget):
    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.done: Done | None = None
        self._next: dict[int, int] = {}  # group row -> index of the occurrence shown next
        self.verdict = QtWidgets.QLabel("")
        self.verdict.setObjectName("inspectVerdict")
        self.verdict.setWordWrap(True)
        self.summary = QtWidgets.QLabel("")
        self.summary.setObjectName("inspectHint")
        self.summary.setWordWrap(True)
        self.list = QtWidgets.QListWidget()
        self.list.setObjectName("diffList")
        self.list.setUniformItemSizes(True)
        self.list.itemClicked.connect(self._clicked)
        self.list.itemActivated.connect(self._clicked)
        self.where = QtWidgets.QLabel("")
        self.where.setObjectName("inspectHint")
        left = QtWidgets.QWidget()
        ll = QtWidgets.QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.summary)
        ll.addWidget(self.list, 1)
        ll.addWidget(self.where)

        self.lines = LinesView()
        self.first_spin = QtWidgets.QSpinBox()
        self.first_spin.setRange(1, 1)
        self.first_spin.setGroupSeparatorShown(True)
        self.first_spin.setPrefix("line ")
        self.first_spin.setKeyboardTracking(False)
        self.first_spin.valueChanged.connect(lambda v: self.lines.show_lines(v - 1) if v - 1 != self.lines.first
                                             else None)
        self.lines.windowChanged.connect(self._window_changed)
        prev_b = QtWidgets.QToolButton()
        prev_b.setText("◀")
        prev_b.setToolTip("Previous lines")
        prev_b.clicked.connect(lambda: self.lines.show_lines(self.lines.first - self.lines.count))
        next_b = QtWidgets.QToolButton()
        next_b.setText("▶")
        next_b.setToolTip("Next lines")
        next_b.clicked.connect(lambda: self.lines.show_lines(self.lines.first + self.lines.count))
        self.range_label = QtWidgets.QLabel("")
        self.range_label.setObjectName("inspectHint")
        nav = QtWidgets.QHBoxLayout()
        nav.addWidget(QtWidgets.QLabel("Show from"))
        nav.addWidget(self.first_spin)
        nav.addWidget(prev_b)
        nav.addWidget(next_b)
        nav.addWidget(self.range_label, 1)
        self.legend = QtWidgets.QLabel("")
        self.legend.setObjectName("inspectHint")
        self.legend.setWordWrap(True)
        right = QtWidgets.QWidget()
        rl = QtWidgets.QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addLayout(nav)
        rl.addWidget(self.legend)
        rl.addWidget(self.lines, 1)

        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        split.setSizes([200, 600])
        split.setChildrenCollapsible(False)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addWidget(self.verdict)
        lay.addWidget(split, 1)
        lay.addStretch(0)  # (takes the room only while the split is hidden: the hint stays at the top)
        self._split = split
        self.set_done(None)

    def set_done(self, done: Done | None) -> None:
        self.done = done
        self._next.clear()
        self.list.clear()
        self.where.setText("")
        self._split.setVisible(done is not None)  # before a result: what this tab will show, not an empty view
        if done is None:
            self.verdict.setText(EMPTY_TEXT)
            self.summary.setText("")
            self.legend.setText("")
            self.lines.clear()
            return
        self.verdict.setText(verdict_text(done))
        marks = [f"<span style='color:{TOKENIZER_COLORS[k % len(TOKENIZER_COLORS)]}'>▍<b>{s.name}</b></span>"
                 for k, s in enumerate(done.strips)]
        self.legend.setText(" ".join(marks) + " &nbsp;— orange: cut differently; filled: the chosen span")
        d = done.inspection.differences
        if d is not None:
            total = int((d.ends - d.starts).sum())
            self.summary.setText(f"{d.n_regions:,} spans cut differently ({total:,} bytes), {len(d.groups):,} "
                                 f"distinct; tokens {' vs '.join(d.names)}:")
            for g in d.top(LIST_LIMIT):
                self.list.addItem(g.describe())
        else:
            self.summary.setText("One tokenizer: nothing to compare.")
        self.lines.set_data(done.head, done.strips, d)
        self.first_spin.setRange(1, max(self.lines.n_lines, 1))

    def _window_changed(self, first: int) -> None:
        self.first_spin.blockSignals(True)
        self.first_spin.setValue(first + 1)
        self.first_spin.blockSignals(False)
        last = min(first + self.lines.count, self.lines.n_lines)
        shown = self.done.inspection.reports[0].per_line.size if self.done is not None else 0
        n = self.lines.n_lines
        more = f" (strips cover the first {n:,} of {shown:,} lines)" if shown > n else ""
        self.range_label.setText(f"lines {first + 1:,}–{last:,} of {self.lines.n_lines:,}{more}")

    def show_group(self, row: int) -> int | None:
        """Show the next occurrence of list entry *row* in the strips; its region index (None: not in the head)."""
        done = self.done
        if done is None or done.inspection.differences is None:
            return None
        d = done.inspection.differences
        group = d.groups[row]
        where = occurrences(d, group.text, done.head)
        if not len(where):
            self.where.setText("Its occurrences lie beyond the part of the log the strips show.")
            return None
        k = self._next.get(row, 0) % len(where)
        self._next[row] = k + 1
        region = int(where[k])
        line = self.lines.focus_region(region)
        self.where.setText(f"occurrence {k + 1:,} of {len(where):,} (line {line + 1:,}); click again for the next")
        return region

    def _clicked(self, item: QtWidgets.QListWidgetItem) -> None:
        self.show_group(self.list.row(item))

    def show_line(self, line: int) -> None:
        self.lines.show_lines(max(line - 2, 0), DEFAULT_LINES if self.lines.count <= 0 else None)
