"""``bpe-desktop stats``: train, then write the numbers behind the window's plots as CSV.

``--zipf Z.csv`` gets ``rank,left,right,count`` for every adjacent pair at step K (highest count first, ties
by the smallest ``(left, right)`` in token order -- see :mod:`bpe_desktop.core.measure.stats`); ``--curve C.csv``
gets ``step,symbols,merged`` for steps 0..K; ``--tradeoff T.csv`` gets
``step,vocab_size,tokens_per_word,bytes_per_token`` for steps 0..K.  Only argument plumbing lives here.
"""

from __future__ import annotations

import argparse
import math

from ..core.counting.sources import count_source, require_pieces
from ..core.errors import ConfigError
from ..core.io.atomic import atomic_write
from ..core.measure.stats import (
    CURVE_COLUMNS,
    TRADEOFF_COLUMNS,
    ZIPF_COLUMNS,
    SegmentationHistory,
    compression_from_records,
    csv_text,
)
from ..core.training.trainer import Trainer
from .common import (
    add_training_options,
    budget_from_args,
    config_from_args,
    note_pure_python,
    preflight,
    progress_printer,
    source_from_args,
)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "stats", help="pair frequencies (Zipf), compression curve and trade-off at a step, as CSV"
    )
    add_training_options(p)
    p.add_argument("--step", type=int, default=None, metavar="K",
                   help="the timeline step (merges applied); default: the end of training")
    p.add_argument("--zipf", metavar="Z.csv", help="write rank,left,right,count of every pair at step K")
    p.add_argument("--curve", metavar="C.csv", help="write step,symbols,merged for steps 0..K")
    p.add_argument("--tradeoff", metavar="T.csv",
                   help="write step,vocab_size,tokens_per_word,bytes_per_token for steps 0..K")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not (args.zipf or args.curve or args.tradeoff):
        raise ConfigError("nothing to write -- give --zipf Z.csv, --curve C.csv and/or --tradeoff T.csv")
    if args.step is not None and args.step < 0:
        raise ConfigError(f"--step must be 0 or more, not {args.step}")
    config = config_from_args(args)
    if args.step is not None and (config.merges is None or config.merges > args.step):
        config = config.with_(merges=args.step)  # no need to learn merges past K
    preflight(args.zipf, args.curve, args.tradeoff)
    source = source_from_args(args)
    words = count_source(source, config, progress=progress_printer(args), budget=budget_from_args(args))
    require_pieces(words, config, source.name)
    note_pure_python(config)
    trainer = Trainer(words, config)
    records = trainer.run()
    k = len(records) if args.step is None else args.step
    if k > len(records):
        raise ConfigError(
            f"--step {k} is past the end of training, which stopped after {len(records)} merges "
            f"({trainer.stop_reason}) -- use --step {len(records)} or less, or relax the stop options"
        )
    history = SegmentationHistory(words, trainer.model)
    written = []
    if args.zipf:
        z = history.zipf(k)
        with atomic_write(args.zipf) as f:
            f.write(csv_text(ZIPF_COLUMNS, z.rows()))
        slope = "n/a" if math.isnan(z.slope) else f"{z.slope:.3f}"
        written.append(f"{args.zipf} ({len(z.counts)} pairs, log-log slope {slope})")
    if args.curve:
        curve = compression_from_records(trainer.initial_symbols, records[:k])
        with atomic_write(args.curve) as f:
            f.write(csv_text(CURVE_COLUMNS, curve.rows()))
        written.append(f"{args.curve} (steps 0..{k})")
    if args.tradeoff:
        with atomic_write(args.tradeoff) as f:
            f.write(csv_text(TRADEOFF_COLUMNS, history.tradeoff(k).rows()))
        written.append(f"{args.tradeoff} (steps 0..{k})")
    print(f"step {k} of {len(records)} merges; wrote " + ", ".join(written))
    return 0
