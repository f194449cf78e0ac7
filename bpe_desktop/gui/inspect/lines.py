"""The inspector's line view: a window of the log's lines, each with one token strip per tokenizer stacked.

:class:`LinesView` shows lines ``first .. first + count`` of the head the worker sent (line numbers from 1
on screen), each as a small block: the line number, then per tokenizer a bar of its colour
(:data:`~.charts.TOKENIZER_COLORS`) and a :class:`DiffStrip` -- the compare pane's
:class:`~bpe_desktop.gui.compare.strip.TokenStrip` with the tokens that lie in a differing region
(:class:`~bpe_desktop.core.logs.boundaries.Differences`) outlined in orange, and the region chosen in the list
filled.  :meth:`LinesView.focus_region` moves the window to a region's line and scrolls it to the top.
Blocks are built a time slice per event-loop turn (a window of lines with two strips each
is slow to build and lay out), and only while the view is shown (a result arriving behind the "Where the tokens go"
tab no longer builds them in the turns its own first paint needs), so showing lines never stalls the window;
a strip's height is TokenStrip's (all lines shown: the inspector has no "show all"). It computes no tokens
(:mod:`.strip_data` cuts them out).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from ...core.logs.boundaries import Differences
from ..compare.strip import TokenStrip
from ..widgets.timers import one_shot
from .charts import TOKENIZER_COLORS
from .strip_data import StripData, line_starts, position

DIFF_PEN = QtGui.QColor("#ea580c")
ACTIVE_FILL = QtGui.QColor(234, 88, 12, 110)
ACTIVE_PEN = QtGui.QColor("#b91c1c")
DEFAULT_LINES = 20
STRIP_INSET = 66  # viewport width minus a strip's: margins, the line number and the colour bar
BUILD_SLICE_S = 0.008  # GUI time per turn spent building line blocks (the repaint of the new ones follows)
LINE_TOKEN_LIMIT = 600  # a line with more tokens (a log without newlines) shows its first ones and a count


class DiffStrip(TokenStrip):
    """A token strip that outlines the tokens inside given byte ranges (relative to its text)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.expanded = True  # a log line shows all its boxes (the inspector has no "show all")
        self.ranges: list[tuple[int, int]] = []
        self.active: tuple[int, int] | None = None

    def set_ranges(self, ranges: list[tuple[int, int]], active: tuple[int, int] | None) -> None:
        self.ranges, self.active = ranges, active
        self.update()

    def marked(self) -> list[int]:
        """Indices of the segments drawn as differing."""
        return [i for i, s in enumerate(self.segments) if s.id is not None
                and any(s.start < e and b < s.end for b, e in self.ranges)]

    def paintEvent(self, e: QtGui.QPaintEvent) -> None:
        super().paintEvent(e)
        if not self.ranges or not self.segments:
            return
        self._ensure_layout()
        marked = set(self.marked())
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        for rect, i in self._boxes:  # the base class's laid-out boxes
            if i not in marked:
                continue
            s = self.segments[i]
            active = self.active is not None and s.start < self.active[1] and self.active[0] < s.end
            if active:
                p.fillRect(rect, ACTIVE_FILL)
            p.setPen(QtGui.QPen(ACTIVE_PEN if active else DIFF_PEN, 2.4 if active else 1.6))
            p.drawRoundedRect(rect.adjusted(0.8, 0.8, -0.8, -0.8), 3, 3)
        p.end()


class LinesView(QtWidgets.QScrollArea):
    """Lines of the log with their token strips; ``windowChanged(int)`` gives the new first line."""

    windowChanged = QtCore.Signal(int)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.head = b""
        self.starts = np.zeros(1, dtype=np.int64)
        self.strips: tuple[StripData, ...] = ()
        self.diffs: Differences | None = None
        self.first = 0
        self.count = DEFAULT_LINES
        self.active: int | None = None  # the differing region chosen in the list
        self.blocks: list[QtWidgets.QWidget] = []
        self.strip_widgets: list[list[DiffStrip]] = []  # [line][tokenizer]
        self._holder = QtWidgets.QWidget()
        self._holder.setObjectName("inspectLines")
        self._col = QtWidgets.QVBoxLayout(self._holder)
        self._col.setContentsMargins(4, 4, 4, 4)
        self._col.setSpacing(4)
        self._col.addStretch(1)
        self.setWidget(self._holder)
        self._pending: list[int] = []  # lines of the window whose blocks are not built yet
        self._build_timer = QtCore.QTimer(self)
        self._build_timer.setInterval(0)
        self._build_timer.timeout.connect(self._build_some)
        self._target: QtWidgets.QWidget | None = None
        self._settle = one_shot(self, 30, self._final_scroll)  # the last scroll to the target, once settled

    @property
    def n_lines(self) -> int:
        return len(self.starts) - 1

    def set_data(self, head: bytes, strips: Sequence[StripData], diffs: Differences | None) -> None:
        self.head = head
        self.starts = line_starts(head)
        self.strips = tuple(strips)
        self.diffs = diffs
        self.active = None
        self.show_lines(0)

    def clear(self) -> None:
        self.set_data(b"", (), None)

    def line_of(self, offset: int) -> int:
        """The 0-based line holding byte *offset* of the head."""
        return max(position(self.starts, offset, "right") - 1, 0)

    def _ranges(self, a: int, b: int) -> list[tuple[int, int]]:
        d = self.diffs
        if d is None or not d.n_regions:
            return []
        i, j = position(d.ends, a, "right"), position(d.starts, b)
        return [(max(s, a) - a, min(e, b) - a) for s, e in zip(d.starts[i:j].tolist(), d.ends[i:j].tolist(),
                                                                strict=True)]

    def _active_in(self, a: int, b: int) -> tuple[int, int] | None:
        if self.active is None or self.diffs is None:
            return None
        s, e = int(self.diffs.starts[self.active]), int(self.diffs.ends[self.active])
        return (s - a, min(e, b) - a) if a <= s < b else None

    def show_lines(self, first: int, count: int | None = None) -> None:
        """Show *count* lines from line *first* (0-based; clamped to the head)."""
        if count is not None:
            self.count = max(1, int(count))
        self.first = max(0, min(int(first), max(self.n_lines - 1, 0)))
        self._target = None
        for w in self.blocks:
            self._col.removeWidget(w)
            w.hide()  # at once: a deferred delete would leave it painted until the event loop turns
            w.deleteLater()
        self.blocks, self.strip_widgets = [], []
        self._pending = list(range(self.first, min(self.first + self.count, self.n_lines)))
        self._build_timer.start()
        self.windowChanged.emit(self.first)

    def showEvent(self, e: QtGui.QShowEvent) -> None:
        super().showEvent(e)
        if self._pending:
            self._build_timer.start()

    def _build_some(self, until_line: int = -1) -> None:
        """Add blocks for a slice of time (a block with its strips takes a few ms), or synchronously up to
        *until_line*; the timer comes back for the rest, so a window of lines never stalls the GUI thread."""
        if until_line < 0 and not self.isVisible():  # behind another tab: built when shown (showEvent)
            self._build_timer.stop()
            return
        t0 = time.perf_counter()
        while self._pending and (self._pending[0] <= until_line or time.perf_counter() - t0 < BUILD_SLICE_S):
            self._add_block(self._pending.pop(0))
        if self._target is not None:
            self._scroll_to(self._target)
        if not self._pending:
            self._build_timer.stop()

    def block_for(self, line: int) -> QtWidgets.QWidget:
        """The block of a shown line, built now if it was still pending."""
        self._build_some(until_line=line)
        return self.blocks[line - self.first]

    def _add_block(self, line: int) -> None:
        a, b = int(self.starts[line]), int(self.starts[line + 1])
        block = QtWidgets.QFrame()
        block.setObjectName("inspectLine")
        grid = QtWidgets.QGridLayout(block)
        grid.setContentsMargins(4, 2, 4, 2)
        grid.setHorizontalSpacing(4)
        grid.setVerticalSpacing(2)
        num = QtWidgets.QLabel(f"{line + 1:,}")
        num.setObjectName("inspectLineNo")
        num.setAlignment(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignTop)
        grid.addWidget(num, 0, 0, max(len(self.strips), 1), 1)
        ranges, active = self._ranges(a, b), self._active_in(a, b)
        row_strips = []
        for k, sd in enumerate(self.strips):
            chip = QtWidgets.QFrame()  # the tokenizer's colour (the legend above names it)
            chip.setObjectName("inspectChip")
            chip.setFixedWidth(4)
            chip.setToolTip(sd.name)
            chip.setStyleSheet(f"background: {TOKENIZER_COLORS[k % len(TOKENIZER_COLORS)]}; border-radius: 2px;")
            strip = DiffStrip()
            strip.resize(max(self.viewport().width() - STRIP_INSET, 120), 10)  # its height fits this width
            strip.set_segments(sd.segments(self.head, a, b, LINE_TOKEN_LIMIT), sd.n_base)
            strip.set_ranges(ranges, active)
            grid.addWidget(chip, k, 1)
            grid.addWidget(strip, k, 2)
            row_strips.append(strip)
        grid.setColumnMinimumWidth(0, 34)
        grid.setColumnStretch(2, 1)
        self._col.insertWidget(self._col.count() - 1, block)
        self.blocks.append(block)
        self.strip_widgets.append(row_strips)

    def focus_region(self, region: int) -> int:
        """Show the differing region *region* (its line near the top, its tokens filled); its 0-based line."""
        assert self.diffs is not None
        self.active = region
        line = self.line_of(int(self.diffs.starts[region]))
        if self.first <= line < self.first + self.count:
            for k, strips in enumerate(self.strip_widgets):  # the line is shown: only the fill moves
                a, b = int(self.starts[self.first + k]), int(self.starts[self.first + k + 1])
                for st in strips:
                    st.set_ranges(st.ranges, self._active_in(a, b))
        else:
            self.show_lines(max(line - 2, 0))
        block = self.block_for(line)
        self._target = block  # kept at the top while the rest of the window is built and strips settle
        self._scroll_to(block)
        self._settle.start()
        return line

    def _final_scroll(self) -> None:
        if self._pending:
            self._settle.start()
        elif self._target is not None:
            self._scroll_to(self._target)
            self._target = None

    def _scroll_to(self, block: QtWidgets.QWidget) -> None:
        """Scroll *block* into view now: lay the new blocks out and size the holder first (the scroll area
        would do both only when its posted layout request comes round)."""
        self._col.activate()
        width = self.viewport().width()
        self._holder.resize(width, max(self._col.totalHeightForWidth(width), self.viewport().height()))
        self.verticalScrollBar().setValue(block.y() - 4)  # the line's top at the top of the view
