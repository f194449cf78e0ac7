"""Tokens per line before and after extending cl100k and o200k with merges learned on robot logs.

The extension is trained on the first part of a log and measured on the held-out rest (and on the training
part); tiktoken, reading the written ``.tiktoken`` with the encoding's pattern and specials, must give the same
ids as ours on the held-out part (checked, not assumed).  Usage::

    python benchmarks/bench_extend.py                    # the bundled sample: 1,500 lines trained, 300 held out
    python benchmarks/bench_extend.py --lines 200000     # a generated log (sample robotlogs --seed 7)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import tiktoken
import tiktoken.load

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.extend import start
from bpe_desktop.core.formats import load
from bpe_desktop.core.formats.presets import PRESETS
from bpe_desktop.core.logs.robotlogs import generate
from bpe_desktop.core.text.pretokenize import Pretokenizer

SAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "resources", "samples",
                      "robotlogs_sample.txt")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=0, help="generate a log of N lines (0: the bundled sample)")
    ap.add_argument("--merges", type=int, default=1000)
    ap.add_argument("--held-out", type=float, default=1 / 6, help="share of the lines held out (the last ones)")
    args = ap.parse_args()
    text = open(SAMPLE, encoding="utf-8").read() if not args.lines else generate(args.lines, seed=7)
    lines = text.splitlines(keepends=True)
    cut = len(lines) - max(1, int(len(lines) * args.held_out))
    train, held = "".join(lines[:cut]), "".join(lines[cut:])
    print(f"{len(lines):,} lines ({len(text.encode()) / 1e6:.1f} MB): {cut:,} trained, {len(lines) - cut:,} held out")
    print("| tokenizer | merges asked | made | stop | train tok/line before | after | held-out tok/line before "
          "| after | change | tiktoken same ids | extend s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in ("cl100k", "o200k"):
        t0 = time.perf_counter()
        ext = start(load(name), name, train, TrainConfig(mode="bytes", merges=args.merges))
        secs = time.perf_counter() - t0
        out = os.path.join(tempfile.mkdtemp(), f"{name}_ext.tiktoken")
        ext.save(out)
        p = PRESETS[name]
        enc = tiktoken.Encoding(name="x", pat_str=Pretokenizer.from_spec(p.pretokenizer).pattern or "",
                                mergeable_ranks=tiktoken.load.load_tiktoken_bpe(out), special_tokens=p.specials)
        ours = load(f"{name}:{out}").tokenizer
        original = load(name).tokenizer
        after_held = ours.encode_ordinary(held)
        same = after_held == enc.encode_ordinary(held)
        n_train, n_held = cut, len(lines) - cut
        b_tr, a_tr = len(original.encode_ordinary(train)) / n_train, len(ours.encode_ordinary(train)) / n_train
        b_h, a_h = len(original.encode_ordinary(held)) / n_held, len(after_held) / n_held
        print(f"| {name} | {args.merges:,} | {len(ext.records):,} | {ext.trainer.stop_reason} | {b_tr:.2f} | "
              f"{a_tr:.2f} | {b_h:.2f} | {a_h:.2f} | {a_h / b_h - 1:+.1%} | {same} | {secs:.1f} |")


if __name__ == "__main__":
    main()
