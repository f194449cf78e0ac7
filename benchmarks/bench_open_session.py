"""The GUI thread's longest stall while File → Open session opens a session with a big typed corpus.

    python benchmarks/bench_open_session.py MB here|helper [--kind text|oneline|table] [--settle S]

Writes (once, with the window's own Save session) a session whose corpus is typed: ``text`` MB megabytes of
robot log (``/tmp/bench_open_session_MB``), ``oneline`` the same log as one line, ``table`` a word-count
table of MB megabytes (``word count`` lines, the table toggle on).  Then opens it in a fresh offscreen
window with ``sessions.open_session`` while a 1 ms ``QTimer`` records the gaps between its ticks on the GUI
thread (the stretch up to the end of ``open_session`` counts as one), and goes on recording for *settle*
seconds after it returned (what the panes do in the turns after the opening: the stream's rows, the
editor's deferred hand-over).  ``here`` reads the file on the GUI thread (``manager.BACKGROUND_BYTES`` set
huge, as before issue 26 item 13), ``helper`` as the program does (a big file on the helper thread behind
the progress dialog).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from bpe_desktop.core.logs.robotlogs import generate
from bpe_desktop.gui import app as gui_app
from bpe_desktop.gui.session_io import manager


def corpus_text(kind: str, mb: float) -> str:
    if kind == "table":
        lines, size, i = [], 0, 0
        while size < mb * 1e6:
            line = f"w{i:x}ord{i % 977} {1 + i % 5000}"
            lines.append(line)
            size += len(line) + 1
            i += 1
        return "\n".join(lines) + "\n"
    text = generate(int(mb * 1e6 / 95), seed=3)
    return text.replace("\n", " ") if kind == "oneline" else text


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mb", type=float)
    ap.add_argument("how", choices=("here", "helper"))
    ap.add_argument("--kind", choices=("text", "oneline", "table"), default="text")
    ap.add_argument("--settle", type=float, default=2.0)
    args = ap.parse_args()
    from PySide6 import QtCore

    suffix = "" if args.kind == "text" else f"_{args.kind}"
    path = f"/tmp/bench_open_session_{args.mb:g}{suffix}.bpesession"
    app = gui_app.make_app()
    if not os.path.exists(path):
        w = gui_app.make_window(remember_layout=False)
        w.corpus.set_text(corpus_text(args.kind, args.mb), word_counts=args.kind == "table")
        assert w.sessions.save_to(path)
        w.close()
    if args.how == "here":
        manager.BACKGROUND_BYTES = 1 << 40
    w2 = gui_app.make_window(remember_layout=False)
    w2.show()
    for _ in range(20):
        app.processEvents()
    gaps: list[tuple[float, float]] = []  # (gap, when it ended, from the start)
    t0 = last = time.perf_counter()

    def tick() -> None:
        nonlocal last
        now = time.perf_counter()
        gaps.append((now - last, now - t0))
        last = now

    timer = QtCore.QTimer()
    timer.setInterval(1)
    timer.timeout.connect(tick)
    timer.start()
    c0 = time.process_time()
    opened = w2.sessions.open_session(path)
    seconds = time.perf_counter() - t0
    tick()
    end = time.perf_counter() + args.settle
    while time.perf_counter() < end:
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.WaitForMoreEvents, 5)
    timer.stop()
    during = max(g for g, at in gaps if at <= seconds + 1e-3)
    after = max((g for g, at in gaps if at > seconds + 1e-3), default=0.0)
    print(f"{args.how} {args.kind}: file {os.path.getsize(path) / 1e6:.0f} MB, opened={opened}, open_session "
          f"{seconds:.2f} s wall, {time.process_time() - c0:.2f} s CPU (with {args.settle:g} s after), longest "
          f"GUI-thread gap {during * 1000:.0f} ms during open_session, {after * 1000:.0f} ms in the "
          f"{args.settle:g} s after, load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
