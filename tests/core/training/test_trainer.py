"""The incremental trainer against the textbook trainer, the seed identities, edge cases and stop rules."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig, Trainer, count_text, train
from bpe_desktop.core.errors import ConfigError
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer
from bpe_desktop.core.training.naive import naive_train
from support import SEED_000

RULES = ("lexical", "first-seen", "hf", "subword-nmt")

# Small alphabets make ties, overlaps (aaaa) and repeated pairs common: the cases where trainers differ.
words = st.text(alphabet="abcé🙂 ", min_size=1, max_size=9)
tables = st.dictionaries(words.filter(lambda w: w.strip() == w and " " not in w), st.integers(1, 6),
                         min_size=1, max_size=12)


def _pairs(recs):
    return [(r.left, r.right) for r in recs]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables, rule=st.sampled_from(RULES), mode=st.sampled_from(["chars", "bytes"]),
       glue=st.booleans(), n=st.integers(0, 25))
def test_fast_trainer_equals_textbook_trainer(table, rule, mode, glue, n) -> None:
    cfg = TrainConfig(mode=mode, tie_break=rule, merges=n, glue_marker=glue)
    model, recs = train(table, cfg)
    expected = naive_train(table, cfg)
    assert [(model.tokens[a], model.tokens[b]) for a, b in model.merges] == expected
    # every record keeps the seed identity
    before = sum(len(w) * c for w, c in zip(Trainer(table, cfg).words, table.values(), strict=False))
    for r in recs:
        assert r.symbols_after == before - r.merged
        before = r.symbols_after
        assert r.merged <= r.count


@settings(max_examples=30, deadline=None)
@given(text=st.text(alphabet="ab c\nd", max_size=60), rule=st.sampled_from(RULES),
       pre=st.sampled_from(["gpt2", "whitespace", "none"]))
def test_fast_trainer_equals_textbook_on_running_text(text, rule, pre) -> None:
    cfg = TrainConfig(mode="bytes", pretokenizer=pre, tie_break=rule, merges=15)
    counts = count_text(text, cfg).counts
    model, _ = train(counts, cfg)
    assert [(model.tokens[a], model.tokens[b]) for a, b in model.merges] == naive_train(counts, cfg)


@settings(max_examples=40, deadline=None)
@given(table=tables, n=st.integers(0, 20), probe=st.lists(words, min_size=1, max_size=4))
def test_encode_equals_replaying_merges_in_order(table, n, probe) -> None:
    """The tokenizer at step k == the seed's definition: apply merges 1..k in order, each everywhere."""
    from bpe_desktop.core.training.naive import merge_word
    from bpe_desktop.core.training.trainer import word_symbols

    cfg = TrainConfig(merges=n)
    model, _ = train(table, cfg)
    tok = Tokenizer(model, unknown="keep")
    pairs = [(model.tokens[a], model.tokens[b]) for a, b in model.merges]
    for k in range(len(pairs) + 1):
        for w in list(table)[:3] + [p for p in probe if p.strip() == p and " " not in p]:
            if any(ch not in model.token_ids for ch in w):
                continue
            seq = tuple(word_symbols(w, cfg))
            for pair in pairs[:k]:
                seq = merge_word(seq, pair)
            assert [tok.token_str(i) for i in tok.encode_piece(w, upto=k)] == list(seq)


def test_training_leaves_words_as_the_tokenizer_encodes_them() -> None:
    t = Trainer(SEED_000, TrainConfig(merges=5))
    t.run()
    tok = Tokenizer(t.model)
    for (seg, _), word in zip(t.segmentation(), SEED_000, strict=True):
        assert [tok.token_str(i) for i in tok.encode(word)] == seg


def test_overlapping_pairs_count_overlaps_but_merge_left_to_right() -> None:
    r1, r2, r3 = Trainer({"aaaa": 1, "aaa": 2}, TrainConfig(end_of_word="")).run()
    # aaaa has 3 overlapping (a,a), aaa has 2 (x2): count 7; merged left to right: 2 + 1*2 = 4
    assert (r1.token, r1.count, r1.merged) == ("aa", 7, 4)
    assert r1.symbols_after == 10 - 4
    # now aa aa (x1) and aa a (x2): the higher count goes first
    assert [(r.left, r.right, r.count) for r in (r2, r3)] == [("aa", "a", 2), ("aa", "aa", 1)]


def test_edge_cases_empty_single_chars_emoji() -> None:
    assert Trainer({}, TrainConfig()).run() == []
    assert Trainer({"a": 3, "b": 1}, TrainConfig(end_of_word="")).run() == []  # no pairs at all
    t = Trainer({"a": 3}, TrainConfig())  # single char + marker: one pair
    assert [(r.left, r.right) for r in t.run()] == [("a", "</w>")]
    assert t.stop_reason == "no pair left to merge"
    model, recs = train({"🙂🙂": 2}, TrainConfig(mode="bytes"))
    assert recs and Tokenizer(model).decode(Tokenizer(model).encode("🙂🙂")) == "🙂🙂"
    assert len(Tokenizer(model).encode("🙂🙂")) == 1  # fully merged: 8 bytes -> 1 token


def test_stop_rules() -> None:
    table = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    t = Trainer(table, TrainConfig(min_frequency=7))
    assert [r.count for r in t.run()] == [9, 9, 9, 7, 7]
    assert "below the minimum frequency 7" in (t.stop_reason or "")
    base = Trainer(table, TrainConfig()).vocab_size
    t = Trainer(table, TrainConfig(vocab_size=base + 4))
    assert len(t.run()) == 4 and t.vocab_size == base + 4
    t = Trainer(table, TrainConfig(merges=2))
    assert len(t.run()) == 2
    t.set_limits(merges=4)  # train further from where it stopped
    assert [r.rank for r in t.run()] == [3, 4]
    assert _pairs(Trainer(table, TrainConfig(merges=4)).run())[2:] == [("est", "</w>"), ("l", "o")]


def test_bytes_mode_vocabulary_is_256_plus_merges_plus_specials() -> None:
    model, recs = train({"hello": 3, "help": 2}, TrainConfig(mode="bytes", merges=3, specials=("<|endoftext|>",)))
    assert model.vocab_size == 256 + 3 + 1
    assert recs[-1].vocab_size == 256 + 3 + 1
    assert model.special_ids == {"<|endoftext|>": 259}


def test_bad_config_messages_say_the_fix() -> None:
    with pytest.raises(ConfigError, match="use one of lexical"):
        TrainConfig(tie_break="random")
    with pytest.raises(ConfigError, match="distinct"):
        TrainConfig(specials=("<s>", "<s>"))


def test_records_explain_ties_with_runner_ups() -> None:
    from bpe_desktop.core.records import explain

    recs = Trainer(SEED_000, TrainConfig(merges=4)).run()
    assert explain(recs[0], "lexical") == "e+s, s+t and t+</w> tie at 9; the lexical rule takes e+s."
    assert explain(recs[2], "lexical").startswith("est+</w> has the highest count, 9; the runner-up is")


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables, rule=st.sampled_from(["lexical", "hf"]), mode=st.sampled_from(["chars", "bytes"]),
       n=st.integers(1, 20))
def test_winner_and_contenders_are_the_best_live_pairs_in_rule_order(table, rule, mode, n) -> None:
    """Recount from the live pair counts before every step: the record names the best pair and, as its
    runner-ups, the next CONTENDERS pairs in the rule's order (the trainer keeps them out of the heap)."""
    from bpe_desktop.core.records import CONTENDERS

    t = Trainer(table, TrainConfig(mode=mode, tie_break=rule, merges=n))
    while True:
        live = {p: c for p, c in t.pair_counts.items() if c > 0}
        toks = list(t.tokens)
        rec = t.step()
        if rec is None:
            assert not live or t.n_merges == n
            break
        if rule == "lexical":
            order = sorted(live, key=lambda p: (-live[p], toks[p[0]], toks[p[1]]))
        else:
            order = sorted(live, key=lambda p: (-live[p], p))
        assert (rec.left_id, rec.right_id) == order[0]
        assert list(rec.contenders) == [(t.texts[a], t.texts[b], live[(a, b)]) for a, b in order[1 : 1 + CONTENDERS]]


def test_the_stop_sentence_writes_counts_as_every_pane_does(topics_text: str) -> None:
    """The status line shows it beside "8,000"-style counts: thousands are separated there too."""
    words = {w: 1 for w in topics_text.split()[:20_000]}
    by_merges = Trainer(words, TrainConfig(merges=1_200))
    by_merges.run()
    assert by_merges.stop_reason == "reached 1,200 merges"
    by_vocab = Trainer(words, TrainConfig(vocab_size=1_500))
    by_vocab.run()
    assert by_vocab.stop_reason == "reached vocabulary size 1,500"
