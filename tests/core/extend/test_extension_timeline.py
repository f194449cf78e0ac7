"""The extension as the window's timeline shows it (``Extension.timeline``): one merge list in the original model's
ids, stepped through by :class:`RankRuleTokenizer` for a rank table.  At every step k (original + first k new
merges) it encodes as tiktoken does with the extended ranks cut to the original's + the first k new ones, on small
tables whose new tokens meet original ones; and for a merge-list original (a native file) replaying the merges
is the extension's own encoding at every step."""

from __future__ import annotations

import tiktoken
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.extend import start
from bpe_desktop.core.formats import Loaded, load
from bpe_desktop.core.formats.native import save
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
