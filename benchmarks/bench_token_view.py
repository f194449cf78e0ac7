"""Token-stream view: time to redraw the visible view after a jump, and frames dropped during play.

Trains kjv (bytes, GPT-2 pre-tokenization, HF ties) to 8,000 merges in-process with the core Trainer,
shows the whole text (4.1 MB) in a :class:`TokenStreamView` offscreen, then

* **jump**: moves the timeline to random steps (at random scroll positions, caches cold for that step)
  and times ``set_step(k)`` + a synchronous ``viewport().repaint()`` -- everything the user waits for;
  jumps during which Python ran a full (generation-2) garbage collection are counted and also left out
  in a second maximum, so that the view's own cost can be told from the collector's;
* **play**: steps +1 on a timer at several speeds for a few seconds with the merge animation on, and
  counts paints and the frames whose paint (encoding + layout + drawing) overran the 16.7 ms of a
  60 Hz frame, plus frames lost because the event loop could not deliver 60 paints a second.

By default the heap is NOT frozen: the window only calls ``gc.freeze()`` when a run ends, so jumps while
a run is still streaming in (or after a model was opened) meet full collections of everything the process
holds.  ``--freeze`` calls ``gc.freeze()`` after loading the model, as the controller does after a run.
The report also says how many GC-tracked objects the process holds after the jumps and how long each
full collection took.

Run:  QT_QPA_PLATFORM=offscreen python benchmarks/bench_token_view.py [--freeze] [--corpus PATH] [--merges N]
"""

from __future__ import annotations

import argparse
import copy
import gc
import random
import statistics
import time

from PySide6 import QtCore, QtWidgets

from bpe_desktop.core import CorpusSource, TrainConfig, Trainer
from bpe_desktop.core.counting.sources import count_source
from bpe_desktop.gui.session import Session
from bpe_desktop.gui.stream import canvas as token_canvas
from bpe_desktop.gui.stream.view import TokenStreamView

FRAME_MS = 1000 / 60

paint_log: list[tuple[float, float]] = []  # (start, duration ms)
full_gcs: list[float] = []  # durations (ms) of generation-2 collections
_gc_start = [0.0]


def _gc_watch(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        _gc_start[0] = time.perf_counter()
    elif info.get("generation") == 2:
        full_gcs.append((time.perf_counter() - _gc_start[0]) * 1000)


gc.callbacks.append(_gc_watch)
_orig_paint = token_canvas.TokenCanvas.paintEvent


def _timed_paint(self: token_canvas.TokenCanvas, event: object) -> None:
    t0 = time.perf_counter()
    _orig_paint(self, event)  # type: ignore[arg-type]
    paint_log.append((t0, (time.perf_counter() - t0) * 1000))


token_canvas.TokenCanvas.paintEvent = _timed_paint  # type: ignore[method-assign]


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="/work/shared/corpora/kjv.txt")
    ap.add_argument("--merges", type=int, default=8000)
    ap.add_argument("--jumps", type=int, default=40)
    ap.add_argument("--width", type=int, default=1200)
    ap.add_argument("--height", type=int, default=700)
    ap.add_argument("--freeze", action="store_true",
                    help="gc.freeze() after loading the model, as the window does when a run ends")
    args = ap.parse_args()
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])

    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", merges=args.merges, tie_break="hf")
    t0 = time.perf_counter()
    trainer = Trainer(count_source(CorpusSource.from_files([args.corpus]), cfg), cfg)
    records = trainer.run()
    train_s = time.perf_counter() - t0
    model = copy.deepcopy(trainer.model)
    del trainer  # the window trains in a worker process: its tables are not in the GUI's heap
    gc.collect()
    with open(args.corpus, encoding="utf-8") as f:
        text = f.read()

    session = Session()
    session.set_corpus(CorpusSource.from_text(text), cfg)
    view = TokenStreamView(session)
    view.resize(args.width, args.height)
    view.show()
    app.processEvents()
    session.reset_model(model, records)
    if args.freeze:  # as the window's controller does when a run ends: the model and records are never scanned again
        gc.freeze()
    canvas = view.canvas
    canvas.viewport().repaint()
    app.processEvents()
    print(f"trained {len(records)} merges in {train_s:.2f} s; {canvas.n_rows:,} lines, "
          f"{len(text.encode()):,} bytes; viewport {canvas.viewport().width()}x{canvas.viewport().height()}, "
          f"{len(canvas.visible_rows())} lines on screen; gc.freeze() {'called' if args.freeze else 'NOT called'}")

    # -- jumps ------------------------------------------------------------------------------------------
    rng = random.Random(5)
    times: list[float] = []
    encoded: list[int] = []
    pictures: list[int] = []
    no_gc: list[float] = []
    for i in range(args.jumps):
        if i % 2:
            canvas.scroll_to_row(rng.randrange(canvas.n_rows))
            canvas.viewport().repaint()
        k = rng.randrange(0, len(records) + 1)
        while k == session.step:
            k = rng.randrange(0, len(records) + 1)
        before, made, gcs = canvas.rows_encoded, canvas.boxes.pixmaps_made, len(full_gcs)
        t = time.perf_counter()
        session.set_step(k)
        canvas.viewport().repaint()
        times.append((time.perf_counter() - t) * 1000)
        encoded.append(canvas.rows_encoded - before)
        pictures.append(canvas.boxes.pixmaps_made - made)
        if len(full_gcs) == gcs:
            no_gc.append(times[-1])
        app.processEvents()
    print(f"jump redraw ({args.jumps} random jumps, cold step): median {statistics.median(times):.1f} ms, "
          f"p90 {pct(times, 0.9):.1f} ms, max {max(times):.1f} ms; lines encoded per jump "
          f"{statistics.median(encoded):.0f}, new box pictures per jump median {statistics.median(pictures):.0f} "
          f"(first jump {pictures[0]})")
    print(f"  {len(times) - len(no_gc)} jump(s) included a full GC; max without them {max(no_gc):.1f} ms")
    gc_ms = ", ".join(f"{d:.1f}" for d in full_gcs) or "none"
    print(f"  full GCs since start: {len(full_gcs)} ({gc_ms} ms); GC-tracked objects now "
          f"{len(gc.get_objects()):,} (+{gc.get_freeze_count():,} frozen); "
          f"canvas caches {len(canvas.caches.segments):,} rows, "
          f"{sum(len(v) // 4 for v in canvas.caches.segments.values()):,} segments")
    forced = []
    for _ in range(3):
        t = time.perf_counter()
        gc.collect()
        forced.append((time.perf_counter() - t) * 1000)
    del full_gcs[-3:]
    print(f"  a forced full collection now takes {statistics.median(forced):.1f} ms (median of 3)")

    # -- play -------------------------------------------------------------------------------------------
    for sps in (4, 15, 60):
        canvas.scroll_to_row(rng.randrange(canvas.n_rows))
        session.set_step(rng.randrange(0, len(records) // 2))
        view.set_play_speed(sps)
        app.processEvents()
        paint_log.clear()
        seconds = 3.0 if sps < 60 else 2.0
        timer = QtCore.QTimer()
        timer.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
        timer.timeout.connect(lambda: session.set_step(session.step + 1))
        # a 60 Hz frame clock, as a compositor would ask for frames
        clock = QtCore.QTimer()
        clock.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
        clock.timeout.connect(canvas.viewport().update)
        started = canvas.animations_started
        skipped = canvas.animations_skipped
        t_start = time.perf_counter()
        timer.start(int(1000 / sps))
        clock.start(int(FRAME_MS))
        while time.perf_counter() - t_start < seconds:
            app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
        timer.stop()
        clock.stop()
        elapsed = time.perf_counter() - t_start
        durs = [d for _, d in paint_log]
        # a 60 Hz frame slot is dropped when no paint finished inside it (the picture was not refreshed)
        slots = int(elapsed * 1000 / FRAME_MS)
        covered = {int(((st - t_start) * 1000 + d) / FRAME_MS) for st, d in paint_log}
        dropped = sum(1 for i in range(slots) if i not in covered)
        over = sum(1 for d in durs if d > FRAME_MS)
        print(f"play {sps:>2} steps/s for {elapsed:.1f} s: {dropped} of {slots} frames dropped "
              f"({len(durs)} paints, {over} over 16.7 ms), paint median {statistics.median(durs):.1f} ms "
              f"p95 {pct(durs, 0.95):.1f} ms max {max(durs):.1f} ms; animations run "
              f"{canvas.animations_started - started}, skipped {canvas.animations_skipped - skipped}")


if __name__ == "__main__":
    main()
