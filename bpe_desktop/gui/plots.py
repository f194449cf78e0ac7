"""The plots pane: pair frequencies (Zipf), the compression curve and the vocabulary trade-off, live.

It observes the session only.  Signals mark parts dirty and start a single-shot timer, so bursts of
``recordsAppended`` (and fast scrubbing via ``stepChanged``) coalesce into at most one redraw every
:data:`REFRESH_MS` milliseconds; the Zipf recount is further spaced out to a few times its own cost while
training runs, so the GUI thread stays responsive.  Plot items live in :mod:`.plot_zipf`,
:mod:`.plot_compression` and :mod:`.plot_tradeoff`; the numbers come from :mod:`.plot_feed` (which uses
:mod:`bpe_desktop.core.stats`).  Each plot exports as PNG, SVG and CSV from the buttons under it.

It does not train, and it never changes the session.
"""

from __future__ import annotations

import os
import time

from PySide6 import QtCore, QtWidgets

from ..core.errors import BpeError
from .plot_common import PlotCard
from .plot_compression import CompressionPlot
from .plot_feed import PlotFeed
from .plot_tradeoff import TradeoffPlot
from .plot_zipf import ZipfPlot
from .session import Session

REFRESH_MS = 33  # at most ~30 redraws a second
EXPORT_KINDS = {"png": "PNG image (*.png)", "svg": "SVG drawing (*.svg)", "csv": "CSV numbers (*.csv)"}


class PlotsPanel(QtWidgets.QWidget):
    """Three tabs of plots plus export buttons; follows the session's records and current step."""

    def __init__(self, session: Session, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.feed = PlotFeed(session)
        self.zipf = ZipfPlot()
        self.compression = CompressionPlot()
        self.tradeoff = TradeoffPlot()
        self.refreshes = 0  # redraws done (the throttle's effect is visible in tests)

        self.tabs = QtWidgets.QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.zipf, "Pair frequencies")
        self.tabs.addTab(self.compression, "Compression")
        self.tabs.addTab(self.tradeoff, "Trade-off")
        self.status = QtWidgets.QLabel("")
        self.status.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        bar = QtWidgets.QHBoxLayout()
        bar.setContentsMargins(4, 0, 4, 2)
        bar.addWidget(self.status, 1)
        self.buttons: dict[str, QtWidgets.QToolButton] = {}
        for kind in EXPORT_KINDS:
            b = QtWidgets.QToolButton()
            b.setText(f"{kind.upper()}…")
            b.setToolTip(f"Export the plot shown as {EXPORT_KINDS[kind].split(' (')[0]}")
            b.clicked.connect(lambda _=False, k=kind: self.ask_export(k))
            bar.addWidget(b)
            self.buttons[kind] = b
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.tabs, 1)
        lay.addLayout(bar)

        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self.refresh)
        self._curves_dirty = True
        self._zipf_dirty = True
        self._zipf_at = 0.0  # when the Zipf plot was last recomputed (perf_counter)
        session.corpusChanged.connect(self._on_reset)
        session.modelReset.connect(self._on_reset)
        session.recordsAppended.connect(self._on_records)
        session.stepChanged.connect(self._on_step)
        self._schedule()

    # -- signals ----------------------------------------------------------------------------------------
    def _schedule(self) -> None:
        if not self._timer.isActive():
            self._timer.start()

    def _on_reset(self) -> None:
        self.feed.reset()
        self._curves_dirty = self._zipf_dirty = True
        self._schedule()

    def _on_records(self, first: int, last: int) -> None:
        self._curves_dirty = True
        self._zipf_dirty = True  # the next pair to merge may have become known
        self._schedule()

    def _on_step(self, step: int) -> None:
        self._zipf_dirty = True
        self.compression.set_step(step)  # cheap: moves a line
        self.tradeoff.set_step(step)
        self._schedule()

    # -- redraw -----------------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Bring every plot up to date now (normally called by the throttling timer)."""
        self.refreshes += 1
        s = self.session
        step = s.step
        had = self.feed.history.n_merges if self.feed.history is not None else -1
        more = self.feed.advance()
        now_has = self.feed.history.n_merges if self.feed.history is not None else -1
        if self._curves_dirty or (not s.records and now_has != had):
            self.compression.set_data(self.feed.compression(), step)
            self.tradeoff.set_data(self.feed.tradeoff(), step)
            self._curves_dirty = False
        if self._zipf_dirty or now_has != had:
            training = s.state == "training"
            wait_s = 4 * self.feed.last_zipf_ms / 1000 if training else 0.0
            if time.perf_counter() - self._zipf_at >= wait_s:
                self._update_zipf(step)
            else:
                more = True
        self._update_status(step)
        if more:
            self._schedule()

    def _update_zipf(self, step: int) -> None:
        feed = self.feed
        z = feed.zipf(step)
        if z is None:
            h = feed.history
            note = feed.note or (
                f"Pair frequencies: replaying merges ({h.n_merges:,} of {len(self.session.model.merges):,})…"
                if h is not None else "Pair frequencies"
            )
            self.zipf.set_data(None, note=note)
            return
        self.zipf.set_data(z, feed.next_pair(step))
        self._zipf_dirty = False
        self._zipf_at = time.perf_counter()

    def _update_status(self, step: int) -> None:
        s = self.session
        z = self.zipf.data
        parts = [f"step {step:,} of {s.n_steps:,}"]
        if z is not None and z.step == step:
            parts.append(f"{len(z.counts):,} pairs")
            parts.append(f"recount {self.feed.last_zipf_ms:.0f} ms")
        elif self.feed.note:
            parts.append(self.feed.note)
        self.status.setText(" · ".join(parts))

    # -- export -----------------------------------------------------------------------------------------
    def current_plot(self) -> PlotCard:
        w = self.tabs.currentWidget()
        assert isinstance(w, PlotCard)
        return w

    def export(self, kind: str, path: str | os.PathLike[str], plot: PlotCard | None = None) -> None:
        """Write *plot* (default: the one shown) as ``png``, ``svg`` or ``csv`` to *path* (atomically)."""
        plot = plot or self.current_plot()
        if kind == "png":
            plot.export_png(path)
        elif kind == "svg":
            plot.export_svg(path)
        elif kind == "csv":
            if not plot.has_data():
                raise BpeError("this plot has no numbers yet -- load a corpus and train first")
            plot.export_csv(path)
        else:
            raise BpeError(f"unknown export kind {kind!r} -- use png, svg or csv")

    def ask_export(self, kind: str) -> None:
        plot = self.current_plot()
        step = self.session.step
        suggestion = f"{plot.name}-step{step}.{kind}"
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, f"Export {plot.name} plot", suggestion,
                                                        EXPORT_KINDS[kind])
        if not path:
            return
        try:
            self.export(kind, path, plot)
        except (BpeError, OSError) as e:
            QtWidgets.QMessageBox.warning(self, "Export failed", str(e))
