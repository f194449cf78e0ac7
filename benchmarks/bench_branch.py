"""What-if benchmark: forbidding pairs and branching at step k, side by side with retraining from step 0.

    python benchmarks/bench_branch.py [--corpora ../shared/corpora] [--repeat 3] [--merges 8000] [--at 4000]

On kjv (bytes, GPT-2 pattern, hf ties) the word counts are made once; then, alternating, in one process
(CPU seconds, min / median, since the machine is shared):

* ``plain``        -- train ``--merges`` merges, no forbids (the baseline every run without forbids pays);
* ``forbid pairs`` -- a fresh run with 20 of the plain run's merges (picked after ``--at``) forbidden: what a
  user does without branching;
* ``forbid regex`` -- a fresh run with a forbid pattern (digits across a space, or 3 vowels in a row);
* ``branch``       -- ``start_branch`` at ``--at`` (replay the first k merges) + continue with the 20 pairs
  forbidden; it must give exactly the ``forbid pairs`` merges (checked);
* ``replay only``  -- the replay of the first k merges alone.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bpe_desktop.core import TrainConfig, Trainer  # noqa: E402
from bpe_desktop.core.counting.sources import count_files  # noqa: E402
from bpe_desktop.core.training.branch import BranchPoint, start_branch  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpora", type=Path, default=ROOT.parent / "shared" / "corpora")
    ap.add_argument("--file", default="kjv.txt")
    ap.add_argument("--merges", type=int, default=8000)
    ap.add_argument("--at", type=int, default=4000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=args.merges)
    wc = count_files([args.corpora / args.file], cfg)
    src = Trainer(wc, cfg)
    recs = src.run()
    made = [(r.left, r.right) for r in recs]
    banned = tuple(made[args.at :: max(1, (len(made) - args.at) // 20)][:20])
    forbid = cfg.with_(forbid=banned)
    point = BranchPoint.from_model(src.model, args.at, recs)

    def plain() -> list[tuple[str, str]]:
        return [(r.left, r.right) for r in Trainer(wc, cfg).run()]

    def pairs() -> list[tuple[str, str]]:
        return [(r.left, r.right) for r in Trainer(wc, forbid).run()]

    def pattern() -> list[tuple[str, str]]:
        c = cfg.with_(forbid_regex=r"\d\s+\d|[aeiou]{3}")
        return [(r.left, r.right) for r in Trainer(wc, c).run()]

    def branch() -> list[tuple[str, str]]:
        b = start_branch(wc, forbid, point)
        return [(r.left, r.right) for r in b.records + list(b.trainer)]

    def replay() -> list[tuple[str, str]]:
        t = Trainer(wc, cfg)
        return [(r.left, r.right) for r in t.replay(point.pairs)]

    cases = {"plain": plain, "forbid pairs": pairs, "forbid regex": pattern, "branch": branch, "replay only": replay}
    times: dict[str, list[float]] = {k: [] for k in cases}
    out: dict[str, list[tuple[str, str]]] = {}
    for r in range(args.repeat):
        for name in list(cases) if r % 2 == 0 else list(reversed(cases)):
            t0 = time.process_time()
            out[name] = cases[name]()
            times[name].append(time.process_time() - t0)
    assert out["branch"] == out["forbid pairs"], "branch differs from the fresh run with the same forbids"
    assert out["plain"] == made and out["replay only"] == made[: args.at]
    print(f"{args.file}, bytes + gpt2, hf ties, {args.merges} merges, branch at {args.at}, {len(banned)} pairs "
          f"forbidden; {len(wc)} distinct pieces; CPU s min / median of {args.repeat}")
    print("| case | min s | median s | vs plain |")
    print("|---|---|---|---|")
    base = min(times["plain"])
    for name, ts in times.items():
        print(f"| {name} | {min(ts):.3f} | {statistics.median(ts):.3f} | {min(ts) / base:.2f}x |")


if __name__ == "__main__":
    main()
