"""``bpe-desktop analyze``: judge a tokenizer on a text -- quality metrics and the tokens that should not be there.

Prints tokens, bytes per token, fertility, vocabulary utilization, Shannon and Rényi efficiency of the
text tokenized at step K, and the unreachable, not-decodable-alone, intermediate and unused tokens
(``--json``: one object, full lists; ids are the file's own).  The text is cut the way training reads it
(line by line, special tokens cut out).  Intermediate tokens need the per-merge counts a native file
stores, counted on the training corpus (the text output says so, and how tokens are shown); other formats
list none.  Only argument plumbing and printing live here (see
:mod:`bpe_desktop.core.measure.vocab_audit`).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

from ..core.choices import Mode
from ..core.config import TrainConfig
from ..core.counting.pieces import WordCounts, decode_chunk
from ..core.counting.sources import CorpusSource, iter_file_chunks
from ..core.errors import ConfigError, CorpusError
from ..core.formats import load
from ..core.formats.hf.pipeline import HFTokenizer, ModelIdEncoder
from ..core.measure.holdout import count_with_totals
from ..core.measure.quality import DEFAULT_ALPHA, TextTotals, check_alpha, measure
from ..core.measure.reachability import PieceEncoder, brute_force_unreachable, ordinary_count
from ..core.measure.vocab_audit import DEFAULT_INTERMEDIATE_THRESHOLD, TokenFlag, VocabAudit, audit, made_counts
from ..core.tokenizers.ranks import RankTokenizer
from ..core.tokenizers.renumber import RenumberedTokenizer
from ..core.tokenizers.tokenizer import Tokenizer
from ..core.views.labels import token_label
from .common import add_tokenizer_file_options, tokenizer_kwargs
from .encode import TOKENIZER_HELP

#: flag -> key of the lists in the output
LISTS = (
    ("unreachable", TokenFlag.UNREACHABLE), ("undecodable", TokenFlag.UNDECODABLE),
    ("intermediate", TokenFlag.INTERMEDIATE), ("unused", TokenFlag.UNUSED),
)
SHOWN = 20  # list items printed per flag without --json


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("analyze", help="quality metrics of a tokenizer on a text, and its suspicious tokens")
    p.add_argument("file", metavar="FILE", help="the text to tokenize (UTF-8; bytes-mode tokenizers take any bytes)")
    p.add_argument("--tokenizer", required=True, metavar="SPEC", help=TOKENIZER_HELP)
    add_tokenizer_file_options(p)
    p.add_argument("--upto", type=int, default=None, metavar="K", help="judge the tokenizer after its first K merges")
    p.add_argument("--alpha", type=float, default=DEFAULT_ALPHA, metavar="A",
                   help=f"order of the Rényi efficiency (default {DEFAULT_ALPHA})")
    p.add_argument("--intermediate-threshold", type=float, default=DEFAULT_INTERMEDIATE_THRESHOLD, metavar="X",
                   help="flag a token whose frequency at step K over its count when made is under X "
                        f"(default {DEFAULT_INTERMEDIATE_THRESHOLD})")
    p.add_argument("--word-counts", action="store_true", help="FILE is a 'word count' table, as in the seeds")
    p.add_argument("--json", action="store_true", help="print one JSON object with every list in full")
    p.set_defaults(run=run)


def _encoder(tok: object) -> PieceEncoder:
    """The tokenizer speaking the model's ids (rank files: their own rule; renumbered files: the inner one;
    tokenizer.json files: their own pipeline)."""
    if isinstance(tok, RankTokenizer):
        return tok
    if isinstance(tok, HFTokenizer):
        return ModelIdEncoder(tok)
    inner = tok.inner if isinstance(tok, RenumberedTokenizer) else tok
    if isinstance(inner, RankTokenizer):
        return inner
    if not isinstance(inner, Tokenizer):
        raise ConfigError(f"analyze does not judge {type(inner).__name__} tokenizers yet (their ids are not "
                          "a merge list's) -- use inspect, encode or diff on this file")
    return Tokenizer(inner.model, unknown="keep")


def hf_counts(tok: HFTokenizer, source: CorpusSource) -> tuple[WordCounts, TextTotals]:
    """The pieces of the whole text as a tokenizer.json cuts it (added tokens, normalizer, pre-tokenizer:
    HF runs them on the whole text at once, so it is read whole), and the text's totals."""
    text = "".join(decode_chunk(data, name, off, tok.mode, source.errors)
                   for name in source.paths for off, data in iter_file_chunks(name))
    return WordCounts(dict(Counter(tok.pieces(text))), len(text.encode("utf-8", "surrogateescape"))), \
        TextTotals.of_text(text)


def _number(x: float) -> float | None:
    return None if math.isnan(x) else x


def _shown(x: float) -> str:
    """A rate for the text report: four decimals, or n/a when it is undefined (no token, no word)."""
    return "n/a" if math.isnan(x) else f"{x:.4f}"


def run(args: argparse.Namespace) -> int:
    alpha = check_alpha(args.alpha)
    x = args.intermediate_threshold
    if not math.isfinite(x) or x < 0:
        raise ConfigError(f"--intermediate-threshold must be a number of 0 or more, not {x} -- e.g. 0.1")
    loaded = load(args.tokenizer, **tokenizer_kwargs(args))  # type: ignore[arg-type]
    model = loaded.model
    n_merges = len(model.merges)
    k = n_merges if args.upto is None else args.upto
    if not 0 <= k <= n_merges:
        raise ConfigError(f"--upto {k} is outside this tokenizer's 0..{n_merges} merges -- use a step in that range")
    if os.path.isdir(args.file):
        raise CorpusError(f"{args.file}: is a folder -- name a text file")
    cfg = TrainConfig(mode=model.mode, pretokenizer=model.pretokenizer, specials=model.specials)
    source = CorpusSource.from_files([args.file], word_counts=args.word_counts)
    tok = loaded.tokenizer
    if isinstance(tok, HFTokenizer) and tok.plain_reason is not None and not args.word_counts:
        table, totals = hf_counts(tok, source)  # its normalizer and pre-tokenizer cut the text, not a pattern
    else:
        table, totals = count_with_totals(source, cfg)
    words = table.counts
    encoder = _encoder(loaded.tokenizer)
    size = model.vocab_size_at(k) - len(model.specials)
    counts: Counter[int] = Counter()
    for piece, c in words.items():
        if c > 0 and piece:
            for i in encoder.encode_piece(piece, k):
                counts[i] += c
    freqs = [counts.get(i, 0) for i in range(size)]
    metrics = measure(counts, totals, model.vocab_size_at(k), alpha)
    prefixed = tok if isinstance(tok, HFTokenizer) and tok.bpe.prefix else None
    report = audit(model, k, freqs, counts_when_made=made_counts(loaded.stats) if loaded.stats else None,
                   threshold=x, encoder=encoder,
                   unreachable=None if prefixed is None else _unreachable_by_definition(prefixed, k))
    if prefixed is not None:
        _with_file_texts(report, prefixed)
    to_file = tok.file_id if isinstance(tok, RenumberedTokenizer | HFTokenizer) else None
    lists = {key: _listed(report, flag, to_file) for key, flag in LISTS}
    outside = loaded.tokenizer.outside_merges if isinstance(loaded.tokenizer, RankTokenizer) else []
    lists["not_merges"] = [{"id": i, "text": loaded.tokenizer.token_str(i)} for i in outside]
    if args.json:
        doc: dict[str, Any] = {
            "tokens": metrics.tokens, "bytes_per_token": _number(metrics.bytes_per_token),
            "fertility": _number(metrics.fertility), "utilization": _number(metrics.utilization),
            "shannon_efficiency": _number(metrics.shannon_efficiency),
            "renyi_efficiency": _number(metrics.renyi_efficiency), "alpha": alpha,
            "vocab_size": metrics.vocab_size, "step": k, **lists,
        }
        sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
        return 0
    out = [
        f"{args.tokenizer} at step {k} of {n_merges} (vocabulary {metrics.vocab_size}) on {args.file}",
        f"tokens              {metrics.tokens}",
        f"bytes per token     {_shown(metrics.bytes_per_token)}",
        f"fertility           {_shown(metrics.fertility)} tokens per word",
        f"utilization         {_shown(metrics.utilization)} ({metrics.used} of {metrics.vocab_size} used)",
        f"Shannon efficiency  {_shown(metrics.shannon_efficiency)}",
        f"Rényi efficiency    {_shown(metrics.renyi_efficiency)} (alpha {alpha:g})",
    ]
    if metrics.tokens == 0:  # a rate over nothing is undefined: say so instead of printing nan
        out.insert(1, "the text holds no token: the rates below are undefined (n/a)")
    legend = "tokens as the window shows them: · a space, → a tab, ↵ a newline"
    if model.mode == Mode.BYTES:
        legend += (", ⟨hex⟩ bytes that are not whole UTF-8 characters (encode and the merge list write GPT-2's "
                   "byte characters instead: Ġ for a space)")
    out.append(legend)
    if not loaded.stats:
        out.append("intermediate: not known (the file holds no per-merge counts; native files saved by training do)")
    else:
        out.append(f"intermediate: frequency in {args.file} over the pair's count when made, which the file counted "
                   "on its training corpus -- on another text this compares two corpora; analyze the training "
                   "corpus to find the tokens training left behind")
    if outside:  # ranks no encoding produces, kept out of the merge list (Whisper's empty token)
        out.append(f"not merges ({len(outside)}, the last ranks; no text encodes to them):")
        out.extend(f"  {it['id']}\t{it['text']!r}" for it in lists["not_merges"][:SHOWN])
    undecodable = {it["id"] for it in lists["undecodable"]}
    for key, _flag in LISTS:
        items = lists[key]
        head = f"{key} ({len(items)})"
        if key == "unreachable" and undecodable:  # those are unreachable too: list only the others here
            items = [it for it in items if it["id"] not in undecodable]
            head = f"{key} ({len(lists[key])}, of which {len(lists[key]) - len(items)} not decodable alone)"
        out.append(head + ":")
        out.extend(f"  {it['id']}\t{it['text']}" for it in items[:SHOWN])
        if len(items) > SHOWN:
            out.append(f"  ... {len(items) - SHOWN} more (--json lists them all)")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


def _unreachable_by_definition(tok: HFTokenizer, k: int) -> list[int]:
    """A continuing_subword_prefix file (our names for its tokens are not its texts): the definition itself,
    decode one token and encode the text with the file's pipeline at step *k*, in our ids."""
    before = tok.unknown
    tok.unknown = "keep"  # a text with a character the file lacks encodes to -1: not that one token
    try:
        n = ordinary_count(tok.model, k)
        bad = set(brute_force_unreachable(lambda s: tok.encode(s, upto=k), tok.decode,
                                          [tok.file_id(i) for i in range(n)]))
        return [i for i in range(n) if tok.file_id(i) in bad]
    finally:
        tok.unknown = before


def _with_file_texts(report: VocabAudit, tok: HFTokenizer) -> None:
    """Labels and sizes as the file writes its tokens, not by our names for them (a prefixed file)."""
    n = len(tok.model.tokens)
    for r, i in enumerate(report.ids):
        if i < n:
            report.labels[r] = token_label(tok.bpe.token_text(i))
            report.n_bytes[r] = tok.bpe.covered_bytes(i)


def _listed(report: VocabAudit, flag: TokenFlag, to_file: Callable[[int], int] | None) -> list[dict[str, Any]]:
    """The rows with *flag*, with the file's ids (files that number tokens otherwise than the merge order)."""
    ids = report.ids if to_file is None else [to_file(i) for i in report.ids]
    return [{"id": ids[r], "text": report.labels[r]} for r in report.flagged(flag)]
