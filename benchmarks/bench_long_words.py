"""Long words with no spaces: training time as a word grows from 1 KB to 10 MB, ours beside HF tokenizers.

    python benchmarks/bench_long_words.py [--sizes 1e3,1e4,1e5,1e6,1e7] [--merges 20] [--repeat 3]

Each corpus is one line of random ``ACGT`` (a DNA-like word: no space, no punctuation) written into /tmp.
Every trial is a whole command in a fresh process: ``python -m bpe_desktop train FILE --pretokenizer none
--merges N`` (chars mode, the whole line one word) and HF tokenizers' ``BpeTrainer`` with no
pre-tokenizer (the line one word too).  A tool whose run took longer than ``--give-up`` seconds is
skipped at the larger sizes.  Printed as a markdown table: median wall seconds, peak RSS
(the child's ``ru_maxrss``), and the growth factor from the previous size — near 10× per 10× of size is
linear; the quadratic index fixed in the trainer gave ~50× per 10× (22 s at 200 KB).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HF_SCRIPT = r"""
import sys
from tokenizers import Tokenizer, models, trainers
path, merges, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
tok = Tokenizer(models.BPE())
tr = trainers.BpeTrainer(vocab_size=4 + merges, min_frequency=0, show_progress=False)
tok.train([path], tr)
tok.save(out)
"""


def corpus(size: int) -> Path:
    path = Path(tempfile.gettempdir()) / f"bench_long_word_{size}.txt"
    if not path.exists() or path.stat().st_size != size + 1:
        rng = random.Random(size)
        path.write_text("".join(rng.choice("ACGT") for _ in range(size)) + "\n", encoding="ascii")
    return path


def run(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS MB) of one whole command (its own rusage, from wait4)."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{cmd[:4]}... exited {proc.returncode}")
    return wall, usage.ru_maxrss / 1024


def row_cells(name: str, cmd: list[str], prev: dict[str, float], repeat: int, give_up: float) -> list[str]:
    """One tool's cells of a size's row -- median wall s, growth over the previous size, peak RSS MB -- or
    "skipped" once its previous size took over *give_up* s (growing 10x a step, the next would take minutes);
    *prev* (tool -> last median) is updated."""
    if prev.get(name, 0.0) > give_up:
        return ["skipped", "", ""]
    trials = [run(cmd)]
    if trials[0][0] < give_up:
        trials += [run(cmd) for _ in range(repeat - 1)]
    wall = statistics.median(w for w, _ in trials)
    growth = f"{wall / prev[name]:.1f}x" if name in prev else ""
    prev[name] = wall
    return [f"{wall:.2f}", growth, f"{max(r for _, r in trials):.0f}"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1e3,1e4,1e5,1e6,1e7")
    ap.add_argument("--merges", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--give-up", type=float, default=20.0, help="skip a tool's larger sizes after a run this long (s)")
    args = ap.parse_args()
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    out = Path(tempfile.mkdtemp(prefix="bench_long_words_"))
    tools = {
        "ours": lambda p: [sys.executable, "-m", "bpe_desktop", "train", str(p), "--pretokenizer", "none",
                           "--merges", str(args.merges), "--out", str(out / "ours.json")],
        "hf": lambda p: [sys.executable, "-c", HF_SCRIPT, str(p), str(args.merges), str(out / "hf.json")],
    }
    print(f"one word of random ACGT, {args.merges} merges, median of {args.repeat} whole commands")
    print("| size | ours s | growth | ours RSS MB | HF s | growth | HF RSS MB |")
    print("|---|---|---|---|---|---|---|")
    prev: dict[str, float] = {}
    for size in sizes:
        path = corpus(size)
        cells = []
        for name, cmd in tools.items():
            cells += row_cells(name, cmd(path), prev, args.repeat, args.give_up)
        print(f"| {size:,} B | " + " | ".join(cells) + " |", flush=True)
    for f in out.iterdir():
        f.unlink()


if __name__ == "__main__":
    main()
