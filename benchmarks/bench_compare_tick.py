"""Ticking o200k (and gpt2) in the Compare tokenizers pane: the GUI thread's longest stall while the reference is
read, with the read on the ``references`` helper thread (what the pane does) against the same read on the GUI
thread (``compare.loading.read`` called here, what a tick did before; an added file now reads behind the modal
progress dialog, a session's reference as a tick does: ``benchmarks/bench_off_gui.py``).

A 1 ms ``QTimer`` ticks in the GUI thread; the longest gap between two ticks is the longest stall.  The "now"
figure runs until the pane has taken the tokenizer in and drawn the row (its refresh included).

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_compare_tick.py [--names o200k_base gpt2]
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # bench_open_tokenizer's probe


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--names", nargs="*", default=["o200k_base", "gpt2"])
    args = ap.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from bench_open_tokenizer import _ticking
    from PySide6 import QtCore

    from bpe_desktop.gui import app as gui_app
    from bpe_desktop.gui.compare import loading
    from bpe_desktop.gui.compare.panel import ComparePanel
    from bpe_desktop.gui.session import Session

    app = gui_app.make_app()

    def tick_now(panel: ComparePanel, name: str) -> None:
        panel.set_reference_enabled(name, True)
        while panel.loading() or panel.row(name).count is None:  # until the row is drawn (its refresh too)
            app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.WaitForMoreEvents, 5)

    print("| reference | where | seconds | GUI thread's longest stall (ms) |")
    print("|---|---|---|---|")
    for name in args.names:
        for before in (True, False):
            panel = ComparePanel(Session())
            panel.resize(900, 700)
            panel.show()
            for _ in range(20):
                app.processEvents()
            ref = panel.reference(name)
            assert ref is not None and ref.tokenizer is None
            if before:
                t, gap = _ticking(app, lambda r=ref: loading.read(r.spec, r.pretokenizer))
            else:
                t, gap = _ticking(app, lambda p=panel, n=name: tick_now(p, n))
            where = "read on the GUI thread (before)" if before else "read on the helper thread (now)"
            print(f"| {name} | {where} | {t:.2f} | {gap * 1000:.0f} |")
            panel.close()
            panel.deleteLater()
            app.processEvents()


if __name__ == "__main__":
    main()
