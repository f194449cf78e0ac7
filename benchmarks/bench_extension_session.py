"""Saving and reopening a session that holds an extension run (cl100k + N merges on the robot-log sample).

    python benchmarks/bench_extension_session.py [N]

Builds the run as the window does (the Extend dialog's worker job in process, then ``extension_work``), shows it
in a fresh offscreen window (left 10 s to build its deferred panes) and times File → Save session
(``sessions.save_to``) and File → Open session (``sessions.open_session``, with the GUI thread's longest gap
between 1 ms ticks): ``reference`` as the program
writes it (cl100k by name, the added merges only), ``embedded`` the same run written as an opened tokenizer is
(every merge and record in the document: the run's ``extension`` dropped before saving).
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from bench_open_tokenizer import _ticking  # the same 1 ms probe

from bpe_desktop.gui import app as gui_app
from bpe_desktop.gui.extend.job import ExtendJob, run
from bpe_desktop.gui.extend.show import extension_work
from support import ROBOT_SAMPLE_FILE


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    app = gui_app.make_app()
    text = ROBOT_SAMPLE_FILE.read_text(encoding="utf-8")
    done = run(ExtendJob("cl100k", n, f"/tmp/bench_ext_{n}.tiktoken", text=text))
    for how in ("reference", "embedded"):
        w = gui_app.make_window(remember_layout=False)
        w.sessions.interactive = False
        w.show()
        w.corpus.set_text(text, name="robot logs", word_counts=False)
        work = extension_work(done, w.corpus.source())
        if how == "embedded":
            work = dataclasses.replace(work, extension=None)
        w.session.load(work)
        settle = time.perf_counter() + 10  # the deferred panes (plots: pyqtgraph) are built after the first paint
        while time.perf_counter() < settle:
            app.processEvents()  # type: ignore[attr-defined]
            time.sleep(0.01)
        path = f"/tmp/bench_ext_{how}.bpesession"
        t0 = time.perf_counter()
        assert w.sessions.save_to(path)
        save_s = time.perf_counter() - t0
        open_s, stall = _ticking(app, lambda: w.sessions.open_session(path))  # noqa: B023
        print(f"{how}: {done.made} merges, file {os.path.getsize(path) / 1e6:.2f} MB, save {save_s:.2f} s, "
              f"open {open_s:.2f} s, longest GUI-thread gap while opening {stall * 1000:.0f} ms")
        w.sessions.ask_before_discarding = False
        w.close()


if __name__ == "__main__":
    main()
