"""Chunking a log for ``inspect``: LF against CRLF and CR line ends, and one long line.

    python benchmarks/bench_inspect_crlf.py [--mb 8] [--inspect-mb 2]

Writes a robot log of about ``--mb`` MB (``core/logs/robotlogs.generate``) four ways -- LF line ends, CRLF,
CR alone, and the same text with no line end at all (one line) -- and reads each with
``core/logs/log_chunks.iter_file_chunks`` under the cut rule of cl100k (what ``inspect FILE --tokenizer
cl100k:...`` streams): the number of chunks, the largest chunk in characters (what inspection holds at
once, ~70 bytes of memory per character of a chunk), the peak memory ``tracemalloc`` sees while chunking,
and the time.  With ``--inspect-mb``, also the whole ``inspect_file`` of the first that many MB of each
(cl100k; MB per second) beside counting the same file as ``train`` counts it (``count_files``, one
process, bytes mode, cl100k pattern), in wall and CPU seconds.  Short on purpose: the machine is shared.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import tracemalloc

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.counting.sources import count_files
from bpe_desktop.core.formats import load_tokenizer
from bpe_desktop.core.formats.presets import installed_tiktoken_file
from bpe_desktop.core.logs.log_chunks import CutRule, cut_rule, iter_file_chunks
from bpe_desktop.core.logs.log_inspect import NamedTokenizer, inspect_file
from bpe_desktop.core.logs.robotlogs import generate


def measure(path: str, rule: CutRule) -> tuple[int, int, float, float]:
    tracemalloc.start()
    t0 = time.perf_counter()
    n = biggest = 0
    for chunk in iter_file_chunks(path, rule=rule):
        n += 1
        biggest = max(biggest, len(chunk))
    dt = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return n, biggest, peak / 1e6, dt


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=8)
    ap.add_argument("--inspect-mb", type=float, default=0)
    args = ap.parse_args()
    cl100k = load_tokenizer(f"cl100k:{installed_tiktoken_file('cl100k_base')}")
    rule = cut_rule([("cl100k", cl100k)])
    text = generate(max(1, int(args.mb * 1e6 / 95)))
    d = tempfile.mkdtemp()
    variants = {"LF": text, "CRLF": text.replace("\n", "\r\n"), "CR": text.replace("\n", "\r"),
                "one line": text.replace("\n", " ")}
    print("| log | MB | chunks | largest chunk (chars) | peak MB while chunking | seconds |")
    print("|---|---|---|---|---|---|")
    timed = []
    for name, body in variants.items():
        path = os.path.join(d, name.replace(" ", "_") + ".log")
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(body)
        n, biggest, peak, dt = measure(path, rule)
        print(f"| {name} | {os.path.getsize(path) / 1e6:.1f} | {n:,} | {biggest:,} | {peak:.0f} | {dt:.2f} |")
        if args.inspect_mb:
            small = path + ".head"
            with open(small, "w", encoding="utf-8", newline="") as f:
                f.write(body[: int(args.inspect_mb * 1e6)])
            mb = os.path.getsize(small) / 1e6
            c0, t0 = time.process_time(), time.perf_counter()
            inspect_file(small, [NamedTokenizer("cl100k", cl100k)])
            c1, t1 = time.process_time(), time.perf_counter()
            count_files([small], TrainConfig(mode="bytes", pretokenizer="cl100k"))
            c2, t2 = time.process_time(), time.perf_counter()
            timed.append((name, mb, t1 - t0, t2 - t1, c1 - c0, c2 - c1))
            os.unlink(small)
        os.unlink(path)
    if timed:
        print()
        print("| log | MB | inspect_file, cl100k: s (MB/s) | count_files, bytes + cl100k: s (MB/s) "
              "| CPU s: inspect / count |")
        print("|---|---|---|---|---|")
        for name, mb, ti, tc, ci, cc in timed:
            print(f"| {name} | {mb:.1f} | {ti:.2f} ({mb / ti:.2f}) | {tc:.2f} ({mb / tc:.2f}) | {ci:.2f} / {cc:.2f} |")


if __name__ == "__main__":
    main()
