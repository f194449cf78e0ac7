"""Training benchmark: bpe-desktop's trainer side by side with HF tokenizers and subword-nmt, in one run.

Each trial runs in a fresh subprocess (so peak RSS is per trainer) and times "file -> merge list"
(reading, pre-tokenizing, counting, merging), excluding interpreter start-up and imports.

    python benchmarks/bench_train.py [--corpora ../shared/corpora] [--repeat 3] [--merges 1000 8000]
    python benchmarks/bench_train.py --whole [--repeat 5]     # whole commands from the shell, see below

Bytes mode + GPT-2 pattern is compared with HF's BpeTrainer (ByteLevel, 1 thread, RAYON_NUM_THREADS=1);
chars mode (whitespace split, glued </w>, min frequency 2) with subword-nmt's learn-bpe.  Prints a
markdown table; the figures recorded in RESULTS.md come from it.

``--whole`` times whole commands as a user runs them (interpreter start-up, imports, reading, training,
writing the file), interleaved in one run: ``python -m bpe_desktop train kjv.txt --mode bytes
--pretokenizer gpt2 --tie-break hf --merges 8000 --out tok.json`` (with ``--jobs 1``, with the default
jobs, and with ``--steps``/``--progress jsonl``) against a whole Python script that trains HF tokenizers'
ByteLevel BPE the same way on one thread (``RAYON_NUM_THREADS=1``, ``TOKENIZERS_PARALLELISM=false``) and
saves ``tokenizer.json``.  Wall time, CPU time and peak RSS come from ``os.wait4`` on each child.  Both sides
run as installed code does: with compiled bytecode (``PYTHONDONTWRITEBYTECODE`` is dropped, the cache goes to
a temporary ``PYTHONPYCACHEPREFIX``) after one untimed warm-up run of each command.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# beside the checkout (/work/main) or beside its worktree folder (/work/wt/NAME)
DEFAULT_CORPORA = next((p for p in (ROOT.parent / "shared" / "corpora", ROOT.parents[1] / "shared" / "corpora")
                        if p.is_dir()), ROOT.parent / "shared" / "corpora")

TRIAL = r"""
import json, os, resource, sys, time
kind, path, merges = sys.argv[1], sys.argv[2], int(sys.argv[3])
if kind == "ours-bytes":
    from bpe_desktop.core import TrainConfig, Trainer
    from bpe_desktop.core.counting.sources import count_files
    t0 = time.perf_counter()
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=merges)
    n = len(Trainer(count_files([path], cfg), cfg).run())
elif kind == "ours-chars":
    from bpe_desktop.core import TrainConfig, Trainer
    from bpe_desktop.core.counting.sources import count_files
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


HF_SCRIPT = r"""
import sys
from tokenizers import Tokenizer, models, pre_tokenizers, trainers, decoders
path, merges, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
tok = Tokenizer(models.BPE())
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
tok.decoder = decoders.ByteLevel()
tr = trainers.BpeTrainer(vocab_size=256 + merges, min_frequency=0, show_progress=False,
                         initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
tok.train([path], tr)
tok.save(out)
print(tok.get_vocab_size() - 256, "merges")
"""


def run_command(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Wall seconds, peak RSS (MB) and CPU seconds (user + system, children included) of one whole command."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit(f"failed ({p.returncode}): {' '.join(cmd)}")
    return dt, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def whole(args: argparse.Namespace) -> None:
    corpus = str(args.corpora / "kjv.txt")
    tmp = Path(tempfile.mkdtemp(prefix="bench_whole_"))
    env = dict(os.environ, RAYON_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false", PYTHONPATH=str(ROOT),
               PYTHONPYCACHEPREFIX=str(tmp / "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: imports read compiled bytecode
    (tmp / "hf.py").write_text(HF_SCRIPT)
    m = str(args.whole_merges)
    ours = [sys.executable, "-m", "bpe_desktop", "train", corpus, "--mode", "bytes", "--pretokenizer", "gpt2",
            "--tie-break", "hf", "--merges", m, "--out", str(tmp / "ours.json")]
    kinds = {
        "HF tokenizers, whole script, 1 thread": [sys.executable, str(tmp / "hf.py"), corpus, m, str(tmp / "hf.json")],
        "ours, train --jobs 1": [*ours, "--jobs", "1"],
        "ours, train (default jobs)": ours,
        "ours, train --jobs 1 --steps --progress jsonl": [*ours, "--jobs", "1", "--steps", str(tmp / "s.csv"),
                                                          "--progress", "jsonl"],
    }
    runs: dict[str, list[tuple[float, float, float]]] = {k: [] for k in kinds}
    for cmd in kinds.values():  # warm-up: bytecode compiled, files in the page cache
        run_command(cmd, env)
    for _ in range(args.repeat):  # interleaved, so load on the machine hits all alike
        for k, cmd in kinds.items():
            runs[k].append(run_command(cmd, env))
    hf = statistics.median(t for t, _, _ in runs[next(iter(kinds))])
    hf_cpu = statistics.median(c for _, _, c in runs[next(iter(kinds))])
    print(f"kjv.txt, {m} merges, bytes + GPT-2 pattern; median of {args.repeat} interleaved runs; "
          f"load average before: {os.getloadavg()[0]:.2f}")
    print("| whole command | wall s (median) | min s | x HF | CPU s (median) | CPU x HF | peak RSS MB |")
    print("|---|---|---|---|---|---|---|")
    for k, r in runs.items():
        med = statistics.median(t for t, _, _ in r)
        cpu = statistics.median(c for _, _, c in r)
        print(f"| {k} | {med:.2f} | {min(t for t, _, _ in r):.2f} | {med / hf:.2f}x | {cpu:.2f} | {cpu / hf_cpu:.2f}x "
              f"| {max(x for _, x, _ in r):.0f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--whole", action="store_true", help="whole commands from the shell (see above)")
    ap.add_argument("--whole-merges", type=int, default=8000)
    ap.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    ap.add_argument("--files", nargs="+", default=["kjv.txt", "robotlogs.txt"])
    ap.add_argument("--merges", nargs="+", type=int, default=[1000, 8000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-subword-nmt", action="store_true")
    args = ap.parse_args()
    if args.whole:
        whole(args)
        return
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
