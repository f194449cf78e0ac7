"""Compare runs: overlaid curves, the merge-list diff, and two token streams one above the other.

:class:`CompareRunsDialog` has the runs as a checklist on the left and three tabs:

* **Curves** -- the compression curve (total symbols vs merges), bytes per token vs merges and the pair
  frequencies (Zipf, log-log) at the chosen step, one coloured curve per checked run.  Compression and bytes
  per token come from each run's records and counted words (:func:`run_curves`); the Zipf data from a
  :class:`~..plots.feed.PlotFeed` per run, computed a slice at a time on a timer (never in one go).  A run
  left out of a plot is named under the plots, with why.
* **Merge diff** -- run A against run B with :func:`~bpe_desktop.core.measure.run_diff.diff_models`: the first
  divergence, merges only in A, only in B, the same merge at another rank, and the settings that differ.
* **Token streams** -- the corpus of run A and of run B at the same step, two token views (each on a
  read-only shadow :class:`~..session.Session` holding that run).

Steps are counted as each run's timeline counts them (:func:`steps_of`, :func:`model_step`): an extension run
(cl100k + merges learned here) starts at its original, "step 0 = cl100k", and its curves, Zipf data (the pair
counts of its corpus as the extension job segmented it at each step: ``Work.rewrites``) and token stream at step k
are the original plus its first k new merges.  It changes no run and trains nothing.
"""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from ...core.counting.pieces import WordCounts
from ...core.measure.run_diff import RunDiff, diff_models
from ...core.measure.stats import CompressionCurve, TradeOff, ZipfView, compression_from_records, tradeoff_from
from ..plots.common import LogAxis, style_plot
from ..plots.feed import PlotFeed
from ..session import Session
from ..stream.view import TokenStreamView
from ..training.protocol import TrainingState
from ..widgets import tab_titles
from ..wording import plural
from .rediscovery import RediscoveryPage
from .store import Run, RunStore

STYLES = (QtCore.Qt.PenStyle.SolidLine, QtCore.Qt.PenStyle.DashLine, QtCore.Qt.PenStyle.DotLine,
          QtCore.Qt.PenStyle.DashDotLine)  # overlapping runs (a branch shares its start) stay visible
PALETTE = ("#1f5fa8", "#d2492a", "#6a9a3a", "#7a4fa0", "#c28a00", "#0e8a8a", "#b03a7a", "#555555")
SLICE_S = 0.008  # GUI-thread time per run per timer tick while computing Zipf data


class RunCurves(NamedTuple):
    compression: CompressionCurve
    tradeoff: TradeOff | None  # None when the run's words are not counted (e.g. reopened, not retrained)


def corpus_totals(words: WordCounts) -> tuple[int, int]:
    """(pieces, bytes of the pieces), with multiplicity -- what the plots' history counts."""
    n_words = n_bytes = 0
    for w, c in words.counts.items():
        if c > 0 and w:
            n_words += c
            n_bytes += len(w.encode("utf-8", "surrogateescape")) * c
    return n_words, n_bytes


def steps_of(run: Run) -> int:
    """The steps *run*'s timeline shows after its step 0 (an extension run: its new merges)."""
    return max(0, run.n_merges - run.start)


def model_step(run: Run, k: int) -> int:
    """Step *k* as *run*'s timeline counts it (from its original, for an extension), as its model's merge count."""
    return run.start + max(0, min(k, steps_of(run)))


def rank_text(run: Run, r: int) -> str:
    """Merge *r* (1-based, in *run*'s merge list) as its timeline numbers it: an extension's new merges from 1,
    the original's merges by the original's name ("cl100k 57")."""
    if run.extension is not None and r <= run.start:
        return f"{run.extension.label} {r:,}"
    return f"{r - run.start:,}"


def run_curves(run: Run) -> RunCurves:
    """The compression curve and the trade-off (bytes per token) of a run, from its records, over the steps its
    timeline shows (an extension run's from its original)."""
    o = run.start
    first = run.initial_symbols or (run.records[0].symbols_before if run.records and not o else 0)
    curve = compression_from_records(first, run.records[o:])
    if run.word_counts is not None:
        n_words, n_bytes = corpus_totals(run.word_counts)
    elif run.extension is not None and run.rewrites is not None:  # (the pieces the extension job counted)
        n_words, n_bytes = run.rewrites.n_words, run.rewrites.n_bytes
    else:
        return RunCurves(curve, None)
    vocab = [run.model.vocab_size_at(o + k) for k in range(steps_of(run) + 1)]
    return RunCurves(curve, tradeoff_from(curve, vocab, n_words, n_bytes))


def left_out(run: Run) -> str:
    """Why *run* has no bytes per token and Zipf curves ("" when it has them)."""
    if run.word_counts is not None or (run.extension is not None and run.rewrites is not None):
        return ""
    if run.extension is not None:
        return (f"{run.name} (its corpus at each step of the extension is not known yet: a reopened session finds "
                "it again when the run is shown -- show it, then Compare again)")
    return f"{run.name} (its corpus is not counted: retrain or branch to count it)"


def shadow_session(run: Run, step: int | None = None) -> Session:
    """A session holding *run* (for a token view or a plot feed); the run is not copied, only referenced."""
    s = Session()
    shown = dataclasses.replace(run)  # its own step: the run's timeline stays where it is
    s.load(shown, runs=[shown])
    s.set_state(TrainingState.FINISHED)
    s.set_step(run.step if step is None else step)
    return s


class CompareRunsDialog(QtWidgets.QDialog):
    def __init__(self, store: RunStore, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Compare runs")
        self.store = store
        self.runs: list[Run] = [r for r in store.runs if r.records]
        self.checks = QtWidgets.QListWidget(self)
        self.checks.setObjectName("compareChecks")
        for i, run in enumerate(self.runs):
            it = QtWidgets.QListWidgetItem(f"{store.runs.index(run) + 1}. {run.name}")
            it.setFlags(it.flags() | QtCore.Qt.ItemFlag.ItemIsUserCheckable)
            it.setCheckState(QtCore.Qt.CheckState.Checked)
            pix = QtGui.QPixmap(12, 12)
            pix.fill(QtGui.QColor(PALETTE[i % len(PALETTE)]))
            it.setIcon(QtGui.QIcon(pix))
            it.setToolTip(f"{run.name}: {run.n_merges:,} merges" if run.extension is None else
                          f"{run.name}: {steps_of(run):,} new merges after {run.extension.label} (its step 0)")
            self.checks.addItem(it)
        self.step = QtWidgets.QSpinBox(self)
        self.step.setPrefix("step ")
        self.step.setGroupSeparatorShown(True)
        longest = max((steps_of(r) for r in self.runs), default=0)
        self.step.setRange(0, longest)
        self.step.setValue(min(store.session.shown_step(store.session.step), longest))
        self.step.setToolTip("The step of the Zipf plot and of the two token streams (an extension run's counted "
                             "from its original, as its timeline does)")
        self.step.setKeyboardTracking(False)

        self.tabs = QtWidgets.QTabWidget(self)
        self._build_curves()
        self._build_diff()
        self._build_streams()
        self.rediscovery = RediscoveryPage(self.runs, self)
        self.tabs.addTab(self.rediscovery, "Rediscovery")
        tab_titles.share_room(self.tabs)
        left = QtWidgets.QVBoxLayout()
        left.addWidget(QtWidgets.QLabel("Runs", self))
        left.addWidget(self.checks, 1)
        left.addWidget(self.step)
        lay = QtWidgets.QHBoxLayout(self)
        lay.addLayout(left, 0)
        lay.addWidget(self.tabs, 1)
        self.checks.setMaximumWidth(340)
        self.checks.setTextElideMode(QtCore.Qt.TextElideMode.ElideMiddle)
        self.resize(1200, 720)

        self._feeds: dict[int, PlotFeed] = {}
        self._zipf: dict[int, ZipfView] = {}
        self._timer = QtCore.QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._work)
        self.checks.itemChanged.connect(lambda _it: self.refresh_curves())
        self.step.valueChanged.connect(self._step_changed)
        self.refresh_curves()
        self.refresh_diff()
        self.refresh_streams()

    # -- curves -----------------------------------------------------------------------------------------------
    def _build_curves(self) -> None:
        w = self.plots = pg.GraphicsLayoutWidget()
        w.setBackground("w")
        self.compression_plot = w.addPlot(row=0, col=0)
        style_plot(self.compression_plot, "Compression: total symbols", "merges", "symbols")
        self.bpt_plot = w.addPlot(row=0, col=1)
        style_plot(self.bpt_plot, "Bytes per token", "merges", "bytes / token")
        self.zipf_plot = w.addPlot(row=1, col=0, colspan=2,
                                   axisItems={"bottom": LogAxis("bottom"), "left": LogAxis("left")})
        style_plot(self.zipf_plot, "Pair frequencies at the step (Zipf)", "rank (log)", "count (log)")
        self.zipf_plot.setLogMode(x=True, y=True)
        self.legend = self.zipf_plot.addLegend(offset=(10, -10))  # bottom left: the Zipf curves fall to the right
        self.curves: dict[str, dict[int, pg.PlotDataItem]] = {"compression": {}, "bytes_per_token": {}, "zipf": {}}
        self.curve_note = QtWidgets.QLabel(self)
        self.curve_note.setProperty("faint", True)  # the theme's caption colour (style.qss)
        page = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(page)
        lay.addWidget(w, 1)
        lay.addWidget(self.curve_note)
        self.tabs.addTab(page, "Curves")

    def checked(self) -> list[Run]:
        return [r for i, r in enumerate(self.runs)
                if self.checks.item(i).checkState() == QtCore.Qt.CheckState.Checked]

    def set_checked(self, runs: list[Run]) -> None:
        ids = {r.id for r in runs}
        for i, r in enumerate(self.runs):
            self.checks.item(i).setCheckState(QtCore.Qt.CheckState.Checked if r.id in ids
                                              else QtCore.Qt.CheckState.Unchecked)

    def curve_data(self, kind: str) -> dict[int, tuple[list[float], list[float]]]:
        """Run id -> (x, y) of the drawn curve *kind* (``compression``, ``bytes_per_token``, ``zipf``)."""
        out = {}
        for rid, item in self.curves[kind].items():
            x, y = item.getOriginalDataset()
            out[rid] = ([] if x is None else list(map(float, x)), [] if y is None else list(map(float, y)))
        return out

    def refresh_curves(self) -> None:
        for plot, items in ((self.compression_plot, self.curves["compression"]),
                            (self.bpt_plot, self.curves["bytes_per_token"]), (self.zipf_plot, self.curves["zipf"])):
            for item in items.values():
                plot.removeItem(item)
            items.clear()
        self.legend.clear()
        missing = []
        for run in self.checked():
            pen = self._pen(run)
            c = run_curves(run)
            item = self.compression_plot.plot(np.asarray(c.compression.steps, float),
                                              np.asarray(c.compression.symbols, float), pen=pen)
            self.curves["compression"][run.id] = item
            if c.tradeoff is not None:
                self.curves["bytes_per_token"][run.id] = self.bpt_plot.plot(
                    np.asarray(c.tradeoff.steps, float), np.asarray(c.tradeoff.bytes_per_token, float), pen=pen)
            else:
                missing.append(left_out(run))
            self.legend.addItem(pg.PlotDataItem([], [], pen=pen), html.escape(run.name))
        notes = ["left out of bytes per token and Zipf: " + "; ".join(missing)] if missing else []
        origins = sorted({r.extension.label for r in self.checked() if r.extension is not None})
        if origins:
            notes.append(f"an extension run's curves start at its original (step 0 = {', '.join(origins)})")
        self.curve_note.setText(" · ".join(notes))
        self._zipf = {rid: z for rid, z in self._zipf.items() if z.step == self.step.value()}
        self._draw_zipf()
        self._timer.start()

    def _pen(self, run: Run, width: float = 2.0) -> QtGui.QPen:
        i = self.runs.index(run)
        return pg.mkPen(PALETTE[i % len(PALETTE)], width=width, style=STYLES[i % len(STYLES)])

    def _feed(self, run: Run) -> PlotFeed | None:
        if left_out(run):
            return None
        feed = self._feeds.get(run.id)
        if feed is None:
            feed = self._feeds[run.id] = PlotFeed(shadow_session(run, run.n_merges))
        return feed

    def _work(self) -> None:
        """One timer tick: a slice of Zipf work per checked run that lacks its data at the step."""
        k = self.step.value()
        pending = False
        for run in self.checked():
            if run.id in self._zipf:
                continue
            feed = self._feed(run)
            if feed is None:
                continue
            step = min(k, steps_of(run))  # (the feed counts steps as the run's timeline does)
            if not feed.ready_for(step):
                feed.advance(SLICE_S)
                pending = True
                continue
            z = feed.zipf(step, SLICE_S)
            if z is None:
                pending = True
                continue
            self._zipf[run.id] = z
            self._draw_zipf()
        if not pending:
            self._timer.stop()

    def zipf_done(self) -> bool:
        return not self._timer.isActive()

    def _draw_zipf(self) -> None:
        items = self.curves["zipf"]
        for run in self.checked():
            z = self._zipf.get(run.id)
            if z is None or run.id in items or not z.counts:
                continue
            items[run.id] = self.zipf_plot.plot(np.asarray(z.ranks, float), np.asarray(z.counts, float),
                                                pen=self._pen(run, 1.6))

    def _step_changed(self, k: int) -> None:
        self._zipf.clear()
        for item in self.curves["zipf"].values():
            self.zipf_plot.removeItem(item)
        self.curves["zipf"].clear()
        self._timer.start()
        for s in self._stream_sessions:
            s.set_step(s.origin + k)  # (an extension run's step k: its original and k new merges)

    # -- diff -------------------------------------------------------------------------------------------------
    def _pickers(self) -> tuple[QtWidgets.QComboBox, QtWidgets.QComboBox]:
        a, b = QtWidgets.QComboBox(), QtWidgets.QComboBox()
        for combo in (a, b):
            for i, run in enumerate(self.runs):
                combo.addItem(f"{self.store.runs.index(run) + 1}. {run.name}", i)
        if len(self.runs) > 1:
            b.setCurrentIndex(1)
        return a, b

    def _build_diff(self) -> None:
        self.diff_a, self.diff_b = self._pickers()
        self.diff_summary = QtWidgets.QLabel(self)
        self.diff_summary.setWordWrap(True)
        self.diff_summary.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.diff_tree = QtWidgets.QTreeWidget(self)
        self.diff_tree.setObjectName("diffTree")
        self.diff_tree.setHeaderLabels(["merge", "rank in A", "rank in B"])
        self.diff_tree.setUniformRowHeights(True)
        self.diff_tree.header().setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.Stretch)
        self.diff: RunDiff | None = None
        self._pair_page("Merge diff", ("A", self.diff_a), ("B", self.diff_b), (self.diff_summary, self.diff_tree),
                        self.refresh_diff)

    def refresh_diff(self) -> None:
        self.diff_tree.clear()
        if not self.runs:
            self.diff_summary.setText("No trained run to compare yet.")
            return
        a, b = self.runs[self.diff_a.currentData()], self.runs[self.diff_b.currentData()]
        d = self.diff = diff_models(a.model.truncated(a.n_merges), b.model.truncated(b.n_merges))
        ea, eb = a.extension, b.extension
        same = ea is not None and eb is not None and (ea.spec, ea.sha256, ea.start) == (eb.spec, eb.sha256, eb.start)
        o = a.start if same and d.common_prefix >= a.start else 0  # (both extend one original: count from it)
        first, noun = (f"{ea.label} and ", "new merge") if o and ea is not None else ("", "merge")
        if d.identical:
            head = f"<b>Identical merge lists</b> ({first}{plural(d.n_a - o, noun)})."
        else:
            head = (f"<b>First divergence at {noun} {(d.first_divergence or 0) - o:,}</b> — the runs share "
                    f"{first}their first {plural(d.common_prefix - o, noun)}; A has {d.n_a - o:,}, B {d.n_b - o:,}.")
        self.diff_summary.setText(head)

        def group(title: str, rows: list[tuple[str, str, str]]) -> None:
            top = QtWidgets.QTreeWidgetItem([f"{title} ({len(rows):,})", "", ""])
            f = top.font(0)
            f.setBold(True)
            top.setFont(0, f)
            top.addChildren([QtWidgets.QTreeWidgetItem(list(r)) for r in rows])
            self.diff_tree.addTopLevelItem(top)
            top.setExpanded(len(rows) <= 200)

        group("Settings that differ", [(f"{c.name}: {c.before} → {c.after}", "", "") for c in d.settings])
        group("Only in A", [(f"{m.left} + {m.right}", rank_text(a, m.rank), "") for m in d.only_a])
        group("Only in B", [(f"{m.left} + {m.right}", "", rank_text(b, m.rank)) for m in d.only_b])
        group("Same merge, another rank", [(f"{m.left} + {m.right}", rank_text(a, m.rank_a), rank_text(b, m.rank_b))
                                           for m in d.moved])

    def diff_rows(self, group: int) -> list[tuple[str, str, str]]:
        """The rows of diff group *group* (0 settings, 1 only A, 2 only B, 3 moved), as shown."""
        top = self.diff_tree.topLevelItem(group)
        if top is None:
            return []
        out = []
        for i in range(top.childCount()):
            item = top.child(i)
            if item is not None:
                out.append((item.text(0), item.text(1), item.text(2)))
        return out

    def _pair_page(self, title: str, a: tuple[str, QtWidgets.QComboBox], b: tuple[str, QtWidgets.QComboBox],
                   body: tuple[QtWidgets.QWidget, ...], refresh: Callable[[], object]) -> None:
        """A tab with two run pickers on top (each change calls *refresh*) and *body* below; the last body
        widget takes the room."""
        page = QtWidgets.QWidget()
        top = QtWidgets.QHBoxLayout()
        for label, picker in (a, b):
            top.addWidget(QtWidgets.QLabel(label))
            top.addWidget(picker, 1)
            picker.currentIndexChanged.connect(lambda _i: refresh())
        lay = QtWidgets.QVBoxLayout(page)
        lay.addLayout(top)
        for i, w in enumerate(body):
            lay.addWidget(w, 1 if i == len(body) - 1 else 0)
        self.tabs.addTab(page, title)

    # -- streams ----------------------------------------------------------------------------------------------
    def _build_streams(self) -> None:
        self.stream_a, self.stream_b = self._pickers()
        self._stream_sessions: list[Session] = []
        self.views: list[TokenStreamView] = []
        self._stream_box = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        self._pair_page("Token streams", ("upper", self.stream_a), ("lower", self.stream_b), (self._stream_box,),
                        self.refresh_streams)

    def refresh_streams(self) -> None:
        for v in self.views:
            v.setParent(None)
            v.deleteLater()
        self.views, self._stream_sessions = [], []
        if not self.runs:
            return
        k = self.step.value()
        for combo in (self.stream_a, self.stream_b):
            run = self.runs[combo.currentData()]
            s = shadow_session(run, model_step(run, k))
            s.setParent(self)
            view = TokenStreamView(s)
            view.set_animation_duration(0)
            side = view.tree.parentWidget()
            if side is not None:
                side.hide()  # the derivation side panel: no room for it here
            self._stream_sessions.append(s)
            self.views.append(view)
            self._stream_box.addWidget(view)

    def done(self, r: int) -> None:
        self._timer.stop()
        for feed in self._feeds.values():  # (a big run's feed has a statistics process: it ends with the dialog)
            feed.close()
        self._feeds.clear()
        super().done(r)
