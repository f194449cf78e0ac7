"""The compare pane's costs in the GUI thread, and the window's cold start with the pane in it.

Measures, offscreen, on a tokenizer trained on the bundled robot-log sample (bytes, cl100k pattern,
``--merges``): building the pane; ticking cl100k_base the first time (load the ``.tiktoken`` file + encode);
a refresh after a step change (your tokenizer re-encodes the text at a step it has not seen; cl100k's
result is cached); a refresh per sample text with cl100k ticked; and a cached refresh.  Cold start
(launching ``python`` to the first paint of the main window, median of ``--cold-runs`` fresh interpreters)
comes from ``benchmarks/ui_latency.py``'s own child, so the figure is comparable with its table.

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_compare.py [--merges 1000] [--runs 5] [--cold-runs 3]

Prints one JSON object (milliseconds, medians of ``--runs``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--merges", type=int, default=1000)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--cold-runs", type=int, default=3)
    args = p.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

    from PySide6 import QtWidgets

    from bpe_desktop.core import CorpusSource, TrainConfig, Trainer
    from bpe_desktop.core.counting.sources import count_source
    from bpe_desktop.gui import resources
    from bpe_desktop.gui.compare.panel import CL100K_NAME, ComparePanel
    from bpe_desktop.gui.compare.sources import SAMPLE_NAMES
    from bpe_desktop.gui.session import Session

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    cfg = TrainConfig(mode="bytes", pretokenizer="cl100k", tie_break="hf", merges=args.merges)
    t = Trainer(count_source(CorpusSource.from_text(resources.read_text(resources.ROBOT_LOGS)), cfg), cfg)
    recs = t.run()

    def ms(f) -> float:  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        f()
        return (time.perf_counter() - t0) * 1000

    build, first_tick, step_refresh, cached = [], [], [], []
    per_sample: dict[str, list[float]] = {n: [] for n in SAMPLE_NAMES}
    for _ in range(args.runs):
        s = Session()
        s.set_corpus(CorpusSource.from_text("x"), cfg)
        s.reset_model(t.model, recs)
        t0 = time.perf_counter()
        panel = ComparePanel(s)
        build.append((time.perf_counter() - t0) * 1000)
        panel.resize(1000, 800)
        panel.show()
        app.processEvents()
        panel.refresh()
        t0 = time.perf_counter()
        panel.set_reference_enabled(CL100K_NAME, True)
        panel.refresh()
        first_tick.append((time.perf_counter() - t0) * 1000)
        for k in (args.merges // 2, args.merges // 3, args.merges // 4):
            s.set_step(k)
            step_refresh.append(ms(panel.refresh))
        cached.append(ms(panel.refresh))
        for name in SAMPLE_NAMES[1:]:  # the first sample is the default text, already encoded (cached)
            panel.set_sample(name)
            per_sample[name].append(ms(panel.refresh))
        panel.deleteLater()
        app.processEvents()

    import ui_latency

    cold = ui_latency.cold_start(args.cold_runs) if args.cold_runs else []
    med = statistics.median
    print(json.dumps({
        "merges": args.merges, "runs": args.runs,
        "build_ms": round(med(build), 1),
        "first_cl100k_tick_ms": round(med(first_tick), 1),
        "step_refresh_ms": round(med(step_refresh), 1),
        "cached_refresh_ms": round(med(cached), 1),
        "sample_refresh_ms": {n: round(med(v), 1) for n, v in per_sample.items() if v},
        "cold_start_s": round(med(cold), 3) if cold else None,
        "cold_start_runs_s": [round(c, 3) for c in cold],
    }, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
