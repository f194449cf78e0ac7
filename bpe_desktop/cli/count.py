"""``bpe-desktop count``: count the pre-tokenized pieces of a corpus and write the table (``piece<TAB>count``).

The table (:mod:`bpe_desktop.core.counting.count_table`) is what ``train TABLE --word-counts`` starts from, so
counting and training can run at different times or places.  ``--engine local`` counts in ``--jobs``
processes on this machine; ``--engine dask`` runs the counting on a Dask cluster
(:mod:`bpe_desktop.core.counting.dask_count`).  Only argument plumbing lives here.
"""

from __future__ import annotations

import argparse
import sys
import time

from ..core.counting.count_table import write_table
from ..core.counting.sources import count_source
from ..core.errors import ConfigError
from ..core.io.sizes import format_bytes
from .common import (
    add_count_settings,
    add_input_options,
    budget_from_args,
    config_from_args,
    preflight,
    progress_printer,
    source_from_args,
)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("count", help="count a corpus's pieces into a table that 'train --word-counts' reads")
    add_input_options(p, tables=False)
    add_count_settings(p)
    p.add_argument("--out", required=True, metavar="TABLE.tsv", help="where to write the table")
    p.add_argument("--engine", choices=["local", "dask"], default="local",
                   help="local: --jobs processes on this machine; dask: a Dask cluster (pip install "
                   "'bpe-desktop[dask]')")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="with --engine dask: an existing scheduler (tcp://host:8786); default: a LocalCluster "
                   "of --jobs worker processes here")
    p.add_argument("--scheduler-timeout", type=float, default=None, metavar="SECONDS",
                   help="with --scheduler: how long to wait for it to answer (default 10)")
    p.add_argument("--blocksize", default="64MiB", metavar="SIZE",
                   help="with --engine dask: bytes per task (default 64MiB)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    if args.scheduler and args.engine != "dask":
        raise ConfigError("--scheduler needs --engine dask -- add --engine dask, or drop --scheduler")
    if args.scheduler_timeout is not None and not args.scheduler:
        raise ConfigError("--scheduler-timeout needs --scheduler -- add the scheduler's address, or drop it")
    source = source_from_args(args)
    preflight(args.out)  # refuse a bad --out before reading gigabytes
    t0 = time.monotonic()
    if args.engine == "dask":
        from ..core.counting.dask_count import CONNECT_TIMEOUT_S, count_with_dask

        timeout = CONNECT_TIMEOUT_S if args.scheduler_timeout is None else args.scheduler_timeout
        words = count_with_dask(source, config, scheduler=args.scheduler, workers=source.jobs, connect_timeout=timeout,
                                blocksize=args.blocksize, progress=progress_printer(args))
    else:
        words = count_source(source, config, progress=progress_printer(args), budget=budget_from_args(args))
    write_table(args.out, words.counts, config)
    dt = time.monotonic() - t0
    if not words.counts:
        sys.stderr.write("bpe-desktop count: warning: the inputs hold no text; the table is empty\n")
    print(f"{len(words.counts):,} distinct pieces, {words.total:,} in all, from {format_bytes(words.bytes_read)} "
          f"in {dt:.1f} s; wrote {args.out}")
    return 0
