"""Plots' statistics on a real corpus: how long the Zipf pair counts take at any step.

Trains (bytes, GPT-2 pre-tokenization, hf ties) on the corpus, builds the segmentation history once, then
times ``SegmentationHistory.zipf(k)`` (pair counts + sort + fit) cold (cache emptied) at fixed and random
steps, and warm when scrubbing one step from a cached one.  Then the same work cut into the units the
window runs between event-loop turns (``SegmentationHistory.building``, ``extending``, ``zipf_steps``):
how many units and the longest one, with the cyclic GC off (as during a training run) and on.  With
``--gui`` it also times the plots pane: the history replayed in slices (longest ``refresh()`` call) and,
after ``session.set_step(k)``, the time until the plot shows step k and the longest slice on the way.

    python benchmarks/bench_stats.py /work/shared/corpora/kjv.txt --merges 8000 --gui
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import time

from bpe_desktop.core import CorpusSource, TrainConfig, Trainer, count_source
from bpe_desktop.core.measure.stats import SegmentationHistory


def unit_times(job) -> tuple[object, list[float]]:  # type: ignore[no-untyped-def]
    """Run a generator of units to its end; its result and every unit's duration (ms)."""
    out = []
    while True:
        t0 = time.perf_counter()
        try:
            next(job)
        except StopIteration as stop:
            out.append(ms(t0))
            return stop.value, out
        out.append(ms(t0))


def ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", nargs="?", default="/work/shared/corpora/kjv.txt")
    ap.add_argument("--merges", type=int, default=8000)
    ap.add_argument("--random", type=int, default=20, help="random steps to time")
    ap.add_argument("--gui", action="store_true", help="also time the plots pane's redraw (offscreen)")
    args = ap.parse_args()
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=args.merges)
    t0 = time.perf_counter()
    wc = count_source(CorpusSource.from_files([args.corpus]), cfg)
    print(f"count: {ms(t0):.0f} ms ({len(wc):,} distinct pieces)")
    t0 = time.perf_counter()
    trainer = Trainer(wc, cfg)
    recs = trainer.run()
    print(f"train {len(recs):,} merges: {ms(t0):.0f} ms")
    t0 = time.perf_counter()
    h = SegmentationHistory(wc, trainer.model)
    print(f"history (one-time replay of all merges): {ms(t0):.0f} ms")

    rng = random.Random(1)
    fixed = [0, 1, 10, 100, 1000, 4000, len(recs) - 1, len(recs)]
    ks = fixed + [rng.randint(0, len(recs)) for _ in range(args.random)]
    cold = []
    for k in ks:
        h._cache.clear()
        t0 = time.perf_counter()
        z = h.zipf(k)
        cold.append(ms(t0))
        if k in fixed:
            print(f"  zipf({k}) cold: {cold[-1]:.1f} ms, {len(z.counts):,} pairs, slope {z.slope:.3f}")
    print(f"zipf cold over {len(ks)} steps: median {statistics.median(cold):.1f} ms, max {max(cold):.1f} ms")
    warm = []
    for k in ks:
        h._cache.clear()
        h.pair_counts(k)
        k1 = min(k + 1, len(recs)) if k < len(recs) else k - 1
        t0 = time.perf_counter()
        h.zipf(k1)
        warm.append(ms(t0))
    print(f"zipf scrubbing one step: median {statistics.median(warm):.1f} ms, max {max(warm):.1f} ms")

    for gc_on in (False, True):
        if not gc_on:
            gc.disable()
        hs, b = unit_times(SegmentationHistory.building(wc, trainer.model.truncated(0)))
        assert isinstance(hs, SegmentationHistory)
        hs.model = trainer.model
        _, e = unit_times(hs.extending())
        zs = []
        for k in fixed:
            hs._cache.clear()
            zs += unit_times(hs.zipf_steps(k))[1]
        gc.enable()
        print(f"in units, GC {'on ' if gc_on else 'off'}: build {len(b)} units, longest {max(b):.1f} ms; "
              f"replay {len(e):,} units ({sum(e):.0f} ms), longest {max(e):.1f} ms; zipf at {len(fixed)} steps "
              f"{len(zs)} units, longest {max(zs):.1f} ms")

    if args.gui:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        from PySide6 import QtWidgets

        from bpe_desktop.gui.plots.panel import PlotsPanel
        from bpe_desktop.gui.session import Session

        app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
        s = Session()
        s.set_config(cfg)  # (the session is changed through its methods, as the window does)
        s.set_counted(wc, trainer.initial_symbols, s.held_out)
        s.reset_model(trainer.model.truncated(0))
        s.append_records(recs)
        panel = PlotsPanel(s)
        panel.resize(900, 600)
        panel.show()
        slices: list[float] = []
        real_refresh = panel.refresh

        def timed_refresh() -> None:
            t = time.perf_counter()
            real_refresh()
            slices.append(ms(t))

        panel._timer.timeout.disconnect()
        panel._timer.timeout.connect(timed_refresh)
        t0 = time.perf_counter()
        while panel.feed.history is None or panel.feed.history.pending:
            app.processEvents()
        print(f"pane: history replayed in {len(slices)} slices while the event loop ran: {ms(t0):.0f} ms wall, "
              f"longest refresh() {max(slices):.1f} ms")
        times = []
        slices.clear()
        for k in ks:
            panel.feed.history._cache.clear()  # type: ignore[union-attr]
            t0 = time.perf_counter()
            s.set_step(k)
            while not (panel.zipf.data is not None and panel.zipf.data.step == k):
                app.processEvents()
            times.append(ms(t0))
        print(f"pane: set_step(k) until the plot shows step k, cold: median {statistics.median(times):.1f} ms, "
              f"max {max(times):.1f} ms; longest refresh() slice {max(slices):.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
