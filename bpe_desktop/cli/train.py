"""``bpe-desktop train``: learn merges from files and write the tokenizer (and optionally the steps CSV).

With ``--from FILE [--at K]`` it branches an earlier run (:mod:`bpe_desktop.core.training.branch`): the first K merges
of the native FILE are replayed on the corpus, checked against the file's records, and training continues
with the given settings; settings not given are the file's, and the budget is the file's merge count.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from typing import TYPE_CHECKING

from ..core.choices import Mode, TieBreak
from ..core.config import TIE_BREAKS, TrainConfig
from ..core.counting.sources import count_source, require_pieces
from ..core.errors import ConfigError
from ..core.formats import WRITE_FORMATS, load, save_model
from ..core.io.atomic import atomic_write
from ..core.records import RecordLog
from ..core.training.trainer import Trainer

if TYPE_CHECKING:
    from ..core.training.branch import BranchPoint
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
    p = sub.add_parser("train", help="learn a BPE merge list from text files")
    add_training_options(p)
    p.add_argument("--out", required=True, metavar="FILE", help="where to write the tokenizer")
    p.add_argument("--format", default="native", choices=WRITE_FORMATS,
                   help="output format (gpt2 and vocab-merges write two files into the folder --out)")
    p.add_argument("--steps", metavar="FILE.csv", help="also write one CSV row per merge")
    branch = p.add_argument_group("branch an earlier run (same corpus, mode and pre-tokenizer)")
    branch.add_argument("--from", dest="source", metavar="TOKENIZER",
                        help="a native tokenizer file: keep its first K merges and continue with these settings "
                        "(settings not given are the file's; the budget is its merge count)")
    branch.add_argument("--at", type=int, default=None, metavar="K", help="the step to branch at (default: the end)")
    extend = p.add_argument_group("extend a production tokenizer (its pre-tokenizer, specials and ids kept)")
    extend.add_argument("--extend", metavar="TOKENIZER", default=None,
                        help="learn --merges N new merges on top of this tokenizer (a file in any readable BPE "
                        "format, or cl100k, o200k, gpt2...) and write it in its own format to --out")
    # None = "not given": with --from the file's value, otherwise TrainConfig's default (see _fill_defaults)
    p.set_defaults(run=run, mode=None, tie_break=None, end_of_word=None, glue_marker=None, special=None)


def _fill_defaults(args: argparse.Namespace, source: BranchPoint | None, tie_break: TieBreak | None) -> None:
    """Give the settings left out on the command line the source run's values (or the usual defaults)."""
    d = TrainConfig()
    if args.mode is None:
        args.mode = source.mode if source else d.mode
    if source is not None and args.pretokenizer is None and args.mode == source.mode:
        args.pretokenizer = source.pretokenizer
    if args.end_of_word is None:
        args.end_of_word = source.end_of_word if source and source.mode == Mode.CHARS else d.end_of_word
    if args.glue_marker is None:
        args.glue_marker = source.glue_marker if source else d.glue_marker
    if args.special is None:
        args.special = list(source.specials) if source else list(d.specials)
    if args.tie_break is None:
        args.tie_break = tie_break if tie_break in TIE_BREAKS else d.tie_break


def _branch_point(args: argparse.Namespace) -> tuple[BranchPoint, int, TieBreak | None]:
    """The step --at of the --from file, its merge count and its tie-break rule."""
    from ..core.training.branch import BranchPoint, records_from_stats  # only a branch needs it

    loaded = load(args.source)
    if loaded.fmt != "native":
        raise ConfigError(f"--from {args.source}: a {loaded.fmt} file has no per-merge records to check the corpus "
                          "against -- branch from a native tokenizer file (what train writes by default)")
    model = loaded.model
    k = len(model.merges) if args.at is None else args.at
    point = BranchPoint.from_model(model, k, records_from_stats(model, loaded.stats))
    return point, len(model.merges), model.tie_break


def _warn_kept_forbidden(point: BranchPoint, config: TrainConfig) -> None:
    """Say on stderr which forbidden pairs are among the kept merges: the branch keeps them, so it is as if
    they were not forbidden (the README's old example forbade merge 30 of 500 kept and changed nothing)."""
    from ..core.forbid import format_pair
    from ..core.training.branch import kept_forbidden

    kept = kept_forbidden(point, config)
    if not kept:
        return
    shown = ", ".join(f'"{format_pair(p)}" (merge {rank})' for rank, p in kept[:5])
    more = f" and {len(kept) - 5} more" if len(kept) > 5 else ""
    first = kept[0][0]
    sys.stderr.write(
        f"bpe-desktop train: warning: {shown}{more} {'is' if len(kept) == 1 else 'are'} forbidden but among the "
        f"{point.step} kept merges, which a branch keeps -- branch with --at {first - 1} or less to forbid "
        f"{'it' if len(kept) == 1 else 'them'}\n"
    )


def _run_extend(args: argparse.Namespace) -> int:
    """``--extend TOKENIZER``: the corpus is pre-tokenized and segmented by that tokenizer, new merges are learned
    on top (:mod:`bpe_desktop.core.extend`), the result is written in the tokenizer's own format."""
    from ..core.extend import count_files, prepare
    from ..core.forbid import parse_pair

    given = [opt for opt, v in (("--from", args.source), ("--mode", args.mode), ("--pretokenizer", args.pretokenizer),
                                ("--special", args.special), ("--tie-break", args.tie_break),
                                ("--end-of-word", args.end_of_word), ("--glue-marker", args.glue_marker),
                                ("--vocab-size", args.vocab_size)) if v is not None]
    given += ["--word-counts"] if args.word_counts else []
    given += ["--format"] if args.format != "native" else []
    if given:
        raise ConfigError(f"{given[0]} does not go with --extend: the extension keeps the tokenizer's own "
                          "pre-tokenizer, specials, ids and format, and learns --merges N merges -- drop it")
    if args.merges is None:
        raise ConfigError("--extend needs --merges N: how many merges to add to the tokenizer")
    loaded = load(args.extend)
    config = TrainConfig(mode=loaded.tokenizer.mode, merges=args.merges, min_frequency=args.min_frequency,
                         forbid=tuple(parse_pair(x) for x in args.forbid), forbid_regex=args.forbid_regex)
    folder = loaded.fmt == "gpt2"
    preflight(None if folder else args.out, args.steps, folder=args.out if folder else None)
    pieces, _ = count_files(loaded.tokenizer, args.inputs, glob=args.glob, errors=args.encoding_errors)
    ext = prepare(loaded, args.extend, pieces, config)

    records = ext.trainer.run()
    how = ext.save(args.out)
    if args.steps:
        from ..core.formats.csv_stats import steps_csv

        with atomic_write(args.steps) as f:
            f.write(steps_csv(records))
    t = ext.trainer
    ids = ext.file_ids
    new_ids = f"ids {ids[0]}..{ids[-1]}" if ids else "no new ids"
    print(f"{len(records)} new merges on {args.extend} ({t.stop_reason}); {new_ids}; symbols {t.initial_symbols} "
          f"-> {t.total_symbols}; wrote {args.out} ({how})")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.extend is not None:
        return _run_extend(args)
    if args.at is not None and args.source is None:
        raise ConfigError("--at K needs --from TOKENIZER: the run whose first K merges to keep")
    point, n_source, rule = _branch_point(args) if args.source else (None, 0, None)
    _fill_defaults(args, point, rule)
    config = config_from_args(args)
    if point is not None and config.merges is None and config.vocab_size is None:
        config = config.with_(merges=max(n_source, point.step))
    if point is not None:
        _warn_kept_forbidden(point, config)
    folder_format = args.format in ("gpt2", "vocab-merges") and not args.out.endswith(".json")
    preflight(None if folder_format else args.out, args.steps, folder=args.out if folder_format else None)
    progress = progress_printer(args)
    source = source_from_args(args)
    words = count_source(source, config, progress=progress, budget=budget_from_args(args))
    require_pieces(words, config, source.name)
    note_pure_python(config)
    if point is None:
        trainer = Trainer(words, config, release=True)  # the table is not needed once the trainer has its words
        records = RecordLog(texts=trainer.texts)  # every record until written: columns, texts numbered by id
    else:
        from ..core.training.branch import start_branch

        trainer, replayed = start_branch(words, config, point)
        records = RecordLog(replayed, texts=trainer.texts)
        del replayed
    del words
    last = time.monotonic()

    def merging(done: int) -> None:
        nonlocal last
        now = time.monotonic()
        if progress and now - last > 0.1:
            progress("merging", done, config.merges or 0)
            last = now

    # The merges allocate many small tuples and lists but make no reference cycles: the cycle collector's
    # passes over them (over every heap entry and record made so far) cost ~8 % of the loop for nothing.
    collecting = gc.isenabled()
    gc.disable()
    try:
        trainer.run_into(records, merging)  # on the kernel, many merges per call, records written in C
    finally:
        if collecting:
            gc.enable()
    if progress:
        progress("merging", len(records), len(records))
    model, forbidden, summary = trainer.model, trainer.forbidden_pairs, (
        f"{trainer.stop_reason}); vocabulary {trainer.vocab_size}; symbols {trainer.initial_symbols} -> "
        f"{trainer.total_symbols}")
    del trainer  # the kernel's arrays go before the file is written, which reuses their memory
    save_model(model, args.out, args.format, records)
    if args.steps:
        from ..core.formats.csv_stats import steps_csv

        with atomic_write(args.steps) as f:
            f.write(steps_csv(records))
    kept = f"kept the first {point.step} of {args.source}, " if point is not None else ""
    skipped = f"; {len(forbidden)} forbidden pair{'' if len(forbidden) == 1 else 's'} skipped" if forbidden else ""
    print(f"{len(records)} merges ({kept}{summary}{skipped}; wrote {args.out}")
    return 0
