"""Same-process A/B of two trainer versions: an old ``trainer.py`` file against the working tree's.

    git show 61b6cc4:bpe_desktop/core/training/trainer.py > /tmp/old_trainer.py
    python benchmarks/ab_trainer.py /tmp/old_trainer.py --repeat 6 kc kb rb

Cases: ``kc`` kjv chars (whitespace, glued </w>, min frequency 2, lexical), ``kb`` kjv bytes (gpt2, hf),
``rb`` robotlogs bytes (gpt2, hf); 8,000 merges each.  Counting is done once per case and excluded; the two
versions alternate (ABBA...) on the same word counts and CPU time (``time.process_time``) is reported as
min / median, since the machine is shared.  Also checks that both give the same merges and contenders.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bpe_desktop.core import TrainConfig  # noqa: E402
from bpe_desktop.core.counting.sources import count_files  # noqa: E402
from bpe_desktop.core.training import trainer as new_trainer  # noqa: E402

CORPORA = ROOT.parent / "shared" / "corpora"
CASES = {
    "kc": ("kjv chars", "kjv.txt", TrainConfig(mode="chars", pretokenizer="whitespace", glue_marker=True,
                                               merges=8000, min_frequency=2)),
    "kb": ("kjv bytes", "kjv.txt", TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=8000)),
    "rb": ("robotlogs bytes", "robotlogs.txt",
           TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=8000)),
}


def load_old(path: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("bpe_desktop.core._ab_old_trainer", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old", help="path of the old trainer.py")
    ap.add_argument("cases", nargs="*", help=f"some of {', '.join(CASES)} (default: all)")
    ap.add_argument("--repeat", type=int, default=6)
    args = ap.parse_args()
    cases = args.cases or list(CASES)
    if unknown := set(cases) - set(CASES):
        ap.error(f"unknown case(s) {sorted(unknown)}: use {', '.join(CASES)}")
    versions = {"old": load_old(args.old), "new": new_trainer}
    for case in cases:
        name, corpus, cfg = CASES[case]
        wc = count_files([CORPORA / corpus], cfg)
        times: dict[str, list[float]] = {"old": [], "new": []}
        out = {}
        for r in range(args.repeat):
            for tag in ("old", "new") if r % 2 == 0 else ("new", "old"):
                t0 = time.process_time()
                t = versions[tag].Trainer(wc, cfg)
                recs = t.run()
                times[tag].append(time.process_time() - t0)
                out[tag] = (list(t.model.merges), [rec.contenders for rec in recs])
        o, n = times["old"], times["new"]
        mo, mn, do, dn = min(o), min(n), statistics.median(o), statistics.median(n)
        print(f"{name:16s} old {mo:.3f} / {do:.3f}  new {mn:.3f} / {dn:.3f}  new/old {mn / mo:.2f} / {dn / do:.2f}"
              f"  same={out['old'] == out['new']}", flush=True)


if __name__ == "__main__":
    main()
