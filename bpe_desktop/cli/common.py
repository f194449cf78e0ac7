"""Options shared by the sub-commands that train (``train``, ``stats``): parse them into a config.

Only argument plumbing lives here; the work is in :mod:`bpe_desktop.core`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence

from ..core.atomic import check_writable
from ..core.config import MODES, TIE_BREAKS, TrainConfig
from ..core.corpus import ENCODING_ERRORS, CorpusSource
from ..core.errors import ConfigError
from ..core.forbid import parse_pair
from ..core.pretokenize import NAMED_PATTERNS
from ..core.regex_budget import RegexBudget


def add_training_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="text files (or word-count tables with --word-counts)")
    p.add_argument("--mode", choices=MODES, default="chars", help="chars (with end-of-word marker) or bytes")
    p.add_argument(
        "--pretokenizer", default=None, metavar="NAME|REGEX",
        help=f"one of {', '.join(NAMED_PATTERNS)} or a regular expression "
        "(default: whitespace in chars mode, gpt2 in bytes mode)",
    )
    stop = p.add_argument_group("when to stop (the first reached)")
    stop.add_argument("--merges", type=int, default=None, metavar="N", help="number of merges")
    stop.add_argument("--vocab-size", type=int, default=None, metavar="V", help="target vocabulary size")
    stop.add_argument("--min-frequency", type=int, default=1, metavar="F", help="stop below this pair count")
    p.add_argument("--tie-break", choices=list(TIE_BREAKS), default="lexical",
                   help="; ".join(f"{k}: {v}" for k, v in TIE_BREAKS.items()))
    p.add_argument("--word-counts", action="store_true", help="inputs are 'word count' tables, as in the seeds")
    p.add_argument("--end-of-word", default="</w>", metavar="MARKER", help="chars mode marker ('' for none)")
    p.add_argument("--glue-marker", action="store_true",
                   help="glue the marker to the last character (subword-nmt 0.2 / HF end_of_word_suffix)")
    p.add_argument("--special", nargs="*", default=[], metavar="TOKEN", help="special tokens (never merged)")
    p.add_argument("--forbid", action="append", default=[], metavar='"LEFT RIGHT"',
                   help="never merge this pair (repeatable); symbols as the merge list shows them, separated "
                   "by one space; inside a symbol '\\ ' is a space, '\\\\' a backslash, '\\n' '\\t' '\\r' a "
                   "newline, tab, carriage return")
    p.add_argument("--forbid-regex", default=None, metavar="PATTERN",
                   help="never merge a pair whose merged token matches PATTERN (searched; bytes mode: the "
                   "token decoded as UTF-8), e.g. '\\d\\s\\d' for digits across a space")
    p.add_argument("--encoding-errors", choices=ENCODING_ERRORS, default="strict",
                   help="what to do with invalid UTF-8 in chars mode")
    add_budget_option(p)
    p.add_argument("--progress", choices=["none", "jsonl"], default="none",
                   help="jsonl: one JSON object per progress update on stderr")


def add_budget_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--regex-budget", type=float, default=None, metavar="SECONDS",
                   help="time a custom pre-tokenizer pattern may take over the whole job; past it the command "
                   "fails instead of hanging (default: 5 s, plus 2 s per MB of corpus when training)")


def budget_from_args(args: argparse.Namespace) -> RegexBudget | None:
    """The job's regex budget from ``--regex-budget`` (``None``: the core's default for the input)."""
    if args.regex_budget is None:
        return None
    if not args.regex_budget > 0:
        raise ConfigError(f"--regex-budget must be a positive number of seconds, not {args.regex_budget}")
    return RegexBudget(args.regex_budget)


def preflight(*outputs: str | None, folder: str | None = None) -> None:
    """Check every output path before any work starts (a folder, a missing folder, no permission...)."""
    for path in outputs:
        if path:
            check_writable(path)
    if folder:
        check_writable(folder, folder=True)


def check_specials(specials: Sequence[str]) -> None:
    """Refuse empty or repeated ``--special`` values (an empty token would match everywhere)."""
    if any(not s for s in specials):
        raise ConfigError("--special \"\" names an empty special token -- give the token text, e.g. "
                          "--special '<|endoftext|>', or leave --special out")
    if len(set(specials)) != len(specials):
        raise ConfigError("--special names the same token twice -- list each special token once")


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    pre = args.pretokenizer or ("gpt2" if args.mode == "bytes" else "whitespace")
    return TrainConfig(
        mode=args.mode, pretokenizer=pre, end_of_word=args.end_of_word, glue_marker=args.glue_marker,
        tie_break=args.tie_break, merges=args.merges, vocab_size=args.vocab_size,
        min_frequency=args.min_frequency, specials=tuple(args.special),
        forbid=tuple(parse_pair(x) for x in args.forbid), forbid_regex=args.forbid_regex,
    )


def source_from_args(args: argparse.Namespace) -> CorpusSource:
    return CorpusSource.from_files(args.inputs, word_counts=args.word_counts, errors=args.encoding_errors)


def progress_printer(args: argparse.Namespace) -> Callable[[str, int, int], None] | None:
    if args.progress != "jsonl":
        return None

    def emit(stage: str, done: int, total: int) -> None:
        sys.stderr.write(json.dumps({"stage": stage, "done": done, "total": total}) + "\n")
        sys.stderr.flush()

    return emit
