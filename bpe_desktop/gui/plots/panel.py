"""The plots pane: pair frequencies (Zipf), the compression curve, the vocabulary trade-off and the quality
curves (:mod:`.quality`), live.

It observes the session only.  Signals mark parts dirty and start a single-shot timer, so bursts of
``recordsAppended`` (and fast scrubbing via ``stepChanged``) coalesce into at most one redraw every
:data:`REFRESH_MS` milliseconds.  The statistics work (building the history, replaying merges, recounting
pairs) runs in slices of :data:`SLICE_S` seconds every :data:`BUSY_MS` ms while training runs (a little more when idle:
:data:`IDLE_SLICE_S`, :data:`IDLE_BUSY_MS`) until done, the Zipf recount of the step shown first, so the GUI
thread never stalls for long. While the pane is hidden (a tab behind another pane:
:func:`..widgets.on_screen.on_screen`) nothing is drawn until it is shown (moving the step marks cost time
every frame during playback even when nobody could see them), and the statistics are computed only while no
run streams (their slices lengthened the window's busiest moments). A slice is put off (up to
:data:`MAX_YIELDS` times) when the timer fires late or records have just arrived, i.e. right after other
work in the GUI thread (or the records, and the repaint they cause, are less than :data:`RECENT_S` old).
While the history lags behind the step shown (live training), the Zipf plot shows the latest step it has
reached, says so in its title, and is redrawn at most every :data:`CATCH_UP_S` seconds; Zipf data that a
slice finished is drawn on the next turn, not in the slice's (drawing it, then a repaint, would lengthen that
turn). Plot items live in :mod:`.zipf`, :mod:`.compression` and :mod:`.tradeoff`; the numbers come from
:mod:`.feed` (which uses :mod:`bpe_desktop.core.measure.stats`). Each plot exports as PNG, SVG and CSV from
the buttons under it.  Every plot counts steps as the timeline shows them (``Session.shown_step``: an extension
run's from its original); an extension run reopened from a session has its corpus segmented at every step again
on a helper thread (:func:`..extend.job.segmentation_again`, polled), the plots saying so meanwhile or why not.

It does not train, and it changes the session only by handing it that segmentation (``Session.set_rewrites``).
"""

from __future__ import annotations

import os
import time

from PySide6 import QtGui, QtWidgets

from ...core.errors import BpeError
from ...core.measure.quality import TextTotals
from ...core.measure.stats import Rewrites, ZipfView
from ..extend.job import held_out_segmentation, segmentation_again
from ..polled_jobs import PolledJobs
from ..session import Session
from ..training.protocol import TrainingState
from ..widgets import tab_titles
from ..widgets.elided_label import ElidedLabel, LabelHost, Part
from ..widgets.on_screen import DockWatch, on_screen
from ..widgets.repaint_hold import hold_repaint
from ..widgets.timers import one_shot
from ..wording import plural
from ..work import Work
from .common import PlotCard
from .compression import CompressionPlot
from .export_wait import wait_for_export
from .feed import AGAIN_NOTE, PlotFeed
from .quality import QualityTab
from .remote_history import ExportState
from .tradeoff import TradeoffPlot
from .zipf import ZipfPlot

REFRESH_MS = 33  # at most ~30 redraws a second
BUSY_MS = 15  # next slice of statistics work while some remains (training runs)
SLICE_S = 0.003  # GUI-thread time per slice (a unit of work may run a little past it) while training runs
IDLE_BUSY_MS, IDLE_SLICE_S = 8, 0.0035  # the same when no run competes (a slice plus a repaint < 16 ms)
DRAW_AFTER_S = 0.001  # Zipf data whose recount took longer than this in a turn is drawn on the next turn
LATE_S = 0.003  # a timer this late means the GUI thread was just busy: skip the slice ...
RECENT_S = 0.012  # ... and so do records (or a followed step) this recent: the window's repaint comes next
LATE_RETRY_MS, MAX_YIELDS = 4, 3  # ... and retry soon, but work anyway after this many skips in a row
CURVES_EVERY_S = 0.1  # while training: redraw the compression and trade-off curves at most this often
HIDDEN_EVERY_S = 0.5  # ... or this often while their tab is not the one shown
MARKS_BURST_S = 0.05  # a step change this soon after the last (playback, fast scrubbing) moves the marks later
CATCH_UP_S = 1.0  # while the history lags: redraw the Zipf plot of its latest step at most this often
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
        self.quality = QualityTab(session)
        self.quality.on_change = self._schedule
        self.refreshes = 0  # redraws done (plots given new data; the throttle's effect is visible in tests)
        self.slices = 0  # refresh() calls (each does at most about SLICE_S of statistics work)

        self.tabs = QtWidgets.QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.zipf, "Pairs")  # the plot's own title says "Pair frequencies"
        self.tabs.addTab(self.compression, "Compression")
        self.tabs.addTab(self.tradeoff, "Trade-off")
        self.tabs.addTab(self.quality, "Quality")
        self.tabs.setTabToolTip(0, "Pairs: the pair frequencies (Zipf, log-log)")
        tab_titles.share_room(self.tabs)
        self.tabs.currentChanged.connect(self._tab_changed)
        self.status = ElidedLabel("")  # parts shed when narrow (see _update_status)
        self.status.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        bar = QtWidgets.QHBoxLayout()
        bar.setContentsMargins(4, 0, 4, 2)
        bar.addWidget(LabelHost(self.status), 1)
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

        self._timer = one_shot(self, REFRESH_MS, self.refresh)
        self._dock_watch = DockWatch(self, self._schedule)  # its dock's tab brought to the front: draw
        self._curves_dirty = True
        self._zipf_dirty = True
        self._zipf_at = 0.0  # when the Zipf plot was last recomputed (perf_counter)
        self._note_shown = ""  # the feed's note the pair plot shows (no data)
        self._zipf_ready: tuple[ZipfView, int, str] | None = None  # computed by a slice, drawn on the next turn
        self._curves_at = 0.0  # when the curves were last redrawn
        self._tradeoff_next = False  # the compression curve is drawn: the trade-off's turn comes next
        self._due = 0.0  # when the timer should fire
        self._records_at = 0.0  # when records last arrived
        self._yielded = 0  # slices skipped in a row because the timer fired late
        self._marks_dirty = False  # the step marks on the curves lag the step (moved by the next refresh)
        self._step_at = 0.0  # when the step last changed
        self._quality_at = 0.0  # when the quality curves were last redrawn
        self._turn = False  # whose turn the next slice is: the statistics (True) or the quality curves
        # an extension run's segmentation at every step found again (a reopened session), by id(work)
        self._again: PolledJobs[int, Rewrites] = PolledJobs(self, self._took_segmentation, "measure")
        self._again_works: dict[int, Work] = {}
        self._again_failed: dict[int, tuple[Work, str]] = {}  # id(work) -> (the work, why it could not be found)
        # ... and a held-out file segmented at every step of the shown extension run, by (id(work), path)
        self._held: PolledJobs[tuple[int, str], tuple[Rewrites, TextTotals]] = PolledJobs(
            self, self._took_held_out, "measure")
        self._held_works: dict[tuple[int, str], Work] = {}
        self._held_failed: dict[tuple[int, str], tuple[Work, str]] = {}
        session.corpusChanged.connect(self._on_reset)
        session.modelReset.connect(self._on_reset)
        session.recordsAppended.connect(self._on_records)
        session.stepChanged.connect(self._on_step)
        session.trainingStateChanged.connect(lambda _state: self._schedule())
        self._schedule()

    # -- signals ----------------------------------------------------------------------------------------
    def _tab_changed(self, _index: int) -> None:
        if self._curves_dirty or self.quality.dirty or self.quality.feed.pending():
            self._schedule()

    def _schedule(self) -> None:
        if not self._timer.isActive():
            self._start(REFRESH_MS)

    def _start(self, ms: int) -> None:
        self._due = time.perf_counter() + ms / 1000
        self._timer.start(ms)

    def _on_reset(self) -> None:
        self.feed.reset()
        self.quality.reset()
        self._curves_dirty = self._zipf_dirty = True
        self._schedule()

    def _on_records(self, first: int, last: int) -> None:
        self._records_at = time.perf_counter()
        self._curves_dirty = True
        self._zipf_dirty = True  # the next pair to merge may have become known
        self._schedule()

    def _on_step(self, step: int) -> None:
        s = self.session
        step = s.shown_step(step)
        self._zipf_dirty = True
        now = time.perf_counter()
        burst, self._step_at = now - self._step_at < MARKS_BURST_S, now
        if self.session.state is TrainingState.TRAINING:  # the step follows the records: the window repaints next, and
            self._records_at = now  # moving the step marks waits for the next refresh
            self._marks_dirty = True
        elif burst or not on_screen(self):  # playing or scrubbing fast, or hidden: the next (throttled,
            self._marks_dirty = True  # shown) refresh moves the marks
        else:
            self._marks_dirty = False
            self.compression.set_step(step)  # moves a line and a dot
            self.tradeoff.set_step(step)
            self.quality.set_step(step)
        self._schedule()

    def showEvent(self, e: QtGui.QShowEvent) -> None:
        super().showEvent(e)
        self._dock_watch.attach()
        self._schedule()  # what changed while hidden is drawn now

    def closeEvent(self, e: QtGui.QCloseEvent) -> None:
        """The pane itself closed (a pane on its own; in the window the main window's close does this): its
        statistics process ends with it."""
        self.feed.close()
        super().closeEvent(e)

    # -- an extension run reopened from a session ---------------------------------------------------------
    def _want_segmentation(self) -> None:
        """The shown extension run lacks the job's segmentation of its corpus (a reopened session): find it again
        on a helper thread (:func:`..extend.job.segmentation_again`), the plots saying so meanwhile, or why not."""
        w = self.session.work
        ext = w.extension
        if ext is None or w.rewrites is not None:
            return
        failed = self._again_failed.get(id(w))
        why = failed[1] if failed is not None and failed[0] is w else None
        if why is None and id(w) not in self._again_works:
            self._again_works[id(w)] = w
            source, model, config = w.source, w.model, w.config
            self._again.start(id(w), lambda: segmentation_again(ext.spec, source, model, ext.start, config))
        note = AGAIN_NOTE if why is None else f"no statistics for this extension: {why}"
        self.feed.rewrites_note = self.quality.feed.rewrites_note = note

    def _want_held_out(self) -> None:
        """The shown extension run's Quality tab has a held-out file the feed cannot segment itself: segment it
        at every step on a helper thread (:func:`..extend.job.held_out_segmentation`), or say why not."""
        w, f = self.session.work, self.quality.feed
        ext, path = w.extension, f.held_out_path
        if ext is None or not path or f.held_rewrites is not None:
            return
        key = (id(w), path)
        failed = self._held_failed.get(key)
        if failed is not None and failed[0] is w:
            if f.held_rewrites_note != failed[1]:
                f.held_out_ready(None, failed[1])
            return
        if key not in self._held_works:
            self._held_works[key] = w
            model, config = w.model, w.config
            self._held.start(key, lambda: held_out_segmentation(ext.spec, path, model, ext.start, config))

    def _took_held_out(self) -> None:
        s, f = self.session, self.quality.feed
        for key, fut in self._held.take_done():
            work = self._held_works.pop(key, None)
            if work is None:
                continue
            e = fut.exception()
            if e is not None:
                why = f"cannot measure the held-out text: {e}" if isinstance(e, BpeError) else (
                    f"cannot measure the held-out text ({type(e).__name__}: {e})")
                self._held_failed[key] = (work, why)
            if work is s.work and key[1] == f.held_out_path:
                f.held_out_ready(fut.result() if e is None else None, self._held_failed[key][1] if e else "")
                self.quality.changed()

    def _took_segmentation(self) -> None:
        s = self.session
        for key, fut in self._again.take_done():
            work = self._again_works.pop(key, None)
            e = fut.exception()
            if work is None:
                continue
            if e is not None:
                why = str(e) if isinstance(e, BpeError) else f"{type(e).__name__}: {e}"
                self._again_failed[key] = (work, why)
            else:
                s.set_rewrites(work, fut.result())
            if work is s.work:
                self._want_segmentation()
                self._on_reset()

    # -- redraw -----------------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Bring the plots up to date by one slice of work (normally called by the throttling timer)."""
        s = self.session
        self._want_segmentation()
        self._want_held_out()
        shown = on_screen(self)  # hidden (a tab behind another pane): compute, draw nothing until shown ...
        if not shown and s.state in (TrainingState.COUNTING, TrainingState.TRAINING):
            return  # ... and while a run streams, not even compute: the run's end or showing the pane resumes
        self.slices += 1
        drawn = self.refreshes  # plots given new data before this turn (a redraw and a slice never share one)
        step = s.shown_step(s.step)  # (the plots count an extension's steps from the original, as the timeline)
        feed = self.feed
        now = time.perf_counter()
        more = False
        if self._zipf_ready is not None and shown:
            self._draw_zipf(*self._zipf_ready)  # (a turn that draws runs no statistics slice)
        if self._curves_dirty and shown:  # cheap-ish (setData of a few thousand points); throttled while training
            visible = self.tabs.currentWidget() in (self.compression, self.tradeoff)
            wait_s = (CURVES_EVERY_S if visible else HIDDEN_EVERY_S) if s.state is TrainingState.TRAINING else 0.0
            if now - self._curves_at >= wait_s:  # one of the two a turn (with a long run each is several ms)
                if not self._tradeoff_next:
                    self.compression.set_data(feed.compression(), step)
                    more = self._tradeoff_next = True
                else:
                    self.tradeoff.set_data(feed.tradeoff(), step)
                    self._curves_dirty = self._tradeoff_next = False
                    self._curves_at = time.perf_counter()
                self.refreshes += 1
            else:
                more = True
        quality_shown = self.tabs.currentWidget() is self.quality and shown
        if self.quality.dirty and quality_shown:  # the quality curves: drawn only while their tab is shown
            wait_s = CURVES_EVERY_S if s.state is TrainingState.TRAINING else 0.0
            if now - self._quality_at >= wait_s:
                self.quality.redraw(step)
                self._quality_at = time.perf_counter()
                self.refreshes += 1
            else:
                more = True
        if self._marks_dirty and shown:
            self._marks_dirty = False
            self.compression.set_step(step)
            self.tradeoff.set_step(step)
            self.quality.set_step(step)
        had = feed.n_merges
        busy = s.state in (TrainingState.COUNTING, TrainingState.TRAINING)
        slice_s = SLICE_S if busy else IDLE_SLICE_S
        # a timer that fires late means the GUI thread has just been busy with something else (a batch of
        # records, a repaint): adding a slice now would lengthen that stall, so wait a little (not forever)
        late = (now - self._due > LATE_S or now - self._records_at < RECENT_S) and self._yielded < MAX_YIELDS
        self._yielded = self._yielded + 1 if late else 0
        if late:
            more = True
        elif self.refreshes == drawn and time.perf_counter() - now < slice_s / 2:  # else the statistics wait
            if self._zipf_dirty and shown:
                more = self._update_zipf(step, slice_s) or more
            if self.refreshes != drawn:  # drawn this turn: its repaint comes next, the statistics wait a turn
                more = True
            else:
                left = slice_s - (time.perf_counter() - now)
                # the statistics and the quality curves take turns for the slice when both have work
                self._turn = not self._turn
                quality_more = False
                if not self._turn and (quality_shown or not busy):  # (while training: only while shown)
                    quality_more = self.quality.advance(max(left, 0.001))
                    left = slice_s - (time.perf_counter() - now)
                elif self.quality.feed.pending() and (quality_shown or not busy):
                    more = True
                if self._turn or not quality_more:
                    if left > 0 or feed.n_merges < 0:
                        more = feed.advance(max(left, 0.001)) or more
                more = more or quality_more or (self.quality.dirty and quality_shown)
        else:
            more = True
        if feed.n_merges >= 0 and (feed.pending or (self._zipf_dirty and shown)):
            more = True
        now_has = feed.n_merges
        if now_has != had:
            self._zipf_dirty = True  # the step shown may have become ready (or a later one to catch up on)
            if had < 0 or not s.records:  # the trade-off needs the history; no records: curves from it
                if s.records and not self._curves_dirty:  # (the compression curve is the records': as drawn)
                    self._tradeoff_next = True
                self._curves_dirty = True
            more = True
        if feed.n_merges < 0 and feed.note and (self._zipf_dirty or feed.note != self._note_shown) and shown:
            self.zipf.set_data(None, note=feed.note)
            self._note_shown = feed.note  # (a note that changes -- the statistics process failed -- is shown)
            self._zipf_dirty = False
            self.refreshes += 1
        if shown:
            self._update_status(step)
        if more and not self._timer.isActive():
            self._start(LATE_RETRY_MS if late else BUSY_MS if busy else IDLE_BUSY_MS)

    def _update_zipf(self, step: int, slice_s: float) -> bool:
        """One slice towards the Zipf plot of *step*; True if more remains."""
        feed = self.feed
        if feed.n_merges < 0:
            return False  # advance() builds the history (or says why not); a new history marks the plot dirty
        target = min(step, feed.n_merges)
        shown = self.zipf.data
        if target < step and shown is not None and (
            shown.step == target or time.perf_counter() - self._zipf_at < CATCH_UP_S
        ):
            return True  # catching up: the plot of a recent step stays a little longer
        t0 = time.perf_counter()
        z = feed.zipf(target, slice_s)
        if z is None:
            return True
        note = "catching up…" if target < step else ""  # short: a long title would widen a narrow card
        self._zipf_dirty = target < step
        if time.perf_counter() - t0 > DRAW_AFTER_S:  # this turn recounted: the drawing waits for the next
            self._zipf_ready = (z, target, note)
            return True
        self._draw_zipf(z, target, note)
        return self._zipf_dirty

    def _draw_zipf(self, z: ZipfView, target: int, note: str) -> None:
        self._zipf_ready = None
        if z is not self.feed.latest_zipf:  # (a reset or a newer step meanwhile)
            return
        self.zipf.set_data(z, note=note, mode=self.session.model.mode)
        hold_repaint(self)  # (drawing the curve and painting it: two turns, not one)
        self.refreshes += 1
        self._zipf_at = time.perf_counter()

    def _update_status(self, step: int) -> None:
        s = self.session
        z = self.zipf.data
        parts = [Part(f"step {step:,} of {s.shown_step(s.n_steps):,}")]
        if z is not None and z.step == step:
            parts.append(Part(f" · {plural(z.n_pairs, 'pair')}", drop=1))
            parts.append(Part(f" · recount {self.feed.last_zipf_ms:.0f} ms", drop=2))
        elif self.feed.note:
            parts.append(Part(f" · {self.feed.note}"))
        self.status.set_parts(parts)

    # -- export -----------------------------------------------------------------------------------------
    def current_plot(self) -> PlotCard:
        w = self.tabs.currentWidget()
        w = w.card if isinstance(w, QualityTab) else w
        assert isinstance(w, PlotCard)
        return w

    def export(self, kind: str, path: str | os.PathLike[str], plot: PlotCard | None = None) -> ExportState | None:
        """Write *plot* (default: the one shown) as ``png``, ``svg`` or ``csv`` to *path* (atomically).  The pair
        plot's CSV is every pair at the step it shows (:meth:`PlotFeed.export_zipf`): its state, finished unless
        the statistics process writes it."""
        plot = plot or self.current_plot()
        if kind == "png":
            plot.export_png(path)
        elif kind == "svg":
            plot.export_svg(path)
        elif kind == "csv":
            if not plot.has_data():
                raise BpeError("this plot has no numbers yet -- load a corpus and train first")
            if plot is self.zipf and self.zipf.data is not None:
                return self.feed.export_zipf(self.zipf.data.step, path)
            plot.export_csv(path)
        else:
            raise BpeError(f"unknown export kind {kind!r} -- use png, svg or csv")
        return None

    def ask_export(self, kind: str) -> None:
        plot = self.current_plot()
        step = self.session.shown_step(self.session.step)
        suggestion = f"{plot.name}-step{step}.{kind}"
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, f"Export {plot.name} plot", suggestion,
                                                        EXPORT_KINDS[kind])
        if not path:
            return
        try:
            state = self.export(kind, path, plot)
        except (BpeError, OSError) as e:
            QtWidgets.QMessageBox.warning(self, "Export failed", str(e))
            return
        if state is not None:
            wait_for_export(self, self.feed, state)

