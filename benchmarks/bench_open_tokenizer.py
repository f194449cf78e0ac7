"""File → Open well-known tokenizer on o200k (and cl100k): the GUI thread's longest stall while the file is
read and its merge list recovered from the ranks, with the work on the helper thread behind the progress
dialog (what the window does) against the same work done on the GUI thread (what it did before).

A 1 ms ``QTimer`` ticks in the GUI thread; the longest gap between two ticks is the longest stall.
``read`` is :func:`file_actions.read_tokenizer` (file read, merges recovered, records built); ``apply`` is
what follows it in the window, :meth:`MainWindow.open_tokenizer`'s showing of the run (timeline, merge
list and the other panes taking the new model), measured in the whole main window.

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_open_tokenizer.py [--names o200k cl100k]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable


def _ticking(app: object, work: Callable[[], object]) -> tuple[float, float]:
    """(seconds, longest gap between 1 ms ticks in seconds) while *work* runs on the GUI thread."""
    from PySide6 import QtCore, QtWidgets

    assert isinstance(app, QtWidgets.QApplication)
    gaps: list[float] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    timer = QtCore.QTimer()
    timer.setInterval(1)
    timer.timeout.connect(tick)
    t0 = last[0] = time.perf_counter()
    timer.start()
    work()
    done = time.perf_counter() - t0
    tick()  # the gap the work itself ended
    timer.stop()
    return done, max(gaps)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--names", nargs="*", default=["o200k", "cl100k"])
    args = ap.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from bpe_desktop.gui import app as gui_app
    from bpe_desktop.gui import file_actions
    from bpe_desktop.gui.main_window import MainWindow
    from bpe_desktop.gui.modal_job import Progress

    app = gui_app.make_app()
    window = MainWindow()
    window.resize(1400, 900)
    window.show()
    for _ in range(20):
        app.processEvents()
    print("| encoding | where | seconds | GUI thread's longest stall (ms) |")
    print("|---|---|---|---|")
    for name in args.names:
        t, gap = _ticking(app, lambda n=name: file_actions.load_for_timeline(n, None, Progress()))
        print(f"| {name} | read on the GUI thread (before) | {t:.2f} | {gap * 1000:.0f} |")
        got: list[object] = []
        t, gap = _ticking(app, lambda n=name, g=got: g.append(file_actions.read_tokenizer(window, n)))
        print(f"| {name} | read on the helper thread (now) | {t:.2f} | {gap * 1000:.0f} |")
        res = got[0]
        assert isinstance(res, tuple)
        t, gap = _ticking(app, lambda r=res: file_actions.apply_tokenizer(window.session, *r))
        print(f"| {name} | apply: the run shown (GUI thread) | {t:.2f} | {gap * 1000:.0f} |")
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < 1.0:
            app.processEvents()
    window.close()


if __name__ == "__main__":
    main()
