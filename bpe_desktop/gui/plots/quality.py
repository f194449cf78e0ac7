"""The quality tab of the plots pane: bytes per token, fertility, vocabulary utilization, Shannon and Rényi
efficiency over merges ``k = 0..M``, on the training text and on a held-out text, with the step marked.

:class:`QualityPlot` draws five small plots sharing the merge axis (training text solid, held-out text
dashed) and exports them like the other plots (CSV: one row per text and step, columns
:data:`~bpe_desktop.core.measure.quality_curves.QUALITY_COLUMNS` after the text's name).  :class:`QualityTab`
adds the controls: the Rényi order α and the held-out text (none, a file, or the last 10 % of the
corpus's lines kept out of the next training run -- ``session.holdout``, which the controller hands to
the worker; not offered while an extension run is shown, which was learned on every line: :func:`no_last_lines`
says why there).  The numbers come from :mod:`.quality_feed`, driven by the plots pane's slices
(:mod:`.panel`: computed while the tab is shown or no training runs, drawn only while it is shown, so a
hidden tab costs a training run nothing); nothing here computes or observes the session beyond reading it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from ...core.measure.holdout import DEFAULT_HOLDOUT
from ...core.measure.quality import DEFAULT_ALPHA
from ...core.measure.quality_curves import QUALITY_COLUMNS, QualityCurve
from ..session import Session
from .common import ACCENT, LINE, SECOND, PlotCard, ink, set_title, style_plot
from .quality_feed import QualityFeed

#: (attribute of QualityCurve, plot title, axis label)
METRICS = (
    ("bytes_per_token", "Bytes per token", "bytes / token"),
    ("fertility", "Fertility: tokens per word", "tokens / word"),
    ("utilization", "Vocabulary utilization", "share used"),
    ("shannon_efficiency", "Shannon efficiency", "H / log₂|V|"),
    ("renyi_efficiency", "Rényi efficiency (α = {alpha:g})", "H_α / log₂|V|"),
)
PLOT_MIN_W = 250  # a plot narrower than this goes below the one before it (one column in a narrow pane)
PLOT_MIN_H = 150  # the card grows taller than the tab (it scrolls) rather than squash a plot below this
HELD_OUT_CHOICES = ("no held-out text", "a held-out file…", f"last {DEFAULT_HOLDOUT:.0%} of lines (next run)")
LAST_LINES = 2  # the choice that keeps the corpus's last lines out of the next training run


def no_last_lines(session: Session) -> str:
    """Why the last lines cannot be the shown run's held-out text ("" when they can): an extension run was
    learned on every line of its corpus (Extend keeps none out), and the next training run is not it."""
    ext = session.work.extension
    if ext is None:
        return ""
    return (f"this run extends {ext.label} and was learned on every line of its corpus, so none is held out (the "
            f"last {DEFAULT_HOLDOUT:.0%} of lines apply to the next training run) -- pick a held-out file")


def _xy(curve: QualityCurve, attr: str) -> tuple[np.ndarray, np.ndarray]:
    y = np.asarray(getattr(curve, attr), float)
    x = np.asarray(curve.steps, float)
    ok = np.isfinite(y)
    return (x, y) if ok.all() else (x[ok], y[ok])


class QualityPlot(PlotCard):
    name = "quality"
    csv_header = ("text", *QUALITY_COLUMNS)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.train: QualityCurve | None = None
        self.held: QualityCurve | None = None
        self.train_label, self.held_label = "training text", "held out"
        self.step = 0
        self.plots: dict[str, pg.PlotItem] = {}
        self.train_items: dict[str, pg.PlotDataItem] = {}
        self.held_items: dict[str, pg.PlotDataItem] = {}
        self.lines: list[pg.InfiniteLine] = []
        first = None
        self.columns = 2
        for i, (attr, title, axis) in enumerate(METRICS):
            p = self.addPlot(row=i // 2, col=i % 2)
            style_plot(p, title.format(alpha=DEFAULT_ALPHA), "merges", axis)
            p.getAxis("left").setWidth(64)  # (room for a share of a 100k vocabulary: 0.0156)
            p.getAxis("left").enableAutoSIPrefix(False)  # shares and ratios as they are, not "x0.001"
            if first is None:
                first = p
            else:
                p.setXLink(first)
            self.plots[attr] = p
            self.train_items[attr] = p.plot([], [], pen=pg.mkPen(LINE, width=2), antialias=True)
            self.held_items[attr] = p.plot([], [], pen=pg.mkPen(SECOND, width=2, style=QtCore.Qt.PenStyle.DashLine),
                                           antialias=True)
            for item in (self.train_items[attr], self.held_items[attr]):
                item.setClipToView(True)
                item.setDownsampling(auto=True, method="peak")
            line = pg.InfiniteLine(0, angle=90, movable=False, pen=pg.mkPen(ACCENT, width=1.5))
            p.addItem(line, ignoreBounds=True)
            self.lines.append(line)
        self.readout = pg.LabelItem("", color=ink(), size="9pt", justify="left")
        self.addItem(self.readout, row=2, col=1)
        self.setMinimumHeight(3 * PLOT_MIN_H)

    def rows(self, columns: int) -> int:
        return (len(METRICS) + 1 + columns - 1) // columns  # the plots and the readout

    def arrange(self, columns: int) -> None:
        """Lay the plots (and the readout after them) out in *columns* columns (1 or 2)."""
        if columns == self.columns:
            return
        self.columns = columns
        items = [*self.plots.values(), self.readout]
        for item in items:
            self.ci.removeItem(item)
        for i, item in enumerate(items):
            self.ci.addItem(item, row=i // columns, col=i % columns)
        self.setMinimumHeight(self.rows(columns) * PLOT_MIN_H)
        self.fit_titles()

    def set_data(self, train: QualityCurve | None, held: QualityCurve | None, step: int | None = None,
                 train_label: str = "training text", held_label: str = "held out") -> None:
        self.train, self.held = train, held
        self.train_label, self.held_label = train_label, held_label
        curve = train or held
        alpha = curve.alpha if curve is not None else DEFAULT_ALPHA
        set_title(self.plots["renyi_efficiency"], METRICS[4][1].format(alpha=alpha))  # (in the theme's ink)
        for curve, items in ((train, self.train_items), (held, self.held_items)):
            for attr, item in items.items():
                if curve is None or not len(curve):
                    item.setData([], [])
                else:
                    item.setData(*_xy(curve, attr))
        self.set_step(self.step if step is None else step)

    def set_step(self, step: int) -> None:
        self.step = step
        for line in self.lines:
            line.setValue(step)
        parts = [f"<b>step {step:,}</b>"]
        for label, curve, colour in ((self.train_label, self.train, LINE), (self.held_label, self.held, SECOND)):
            if curve is None or not len(curve):
                continue
            k = max(0, min(step, len(curve) - 1))
            m = curve.at(k)
            parts.append(
                f"<span style='color:{colour}'>■</span> {label}{f' (step {k:,})' if k != step else ''}:<br>"
                f"&nbsp;&nbsp;&nbsp;{_num(m.bytes_per_token)} bytes/token, {_num(m.fertility)} tokens/word,<br>"
                f"&nbsp;&nbsp;&nbsp;utilization {_num(m.utilization)} ({m.used:,} of {m.vocab_size:,}),<br>"
                f"&nbsp;&nbsp;&nbsp;Shannon {_num(m.shannon_efficiency)}, Rényi {_num(m.renyi_efficiency)}")
        self.readout.setText("<br>".join(parts), color=ink())

    def csv_rows(self) -> list[Sequence[object]]:
        out: list[Sequence[object]] = []
        for label, curve in ((self.train_label, self.train), (self.held_label, self.held)):
            if curve is not None:
                out.extend((label, *row) for row in curve.rows())
        return out

    def plotted(self, attr: str, held: bool = False) -> tuple[list[float], list[float]]:
        """The points drawn for a metric (for tests)."""
        x, y = (self.held_items if held else self.train_items)[attr].getOriginalDataset()
        return ([] if x is None else list(map(float, x)), [] if y is None else list(map(float, y)))


def _num(v: float) -> str:
    return "–" if math.isnan(v) else f"{v:.3f}"


class QualityTab(QtWidgets.QWidget):
    """The quality plot with its controls; :attr:`card` is what the pane exports."""

    def __init__(self, session: Session, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.feed = QualityFeed(session)
        self.card = QualityPlot(self)
        self.alpha = QtWidgets.QDoubleSpinBox(self)
        self.alpha.setRange(0.1, 20.0)
        self.alpha.setDecimals(2)
        self.alpha.setSingleStep(0.5)
        self.alpha.setValue(DEFAULT_ALPHA)
        self.alpha.setPrefix("Rényi α = ")
        self.alpha.setToolTip("order of the Rényi efficiency (Zouhar et al. 2023 recommend 2.5; 1 is Shannon's)")
        self.held_out = QtWidgets.QComboBox(self)
        self.held_out.addItems(HELD_OUT_CHOICES)
        self.held_out.setToolTip("measure also on text the tokenizer was not trained on: a file, or the last "
                                 f"{DEFAULT_HOLDOUT:.0%} of the corpus's lines kept out of the next training run")
        self.info = QtWidgets.QLabel(self)
        self.info.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        self.info.setProperty("muted", True)  # the theme's secondary text (style.qss)
        bar = QtWidgets.QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 0)
        bar.addWidget(self.alpha)
        bar.addWidget(self.held_out)
        bar.addWidget(self.info, 1)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addLayout(bar)
        self.plots_scroll = QtWidgets.QScrollArea(self)  # a short pane scrolls the plots instead of squashing them
        self.plots_scroll.setWidgetResizable(True)
        self.plots_scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.plots_scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.plots_scroll.setWidget(self.card)
        lay.addWidget(self.plots_scroll, 1)
        self._drawn = -1  # feed.changes when last drawn
        self._choice = 0
        self._refused = ""  # why the last choice was refused
        self.on_change: Callable[[], None] | None = None  # set by the plots pane: schedule a refresh
        self.alpha.valueChanged.connect(self._alpha_changed)
        self.held_out.activated.connect(self._held_out_chosen)
        self._update_info()

    def resizeEvent(self, e: QtGui.QResizeEvent) -> None:
        super().resizeEvent(e)
        self.card.arrange(2 if e.size().width() >= 2 * PLOT_MIN_W + 60 else 1)

    # -- driven by the plots pane -------------------------------------------------------------------
    def reset(self) -> None:
        self.feed.reset()
        self._drawn = -1
        self._update_info()

    def advance(self, budget_s: float) -> bool:
        return self.feed.advance(budget_s)

    @property
    def dirty(self) -> bool:
        return self.feed.changes != self._drawn

    def redraw(self, step: int) -> None:
        f = self.feed
        self._drawn = f.changes
        self.card.set_data(f.training_curve, f.held_out_curve, step, f.train_label, f.held_label)
        self._update_info()

    def set_step(self, step: int) -> None:
        self.card.set_step(step)

    # -- controls -----------------------------------------------------------------------------------
    def _alpha_changed(self, value: float) -> None:
        self.feed.set_alpha(value)
        self.changed()

    def changed(self) -> None:
        """Something the pane must redraw and compute (its refresh timer is poked by the pane's hook)."""
        self._drawn = -1
        self._update_info()
        if self.on_change is not None:
            self.on_change()

    def choose_held_out(self, choice: int, path: str | None = None) -> None:
        """0: none; 1: the file *path* (asked for when None); 2: hold out the corpus's last lines from the
        next run (and use them once that run has them)."""
        s = self.session
        if choice == 1 and not path:
            path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Held-out text", "",
                                                            "Text files (*.txt *.log *.md *.csv);;All files (*)")
            if not path:
                self.held_out.setCurrentIndex(self._choice)
                return
        refusal = no_last_lines(s) if choice == LAST_LINES else ""
        self._refused = refusal  # (shown until another choice or another run; the list offers it disabled)
        if refusal:
            self.held_out.setCurrentIndex(self._choice)
            self._update_info()
            return
        self._choice = choice
        self.held_out.setCurrentIndex(choice)
        s.set_holdout(DEFAULT_HOLDOUT if choice == LAST_LINES else 0.0)
        self.feed.set_held_out_file(path if choice == 1 else None)
        if choice == 0:
            self.feed.held_note = ""
        self.changed()

    def _held_out_chosen(self, index: int) -> None:
        self.choose_held_out(index)

    def _update_info(self) -> None:
        f, s = self.feed, self.session
        why = no_last_lines(s)
        notes = [n for n in (f.note, f.held_note, self._refused if why else "") if n]
        item = self.held_out.model().item(LAST_LINES)  # type: ignore[attr-defined]
        item.setEnabled(not why)
        item.setText(HELD_OUT_CHOICES[LAST_LINES] + (" -- not for an extension run" if why else ""))
        item.setToolTip(why or f"keep the last {DEFAULT_HOLDOUT:.0%} of the corpus's lines out of the next run")
        if self._choice == LAST_LINES and why and not self._refused:
            notes.append(why)
        elif self._choice == LAST_LINES:
            if s.held_out is not None:
                notes.append(f"this run trained on all but the last {s.held_out.lines:,} lines "
                             f"({s.held_out.share:.0%})")
            else:
                notes.append(f"the next run (Train, F5) keeps the last {DEFAULT_HOLDOUT:.0%} of the lines out")
        elif self._choice == 0 and s.held_out is not None:
            notes.append(f"this run kept its last {s.held_out.lines:,} lines out (shown dashed)")
        self.info.setText(" · ".join(notes))
        self.info.setToolTip("\n".join(notes))  # (a narrow pane cuts the line)
