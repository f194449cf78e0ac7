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

from ..core.choices import ByteIds, Mode, TieBreak
from ..core.config import BYTE_IDS, MODES, TIE_BREAKS, TrainConfig
from ..core.counting.parallel_count import check_jobs, default_jobs
from ..core.counting.pieces import ENCODING_ERRORS
from ..core.counting.sources import CorpusSource
from ..core.errors import ConfigError, PretokenizerNeeded
from ..core.forbid import parse_pair
from ..core.formats import Loaded, load
from ..core.io.atomic import check_writable
from ..core.io.sizes import format_bytes
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
    p.add_argument("--mode", choices=[m.value for m in MODES], default=Mode.CHARS.value,
                   help="chars (with end-of-word marker) or bytes")
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
    p.add_argument("--tie-break", choices=[t.value for t in TIE_BREAKS], default=TieBreak.LEXICAL.value,
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


def note_pure_python(config: TrainConfig) -> None:
    """Say once on stderr when *config* trains in pure Python because the compiled kernel is not built."""
    from ..core.training.kernel_trainer import KERNEL_RULES, pure_python_note

    note = pure_python_note()
    if note is not None and config.tie_break in KERNEL_RULES:
        sys.stderr.write(f"bpe-desktop: {note}\n")


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    pre = args.pretokenizer or ("gpt2" if args.mode == Mode.BYTES else "whitespace")
    return TrainConfig(
        mode=args.mode, pretokenizer=pre, end_of_word=getattr(args, "end_of_word", "</w>"),
        glue_marker=getattr(args, "glue_marker", False), tie_break=getattr(args, "tie_break", TieBreak.LEXICAL),
        merges=getattr(args, "merges", None), vocab_size=getattr(args, "vocab_size", None),
        min_frequency=getattr(args, "min_frequency", 1), specials=tuple(args.special),
        forbid=tuple(parse_pair(x) for x in getattr(args, "forbid", [])),
        forbid_regex=getattr(args, "forbid_regex", None), byte_ids=getattr(args, "byte_ids", ByteIds.GPT2),
    )


def jobs_from_args(args: argparse.Namespace) -> int:
    if args.jobs is None:
        return default_jobs()
    return check_jobs(int(args.jobs))


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
    # A stage starts when the previous one reported last (the first when the printer was made): its first
    # update then has a real elapsed time, not the zero that gave a rate of 10^15 bytes/s.
    shown: list[str | None] = [None]  # the stage being reported
    made = time.monotonic()
    times = [made, 0.0, made]  # when that stage started, when the last line was written, the last report

    def emit(stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if stage != shown[0]:
            shown[0], times[0], times[1] = stage, times[2], 0.0
        times[2] = now
        t0 = times[0]
        final = total > 0 and done >= total
        if kind == "bar" and not final and now - times[1] < 0.2:
            return
        times[1] = now
        elapsed = now - t0
        rate = done / elapsed if elapsed > 0 else None  # None: no time measured yet, so no rate
        eta = (total - done) / rate if rate and total >= done else None
        if kind == "jsonl":
            sys.stderr.write(json.dumps({"stage": stage, "done": done, "total": total,
                                         "rate": None if rate is None else round(rate, 1),
                                         "eta_s": None if eta is None else round(eta, 2)}) + "\n")
        else:
            frac = done / total if total else 1.0
            bar = "#" * int(frac * 30)
            if stage != "merging":
                unit = f"{format_bytes(done)} of {format_bytes(total)}"
                unit += f", {format_bytes(rate)}/s" if rate is not None else ""
            else:
                unit = f"{done:,}/{total:,} merges" + (f", {rate:,.0f}/s" if rate is not None else "")
            tail = f", ETA {eta:,.0f} s" if eta is not None and not final else ""
            sys.stderr.write(f"\r{stage:9} [{bar:30}] {frac:4.0%} {unit}{tail}\x1b[K" + ("\n" if final else ""))
        sys.stderr.flush()

    return emit


def add_tokenizer_file_options(p: argparse.ArgumentParser, *, several: bool = False) -> None:
    """``--pretokenizer`` and ``--special NAME[=ID]`` for the commands that read a tokenizer file."""
    which = ("the tokenizers whose files hold none (a .tiktoken file that is no known encoding)" if several
             else "files that hold none (a .tiktoken file that is no known encoding); overrides the file's")
    p.add_argument("--pretokenizer", default=None, metavar="NAME|REGEX",
                   help=f"one of {', '.join(NAMED_PATTERNS)} or a regular expression, for {which}")
    p.add_argument("--special", nargs="*", default=[], metavar="TOKEN[=ID]",
                   help="add special tokens; TOKEN=ID gives one its id (a .tiktoken file's specials are not in "
                   "the file: e.g. --special '<|endoftext|>=100257')")


def parse_special(value: str) -> tuple[str, int | None]:
    """``"<|eot|>=5"`` -> ``("<|eot|>", 5)``; a value whose text after the last ``=`` is not digits is a
    name alone.

    >>> parse_special("<|endoftext|>=199999"), parse_special("<|a=b|>"), parse_special("x=")
    (('<|endoftext|>', 199999), ('<|a=b|>', None), ('x=', None))
    """
    name, sep, num = value.rpartition("=")
    if sep and name and num.isascii() and num.isdigit():
        return name, int(num)
    return value, None


def specials_from_args(args: argparse.Namespace) -> dict[str, int | None]:
    """``--special`` values as name -> id (None: the next free id), checked by :func:`check_specials`."""
    items = [parse_special(v) for v in args.special]
    check_specials([name for name, _ in items])
    return dict(items)


def tokenizer_kwargs(args: argparse.Namespace) -> dict[str, object]:
    """The ``load`` keyword arguments ``--pretokenizer`` and ``--special`` ask for."""
    return {"pretokenizer": args.pretokenizer, "specials": specials_from_args(args)}


def load_each(spec: str, args: argparse.Namespace) -> Loaded:
    """For commands that read several tokenizers: *spec* as its file says, with ``--pretokenizer`` used only
    if the file holds no pattern (a .tiktoken file that is no known encoding)."""
    specials = specials_from_args(args)
    try:
        return load(spec, specials=specials)
    except PretokenizerNeeded:
        if args.pretokenizer is None:
            raise
        return load(spec, pretokenizer=args.pretokenizer, specials=specials)
