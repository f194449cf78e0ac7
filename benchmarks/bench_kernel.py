"""The compiled training kernel against the pure path and the fastest peers, as whole commands, in one run.

    python benchmarks/bench_kernel.py FILE [FILE ...] [--merges 8000] [--repeat 3] [--threads 1]
        [--skip pure sentencepiece ...]

Each trial is a whole process from the shell (interpreter start-up, reading, counting, merging, writing), the
kinds interleaved after one untimed warm-up each; wall time, CPU time and peak RSS come from ``os.wait4``.
Bytes mode, GPT-2 pattern, ``hf`` ties, ``--merges`` merges:

- ours, kernel: ``python -m bpe_desktop train FILE --mode bytes --pretokenizer gpt2 --tie-break hf
  --merges N --out tok.json --jobs T``;
- ours, pure Python: the same with ``BPE_DESKTOP_PURE=1``;
- rustbpe 0.1.0 (``pip install rustbpe==0.1.0``): ``Tokenizer().train_from_iterator(lines, 256 + N,
  pattern=GPT-2)``, ranks written to a file, ``RAYON_NUM_THREADS=T``;
- HF tokenizers: ByteLevel BPE (the script of bench_train.py), ``RAYON_NUM_THREADS=T``;
- sentencepiece BPE: ``SentencePieceTrainer.train(model_type="bpe", vocab_size=256 + N, num_threads=T,
  every sentence, character_coverage=1, byte_fallback)`` -- its own pre-tokenization, not GPT-2's.

It also prints, once per file, the kernel's bytes per distinct piece (``KernelTrainer.memory()`` over the
count table's distinct pieces) and where a kernel run's time goes (counting, building, merging).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_train import HF_SCRIPT, ROOT, run_command

GPT2 = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

RUSTBPE_SCRIPT = r"""
import sys, rustbpe
path, merges, out, pattern = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
tok = rustbpe.Tokenizer()
with open(path, encoding="utf-8") as f:
    tok.train_from_iterator(f, 256 + merges, pattern=pattern)
with open(out, "w") as f:
    for b, r in sorted(tok.get_mergeable_ranks(), key=lambda x: x[1]):
        f.write(f"{bytes(b).hex()} {r}\n")
"""

SPM_SCRIPT = r"""
import sys, sentencepiece as spm
path, merges, out, threads = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
spm.SentencePieceTrainer.train(input=path, model_prefix=out, model_type="bpe", vocab_size=256 + merges,
                               num_threads=threads, input_sentence_size=0, character_coverage=1.0,
                               byte_fallback=True, max_sentence_length=1 << 20, minloglevel=2)
"""

PROFILE = r"""
import sys, time
from bpe_desktop.core import TrainConfig
from bpe_desktop.core.counting.sources import CorpusSource, count_source
from bpe_desktop.core.training.trainer import Trainer
path, merges = sys.argv[1], int(sys.argv[2])
cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=merges)
t0 = time.perf_counter()
words = count_source(CorpusSource.from_files([path]), cfg)
t1 = time.perf_counter()
n = len(words.counts)
t = Trainer(words, cfg, release=True)
t2 = time.perf_counter()
t.run()
t3 = time.perf_counter()
mem = t.memory()
print(f"{n:,} distinct pieces; count {t1 - t0:.2f} s, kernel build {t2 - t1:.2f} s, {t.n_merges} merges "
      f"{t3 - t2:.2f} s; kernel holds {sum(mem.values()) / 2**20:.0f} MB = {sum(mem.values()) / n:.0f} B per piece "
      f"({', '.join(f'{k} {v / n:.0f}' for k, v in mem.items())})")
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--merges", type=int, default=8000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1, help="threads (jobs) for every tool")
    ap.add_argument("--skip", nargs="*", default=[], help="kinds to leave out: pure, rustbpe, hf, sentencepiece")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench_kernel_"))
    threads = str(args.threads)
    env = dict(os.environ, RAYON_NUM_THREADS=threads, TOKENIZERS_PARALLELISM="false", PYTHONPATH=str(ROOT),
               PYTHONPYCACHEPREFIX=str(tmp / "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("BPE_DESKTOP_PURE", None)
    for name, text in (("hf.py", HF_SCRIPT), ("rustbpe_train.py", RUSTBPE_SCRIPT), ("spm_train.py", SPM_SCRIPT),
                       ("profile.py", PROFILE)):
        (tmp / name).write_text(text)
    m = str(args.merges)
    py = sys.executable
    for path in args.files:
        corpus = str(path)
        ours = [py, "-m", "bpe_desktop", "train", corpus, "--mode", "bytes", "--pretokenizer", "gpt2",
                "--tie-break", "hf", "--merges", m, "--jobs", threads]
        kinds = {
            "ours, kernel": ([*ours, "--out", str(tmp / "kernel.json")], env),
            "ours, pure Python": ([*ours, "--out", str(tmp / "pure.json")], dict(env, BPE_DESKTOP_PURE="1")),
            "rustbpe 0.1.0": ([py, str(tmp / "rustbpe_train.py"), corpus, m, str(tmp / "rustbpe.txt"), GPT2], env),
            "HF tokenizers": ([py, str(tmp / "hf.py"), corpus, m, str(tmp / "hf.json")], env),
            "sentencepiece BPE": ([py, str(tmp / "spm_train.py"), corpus, m, str(tmp / "spm"), threads], env),
        }
        skip = {"pure": "ours, pure Python", "rustbpe": "rustbpe 0.1.0", "hf": "HF tokenizers",
                "sentencepiece": "sentencepiece BPE"}
        for s in args.skip:
            kinds.pop(skip[s], None)
        load = os.getloadavg()[0]
        t0 = time.time()
        runs: dict[str, list[tuple[float, float, float]]] = {k: [] for k in kinds}
        for cmd, e in kinds.values():
            run_command(cmd, e)
        for _ in range(args.repeat):
            for k, (cmd, e) in kinds.items():
                runs[k].append(run_command(cmd, e))
        if "ours, pure Python" in kinds:
            same = (tmp / "kernel.json").read_bytes() == (tmp / "pure.json").read_bytes()
            print(f"kernel and pure tokenizer files identical: {same}")
        ref = statistics.median(t for t, _, _ in runs["rustbpe 0.1.0"]) if "rustbpe 0.1.0" in runs else None
        print(f"{path.name} ({path.stat().st_size / 1e6:.0f} MB), {m} merges, {threads} thread(s); median of "
              f"{args.repeat} interleaved runs; load average {load:.2f} before, {os.getloadavg()[0]:.2f} after; "
              f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(t0))}")
        print("| whole command | wall s (median) | min s | × rustbpe | CPU s (median) | peak RSS MB |")
        print("|---|---|---|---|---|---|")
        for k, r in runs.items():
            med = statistics.median(t for t, _, _ in r)
            ratio = f"{med / ref:.2f}×" if ref else ""
            print(f"| {k} | {med:.2f} | {min(t for t, _, _ in r):.2f} | {ratio} | "
                  f"{statistics.median(c for _, _, c in r):.2f} | {max(x for _, x, _ in r):.0f} |")
        prof = subprocess.run([py, str(tmp / "profile.py"), corpus, m], env=env, capture_output=True,
                                            text=True, check=True)
        print(prof.stdout.strip())
        sys.stdout.flush()


if __name__ == "__main__":
    main()
