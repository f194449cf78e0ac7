"""``bpe-desktop sample robotlogs --lines N --seed S [--out FILE]``: write a generated ROS 2-style log.

The lines come from :mod:`bpe_desktop.core.logs.robotlogs` and are streamed (any size, constant memory) to
stdout or, atomically, to ``--out`` (then a line on stdout says what was written).  The bundled
``resources/samples/robotlogs_sample.txt`` is
``bpe-desktop sample robotlogs --lines 1800 --seed 12 --out resources/samples/robotlogs_sample.txt``.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from collections.abc import Iterator
from typing import IO

from ..core.errors import ConfigError
from ..core.io.atomic import atomic_write
from ..core.io.sizes import format_bytes
from ..core.logs.robotlogs import iter_lines

KINDS = ("robotlogs",)
_BATCH = 4096  # lines per write


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sample", help="write a generated sample text (robotlogs: ROS 2-style robot logs)")
    p.add_argument("kind", choices=KINDS, help="what to generate")
    p.add_argument("--lines", type=int, required=True, metavar="N", help="number of lines")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (same seed, same text)")
    p.add_argument("--out", metavar="FILE", help="write here (atomically) instead of stdout")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.lines < 0:
        raise ConfigError(f"--lines must be 0 or more, not {args.lines}")
    lines = iter_lines(args.lines, args.seed)
    if args.out is None:
        _write(sys.stdout, lines)
        sys.stdout.flush()
        return 0
    try:
        with atomic_write(args.out) as f:
            _write(f, lines)
    except IsADirectoryError:
        raise ConfigError(f"{args.out}: is a folder -- give a file name") from None
    except OSError as e:  # e.g. a folder where no file can be created (/proc), a full disk
        raise ConfigError(f"{args.out}: cannot write ({e.strerror}) -- choose another path") from None
    print(f"wrote {args.lines:,} lines of {args.kind} (seed {args.seed}), {format_bytes(os.path.getsize(args.out))}, "
          f"to {args.out}")
    return 0


def _write(f: IO[str], lines: Iterator[str]) -> None:
    while batch := "".join(itertools.islice(lines, _BATCH)):
        f.write(batch)
