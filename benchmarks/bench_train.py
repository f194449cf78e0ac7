"""Training benchmark: bpe-desktop's trainer side by side with HF tokenizers and subword-nmt, in one run.

Each trial runs in a fresh subprocess (so peak RSS is per trainer) and times "file -> merge list"
(reading, pre-tokenizing, counting, merging), excluding interpreter start-up and imports.

    python benchmarks/bench_train.py [--corpora ../shared/corpora] [--repeat 3] [--merges 1000 8000]

Bytes mode + GPT-2 pattern is compared with HF's BpeTrainer (ByteLevel, 1 thread, RAYON_NUM_THREADS=1);
chars mode (whitespace split, glued </w>, min frequency 2) with subword-nmt's learn-bpe.  Prints a
markdown table; the figures recorded in RESULTS.md come from it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPORA = ROOT.parent / "shared" / "corpora"

TRIAL = r"""
import json, os, resource, sys, time
kind, path, merges = sys.argv[1], sys.argv[2], int(sys.argv[3])
if kind == "ours-bytes":
    from bpe_desktop.core import TrainConfig, Trainer
    from bpe_desktop.core.corpus import count_files
    t0 = time.perf_counter()
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=merges)
    n = len(Trainer(count_files([path], cfg), cfg).run())
elif kind == "ours-chars":
    from bpe_desktop.core import TrainConfig, Trainer
    from bpe_desktop.core.corpus import count_files
    t0 = time.perf_counter()
    cfg = TrainConfig(mode="chars", pretokenizer="whitespace", glue_marker=True, merges=merges, min_frequency=2)
    n = len(Trainer(count_files([path], cfg), cfg).run())
elif kind == "hf-bytes":
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    t0 = time.perf_counter()
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tr = trainers.BpeTrainer(vocab_size=256 + merges, min_frequency=0, show_progress=False,
                             initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train([path], tr)
    n = tok.get_vocab_size() - 256
elif kind == "subword-nmt":
    import io
    from subword_nmt.learn_bpe import learn_bpe
    t0 = time.perf_counter()
    out = io.StringIO()
    with open(path, encoding="utf-8") as f:
        learn_bpe(f, out, merges, min_frequency=2)
    n = out.getvalue().count("\n") - 1
else:
    raise SystemExit(kind)
dt = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": dt, "merges": n, "rss_mb": rss}))
"""


def trial(kind: str, path: Path, merges: int) -> dict[str, float]:
    env = dict(os.environ, RAYON_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(TRIAL)
    try:
        r = subprocess.run([sys.executable, f.name, kind, str(path), str(merges)], capture_output=True,
                           text=True, env=env, check=True, timeout=600)
    finally:
        os.unlink(f.name)
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    ap.add_argument("--files", nargs="+", default=["kjv.txt", "robotlogs.txt"])
    ap.add_argument("--merges", nargs="+", type=int, default=[1000, 8000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-subword-nmt", action="store_true")
    args = ap.parse_args()
    pairs = [("ours-bytes", "hf-bytes")] + ([] if args.skip_subword_nmt else [("ours-chars", "subword-nmt")])
    print("| corpus | merges | ours | peer | ours s | peer s | ours/peer | ours RSS MB | peer RSS MB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.files:
        path = args.corpora / name
        for merges in args.merges:
            for ours, peer in pairs:
                runs: dict[str, list[dict[str, float]]] = {ours: [], peer: []}
                for _ in range(args.repeat):  # interleaved, so load on the machine hits both alike
                    for kind in (ours, peer):
                        runs[kind].append(trial(kind, path, merges))
                t = {k: statistics.median(r["seconds"] for r in v) for k, v in runs.items()}
                m = {k: max(r["rss_mb"] for r in v) for k, v in runs.items()}
                print(f"| {name} | {merges} | {ours} | {peer} | {t[ours]:.2f} | {t[peer]:.2f} | "
                      f"{t[ours] / t[peer]:.2f}x | {m[ours]:.0f} | {m[peer]:.0f} |", flush=True)


if __name__ == "__main__":
    main()
