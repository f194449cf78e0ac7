"""``bpe-desktop diff A B``: compare two tokenizers' merge lists (any readable format, or ``PRESET:PATH``).

Prints the settings that differ, the first divergence, the merges only in A, only in B and those both make at
different ranks; pairs are written as ``--forbid`` takes them, so a line can be pasted back.  Exit status as
Unix ``diff``: 0 same merges, 1 different, 2 trouble.  The comparison itself is
:mod:`bpe_desktop.core.measure.run_diff`.

``bpe-desktop diff RUN --reference TOKENIZER [--corpus FILE ...]``: rediscovery
(:mod:`bpe_desktop.core.measure.rediscovery`) -- the share of the reference's tokens RUN has made by step k, RUN's
tokens the reference lacks (by how much of the corpus they cover, when the corpus is given) and each shared
token's merge number here and there.  A rank table (a ``.tiktoken`` file) is compared by its ranks and encoded by
tiktoken's rule, with no merge list recovered; one that extends a known encoding (``cl100k:FILE``, as
``train --extend`` writes it) counts its steps from that encoding, as the window's timeline does: step 0 is
cl100k, its tokens are "made at 0", the new ones at 1, 2...  Exit status 0.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence

from ..core.config import TrainConfig
from ..core.counting.sources import CorpusSource, count_source
from ..core.errors import ConfigError
from ..core.forbid import format_pair
from ..core.formats import Loaded
from ..core.formats.hf.pipeline import HFTokenizer
from ..core.formats.presets import extended
from ..core.measure.rediscovery import Rediscovery, rediscover
from ..core.measure.run_diff import RunDiff, diff_merges, settings_changes
from ..core.tokenizers.ranks import RankTokenizer
from ..core.tokenizers.tokenizer import Tokenizer
from .common import add_tokenizer_file_options, load_each


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("diff", help="compare two tokenizers' merge lists (first divergence, merges unique to each)")
    p.add_argument("a", metavar="A", help="tokenizer file (any readable format, or PRESET:PATH)")
    p.add_argument("b", metavar="B", nargs="?", default=None, help="tokenizer file to compare with A")
    p.add_argument("--reference", metavar="TOKENIZER", default=None,
                   help="instead of B: which of this tokenizer's tokens A rediscovers (a file or cl100k, o200k...)")
    p.add_argument("--corpus", action="append", default=[], metavar="FILE",
                   help="with --reference: A's corpus, to rank A's tokens the reference lacks by coverage")
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


def _steps(n: int) -> list[int]:
    """Log-spaced steps up to *n* (1, 10, 100, ... and *n*)."""
    out, k = [], 1
    while k < n:
        out.append(k)
        k *= 10
    return [*out, n] if n else []


def render_rediscovery(r: Rediscovery, name_run: str, name_ref: str, limit: int, origin: str = "") -> str:
    """The text report; *origin*: the encoding the run extends (its step 0), if any."""
    size = f"{origin} + {r.n_steps:,} new merges" if origin else f"{len(r.found)} merges"
    lines = [f"run: {name_run} ({size})", f"reference: {name_ref} ({r.n_reference:,} merged tokens)"]
    steps = [0, *_steps(r.n_steps)] if origin else _steps(r.n_steps)
    lines.append("reference tokens made by step k: " + ", ".join(
        f"{k}: {r.found_at(k)} ({r.share_at(k):.2%})" for k in steps))
    cover = " (by corpus coverage)" if r.corpus_bytes else " (in the run's order; --corpus FILE ranks them by coverage)"

    def here(k: int) -> str:  # (a token the original makes: made at step 0, named by the original)
        return origin if origin and not k else str(k)

    lines += _section(f"the run's tokens the reference lacks{cover}", [
        f"{here(t.rank_here):>7}  {t.token!r}" + (f"  {t.occurrences} x, {t.corpus_share:.2%} of the corpus"
                                                 if r.corpus_bytes else "") for t in r.lacking], limit)
    lines += _section("shared tokens (merge here -> there)",
                      [f"{here(s.rank_here):>7} -> {s.rank_there:<7} {s.token!r}" for s in r.shared], limit)
    return "\n".join(lines)


def _run_reference(args: argparse.Namespace) -> int:
    if args.b is not None:
        raise ConfigError("give B or --reference TOKENIZER, not both -- diff compares two merge lists, --reference "
                          "asks which of a tokenizer's tokens A rediscovers")
    la, lr = load_each(args.a, args), load_each(args.reference, args)
    tok = la.tokenizer
    run_tok: Tokenizer | RankTokenizer
    origin, start = "", 0
    if isinstance(tok, RankTokenizer):  # its ranks and tiktoken's rule (an extended table has no merge list)
        run_tok = tok
        config = TrainConfig(mode=tok.mode, pretokenizer=tok.pretokenizer.spec,
                             specials=tuple(sorted(tok.special_tokens, key=tok.special_tokens.__getitem__)))
        grown = extended(tok.ranks)
        if grown is not None and grown.n_ranks is not None:  # steps from the encoding it extends
            first = min(r for r in tok.ranks.values() if r >= grown.n_ranks and r > max(grown.specials.values(),
                                                                                        default=-1))
            origin, start = grown.name, first - 256
    else:
        m = la.model
        run_tok = Tokenizer(m)
        config = TrainConfig(mode=m.mode, pretokenizer=m.pretokenizer, end_of_word=m.end_of_word,
                             glue_marker=m.glue_marker, specials=m.specials)
    words = count_source(CorpusSource.from_files(args.corpus), config).counts if args.corpus else None
    r = rediscover(run_tok, lr.tokenizer, words, start=start)
    if args.json:
        doc = {"run": os.fspath(args.a), "reference": args.reference, "n_reference": r.n_reference,
               "found": list(r.found), "shared": [s._asdict() for s in r.shared],
               "lacking": [t._asdict() for t in r.lacking], "corpus_bytes": r.corpus_bytes,
               "extends": origin or None, "start": start}
        print(json.dumps(doc, ensure_ascii=False, indent=1))
    else:
        print(render_rediscovery(r, f"{args.a} [{la.fmt}]", f"{args.reference} [{lr.fmt}]", args.limit, origin))
    return 0


def run(args: argparse.Namespace) -> int:
    if args.reference is not None:
        return _run_reference(args)
    if args.corpus:
        raise ConfigError("--corpus goes with --reference TOKENIZER -- drop it, or add --reference")
    if args.b is None:
        raise ConfigError("diff needs B (a second tokenizer) or --reference TOKENIZER")
    la, lb = load_each(args.a, args), load_each(args.b, args)
    d = diff_merges(_pairs(la), _pairs(lb), settings_changes(la.model, lb.model))
    if args.json:
        doc = {"a": {"path": os.fspath(args.a), "format": la.fmt}, "b": {"path": os.fspath(args.b), "format": lb.fmt},
               **d.to_json()}
        print(json.dumps(doc, ensure_ascii=False, indent=1))
    else:
        print(render(d, f"{args.a} [{la.fmt}]", f"{args.b} [{lb.fmt}]", args.limit))
    return 0 if d.identical else 1
