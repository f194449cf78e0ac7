"""Forbidden pairs and the forbid pattern: the fast trainer against the textbook definition, the records'
runner-ups, the live counts of skipped pairs, the per-pair cache, and the user-facing syntax and errors."""

from __future__ import annotations

import itertools

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig, Trainer, count_text, train
from bpe_desktop.core.errors import ConfigError, PatternError
from bpe_desktop.core.forbid import ForbidRule, format_pair, parse_pair
from bpe_desktop.core.records import CONTENDERS, explain
from bpe_desktop.core.tokenizers.model import token_text
from bpe_desktop.core.training.naive import forbidden, naive_train
from support import SEED_000

RULES = ("lexical", "first-seen", "hf")
words = st.text(alphabet="abcé🙂1 ", min_size=1, max_size=9)
tables = st.dictionaries(words.filter(lambda w: w.strip() == w and " " not in w), st.integers(1, 6),
                         min_size=1, max_size=12)
PATTERNS = [None, "ab", "^a", "é", "a.*a", "🙂", r"\d", "b</w>$", "^.$"]


def _pairs(model):
    return [(model.tokens[a], model.tokens[b]) for a, b in model.merges]


def _some_pairs(table, cfg, picks):
    """Pairs to forbid: some of what an unforbidden run merges (so forbidding them matters) by index."""
    model, _ = train(table, cfg.with_(merges=12))
    made = [tuple(token_text(t) for t in p) for p in _pairs(model)]
    return tuple(made[i] for i in sorted(set(picks)) if i < len(made))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables, rule=st.sampled_from(RULES), mode=st.sampled_from(["chars", "bytes"]), glue=st.booleans(),
       picks=st.lists(st.integers(0, 11), max_size=4), pattern=st.sampled_from(PATTERNS), n=st.integers(0, 25),
       minf=st.integers(1, 3))
def test_forbidding_trainer_equals_textbook_trainer(table, rule, mode, glue, picks, pattern, n, minf) -> None:
    base = TrainConfig(mode=mode, tie_break=rule, glue_marker=glue, min_frequency=minf)
    cfg = base.with_(merges=n, forbid=_some_pairs(table, base, picks), forbid_regex=pattern)
    model, _ = train(table, cfg)
    expected = naive_train(table, cfg)
    assert _pairs(model) == expected
    assert not any(forbidden(p, cfg) for p in expected)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables, rule=st.sampled_from(RULES), mode=st.sampled_from(["chars", "bytes"]),
       picks=st.lists(st.integers(0, 11), max_size=4), pattern=st.sampled_from(PATTERNS), n=st.integers(1, 20))
def test_records_name_the_best_allowed_pairs_and_skipped_counts_stay_live(table, rule, mode, picks, pattern,
                                                                          n) -> None:
    """Before every step, recount every pair from the words: the trainer's counts (forbidden pairs included)
    equal the recount; the winner and the CONTENDERS runner-ups are the best *allowed* pairs in the rule's
    order (first-seen: the winner is the first-occurring of the tied best); no forbidden pair is listed."""
    base = TrainConfig(mode=mode, tie_break=rule)
    cfg = base.with_(merges=n, forbid=_some_pairs(table, base, picks), forbid_regex=pattern)
    t = Trainer(table, cfg)
    rule_obj = ForbidRule.from_settings(cfg.forbid, cfg.forbid_regex)
    while True:
        recount: dict[tuple[int, int], int] = {}
        for w, c in zip(t.words, t.wcounts, strict=True):
            for p in itertools.pairwise(w):
                recount[p] = recount.get(p, 0) + c
        assert {p: c for p, c in t.pair_counts.items() if c} == recount
        toks, texts = list(t.tokens), list(t.texts)

        def allowed(p, texts=texts, toks=toks):
            return rule_obj is None or not rule_obj.blocks(texts[p[0]], texts[p[1]], toks[p[0]] + toks[p[1]])

        live = {p: c for p, c in recount.items() if allowed(p)}
        rec = t.step()
        if rec is None:
            assert not live or t.n_merges == n or max(live.values()) < cfg.min_frequency
            break
        if rule == "lexical":
            order = sorted(live, key=lambda p: (-live[p], toks[p[0]], toks[p[1]]))
        elif rule == "hf":
            order = sorted(live, key=lambda p: (-live[p], p))
        else:
            order = None
        win = (rec.left_id, rec.right_id)
        assert win in live and live[win] == max(live.values()) == rec.count
        if order is not None:
            assert win == order[0]
            assert list(rec.contenders) == [(texts[a], texts[b], live[(a, b)]) for a, b in order[1 : 1 + CONTENDERS]]
        for a, b, c in rec.contenders:
            assert rule_obj is None or (a, b) not in rule_obj.pairs
            assert c <= rec.count


def test_seed_000_forbidding_e_s() -> None:
    """Seed 000, round 1: e+s, s+t and t+</w> tie at 9 and lexical order takes e+s.  Forbid it and the next
    in that order, s+t, wins; the explanation lists only the pairs still allowed.  Round 2: the words are
    n e w e st </w> and w i d e st </w>, so e+st and st+</w> tie at 9 and e+st (e < st) wins."""
    t = Trainer(SEED_000, TrainConfig(merges=3, forbid=(("e", "s"),)))
    recs = t.run()
    assert [(r.left, r.right, r.count) for r in recs] == [("s", "t", 9), ("e", "st", 9), ("est", "</w>", 9)]
    assert explain(recs[0], "lexical") == "s+t and t+</w> tie at 9; the lexical rule takes s+t."
    assert all(("e", "s") != (a, b) for r in recs for a, b, _ in r.contenders)
    # e s occurred only in newest and widest, as e s t: merging s+t took it away, so nothing is left to skip
    assert t.forbidden_pairs == []
    t2 = Trainer(SEED_000, TrainConfig(merges=1, forbid=(("l", "o"),)))
    t2.run()
    assert t2.forbidden_pairs == [("l", "o", 7)]  # low 5 + lower 2, untouched by merge 1 (e+s)


def test_only_forbidden_pairs_left_stops_and_says_so() -> None:
    t = Trainer({"ab": 3}, TrainConfig(end_of_word="", forbid=(("a", "b"),)))
    assert t.run() == []
    assert t.stop_reason == "no pair left to merge but 1 forbidden"


def test_digits_across_a_space_are_never_merged_in_bytes_mode() -> None:
    text = "call 1 2 3 at 12 34 and 1 2 again\n" * 20
    cfg = TrainConfig(mode="bytes", pretokenizer="none", merges=60, forbid_regex=r"\d\s+\d")
    counts = count_text(text, cfg).counts
    t = Trainer(counts, cfg)
    t.run()
    made = [tok.decode("utf-8", "replace") for tok in t.model.tokens[256:]]
    assert not any(regex.search(r"\d\s+\d", m) for m in made)
    assert " 1" in made and "call 1" in made  # a digit beside a space is still merged
    # the line is left as pieces that may not join, each such neighbour pair still counted (20 lines)
    assert t.stop_reason == "no pair left to merge but 4 forbidden"
    assert {c for _, _, c in t.forbidden_pairs} == {20}
    free, _ = train(counts, cfg.with_(forbid_regex=None))
    assert any("1 2" in tok.decode("utf-8", "replace") for tok in free.tokens[256:])  # the rule changed things
    assert _pairs(t.model) == naive_train(counts, cfg)


def test_forbid_pattern_is_asked_once_per_distinct_pair(monkeypatch) -> None:
    calls: list[tuple[str, str]] = []
    original = ForbidRule.blocks

    def counting(self, left, right, token):
        calls.append((left, right))
        return original(self, left, right, token)

    monkeypatch.setattr(ForbidRule, "blocks", counting)
    t = Trainer({"abababab": 5, "babab": 3, "aab": 2, "ab": 4}, TrainConfig(end_of_word="", forbid_regex="^ab$"))
    recs = t.run()
    assert len(calls) == len(set(calls))  # never asked twice about one pair
    assert {(r.left, r.right) for r in recs} <= set(calls)  # every winner was asked about
    assert ("a", "b") in calls and ("a", "b") not in {(r.left, r.right) for r in recs}
    # out of pairs: every pair still occurring is a forbidden one, and each was asked about (then skipped)
    live = {(t.texts[a], t.texts[b]) for (a, b), n in t.pair_counts.items() if n > 0}
    assert live == {(a, b) for a, b, _ in t.forbidden_pairs} and live <= set(calls) and live


def test_pair_syntax_round_trips_and_bad_pairs_say_the_fix() -> None:
    assert parse_pair("e s") == ("e", "s")
    assert parse_pair(r"\ the re") == (" the", "re")
    assert parse_pair(r"x\n \\y") == ("x\n", "\\y")
    for bad, msg in [("e", "not two symbols"), ("e s t", "not two symbols"), ("e  s", "not two symbols"),
                     (r"e\q s", r"unknown escape \\q"), ("e s\\", "lone"), (" s", "not two symbols")]:
        with pytest.raises(ConfigError, match=msg):
            parse_pair(bad)
    with pytest.raises(ConfigError, match="write ' t' as 'Ġt'"):
        TrainConfig(mode="bytes", forbid=((" t", "h"),))
    assert TrainConfig(mode="bytes", forbid=(("Ġt", "h"),)).forbid == (("Ġt", "h"),)


@settings(max_examples=200, deadline=None)
@given(pair=st.tuples(st.text(min_size=1, max_size=5), st.text(min_size=1, max_size=5)))
def test_format_pair_is_the_inverse_of_parse_pair(pair) -> None:
    assert parse_pair(format_pair(pair)) == pair


def test_bad_forbid_pattern_is_a_pattern_error_with_the_position() -> None:
    with pytest.raises(PatternError, match=r"missing \) at position 4 of «\(\\d\+»"):
        TrainConfig(forbid_regex=r"(\d+")
    with pytest.raises(PatternError, match="empty"):
        TrainConfig(forbid_regex="")


def test_forbid_settings_are_part_of_the_picklable_config() -> None:
    import pickle

    cfg = TrainConfig(forbid=[("a", "b")], forbid_regex="x")
    assert cfg.forbid == (("a", "b"),)
    assert pickle.loads(pickle.dumps(cfg)) == cfg
