"""Log inspector latency: the GUI thread's longest stall while the pane inspects a 2 MB robot log.

Opens the real main window (offscreen), puts a tokenizer trained on the bundled robot-log sample into the
session (1,000 merges, bytes, cl100k pattern, HF tie-break), opens ``../shared/corpora/robotlogs.txt`` in
the Log inspector with cl100k_base ticked too, raises its dock and presses Inspect, while a 10 ms QTimer
records the gaps between its ticks in the GUI thread (as ``ui_latency.py`` does).  The recording runs from
the click until 0.5 s after the result is shown, so it includes launching the job and filling the tabs.

Side by side in one run, the same job done two ways:

* ``process`` -- what the pane does: a spawn worker process (:class:`bpe_desktop.gui.inspect.runner.InspectRunner`);
* ``thread``  -- the alternative: :func:`bpe_desktop.gui.inspect.job.inspect_job` in a Python thread of the
  GUI process (it shares the GIL with the GUI thread), results handed over by a queued signal.

    python benchmarks/bench_inspect_pane.py [--corpus FILE] [--runs 2] [--over 50]

Prints one JSON object per mode: max_ms / p99_ms (tick gaps), max_busy_ms (the most CPU time the GUI
thread itself spent between two ticks: on a shared machine a gap can also be time the process waited for a
core), ticks over 50 ms, result_s (click to result shown), show_ms (GUI time to fill the tabs), progress
(progress signals received), and ``stalls``: each gap over ``--over`` ms (default 50) as [gap ms, GUI-thread
CPU ms in it, seconds after the click] (the result arrives at result_s).
Target (issue 12): the longest stall under 50 ms on a 2 MB log.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_CORPUS = next((p / "shared" / "corpora" / "robotlogs.txt" for p in (ROOT.parent, ROOT.parent.parent)
                       if (p / "shared" / "corpora" / "robotlogs.txt").is_file()), Path("robotlogs.txt"))


def measure(corpus: str, mode: str, runs: int, over: float = 50.0) -> dict[str, object]:
    from PySide6 import QtCore, QtWidgets

    from bpe_desktop.core import CorpusSource, TrainConfig, Trainer
    from bpe_desktop.core.counting.sources import count_source
    from bpe_desktop.gui import app as gui_app
    from bpe_desktop.gui import resources
    from bpe_desktop.gui.inspect import job as job_mod

    gui_app.make_app()
    app = QtCore.QEventLoop()  # not QApplication.exec/quit: Qt 6's quit() closes the window after the first run
    w = gui_app.make_window(remember_layout=False)
    w.resize(1440, 900)
    cfg = TrainConfig(mode="bytes", pretokenizer="cl100k", tie_break="hf", merges=1000)
    t = Trainer(count_source(CorpusSource.from_text(resources.read_text(resources.ROBOT_LOGS)), cfg), cfg)
    w.session.reset_model(t.model, t.run())
    w.show()
    w.docks["inspect"].raise_()
    panel = w.inspector
    panel.open_log(corpus)
    for _ in range(20):
        QtWidgets.QApplication.processEvents()

    class Bridge(QtCore.QObject):
        done = QtCore.Signal(object)
        progress = QtCore.Signal(str, int, int)

    bridge = Bridge()
    bridge.done.connect(panel.runner.finished)
    bridge.progress.connect(panel.runner.progress)
    if mode == "thread":  # the same job in a thread of this process instead of a worker process
        def start(job: job_mod.InspectJob) -> None:
            threading.Thread(target=lambda: bridge.done.emit(job_mod.inspect_job(job, bridge.progress.emit)),
                             daemon=True).start()
        panel.runner.start = start  # type: ignore[method-assign]

    show_ms: list[float] = []
    real_finished = panel._finished

    def timed_finished(done: object) -> None:
        t0 = time.perf_counter()
        real_finished(done)  # type: ignore[arg-type]
        show_ms.append((time.perf_counter() - t0) * 1000)

    panel.runner.finished.disconnect(real_finished)
    panel.runner.finished.connect(timed_finished)
    progress_count = [0]
    panel.runner.progress.connect(lambda *_: progress_count.__setitem__(0, progress_count[0] + 1))

    gaps: list[float] = []
    stalls: list[tuple[float, float, float]] = []  # (gap ms, GUI-thread CPU ms in it, s after the click)
    last = [0.0]
    clicked = [0.0]
    marks: dict[str, float] = {}
    panel.runner.progress.connect(lambda *_: marks.setdefault("first_progress_s", time.perf_counter() - clicked[0]))

    busy: list[float] = []  # the GUI thread's own CPU time between two ticks (ms)
    last_cpu = [time.thread_time()]

    def tick() -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        gap = (now - last[0]) * 1000.0
        gaps.append(gap)
        busy.append((cpu - last_cpu[0]) * 1000.0)
        if gap > over:
            stalls.append((round(gap, 1), round(busy[-1], 1), round(now - clicked[0], 2)))
        last[0], last_cpu[0] = now, cpu

    timer = QtCore.QTimer()
    timer.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
    timer.setInterval(10)
    timer.timeout.connect(tick)
    results: list[float] = []
    tokens: list[int] = []
    for _ in range(runs):
        panel.done = None
        got: dict[str, float] = {}

        def finished(_d: object, got: dict[str, float] = got) -> None:
            got["t"] = time.perf_counter()
            QtCore.QTimer.singleShot(500, app.quit)

        panel.runner.finished.connect(finished)
        t0 = last[0] = clicked[0] = time.perf_counter()
        last_cpu[0] = time.thread_time()
        timer.start()
        if not panel.inspect():
            raise RuntimeError("the pane refused to inspect")
        app.exec()
        timer.stop()
        panel.runner.finished.disconnect(finished)
        if panel.done is None:
            raise RuntimeError("the inspection failed")
        if not w.isVisible():
            raise RuntimeError("the window was closed during the measurement")
        results.append(got["t"] - t0)
        tokens = [r.tokens for r in panel.done.inspection.reports]
    w.close()
    gaps.sort()
    q = statistics.quantiles(gaps, n=100, method="inclusive")
    return {"mode": mode, "max_ms": round(gaps[-1], 1), "max_busy_ms": round(max(busy), 1),
            "p99_ms": round(q[98], 1), "ticks": len(gaps),
            "ticks_over_50ms": sum(g > 50 for g in gaps), "result_s": [round(r, 2) for r in results],
            "show_ms": [round(s, 1) for s in show_ms], "progress": progress_count[0], "tokens": tokens,
            "stalls": stalls, "first_progress_s": round(marks.get("first_progress_s", -1), 2),
            "corpus_bytes": os.path.getsize(corpus)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--corpus", default=str(DEFAULT_CORPUS))
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--over", type=float, default=50.0, help="list every gap longer than this (ms; default 50)")
    p.add_argument("--mode", choices=("process", "thread"), help=argparse.SUPPRESS)
    args = p.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if args.mode:
        print(json.dumps(measure(args.corpus, args.mode, args.runs, args.over)))
        return 0
    import subprocess

    for mode in ("process", "thread"):  # each in a fresh interpreter
        out = subprocess.run([sys.executable, __file__, "--corpus", args.corpus, "--runs", str(args.runs),
                              "--over", str(args.over), "--mode", mode], capture_output=True, text=True, check=False)
        line = next((ln for ln in out.stdout.splitlines() if ln.startswith("{")), None)
        print(line or json.dumps({"mode": mode, "error": out.stderr[-800:]}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
