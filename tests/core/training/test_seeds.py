"""The seeds' worked examples, exactly (../shared/seeds/000, 001, 002)."""

from __future__ import annotations

from bpe_desktop.core import TrainConfig, Trainer, train
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer
from support import SEED_000, SEED_001


def test_seed_000_seven_merges_counts_and_symbols() -> None:
    recs = Trainer(SEED_000, TrainConfig(merges=7, tie_break="lexical")).run()
    assert [(r.left, r.right, r.count) for r in recs] == [
        ("e", "s", 9), ("es", "t", 9), ("est", "</w>", 9), ("l", "o", 7), ("lo", "w", 7),
        ("e", "w", 6), ("ew", "est</w>", 6),
    ]
    assert recs[0].symbols_before == 95
    assert [r.symbols_after for r in recs] == [86, 77, 68, 61, 54, 48, 42]
    # the seed's identity: total symbols fall by exactly the occurrences merged
    assert all(r.symbols_before - r.symbols_after == r.merged for r in recs)
    # round 1: three pairs tie at 9 and the alphabetically first wins
    assert recs[0].ties == (("s", "t"), ("t", "</w>"))


def test_seed_000_encodes_lowest_as_low_est() -> None:
    model, _ = train(SEED_000, TrainConfig(merges=7))
    tok = Tokenizer(model)
    assert [tok.token_str(i) for i in tok.encode("lowest")] == ["low", "est</w>"]
    # the table's "newest becomes" column at each round
    expected = ["n e w es t </w>", "n e w est </w>", "n e w est</w>", "n e w est</w>", "n e w est</w>",
                "n ew est</w>", "n ewest</w>"]
    for k, want in enumerate(expected, 1):
        assert " ".join(tok.token_str(i) for i in tok.encode("newest", upto=k)) == want


def test_seed_001_first_seen_twelve_rules() -> None:
    recs = Trainer(SEED_001, TrainConfig(merges=12, tie_break="first-seen")).run()
    assert [f"{r.left}+{r.right}" for r in recs] == [
        "w+</w>", "l+o", "n+e", "w+e", "lo+w</w>", "ne+w</w>", "lo+we", "r+</w>", "s+t", "st+</w>",
        "ne+we", "lowe+r</w>",
    ]
    assert recs[0].count == 8


def test_seed_002_three_merges_and_lowest() -> None:
    cfg = TrainConfig(merges=3, tie_break="first-seen", end_of_word="_")
    model, recs = train(SEED_000, cfg)
    assert [(r.left, r.right, r.count) for r in recs] == [("e", "s", 9), ("es", "t", 9), ("est", "_", 9)]
    tok = Tokenizer(model)
    assert [tok.token_str(i) for i in tok.encode("lowest")] == ["l", "o", "w", "est_"]
