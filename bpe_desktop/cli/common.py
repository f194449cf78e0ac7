"""Options shared by the sub-commands that read corpora (``train``, ``stats``, ``count``): inputs, counting
settings, training settings and progress, parsed into a config and a corpus source.

Only argument plumbing lives here; the work is in :mod:`bpe_desktop.core`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence

from ..core.config import BYTE_IDS, MODES, TIE_BREAKS, TrainConfig
from ..core.counting.parallel_count import default_jobs
from ..core.counting.pieces import ENCODING_ERRORS
from ..core.counting.sources import CorpusSource
from ..core.errors import ConfigError
from ..core.forbid import parse_pair
from ..core.io.atomic import check_writable
from ..core.text.pretokenize import NAMED_PATTERNS
from ..core.text.regex_budget import RegexBudget


def add_input_options(p: argparse.ArgumentParser, *, tables: bool = True) -> None:
    """INPUT..., what to read and how: shared by ``train``, ``stats`` and ``count``."""
    what = "text files, folders, .gz/.bz2/.xz files, or - for standard input"
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help=what + (" (or word-count tables with --word-counts)" if tables else ""))
    p.add_argument("--glob", default=None, metavar="PATTERN",
                   help="read only the files of folder inputs whose name (or path below it) matches, e.g. '*.txt'")
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="count plain files in N processes (default: the number of cores); same table for any N")
    p.add_argument("--encoding-errors", choices=ENCODING_ERRORS, default="strict",
                   help="what to do with invalid UTF-8 in chars mode")
    p.add_argument("--progress", choices=["auto", "none", "bar", "jsonl"], default="auto",
                   help="bar: a progress line on stderr (the default on a terminal); jsonl: one JSON object "
                   "per update on stderr (stage, done, total, rate, eta_s)")


def add_count_settings(p: argparse.ArgumentParser) -> None:
    """The settings that decide the pieces: mode, pre-tokenizer, special tokens."""
    p.add_argument("--mode", choices=MODES, default="chars", help="chars (with end-of-word marker) or bytes")
    p.add_argument(
        "--pretokenizer", default=None, metavar="NAME|REGEX",
        help=f"one of {', '.join(NAMED_PATTERNS)} or a regular expression "
        "(default: whitespace in chars mode, gpt2 in bytes mode)",
    )
    p.add_argument("--special", nargs="*", default=[], metavar="TOKEN", help="special tokens (never merged)")
    add_budget_option(p)


def add_training_options(p: argparse.ArgumentParser) -> None:
    add_input_options(p)
    add_count_settings(p)
    stop = p.add_argument_group("when to stop (the first reached)")
    stop.add_argument("--merges", type=int, default=None, metavar="N", help="number of merges")
    stop.add_argument("--vocab-size", type=int, default=None, metavar="V", help="target vocabulary size")
    stop.add_argument("--min-frequency", type=int, default=1, metavar="F", help="stop below this pair count")
    p.add_argument("--tie-break", choices=list(TIE_BREAKS), default="lexical",
                   help="; ".join(f"{k}: {v}" for k, v in TIE_BREAKS.items()))
    p.add_argument("--word-counts", action="store_true",
                   help="inputs are word-count tables: 'bpe-desktop count' output, or 'word count' lines as in "
                   "the seeds")
    p.add_argument("--end-of-word", default="</w>", metavar="MARKER", help="chars mode marker ('' for none)")
    p.add_argument("--byte-ids", choices=list(BYTE_IDS), default="gpt2",
                   help="bytes mode: number the 256 base bytes in GPT-2's order (default) or by byte value "
                        "(raw: minbpe, rustbpe, nanochat; with --tie-break hf the merges equal rustbpe's)")
    p.add_argument("--glue-marker", action="store_true",
                   help="glue the marker to the last character (subword-nmt 0.2 / HF end_of_word_suffix)")
    p.add_argument("--forbid", action="append", default=[], metavar='"LEFT RIGHT"',
                   help="never merge this pair (repeatable); symbols as the merge list shows them, separated "
                   "by one space; inside a symbol '\\ ' is a space, '\\\\' a backslash, '\\n' '\\t' '\\r' a "
                   "newline, tab, carriage return")
    p.add_argument("--forbid-regex", default=None, metavar="PATTERN",
                   help="never merge a pair whose merged token matches PATTERN (searched; bytes mode: the "
                   "token decoded as UTF-8), e.g. '\\d\\s\\d' for digits across a space")


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
        mode=args.mode, pretokenizer=pre, end_of_word=getattr(args, "end_of_word", "</w>"),
        glue_marker=getattr(args, "glue_marker", False), tie_break=getattr(args, "tie_break", "lexical"),
        merges=getattr(args, "merges", None), vocab_size=getattr(args, "vocab_size", None),
        min_frequency=getattr(args, "min_frequency", 1), specials=tuple(args.special),
        forbid=tuple(parse_pair(x) for x in getattr(args, "forbid", [])),
        forbid_regex=getattr(args, "forbid_regex", None), byte_ids=getattr(args, "byte_ids", "gpt2"),
    )


def jobs_from_args(args: argparse.Namespace) -> int:
    if args.jobs is None:
        return default_jobs()
    if args.jobs < 1:
        raise ConfigError(f"--jobs must be 1 or more, not {args.jobs}")
    return int(args.jobs)


def source_from_args(args: argparse.Namespace) -> CorpusSource:
    return CorpusSource.from_files(args.inputs, word_counts=getattr(args, "word_counts", False),
                                   errors=args.encoding_errors, jobs=jobs_from_args(args), glob=args.glob)


def progress_printer(args: argparse.Namespace) -> Callable[[str, int, int], None] | None:
    """The progress callback ``--progress`` asks for (``None`` for none): bytes, rate and ETA while
    reading; merges while merging."""
    kind = args.progress
    if kind == "auto":
        kind = "bar" if sys.stderr.isatty() else "none"
    if kind == "none":
        return None
    state: dict[str, object] = {"stage": None, "t0": 0.0, "last": 0.0}

    def emit(stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if stage != state["stage"]:
            state.update(stage=stage, t0=now, last=0.0)
        t0 = float(state["t0"])  # type: ignore[arg-type]
        final = total > 0 and done >= total
        if kind == "bar" and not final and now - float(state["last"]) < 0.2:  # type: ignore[arg-type]
            return
        state["last"] = now
        elapsed = max(now - t0, 1e-9)
        rate = done / elapsed
        eta = (total - done) / rate if rate > 0 and total >= done else None
        if kind == "jsonl":
            sys.stderr.write(json.dumps({"stage": stage, "done": done, "total": total, "rate": round(rate, 1),
                                         "eta_s": None if eta is None else round(eta, 2)}) + "\n")
        else:
            frac = done / total if total else 1.0
            bar = "#" * int(frac * 30)
            unit = (f"{done / 1e6:,.1f}/{total / 1e6:,.1f} MB, {rate / 1e6:,.1f} MB/s" if stage != "merging"
                    else f"{done:,}/{total:,} merges, {rate:,.0f}/s")
            tail = f", ETA {eta:,.0f} s" if eta is not None and not final else ""
            sys.stderr.write(f"\r{stage:9} [{bar:30}] {frac:4.0%} {unit}{tail}\x1b[K" + ("\n" if final else ""))
        sys.stderr.flush()

    return emit
