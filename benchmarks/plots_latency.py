"""The plots pane's share of the window's latency: ``ui_latency.latency`` with chosen panes swapped out.

Runs the same measurement as ``benchmarks/ui_latency.py`` (real main window, kjv, bytes, GPT-2 pattern, 8,000
merges through the worker process, 10 ms timer ticks in the GUI thread) but can swap any of the plots, the
compare pane and the token view for empty widgets, and times every ``PlotsPanel.refresh`` call (one slice of
the plots' work) and every paint of a plot, so a stall can be attributed to the plots or to the rest.

    python benchmarks/plots_latency.py [--without compare] [--without plots] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--without", action="append", default=[], choices=("compare", "plots", "tokens"))
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--merges", type=int, default=8000)
    args = p.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import ui_latency
    from PySide6 import QtWidgets

    from bpe_desktop.gui import main_window
    from bpe_desktop.gui.plots import common as plot_common
    from bpe_desktop.gui.plots import panel as plots

    class Empty(QtWidgets.QWidget):
        def __init__(self, session: object, parent: QtWidgets.QWidget | None = None) -> None:
            super().__init__(parent)

    names = {"compare": "ComparePanel", "plots": "PlotsPanel", "tokens": "TokenStreamView"}
    for w in args.without:
        setattr(main_window, names[w], Empty)
    times: dict[str, list[float]] = {"refresh": [], "paint": []}

    def timed(cls: type, name: str, label: str) -> None:
        real = getattr(cls, name)

        def f(*a: object, **k: object) -> object:
            t = time.perf_counter()
            r = real(*a, **k)
            times[label].append((time.perf_counter() - t) * 1000)
            return r

        setattr(cls, name, f)

    timed(plots.PlotsPanel, "refresh", "refresh")
    timed(plot_common.PlotCard, "paintEvent", "paint")
    res = ui_latency.latency(str(ui_latency.KJV), args.merges, "none", args.runs)
    out = {k: res[k] for k in ("p50_ms", "p99_ms", "max_ms", "ticks", "ticks_over_20ms", "ticks_over_50ms",
                               "train_s", "drain_p99_ms", "drain_max_ms")}
    out["without"] = args.without
    for k, v in times.items():
        if v:
            out[f"plots_{k}_calls"] = len(v)
            out[f"plots_{k}_max_ms"] = round(max(v), 2)
            out[f"plots_{k}_total_ms"] = round(sum(v), 1)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
