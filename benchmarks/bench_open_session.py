"""The GUI thread's longest stall while File → Open session opens a session with a big typed corpus.

    python benchmarks/bench_open_session.py MB here|helper

Writes (once) a session whose corpus is MB megabytes of typed robot log (``/tmp/bench_open_session_MB``),
then opens it in a fresh offscreen window with ``sessions.open_session`` while a 1 ms ``QTimer`` records
the gaps between its ticks on the GUI thread (the stretch up to the end of ``open_session`` counts as one).
``here`` reads the file on the GUI thread (``manager.BACKGROUND_BYTES`` set huge, as before issue 26 item
13), ``helper`` as the program does (a big file on the helper thread behind the progress dialog).
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from bench_open_tokenizer import _ticking  # the same 1 ms probe

from bpe_desktop.core.logs.robotlogs import generate
from bpe_desktop.gui import app as gui_app
from bpe_desktop.gui.session_io import manager


def main() -> None:
    mb, how = float(sys.argv[1]), sys.argv[2]
    path = f"/tmp/bench_open_session_{mb:g}.bpesession"
    app = gui_app.make_app()
    if not os.path.exists(path):
        w = gui_app.make_window(remember_layout=False)
        w.corpus.editor.setPlainText(generate(int(mb * 1e6 / 95), seed=3))
        assert w.sessions.save_to(path)
        w.close()
    if how == "here":
        manager.BACKGROUND_BYTES = 1 << 40
    w2 = gui_app.make_window(remember_layout=False)
    w2.show()
    for _ in range(20):
        app.processEvents()
    opened: list[bool] = []
    c0 = time.process_time()
    seconds, gap = _ticking(app, lambda: opened.append(w2.sessions.open_session(path)))
    print(f"{how}: file {os.path.getsize(path) / 1e6:.0f} MB, opened={opened == [True]}, open_session {seconds:.2f} s "
          f"wall, {time.process_time() - c0:.2f} s CPU, longest GUI-thread gap {gap * 1000:.0f} ms, "
          f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
