"""Chunking a log for ``inspect``: LF against CRLF line ends, and one long line.

    python benchmarks/bench_inspect_crlf.py [--mb 8]

Writes a robot log of about ``--mb`` MB (``core/logs/robotlogs.generate``) three ways -- LF line ends, CRLF
line ends, and the same text with no line end at all (one line) -- and reads each with
``core/logs/log_chunks.iter_file_chunks`` (what ``inspect FILE`` streams): the number of chunks, the largest
chunk in characters (what inspection holds at once, ~70 bytes of memory per character of a chunk), the peak
memory ``tracemalloc`` sees while chunking, and the time.  Short on purpose: the machine is shared.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import tracemalloc

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from bpe_desktop.core.logs.log_chunks import iter_file_chunks
from bpe_desktop.core.logs.robotlogs import generate


def measure(path: str) -> tuple[int, int, float, float]:
    tracemalloc.start()
    t0 = time.perf_counter()
    n = biggest = 0
    for chunk in iter_file_chunks(path):
        n += 1
        biggest = max(biggest, len(chunk))
    dt = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return n, biggest, peak / 1e6, dt


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=8)
    args = ap.parse_args()
    text = generate(max(1, int(args.mb * 1e6 / 95)))
    d = tempfile.mkdtemp()
    variants = {"LF": text, "CRLF": text.replace("\n", "\r\n"), "one line": text.replace("\n", " ")}
    print("| log | MB | chunks | largest chunk (chars) | peak MB while chunking | seconds |")
    print("|---|---|---|---|---|---|")
    for name, body in variants.items():
        path = os.path.join(d, name.replace(" ", "_") + ".log")
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(body)
        n, biggest, peak, dt = measure(path)
        print(f"| {name} | {os.path.getsize(path) / 1e6:.1f} | {n:,} | {biggest:,} | {peak:.0f} | {dt:.2f} |")
        os.unlink(path)


if __name__ == "__main__":
    main()
