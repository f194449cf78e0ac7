"""Counting benchmark on a generated ~1 GB corpus: our count (1 and 2 processes, a Dask LocalCluster of 2
workers) side by side with HF tokenizers' training on the same file, in one run.

    python benchmarks/bench_count.py [--size-mb 1000] [--corpus /tmp/bench_count_1000mb.txt] [--skip-dask]

The corpus is generated into /tmp (never the repository): copies of the shared corpora (kjv.txt,
robotlogs.txt) with variation, so the pieces are not all repeats -- each copy has its lines shuffled, its
digits permuted, some lines upper- or title-cased and a copy tag (``v17``) on some lines.  Every trial is a
whole command in a fresh process tree; wall time, throughput (corpus MB / s), CPU time and the peak RSS
summed over the process tree (sampled every 0.1 s with psutil) are printed as a markdown table:

* ``count --jobs 1`` / ``--jobs 2`` / ``--engine dask --jobs 2``: bytes mode, GPT-2 pattern, table written;
* ``train --jobs 2 --merges 8000``: time to a trained 8,000-merge tokenizer (count + merge + write);
* HF tokenizers' ``BpeTrainer`` (ByteLevel, GPT-2 pattern, default threads) at 1,000 and 8,000 merges.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPORA = next((p for p in (ROOT.parent / "shared" / "corpora", ROOT.parents[1] / "shared" / "corpora")
                        if p.is_dir()), ROOT.parent / "shared" / "corpora")

HF_SCRIPT = r"""
import sys
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
path, merges, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
tok = Tokenizer(models.BPE())
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
tr = trainers.BpeTrainer(vocab_size=256 + merges, min_frequency=0, show_progress=False,
                         initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
tok.train([path], tr)
tok.save(out)
"""


def generate(path: Path, size_mb: int, corpora: Path) -> None:
    """Write about *size_mb* MB of varied copies of the shared corpora to *path*."""
    sources = [(corpora / n).read_bytes().splitlines(keepends=True) for n in ("kjv.txt", "robotlogs.txt")]
    rng = random.Random(15)
    target = size_mb * 1_000_000
    written = 0
    tmp = path.with_suffix(".part")
    with open(tmp, "wb") as f:
        copy = 0
        while written < target:
            lines = list(sources[copy % 2])
            rng.shuffle(lines)
            digits = list(b"0123456789")
            rng.shuffle(digits)
            table = bytes.maketrans(b"0123456789", bytes(digits))
            tag = f" v{copy}".encode()
            for i in range(0, len(lines), 11):
                ln = lines[i]
                k = rng.randrange(4)
                if k == 0:
                    lines[i] = ln.upper()
                elif k == 1:
                    lines[i] = ln.title()
                elif k == 2:
                    lines[i] = ln.rstrip(b"\n") + tag + b"\n"
            data = b"".join(lines).translate(table)
            f.write(data[: target - written] if written + len(data) > target else data)
            written += len(data)
            copy += 1
    tmp.replace(path)


def measure(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Wall seconds, peak RSS (MB) summed over the command's process tree, and its CPU seconds (user + system
    of the command and the processes it waited for: steadier than wall time on a shared machine)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    proc = psutil.Process(p.pid)
    peak = 0
    while p.poll() is None:
        try:
            tree = [proc, *proc.children(recursive=True)]
            peak = max(peak, sum(q.memory_info().rss for q in tree if q.is_running()))
        except psutil.Error:
            pass
        time.sleep(0.1)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr.read().decode()[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return dt, peak / 2**20, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size-mb", type=int, default=1000)
    ap.add_argument("--corpus", type=Path, default=None, help="default: /tmp/bench_count_<size>mb.txt")
    ap.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    ap.add_argument("--skip-dask", action="store_true")
    ap.add_argument("--skip-hf8000", action="store_true")
    ap.add_argument("--only", nargs="+", default=None, metavar="WORD",
                    help="run only the trials whose name contains one of these words (e.g. 'train --jobs')")
    args = ap.parse_args()
    corpus = args.corpus or Path(tempfile.gettempdir()) / f"bench_count_{args.size_mb}mb.txt"
    if not corpus.exists():
        t = time.perf_counter()
        generate(corpus, args.size_mb, args.corpora)
        print(f"generated {corpus} in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    mb = corpus.stat().st_size / 1e6
    tmp = Path(tempfile.mkdtemp(prefix="bench_count_"))
    (tmp / "hf.py").write_text(HF_SCRIPT)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("RAYON_NUM_THREADS", None)
    ours = [sys.executable, "-m", "bpe_desktop"]
    count = [*ours, "count", str(corpus), "--mode", "bytes", "--progress", "none"]
    trials = {
        "ours: count --jobs 2": [*count, "--jobs", "2", "--out", str(tmp / "c2.tsv")],
        "HF tokenizers: train 1,000 merges (default threads)": [
            sys.executable, str(tmp / "hf.py"), str(corpus), "1000", str(tmp / "hf1000.json")],
        "ours: train --jobs 2 --merges 8000 (count + merge + write)": [
            *ours, "train", str(corpus), "--mode", "bytes", "--tie-break", "hf", "--merges", "8000", "--jobs", "2",
            "--progress", "none", "--out", str(tmp / "ours8000.json")],
        "ours: count --jobs 1": [*count, "--jobs", "1", "--out", str(tmp / "c1.tsv")],
    }
    if not args.skip_dask:
        trials["ours: count --engine dask (LocalCluster, 2 workers)"] = [
            *count, "--engine", "dask", "--jobs", "2", "--out", str(tmp / "cd.tsv")]
    if not args.skip_hf8000:
        trials["HF tokenizers: train 8,000 merges (default threads)"] = [
            sys.executable, str(tmp / "hf.py"), str(corpus), "8000", str(tmp / "hf8000.json")]
    if args.only:
        trials = {k: v for k, v in trials.items() if any(w in k for w in args.only)}
    print(f"corpus {corpus.name}: {mb:,.0f} MB; {os.cpu_count()} cores; load average before: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| trial | wall s | MB/s | CPU s | peak RSS MB (process tree) |")
    print("|---|---|---|---|---|")
    for name, cmd in trials.items():
        dt, rss, cpu = measure(cmd, env)
        print(f"| {name} | {dt:.1f} | {mb / dt:.1f} | {cpu:.1f} | {rss:.0f} |", flush=True)
    tables = [p.read_bytes() for p in (tmp / "c1.tsv", tmp / "c2.tsv", tmp / "cd.tsv") if p.exists()]
    same = all(t == tables[0] for t in tables)
    print(f"\n{len(tables)} tables, identical across engines: {same}; load average after: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
