"""The window's GUI-thread stalls under hostile input (issue 10): a catastrophic custom pre-tokenizer and
one 50 MB line.

A 5 ms QTimer records the gaps between its ticks in the GUI thread; the longest gap is the longest stall a
user would feel.  Both scenarios run side by side with the previous behaviour ("before"):

* ``regex``: a model whose pre-tokenizer is ``(a+)+$`` and a corpus holding ``a`` × 900 + ``b`` and the
  issue's ``a`` × 5,000 + ``b``.  The token view paints, the real error dialog opens (modal, closed by a
  timer after 1 s) while the timeline is scrubbed every 50 ms.  "before": the token view encodes under the
  core's default budget (5 s, as ``encode_with_offsets`` without a job budget did: the old code had no
  timeout at all, so this is a lower bound of its stall).
* ``longline``: a file of one 50 MB line (the King James Bible's lines joined and repeated; generated in
  /tmp), opened, trained (bytes, GPT-2 pattern,
  300 merges, through the worker), the timeline scrubbed every 60 ms and the token view scrolled while
  training and for 3 s after.  "before": the line is not cut into display rows (a paint encodes and lays
  out the whole 4 MB line the view reads), capped at one minute.

    python benchmarks/bench_gui_trust.py [--scenario regex|longline|both] [--before]

Prints one JSON object per scenario and mode: max_ms, p99_ms of tick gaps, and what ran.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from PySide6 import QtCore, QtWidgets

from bpe_desktop.core import TrainConfig, train
from bpe_desktop.gui import app as gui_app

LONG = "/tmp/bpe_bench_one_50mb_line.txt"
KJV = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "shared",
                   "corpora", "kjv.txt")


class Heartbeat(QtCore.QObject):
    def __init__(self, interval_ms: int = 5) -> None:
        super().__init__()
        self.gaps: list[float] = []
        self._last = time.perf_counter()
        self.t = QtCore.QTimer(self)
        self.t.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
        self.t.timeout.connect(self._tick)
        self.t.start(interval_ms)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.gaps.append((now - self._last) * 1000)
        self._last = now

    def reset(self) -> None:
        self.gaps.clear()
        self._last = time.perf_counter()

    def summary(self) -> dict[str, object]:
        g = sorted(self.gaps) or [0.0]
        return {"max_ms": round(g[-1], 1), "p99_ms": round(g[int(0.99 * (len(g) - 1))], 1),
                "p50_ms": round(statistics.median(g), 1), "ticks": len(g), "top5_ms": [round(x) for x in g[-5:]]}


def pump(seconds: float, every: float = 0.0, action=None) -> None:  # type: ignore[no-untyped-def]
    end = time.perf_counter() + seconds
    nxt = time.perf_counter()
    while time.perf_counter() < end:
        QtWidgets.QApplication.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
        if action is not None and time.perf_counter() >= nxt:
            action()
            nxt = time.perf_counter() + every
        time.sleep(0.001)


def window():  # type: ignore[no-untyped-def]
    gui_app.make_app()
    w = gui_app.make_window(remember_layout=False)
    w.resize(1440, 900)
    w.show()
    return w


def regex_scenario(before: bool) -> dict[str, object]:
    from bpe_desktop.gui import regex_guard

    if before:
        regex_guard.PAINT_BUDGET_S = 5.0
    cfg = TrainConfig(mode="bytes", pretokenizer="(a+)+$", merges=3)
    model, records = train({"aa": 5, "aaa": 3}, cfg)
    w = window()
    w.corpus.set_text("aaa\n" + "a" * 900 + "b\n" + "a" * 5000 + "b\naa\n", word_counts=False)
    w.session.set_corpus(w.corpus.source(), cfg)
    w.session.initial_symbols = records[0].symbols_before
    shown: list[float] = []

    def closer() -> None:  # close the modal error dialog one second after it appears
        box = QtWidgets.QApplication.activeModalWidget()
        if box is not None:
            if not shown:
                shown.append(time.perf_counter())
            elif time.perf_counter() - shown[0] > 1.0:
                box.close()

    close_timer = QtCore.QTimer()
    close_timer.timeout.connect(closer)
    close_timer.start(100)
    hb = Heartbeat()
    pump(1.0)  # the window's first paints are not what is measured
    hb.reset()
    w.session.reset_model(model, records)
    k = [0]

    def scrub() -> None:
        k[0] = (k[0] + 1) % 4
        w.session.set_step(k[0])

    pump(3.0, 0.05, scrub)
    out = {"scenario": "regex", "mode": "before" if before else "after", **hb.summary(),
           "error_shown": bool(w.token_view.canvas.regex_error), "dialog_seen": bool(shown)}
    hb.t.stop()
    close_timer.stop()
    w.close()
    return out


def make_long_file(n_bytes: int = 50_000_000) -> None:
    """One line of ~50 MB: the King James Bible's lines joined by spaces, repeated (random words if the
    shared corpus is missing)."""
    if os.path.exists(LONG) and os.path.getsize(LONG) >= n_bytes:
        return
    if os.path.exists(KJV):
        with open(KJV, encoding="utf-8") as f:
            block = " ".join(f.read().split("\n")) + " "
    else:
        rnd = random.Random(7)
        syll = ["ro", "bot", "arm", "mo", "ved", "ta", "lid", "ar", "scan", "path", "pose", "er", "ror", "ti"]
        block = " ".join("".join(rnd.choice(syll) for _ in range(rnd.randint(1, 4))) for _ in range(400_000)) + " "
    with open(LONG, "w", encoding="utf-8") as f:
        written = 0
        while written < n_bytes:
            f.write(block)
            written += len(block)


def longline_scenario(before: bool) -> dict[str, object]:
    from bpe_desktop.gui.stream import rows

    make_long_file()
    if before:
        rows.split_rows = lambda lines, limit=0: (lines, None)  # type: ignore[assignment]
    w = window()
    hb = Heartbeat()
    pump(1.0)  # the window's first paints are not what is measured
    hb.reset()
    t0 = time.perf_counter()
    w.open_corpus(LONG)
    open_s = time.perf_counter() - t0
    w.settings.set_config(TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=300))
    pump(0.5)  # opening and pressing Train are two user actions
    rnd = random.Random(1)
    canvas = w.token_view.canvas

    def scrub() -> None:
        n = w.session.n_steps
        if n:
            w.session.set_step(rnd.randint(0, n))
        canvas.scroll_to_row(rnd.randint(0, max(0, canvas.n_rows - 1)))

    t0 = time.perf_counter()
    w.train()
    cap = 60 if before else 300  # before: each paint takes seconds, a minute shows it
    while w.session.state.active and time.perf_counter() - t0 < cap:
        pump(0.3, 0.06, scrub)
    train_s = time.perf_counter() - t0
    if not before:
        pump(3.0, 0.06, scrub)
    out = {"scenario": "longline", "mode": "before" if before else "after", **hb.summary(), "open_s": round(open_s, 2),
           "train_s": round(train_s, 1), "merges": w.session.n_steps, "rows": canvas.n_rows,
           "state": w.session.state.value}
    hb.t.stop()
    w.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenario", choices=["regex", "longline", "both"], default="both")
    ap.add_argument("--before", action="store_true", help="run the previous behaviour instead")
    a = ap.parse_args()
    if a.scenario in ("regex", "both"):
        print(json.dumps(regex_scenario(a.before)), flush=True)
    if a.scenario in ("longline", "both"):
        print(json.dumps(longline_scenario(a.before)), flush=True)


if __name__ == "__main__":
    main()
