"""``bpe-desktop diff A B``: compare two tokenizers' merge lists (any readable format, or ``PRESET:PATH``).

Prints the settings that differ, the first divergence, the merges only in A, only in B and those both make at
different ranks; pairs are written as ``--forbid`` takes them, so a line can be pasted back.  Exit status as
Unix ``diff``: 0 same merges, 1 different, 2 trouble.  The comparison itself is
:mod:`bpe_desktop.core.measure.run_diff`.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence

from ..core.forbid import format_pair
from ..core.formats import Loaded
from ..core.formats.hf.pipeline import HFTokenizer
from ..core.measure.run_diff import RunDiff, diff_merges, settings_changes
from .common import add_tokenizer_file_options, load_each


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("diff", help="compare two tokenizers' merge lists (first divergence, merges unique to each)")
    p.add_argument("a", metavar="A", help="tokenizer file (any readable format, or PRESET:PATH)")
    p.add_argument("b", metavar="B", help="tokenizer file to compare with A")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    add_tokenizer_file_options(p, several=True)
    p.add_argument("--limit", type=int, default=50, metavar="N",
                   help="list at most N merges per section in text output (0: all; default 50)")
    p.set_defaults(run=run)


def _section(title: str, rows: Sequence[str], limit: int) -> list[str]:
    out = [f"{title} ({len(rows)}):"]
    shown = rows if limit <= 0 else rows[:limit]
    out += [f"  {r}" for r in shown]
    if len(shown) < len(rows):
        out.append(f"  … and {len(rows) - len(shown)} more (--limit 0 lists all)")
    return out


def render(d: RunDiff, name_a: str, name_b: str, limit: int) -> str:
    """The text report."""
    lines = [f"A: {name_a} ({d.n_a} merges)", f"B: {name_b} ({d.n_b} merges)"]
    lines += [f"settings differ: {s.name} {s.before} (A) vs {s.after} (B)" for s in d.settings]
    if d.identical:
        lines.append(f"same {d.n_a} merges in the same order")
        return "\n".join(lines)
    r = d.first_divergence or 0
    same = f"the first {r - 1} are the same" if r > 1 else "no merge in common at the start"
    lines.append(f"first divergence at merge {r} ({same})")
    lines += _section("only in A", [f"{m.rank:>7}  {format_pair((m.left, m.right))}" for m in d.only_a], limit)
    lines += _section("only in B", [f"{m.rank:>7}  {format_pair((m.left, m.right))}" for m in d.only_b], limit)
    lines += _section("same merge, other rank (A -> B)",
                      [f"{m.rank_a:>7} -> {m.rank_b:<7} {format_pair((m.left, m.right))}" for m in d.moved], limit)
    return "\n".join(lines)


def _pairs(loaded: Loaded) -> list[tuple[str, str]]:
    """The merges as display-text pairs: a tokenizer.json with a continuing_subword_prefix as the file writes
    them (our names for its tokens are not its texts)."""
    tok = loaded.tokenizer
    if isinstance(tok, HFTokenizer) and tok.bpe.prefix:
        return tok.bpe.merge_pairs_text()
    return loaded.model.merge_pairs_text()


def run(args: argparse.Namespace) -> int:
    la, lb = load_each(args.a, args), load_each(args.b, args)
    d = diff_merges(_pairs(la), _pairs(lb), settings_changes(la.model, lb.model))
    if args.json:
        doc = {"a": {"path": os.fspath(args.a), "format": la.fmt}, "b": {"path": os.fspath(args.b), "format": lb.fmt},
               **d.to_json()}
        print(json.dumps(doc, ensure_ascii=False, indent=1))
    else:
        print(render(d, f"{args.a} [{la.fmt}]", f"{args.b} [{lb.fmt}]", args.limit))
    return 0 if d.identical else 1
