"""The extension as the window's timeline shows it (``Extension.timeline``): one merge list in the original model's
ids, stepped through by :class:`RankRuleTokenizer` for a rank table.  At every step k (original + first k new
merges) it encodes as tiktoken does with the extended ranks cut to the original's + the first k new ones, on small
tables whose new tokens meet original ones; and for a merge-list original (a native file) replaying the merges
is the extension's own encoding at every step.

The extension's corpus at every step (``ExtensionRun.rewrites``, prepared with ``history=True``), as the plots read
it: :class:`RewriteHistory`'s pair counts, compression and trade-off, and :class:`RewrittenCurves`' quality metrics
at every step k equal a brute-force count over the corpus cut by the ``regex`` module with the pattern and each
piece encoded by tiktoken with the table cut at k (so tiktoken's rule re-encodes beyond the merged pair), or for a
native original by replaying the merges; merge k + 1's record count is the count of its pair at step k (for a rank
table: of every split of its bytes, which is what the trainer ranks by)."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable

import pytest
import regex
import tiktoken
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.errors import CorpusError
from bpe_desktop.core.extend import ExtensionRun, prepare, rewrites_again, start
from bpe_desktop.core.formats import Loaded, load
from bpe_desktop.core.formats.native import save
from bpe_desktop.core.measure.quality import TextTotals, measure
from bpe_desktop.core.measure.quality_curves import RewrittenCurves
from bpe_desktop.core.measure.stats import RewriteHistory, Rewrites, finish
from bpe_desktop.core.records import MergeRecord
from bpe_desktop.core.text.pretokenize import Pretokenizer
from bpe_desktop.core.tokenizers.rank_rule import RankRuleTokenizer
from bpe_desktop.core.tokenizers.ranks import RankTokenizer
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer
from bpe_desktop.core.training.trainer import train

FEW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
GPT2_PATTERN = Pretokenizer.from_spec("gpt2").pattern
corpora = st.text(st.sampled_from("abc \n"), min_size=1, max_size=60)


def _small() -> dict[bytes, int]:
    model, _ = train({"abcab": 5, " abca": 3, "cbac": 4, " bb": 2, "aab": 3},
                     TrainConfig(mode="bytes", pretokenizer="gpt2", merges=40))
    return {t: i for i, t in enumerate(model.tokens)}  # type: ignore[misc]


SMALL = _small()


def _check_every_step(corpus: str, other: str, n: int) -> None:
    """Each step of the timeline encodes as tiktoken on the cut table."""
    ext = start(Loaded("tiktoken", RankTokenizer(SMALL, "gpt2", {})), "small", corpus, TrainConfig(mode="bytes",
                                                                                                   merges=n))
    run = ext.timeline()
    assert run.start == len(SMALL) - 256 and len(run.model.merges) == run.start + len(ext.records)
    assert [r.rank for r in run.records] == list(range(run.start + 1, run.start + len(ext.records) + 1))
    rule = RankRuleTokenizer(run.model)
    ranks = ext.ranks()
    assert GPT2_PATTERN is not None
    for k in range(len(ext.records) + 1):
        enc = tiktoken.Encoding(name=f"s{k}", pat_str=GPT2_PATTERN, special_tokens={},
                                mergeable_ranks={b: r for b, r in ranks.items() if r < len(SMALL) + k})
        for text in (corpus, other):
            want = enc.encode_ordinary(text)  # (no specials: ranks and model ids coincide)
            assert rule.encode_ordinary(text, upto=run.start + k) == want, k
    first = run.records[0].symbols_before if run.records else run.initial_symbols
    assert first == run.initial_symbols == len(tiktoken.Encoding(
        name="o", pat_str=GPT2_PATTERN, mergeable_ranks=SMALL, special_tokens={}).encode_ordinary(corpus))


@FEW
@given(corpora, corpora, st.integers(0, 12))
def test_every_step_of_an_extended_rank_table_encodes_as_tiktoken(corpus: str, other: str, n: int) -> None:
    _check_every_step(corpus, other, n)


def test_a_native_original_is_replayed_as_its_extension_encodes(tmp_path) -> None:
    model, records = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, TrainConfig(merges=6))
    path = str(tmp_path / "t.json")
    save(path, model, records)
    ext = start(load(path), path, "lowest newer wider " * 4, TrainConfig(merges=5))
    run = ext.timeline()
    assert run.rule == "merge-list" and run.start == 6
    replay = Tokenizer(run.model)
    for k in range(len(ext.records) + 1):
        truncated = Tokenizer(ext.model().truncated(run.start + k))
        for text in ("lowest newer wider", "widest lower"):
            assert replay.encode(text, upto=run.start + k) == truncated.encode(text)
    assert replay.encode("lowest newer") == ext.tokenizer().encode("lowest newer")


Encode = Callable[[str, int], list[int]]  # the oracle's ids of a piece at step k
Count = Callable[[Counter[tuple[int, int]], MergeRecord], int]  # what the trainer ranked a merge by


def _check(corpus: str, run: ExtensionRun, encode: Encode, count: Count | None, rewrites: Rewrites | None = None
           ) -> None:
    """*rewrites* of *corpus* (default: the run's own) against the oracle at every step; *count*: the records'."""
    pattern = Pretokenizer.from_spec(run.model.pretokenizer).pattern  # (gpt2's, or whitespace for the native file)
    rw = rewrites if rewrites is not None else run.rewrites
    assert pattern is not None and rw is not None
    pieces = Counter(regex.findall(pattern, corpus))
    n_new, start = len(run.records), run.start
    h = RewriteHistory.of(rw, run.model, start)
    sizes = [run.model.vocab_size_at(start + k) for k in range(n_new + 1)]
    curve = finish(RewrittenCurves(rw, TextTotals.of_text(corpus), sizes, 2.0).computing(chunk=1))
    assert h.n_merges == n_new and h.vocab_sizes() == sizes and len(curve) == n_new + 1
    for k in range(n_new + 1):
        pairs: Counter[tuple[int, int]] = Counter()
        tokens: Counter[int] = Counter()
        for p, c in pieces.items():
            ids = encode(p, k)
            for a in itertools.pairwise(ids):
                pairs[a] += c
            for i in ids:
                tokens[i] += c
        assert h.pair_counts(k) == dict(pairs), k
        z = h.zipf(k)
        assert dict(zip(z.pairs, z.counts, strict=True)) == dict(pairs)
        n_tokens = sum(tokens.values())
        assert h.compression().symbols[k] == n_tokens
        t = h.tradeoff()
        assert t.tokens_per_word[k] == n_tokens / sum(pieces.values())
        assert t.bytes_per_token[k] == sum(len(p.encode()) * c for p, c in pieces.items()) / n_tokens
        want = measure(tokens, TextTotals.of_text(corpus), sizes[k], 2.0)
        got = curve.at(k)
        assert (got.tokens, got.used) == (want.tokens, want.used)
        assert tuple(got) == pytest.approx(tuple(want), rel=1e-12, nan_ok=True)
        if k < n_new and count is not None:
            assert run.records[k].count == count(pairs, run.records[k]), k


@FEW
@given(corpora, corpora, st.integers(0, 10))
def test_an_extended_rank_table_at_every_step_counts_as_tiktoken(corpus: str, other: str, n: int) -> None:
    ext = prepare(Loaded("tiktoken", RankTokenizer(SMALL, "gpt2", {})), "small", corpus,
                  TrainConfig(mode="bytes", merges=n), history=True)
    ext.trainer.run()
    run = ext.timeline()
    ranks = ext.ranks()
    assert GPT2_PATTERN is not None and run.start == len(SMALL) - 256
    encs = [tiktoken.Encoding(name=f"s{k}", pat_str=GPT2_PATTERN, special_tokens={},
                              mergeable_ranks={b: r for b, r in ranks.items() if r < len(SMALL) + k})
            for k in range(len(ext.records) + 1)]  # (no specials: ranks and model ids coincide)
    tok = run.model.tokens

    def by_bytes(pairs: Counter[tuple[int, int]], rec: MergeRecord) -> int:  # every split of the new token's bytes
        return sum(c for (a, b), c in pairs.items() if tok[a] + tok[b] == tok[rec.token_id])  # type: ignore[operator]

    _check(corpus, run, lambda p, k: encs[k].encode_ordinary(p), by_bytes)
    again = rewrites_again(Loaded("tiktoken", RankTokenizer(SMALL, "gpt2", {})), "small", corpus, run.model,
                           run.start, TrainConfig(mode="bytes"))  # (a reopened session: the merges replayed)
    assert again == run.rewrites
    held = rewrites_again(Loaded("tiktoken", RankTokenizer(SMALL, "gpt2", {})), "small", other, run.model,
                          run.start, TrainConfig(mode="bytes"), strict=False)  # (any text: a held-out one)
    _check(other, run, lambda p, k: encs[k].encode_ordinary(p), None, held)


def test_a_merge_list_original_at_every_step_counts_as_its_replay(tmp_path) -> None:
    model, records = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, TrainConfig(merges=6))
    path = str(tmp_path / "t.json")
    save(path, model, records)
    corpus = "lowest newer wider lowest\nwidest lower newer " * 3
    ext = prepare(load(path), path, corpus, TrainConfig(merges=5), history=True)
    ext.trainer.run()
    run = ext.timeline()
    assert run.rule == "merge-list" and run.start == 6 and len(ext.records) == 5
    replays = [Tokenizer(ext.model().truncated(6 + k)) for k in range(6)]
    _check(corpus, run, lambda p, k: replays[k].encode_piece(p),
           lambda pairs, rec: pairs[(rec.left_id, rec.right_id)])
    assert rewrites_again(load(path), path, corpus, run.model, 6, TrainConfig()) == run.rewrites
    with pytest.raises(CorpusError, match="not the corpus the extension was learned on"):
        rewrites_again(load(path), path, "newer newer", run.model, 6, TrainConfig())
    held = "newer newer lowest\nwider"
    _check(held, run, lambda p, k: replays[k].encode_piece(p), None,
           rewrites_again(load(path), path, held, run.model, 6, TrainConfig(), strict=False))
