"""What ran in the GUI thread during each long tick gap of ``ui_latency.py``'s training and catch-up phases.

Runs :func:`ui_latency.latency` with a set of the window's methods (the controller's wake-ups, the session's
resets and appends, the Train press, the plots' refresh, the token canvas's paint, the trash's slices) wrapped to
record when they ran, and the 10 ms ticks stamped with ``time.thread_time`` as well: for every gap over
``--over`` ms it prints the gap, the GUI thread's CPU time inside it (the rest is the thread waiting: for the
GIL, the X server, the scheduler) and the wrapped calls that ran in it (outermost first, with their nested calls
indented), so a gap can be told to be work, and whose.  Qt's own painting and layout are not Python calls: the
CPU a gap spent outside every wrapped call is printed as ``other``.  The cyclic collector's passes are listed as
``gc.genN`` calls.  The training phase's gaps come first (from the Train press, as in ui_latency), then the
catch-up phase's (after the last run, until the plots reach the last step, ``--catch-up-s`` at most).
``--rss`` samples the RSS of the window's process and of each of its children every 0.2 s and prints their peaks
per phase (the statistics process named as such).  ``--paints`` adds the widgets Qt painted in each gap, each
with the GUI CPU until the next one's paint event (an app-wide event filter: it slows every event a little, so
measure without it).

    python benchmarks/ui_gaps.py [--corpus FILE] [--merges N] [--runs 1] [--platform xcb|offscreen] [--over 16]
                                 [--catch-up-s 60] [--rss] [--paints]

Prints one line per gap, then ui_latency's JSON figures on the last line.
"""

from __future__ import annotations

import argparse
import functools
import gc
import importlib
import itertools
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ui_latency

#: (module, class, method) wrapped; nested calls are shown under the call they ran in
WRAPPED = [
    ("bpe_desktop.gui.main_window", "MainWindow", "train"),
    ("bpe_desktop.gui.training.controller", "TrainingController", "start"),
    ("bpe_desktop.gui.training.controller", "TrainingController", "drain"),
    ("bpe_desktop.gui.training.controller", "TrainingController", "_catch_up"),
    ("bpe_desktop.gui.training.controller", "TrainingController", "_handle"),
    ("bpe_desktop.gui.training.backlog", "Backlog", "read"),
    ("bpe_desktop.gui.training.counts_parts", "Assembly", "decode"),
    ("bpe_desktop.gui.session", "Session", "append_records"),
    ("bpe_desktop.gui.session", "Session", "set_step"),
    ("bpe_desktop.gui.session", "Session", "reset_model"),
    ("bpe_desktop.gui.session", "Session", "set_state"),
    ("bpe_desktop.gui.session", "Session", "set_corpus"),
    ("bpe_desktop.gui.session", "Session", "announce_count"),
    ("bpe_desktop.gui.plots.panel", "PlotsPanel", "refresh"),
    ("bpe_desktop.gui.plots.panel", "PlotsPanel", "_update_zipf"),
    ("bpe_desktop.gui.plots.panel", "PlotsPanel", "_draw_zipf"),
    ("bpe_desktop.gui.plots.zipf", "ZipfPlot", "set_data"),
    ("bpe_desktop.gui.plots.feed", "PlotFeed", "advance"),
    ("bpe_desktop.gui.plots.compression", "CompressionPlot", "set_data"),
    ("bpe_desktop.gui.plots.tradeoff", "TradeoffPlot", "set_data"),
    ("bpe_desktop.gui.plots.quality", "QualityTab", "advance"),
    ("bpe_desktop.gui.plots.quality", "QualityTab", "redraw"),
    ("bpe_desktop.gui.plots.panel", "PlotsPanel", "_update_status"),
    ("bpe_desktop.gui.plots.remote_history", "RemoteHistory", "poll"),
    ("bpe_desktop.gui.plots.remote_history", "RemoteHistory", "_take"),
    ("bpe_desktop.gui.plots.remote_history", "RemoteHistory", "_free"),
    ("bpe_desktop.gui.stream.canvas", "TokenCanvas", "paintEvent"),
    ("bpe_desktop.gui.stream.ahead", "Ahead", "_turn"),
    ("bpe_desktop.gui.widgets.trash", "Trash", "_slice"),
]

calls: list[tuple[float, float, float, str, int]] = []  # (start, end, cpu ms, name, depth)
pressed: list[tuple[float, float]] = []  # (perf_counter, thread_time) as each Train press began: ui_latency's first gap
_depth = [0]


def _wrap(mod: str, cls: str, name: str) -> None:
    klass = getattr(importlib.import_module(mod), cls)
    real = getattr(klass, name, None)
    if real is None:  # (a method of another tree: the script runs on trees before and after a change)
        return

    @functools.wraps(real)
    def timed(*a: Any, **k: Any) -> Any:
        d = _depth[0]
        _depth[0] = d + 1
        t, c = time.perf_counter(), time.thread_time()
        if name == "train":
            pressed.append((t, c))
        try:
            return real(*a, **k)
        finally:
            _depth[0] = d
            calls.append((t, time.perf_counter(), (time.thread_time() - c) * 1000, f"{cls}.{name}", d))

    setattr(klass, name, timed)


def _gc_calls(phase: str, info: dict[str, int]) -> None:
    """A collector pass, recorded as a call ``gc.genN`` (gc.callbacks)."""
    if phase == "start":
        _gc_start[:] = [time.perf_counter(), time.thread_time()]
    elif _gc_start:
        t, c = _gc_start
        calls.append((t, time.perf_counter(), (time.thread_time() - c) * 1000, f"gc.gen{info['generation']}",
                      _depth[0]))


_gc_start: list[float] = []


class RssWatch(threading.Thread):
    """Samples the RSS of this process and of each of its children (from /proc) every *every_s* seconds; the
    peaks per phase name (set :attr:`phase`)."""

    def __init__(self, every_s: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.every_s = every_s
        self.phase = "start"
        self.peaks: dict[tuple[str, int], int] = {}  # (phase, pid) -> peak RSS in kB
        self.names: dict[int, str] = {}
        self.done = threading.Event()

    @staticmethod
    def _rss_kb(pid: int) -> int:
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return 0

    @staticmethod
    def _children(pid: int) -> list[int]:
        out: list[int] = []
        try:
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    out.extend(int(x) for x in f.read().split())
        except OSError:
            pass
        return out

    def run(self) -> None:
        me = os.getpid()
        while not self.done.wait(self.every_s):
            for pid in [me, *self._children(me)]:
                kb = self._rss_kb(pid)
                key = (self.phase, pid)
                if kb > self.peaks.get(key, 0):
                    self.peaks[key] = kb

    def report(self) -> str:
        me = os.getpid()
        lines = []
        for phase in dict.fromkeys(ph for ph, _ in self.peaks):
            parts = [f"{'window' if pid == me else self.names.get(pid, f'child {pid}')} {kb / 1024:,.0f} MB"
                     for (ph, pid), kb in sorted(self.peaks.items()) if ph == phase]
            lines.append(f"peak RSS ({phase}): " + ", ".join(parts))
        return "\n".join(lines)


def _print_gaps(name: str, ticks: list[tuple[float, float]], over: float,
                paints: list[tuple[float, float, str]]) -> None:
    """One line per gap over *over* ms between the *ticks* of phase *name*: wall, GUI CPU, the calls in it (and,
    with *paints*, the widgets painted in it)."""
    if len(ticks) < 2:
        return
    print(f"-- {name}: {len(ticks)} ticks over {ticks[-1][0] - ticks[0][0]:.1f} s")
    for (t0, c0), (t1, c1) in itertools.pairwise(ticks):
        gap = (t1 - t0) * 1000
        if gap <= over:
            continue
        inside = sorted((c for c in calls if c[0] < t1 and c[1] > t0 and c[4] <= 3), key=lambda c: c[0])
        top = sum(c[2] for c in inside if c[4] == min(x[4] for x in inside)) if inside else 0.0
        cpu = (c1 - c0) * 1000
        parts = [f"{'  ' * c[4]}{c[3]} {(min(c[1], t1) - max(c[0], t0)) * 1000:.1f}/{c[2]:.1f}cpu"
                 for c in inside if (c[1] - c[0]) * 1000 >= 0.5 or c[3].startswith("gc.")]
        print(f"gap {gap:6.1f} ms at {t1 - ticks[0][0]:7.2f} s: GUI CPU {cpu:5.1f} ms (wrapped {top:.1f}, "
              f"other {max(0.0, cpu - top):.1f}) | " + "; ".join(parts))
        if paints:
            seen = [(i, p) for i, p in enumerate(paints) if t0 < p[0] < t1]
            cost = [((paints[i + 1][1] if i + 1 < len(paints) and paints[i + 1][0] < t1 else c1) - p[1]) * 1000
                    for i, p in seen]
            print("    paints: " + ", ".join(f"{p[2]} {ms:.1f}" for (_, p), ms in zip(seen, cost, strict=True)))


def _widget_name(obj: object) -> str:
    """A painted widget's class, with its parent's for a scroll area's viewport (a plain QWidget)."""
    name = type(obj).__name__
    parent = obj.parent() if hasattr(obj, "parent") else None  # type: ignore[union-attr]
    if name == "QWidget" and parent is not None:
        return f"{type(parent).__name__}.viewport"
    return name


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--corpus", default=str(ui_latency.KJV))
    p.add_argument("--merges", type=int, default=8000)
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--platform", choices=("offscreen", "xcb"), default="xcb")
    p.add_argument("--over", type=float, default=16.0, help="list the gaps longer than this (ms)")
    p.add_argument("--catch-up-s", type=float, default=60.0, help="as in ui_latency.py")
    p.add_argument("--rss", action="store_true", help="print the peak RSS of the window and its children")
    p.add_argument("--paints", action="store_true",
                   help="also list the widgets that received a paint event in each gap, with the GUI CPU until the "
                        "next one (each widget's own paint, roughly: the last one's runs to the gap's end)")
    args = p.parse_args()
    os.environ["QT_QPA_PLATFORM"] = args.platform
    xvfb = ui_latency.start_xvfb() if args.platform == "xcb" and not os.environ.get("DISPLAY") else None
    watch = RssWatch() if args.rss else None
    try:
        for w in WRAPPED:
            _wrap(*w)
        gc.callbacks.append(_gc_calls)
        ticks: list[tuple[float, float]] = []  # (perf_counter, thread_time) at each tick
        from PySide6 import QtCore

        real_start = QtCore.QTimer.start

        def start(timer: QtCore.QTimer, *a: Any) -> None:  # stamp the benchmark's 10 ms tick timer too
            if timer.interval() == 10 and not getattr(timer, "_stamped", False):
                timer.timeout.connect(lambda: ticks.append((time.perf_counter(), time.thread_time())))
                timer._stamped = True  # type: ignore[attr-defined]
            real_start(timer, *a)

        QtCore.QTimer.start = start  # type: ignore[method-assign]
        paints: list[tuple[float, float, str]] = []  # (perf_counter, thread_time, widget) at each paint event
        if args.paints:
            from PySide6 import QtWidgets

            class PaintLog(QtCore.QObject):
                def eventFilter(self, obj: QtCore.QObject, ev: QtCore.QEvent) -> bool:
                    if ev.type() == QtCore.QEvent.Type.Paint:
                        paints.append((time.perf_counter(), time.thread_time(), _widget_name(obj)))
                    return False

            from bpe_desktop.gui import app as gui_app

            gui_app.make_app()
            paint_log = PaintLog()
            QtWidgets.QApplication.instance().installEventFilter(paint_log)
        phase_end: list[int] = []
        real_catch_up = ui_latency._phase_catch_up

        def catch_up(w: Any, *a: Any) -> dict[str, object]:  # the training phase ends here
            phase_end.append(len(ticks))
            if watch is not None:
                watch.phase = "catch-up"
                remote = w.plots.feed.remote
                if remote is not None and remote.pid is not None:
                    watch.names[remote.pid] = "statistics process"
            out = real_catch_up(w, *a)
            phase_end.append(len(ticks))
            if watch is not None:
                watch.phase = "after"
            return out

        ui_latency._phase_catch_up = catch_up  # type: ignore[assignment]
        if watch is not None:
            watch.phase = "training"
            watch.start()
        result = ui_latency.latency(args.corpus, args.merges, runs=args.runs, play_s=0.5, catch_up_s=args.catch_up_s)
        if watch is not None:
            watch.done.set()
        train = pressed[:1] + (ticks[: phase_end[0]] if phase_end else ticks)  # (from the press, as ui_latency)
        _print_gaps("training", train, args.over, paints)
        if len(phase_end) == 2:
            _print_gaps("catch-up", ticks[phase_end[0] : phase_end[1]], args.over, paints)
        if watch is not None:
            print(watch.report())
        print(json.dumps(result))
    finally:
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
