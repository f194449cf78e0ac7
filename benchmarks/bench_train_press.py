"""The Train press: how long the GUI thread is held when Retrain is pressed, press after press.

Opens the main window on ``../shared/corpora/kjv.txt`` (bytes, GPT-2 pattern, 8,000 merges), trains once, then
presses Retrain ``--presses`` times (waiting for each run to finish) while a 10 ms timer ticks in the GUI thread.
Per press: ``train()``'s own time, the longest tick gap in the first 150 ms (the press, its repaint and the
stream's repaint a frame later), the longest gap around the run's end, and the longest in between.  Prints one
JSON object with the medians and every press.  ``--platform xcb`` starts an Xvfb when there is no display.

    python benchmarks/bench_train_press.py [--platform offscreen|xcb] [--presses 8] [--corpus FILE]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import time

from ui_latency import KJV, settled_window, start_xvfb


def presses(corpus: str, n: int) -> list[dict[str, float]]:
    from PySide6 import QtCore

    from bpe_desktop.gui.training.protocol import TrainingState

    w, loop = settled_window(corpus, 8000)
    end: dict[str, float] = {}

    def state(s: object) -> None:
        if s is TrainingState.FINISHED:
            end["t"] = time.perf_counter()
            QtCore.QTimer.singleShot(300, loop.quit)

    w.session.trainingStateChanged.connect(state)
    w.train()
    loop.exec()
    ticks: list[float] = []
    timer = QtCore.QTimer()
    timer.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    out = []
    for _ in range(n):
        ticks.clear()
        timer.start()
        t0 = time.perf_counter()
        ticks.append(t0)
        if not w.train():
            raise RuntimeError("training refused to start")
        t1 = time.perf_counter()
        loop.exec()
        timer.stop()
        gaps = [((b - a) * 1000, b) for a, b in itertools.pairwise(ticks)]
        press = max(g for g, t in gaps if t - t0 < 0.15)
        ending = max((g for g, t in gaps if abs(t - end["t"]) < 0.1), default=0.0)
        between = max((g for g, t in gaps if t - t0 >= 0.15 and t < end["t"] - 0.1), default=0.0)
        out.append({"train_ms": round((t1 - t0) * 1000, 2), "press_gap_ms": round(press, 2),
                    "end_gap_ms": round(ending, 2), "between_max_ms": round(between, 2)})
    if not w.isVisible():
        raise RuntimeError("the window was closed during the measurement")
    w.close()
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--corpus", default=str(KJV))
    p.add_argument("--presses", type=int, default=8)
    p.add_argument("--platform", choices=("offscreen", "xcb"), default=None)
    args = p.parse_args()
    if args.platform:
        os.environ["QT_QPA_PLATFORM"] = args.platform
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    xvfb = start_xvfb() if os.environ["QT_QPA_PLATFORM"] == "xcb" and not os.environ.get("DISPLAY") else None
    try:
        rows = presses(args.corpus, args.presses)
    finally:
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait(10)
    med = {k: round(statistics.median(r[k] for r in rows), 2) for k in rows[0]}
    print(json.dumps({"median": med, "presses": rows, "qt_platform": os.environ["QT_QPA_PLATFORM"],
                      "load_avg": [round(x, 2) for x in os.getloadavg()]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
