"""``bpe-desktop inspect FILE --tokenizer A [--tokenizer B ...]``: where each tokenizer's tokens go in a log.

Per tokenizer: tokens, characters and bytes per token, tokens per line (mean, p95), tokens per category
of :mod:`bpe_desktop.core.logs.logclass` and the most expensive span groups; with two or more tokenizers, the
spans they cut differently and which needs fewest tokens per category.  ``--json`` prints the same as one
object (``Inspection.to_dict``); ``--per-line F.csv`` writes ``line,<tokenizer>...`` token counts.  The work
is :func:`bpe_desktop.core.logs.log_inspect.inspect_file` (the file is read chunk by chunk); only argument
plumbing and printing live here.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING

from ..core.errors import CorpusError
from ..core.io.atomic import atomic_write
from ..core.logs.logclass import Category
from ..core.measure.stats import csv_text
from .common import add_tokenizer_file_options, load_each
from .encode import TOKENIZER_HELP

if TYPE_CHECKING:
    from ..core.logs.log_inspect import Inspection


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("inspect", help="where the tokens go in a log, per tokenizer, and where tokenizers differ")
    p.add_argument("file", metavar="FILE", help="the text (UTF-8) to inspect, e.g. a robot log")
    p.add_argument("--tokenizer", action="append", required=True, metavar="SPEC",
                   help=TOKENIZER_HELP + " (repeat to compare)")
    add_tokenizer_file_options(p, several=True)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    p.add_argument("--per-line", metavar="F.csv", help="write the tokens of every line per tokenizer as CSV")
    p.add_argument("--top", type=int, default=10, metavar="K", help="how many expensive/differing spans to list")
    p.add_argument("--progress", choices=["none", "jsonl"], default="none",
                   help="jsonl: one JSON object per progress update on stderr")
    p.set_defaults(run=run)


def _names(specs: list[str]) -> list[str]:
    """Short, distinct names: the file name (``cl100k:PATH`` -> ``cl100k``), numbered when repeated."""
    names = []
    for spec in specs:
        head, sep, rest = spec.partition(":")
        base = head if sep and rest and not os.path.exists(spec) else os.path.basename(os.path.normpath(spec))
        names.append(base or spec)
    return [f"{n}#{k + 1}" if names.count(n) > 1 else n for k, n in enumerate(names)]


def run(args: argparse.Namespace) -> int:
    from ..core.logs.log_inspect import NamedTokenizer, inspect_file  # numpy: not imported for ``--help``

    if args.top < 0:
        raise CorpusError(f"--top must be 0 or more, not {args.top}")
    names = _names(args.tokenizer)
    toks = [NamedTokenizer(n, load_each(s, args).tokenizer) for n, s in zip(names, args.tokenizer, strict=True)]
    progress = None
    if args.progress == "jsonl":
        def progress(stage: str, done: int, total: int) -> None:
            sys.stderr.write(json.dumps({"stage": stage, "done": done, "total": total}) + "\n")
            sys.stderr.flush()
    result = inspect_file(args.file, toks, top=max(args.top, 1), progress=progress)
    if args.per_line:
        rows = zip(range(1, len(result.reports[0].per_line) + 1), *(r.per_line.tolist() for r in result.reports),
                   strict=True)
        try:
            with atomic_write(args.per_line) as f:
                f.write(csv_text(("line", *names), rows))
        except OSError as e:  # a folder, a place where no file can be created, a full disk
            raise CorpusError(f"{args.per_line}: cannot write ({e.strerror}) -- choose another path") from None
    if args.json:
        sys.stdout.write(json.dumps({"file": args.file, **result.to_dict(args.top)}, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(_table(args.file, result, args.top))
    return 0


def _table(path: str, r: Inspection, top: int) -> str:
    reps = r.reports
    rows: list[tuple[str, list[str]]] = [
        ("", [x.name for x in reps]),
        ("tokens", [f"{x.tokens:,}" for x in reps]),
        ("chars/token", [f"{x.chars_per_token:.3f}" for x in reps]),
        ("bytes/token", [f"{x.bytes_per_token:.3f}" for x in reps]),
        ("tokens/line mean", [f"{x.tokens_per_line_mean:.2f}" for x in reps]),
        ("tokens/line p95", [str(x.tokens_per_line_p95) for x in reps]),
    ]
    cats = [(f"{c.label} [{r.category_bytes[c]:,}]", [f"{x.categories[c]:,} {100 * x.share(c):4.1f}%" for x in reps])
            for c in Category]
    # every column as wide as its widest cell plus two spaces, so no two cells ever touch
    label_w = max(22, *(len(label) + 2 for label, _ in rows + cats))
    w = max(len(cell) + 2 for _, cells in rows + cats for cell in cells)
    lines = [f"{path}: {r.n_bytes:,} bytes, {r.chars:,} characters, {len(reps[0].per_line):,} lines", ""]

    def row(label: str, cells: list[str]) -> None:
        lines.append(f"{label:<{label_w}}" + "".join(f"{c:>{w}}" for c in cells))

    for label, cells in rows:
        row(label, cells)
    lines.append("")
    lines.append("tokens per category (share)    bytes of text per category in brackets")
    for label, cells in cats:
        row(label, cells)
    for x in reps:
        lines += ["", f"most expensive spans under {x.name}:"]
        lines += [f"  {e.describe(x.tokens)}" for e in x.expensive[:top]]
    d = r.differences
    if d is not None:
        lines += ["", f"differing spans: {d.n_regions:,} regions, {int((d.ends - d.starts).sum()):,} bytes "
                      f"({' vs '.join(d.names)})"]
        lines += [f"  {g.describe()}" for g in d.top(top)]
        lines += ["", "fewest tokens per category:"]
        lines += [f"  {v.category.label}: {', '.join(v.best)}" for v in r.verdicts]
    return "\n".join(lines) + "\n"
