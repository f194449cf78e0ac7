"""What the plots of an extension run cost: the extension job with and without keeping the corpus's segmentation at
every step (``history=True``), the size of what the worker hands back (pickled), and on the GUI side the longest
unit of work of building the :class:`RewriteHistory`, of the Zipf recount at a step and of the quality curve (the
plots pane runs them a slice at a time, so the longest unit bounds a slice), with their totals; the collector is
frozen for those, as the plots feed freezes it while it works.  Usage::

    python benchmarks/bench_extension_plots.py --lines 200000 --merges 1000   # a generated robot log
    python benchmarks/bench_extension_plots.py --file ../shared/corpora/kjv.txt --merges 1000
"""

from __future__ import annotations

import argparse
import gc
import os
import pickle
import sys
import time
from collections.abc import Generator
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.extend import corpus_pieces, prepare, rewrites_again
from bpe_desktop.core.formats import load
from bpe_desktop.core.logs.robotlogs import generate
from bpe_desktop.core.measure.quality import TextTotals
from bpe_desktop.core.measure.quality_curves import RewrittenCurves
from bpe_desktop.core.measure.stats import RewriteHistory


def units(job: Generator[None, None, Any]) -> tuple[Any, float, float, int]:
    """Run a job to its end: (result, longest unit s, total s, units)."""
    longest = total = 0.0
    n = 0
    while True:
        t0 = time.perf_counter()
        try:
            next(job)
        except StopIteration as stop:
            dt = time.perf_counter() - t0
            return stop.value, max(longest, dt), total + dt, n + 1
        dt = time.perf_counter() - t0
        longest, total, n = max(longest, dt), total + dt, n + 1


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=200_000)
    ap.add_argument("--merges", type=int, default=1000)
    ap.add_argument("--spec", default="cl100k")
    ap.add_argument("--file", help="a corpus file instead of a generated log")
    args = ap.parse_args()
    text = open(args.file, encoding="utf-8").read() if args.file else generate(args.lines, seed=7)
    print(f"{args.file or 'generated log'}: {text.count(chr(10)):,} lines ({len(text.encode()) / 1e6:.1f} MB), "
          f"{args.spec} + {args.merges:,} merges")
    loaded = load(args.spec)
    pieces = corpus_pieces(loaded.tokenizer, text)
    cfg = TrainConfig(mode="bytes", merges=args.merges)
    for history in (False, True):
        t0 = time.perf_counter()
        ext = prepare(loaded, args.spec, pieces, cfg, history=history)
        ext.trainer.run()
        secs = time.perf_counter() - t0
        print(f"extend (history={history}): {secs:.2f} s, {len(ext.records):,} merges, "
              f"{len(pieces):,} distinct pieces")
    t0 = time.perf_counter()
    run = ext.timeline()
    print(f"timeline (recovering the original's merges, and the rewrites in model ids): "
          f"{time.perf_counter() - t0:.2f} s")
    rw = run.rewrites
    assert rw is not None
    print(f"rewrites pickled: {len(pickle.dumps(rw, protocol=pickle.HIGHEST_PROTOCOL)) / 1e6:.1f} MB "
          f"({sum(len(s) for s in rw.steps):,} rewritten pieces)")
    gc.collect()
    gc.freeze()  # (as the window's plots feed does while it works: a collection's pause is not the unit's)
    h, longest, total, n = units(RewriteHistory.from_rewrites(rw, run.model, run.start))
    print(f"RewriteHistory: longest unit {longest * 1000:.2f} ms, total {total * 1000:.0f} ms in {n:,} units")
    for k in (0, len(run.records) // 2, len(run.records)):
        _, longest, total, n = units(h.zipf_steps(k))
        print(f"Zipf at step {k:,}: longest unit {longest * 1000:.2f} ms, total {total * 1000:.0f} ms")
    sizes = [run.model.vocab_size_at(run.start + k) for k in range(len(run.records) + 1)]
    _, longest, total, n = units(RewrittenCurves(rw, TextTotals.of_text(text), sizes).computing())
    print(f"quality curve: longest unit {longest * 1000:.2f} ms, total {total * 1000:.0f} ms in {n:,} units")
    t0 = time.perf_counter()
    again = rewrites_again(loaded, args.spec, pieces, run.model, run.start, cfg)
    print(f"rewrites_again (a reopened session, on a helper thread; pieces counted): "
          f"{time.perf_counter() - t0:.2f} s, equal: {again == rw}")


if __name__ == "__main__":
    main()
