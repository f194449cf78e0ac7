"""``bpe-desktop train``: learn merges from files and write the tokenizer (and optionally the steps CSV)."""

from __future__ import annotations

import argparse
import time

from ..core.atomic import atomic_write
from ..core.corpus import count_source, require_pieces
from ..core.formats import WRITE_FORMATS, save_model
from ..core.formats.csv_stats import steps_csv
from ..core.trainer import Trainer
from .common import (
    add_training_options,
    budget_from_args,
    config_from_args,
    preflight,
    progress_printer,
    source_from_args,
)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train", help="learn a BPE merge list from text files")
    add_training_options(p)
    p.add_argument("--out", required=True, metavar="FILE", help="where to write the tokenizer")
    p.add_argument("--format", default="native", choices=WRITE_FORMATS,
                   help="output format (gpt2 and vocab-merges write two files into the folder --out)")
    p.add_argument("--steps", metavar="FILE.csv", help="also write one CSV row per merge")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    folder_format = args.format in ("gpt2", "vocab-merges") and not args.out.endswith(".json")
    preflight(None if folder_format else args.out, args.steps, folder=args.out if folder_format else None)
    progress = progress_printer(args)
    source = source_from_args(args)
    words = count_source(source, config, progress=progress, budget=budget_from_args(args))
    require_pieces(words, config, source.name)
    trainer = Trainer(words, config)
    records = []
    t0 = time.monotonic()
    last = t0
    for rec in trainer:
        records.append(rec)
        now = time.monotonic()
        if progress and now - last > 0.1:
            progress("merging", rec.rank, config.merges or 0)
            last = now
    if progress:
        progress("merging", len(records), len(records))
    save_model(trainer.model, args.out, args.format, records)
    if args.steps:
        with atomic_write(args.steps) as f:
            f.write(steps_csv(records))
    print(
        f"{len(records)} merges ({trainer.stop_reason}); vocabulary {trainer.vocab_size}; "
        f"symbols {trainer.initial_symbols} -> {trainer.total_symbols}; wrote {args.out}"
    )
    return 0
