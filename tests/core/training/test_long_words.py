"""Long words with no spaces (minified code, base64, DNA, a long log line): merging must not grow with a
pair's occurrences in one word.  The trainer's work is counted (index entries read), never timed."""

from __future__ import annotations

import random

import pytest

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.training.naive import naive_train
from bpe_desktop.core.training.trainer import Trainer


def _dna(n: int, seed: int = 5) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice("ACGT") for _ in range(n))


def _visits(word: str, merges: int) -> int:
    t = Trainer({word: 1}, TrainConfig(mode="chars", end_of_word="", merges=merges))
    t.run()
    return t.word_visits


@pytest.mark.parametrize("merges", [5, 20])
def test_index_work_does_not_grow_with_the_word(merges: int) -> None:
    short, long = _visits(_dna(2_000), merges), _visits(_dna(200_000), merges)
    # One word: each merge reads at most one entry per earlier merge that gained the pair in it.
    assert long <= merges * (merges + 1) // 2
    assert long == short  # 100 times the occurrences, the same index work


def test_many_words_are_each_read_once_per_merge_that_holds_the_pair() -> None:
    words = {_dna(300, seed=s): 1 + s % 3 for s in range(50)}
    t = Trainer(words, TrainConfig(mode="chars", end_of_word="", merges=10))
    recs = t.run()
    assert t.word_visits <= sum(r.words_touched for r in recs) * 10
    assert sum(r.words_touched for r in recs) <= t.word_visits


@pytest.mark.parametrize("tie", ["hf", "first-seen", "lexical"])
def test_long_word_merges_equal_the_naive_definition(tie: str) -> None:
    word = _dna(3_000) + "ACACACACAC" * 50 + _dna(1_000, seed=9)
    cfg = TrainConfig(mode="chars", end_of_word="", merges=30, tie_break=tie)
    t = Trainer({word: 2, word[:500]: 3}, cfg)
    t.run()
    assert [(t.model.tokens[a], t.model.tokens[b]) for a, b in t.model.merges] == naive_train(
        {word: 2, word[:500]: 3}, cfg
    )
