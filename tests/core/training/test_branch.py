"""Branch at step k: replaying the first k merges and continuing equals a fresh run under the new settings
(every tie rule, both modes, forbids), the textbook trainer with a forced start agrees, the first k records
are the source's, and settings or corpora that cannot branch are refused with a clear message."""

from __future__ import annotations

import multiprocessing
import pickle

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig, Trainer, train
from bpe_desktop.core.errors import ConfigError, CorpusError
from bpe_desktop.core.formats import native
from bpe_desktop.core.tokenizers.model import token_text
from bpe_desktop.core.training.branch import (
    RESTART_SETTINGS,
    BranchPoint,
    SettingChange,
    needs_restart,
    records_from_stats,
    start_branch,
)
from bpe_desktop.core.training.naive import naive_train
from support import ROOT, SEED_000, SEED_001

RULES = ("lexical", "first-seen", "hf")
words = st.text(alphabet="abcé🙂1", min_size=2, max_size=9)
tables = st.dictionaries(words, st.integers(1, 6), min_size=2, max_size=12)
PATTERNS = [None, "ab", "^a", "é", "🙂", r"\d", "^.$"]


def _texts(model):
    return [tuple(token_text(t) for t in (model.tokens[a], model.tokens[b])) for a, b in model.merges]


def _tokens(model):
    return [(model.tokens[a], model.tokens[b]) for a, b in model.merges]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables, rule=st.sampled_from(RULES), mode=st.sampled_from(["chars", "bytes"]), glue=st.booleans(),
       n=st.integers(2, 24), data=st.data())
def test_branch_and_forbid_equals_a_fresh_run_forbidding_the_same_pairs(table, rule, mode, glue, n, data) -> None:
    """The issue's property: train, branch at k forbidding some of the later merges; a fresh run with the
    same forbids makes the same first k merges (none of them is forbidden) and then exactly the branch's."""
    cfg = TrainConfig(mode=mode, tie_break=rule, glue_marker=glue, merges=n)
    model, recs = train(table, cfg)
    if len(recs) < 2:
        return
    k = data.draw(st.integers(1, len(recs) - 1), label="k")
    made = _texts(model)
    forbid = tuple(data.draw(st.lists(st.sampled_from(made[k:]), min_size=1, max_size=3, unique=True)))
    branched = cfg.with_(forbid=forbid)
    branch = start_branch(table, branched, BranchPoint.from_model(model, k, recs))
    later = list(branch.trainer)
    fresh = Trainer(table, branched).run()
    assert [(r.left, r.right) for r in fresh[:k]] == made[:k]
    assert fresh[k:] == later
    assert not set(forbid) & {(r.left, r.right) for r in later}
    assert [tuple(token_text(t) for t in p) for p in naive_train(table, branched)] == made[:k] + [
        (r.left, r.right) for r in later]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables, rule=st.sampled_from(RULES), rule2=st.sampled_from(RULES),
       mode=st.sampled_from(["chars", "bytes"]), glue=st.booleans(), n=st.integers(1, 24), data=st.data())
def test_branch_with_other_rules_and_patterns_equals_the_forced_textbook_run(
    table, rule, rule2, mode, glue, n, data
) -> None:
    src_cfg = TrainConfig(mode=mode, tie_break=rule, glue_marker=glue, merges=n)
    model, recs = train(table, src_cfg)
    k = data.draw(st.integers(0, len(recs)), label="k")
    made = _texts(model)
    # forbid some merges the source made after k (so the branch must differ) and, sometimes, a pattern
    after = data.draw(st.lists(st.sampled_from(made[k:]), max_size=3, unique=True), label="forbid") if made[k:] else []
    pattern = data.draw(st.sampled_from(PATTERNS), label="pattern")
    minf = data.draw(st.integers(1, 3), label="minf")
    cfg = src_cfg.with_(tie_break=rule2, merges=n + data.draw(st.integers(0, 6), label="more"),
                        min_frequency=minf, forbid=tuple(after),
                        forbid_regex=pattern)
    point = BranchPoint.from_model(model, k, recs)
    branch = start_branch(table, cfg, point)
    assert branch.records == recs[:k]  # the first k records are the source's, contenders included
    later = list(branch.trainer)
    merged = [(r.left, r.right) for r in branch.records + later]
    # the executable definition: the textbook loop forced through the first k merges, then the new rule
    assert [tuple(token_text(t) for t in p) for p in naive_train(table, cfg, start=_tokens(model)[:k])] == merged
    # a fresh run under the branch's settings: whenever its first k merges coincide with the source's, the
    # rest is the branch's, record for record (counts, runner-ups, sizes)
    fresh = Trainer(table, cfg).run()
    if [(r.left, r.right) for r in fresh[:k]] == made[:k]:
        assert fresh[k:] == later
    if rule2 == rule and pattern is None and minf == 1:  # forbids name only merges after k: the first k coincide
        assert [(r.left, r.right) for r in fresh[:k]] == made[:k]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables, rule=st.sampled_from(RULES), mode=st.sampled_from(["chars", "bytes"]), n=st.integers(0, 20),
       data=st.data())
def test_branch_with_unchanged_settings_reproduces_the_run(table, rule, mode, n, data) -> None:
    cfg = TrainConfig(mode=mode, tie_break=rule, merges=n)
    model, recs = train(table, cfg)
    k = data.draw(st.integers(0, len(recs)))
    branch = start_branch(table, cfg, BranchPoint.from_model(model, k, recs))
    assert branch.records + list(branch.trainer) == recs
    assert branch.trainer.model.merges == model.merges
    # without the source's records (a plain merge list) the replay still gives the same merges and counts
    bare = start_branch(table, cfg, BranchPoint.from_model(model, k))
    assert [(r.left, r.right, r.count, r.merged, r.symbols_after) for r in bare.records] == [
        (r.left, r.right, r.count, r.merged, r.symbols_after) for r in recs[:k]]
    assert list(bare.trainer) == recs[k:]


def test_a_forbidden_pair_among_the_first_k_merges_is_kept() -> None:
    """Seed 000: merge 4 is l+o.  Branching at 5 with l+o forbidden keeps it (it is among the first 5);
    branching at 3 does not make it (the next is o+w: l+o and o+w tied at 7)."""
    model, recs = train(SEED_000, TrainConfig(merges=7))
    cfg = TrainConfig(merges=7, forbid=(("l", "o"),))
    at5 = start_branch(SEED_000, cfg, BranchPoint.from_model(model, 5, recs))
    assert [(r.left, r.right) for r in at5.records][3] == ("l", "o")
    assert [(r.left, r.right) for r in at5.trainer] == [("e", "w"), ("ew", "est</w>")]
    at3 = start_branch(SEED_000, cfg, BranchPoint.from_model(model, 3, recs))
    assert next((r.left, r.right) for r in at3.trainer) == ("o", "w")


def test_settings_that_change_the_words_need_a_restart() -> None:
    model, recs = train(SEED_000, TrainConfig(merges=5))
    point = BranchPoint.from_model(model, 3, recs)
    changes = {
        "mode": TrainConfig(mode="bytes", pretokenizer="whitespace"),
        "pretokenizer": TrainConfig(pretokenizer="gpt2"),
        "end_of_word": TrainConfig(end_of_word="_"),
        "glue_marker": TrainConfig(glue_marker=True),
        "specials": TrainConfig(specials=("<s>",)),
    }
    assert set(changes) == set(RESTART_SETTINGS)
    for name, cfg in changes.items():
        verdict = needs_restart(point, cfg)
        assert verdict is not None and [c.name for c in verdict.changes] == [name]
        with pytest.raises(ConfigError, match=f"cannot branch at step 3: {name} .* train from step 0"):
            start_branch(SEED_000, cfg, point)
    # the same pattern under its name or written out is no change; what a branch may change is none either
    from bpe_desktop.core.text.pretokenize import WHITESPACE_PATTERN

    assert needs_restart(point, TrainConfig(pretokenizer=WHITESPACE_PATTERN)) is None
    assert needs_restart(point, TrainConfig(tie_break="hf", merges=2, min_frequency=9, forbid=(("a", "b"),),
                                            forbid_regex="x", vocab_size=40)) is None
    assert needs_restart(point, TrainConfig(mode="bytes", pretokenizer="whitespace")).changes == (
        SettingChange("mode", "chars", "bytes"),)


def test_another_corpus_is_refused() -> None:
    model, recs = train(SEED_000, TrainConfig(merges=7))
    point = BranchPoint.from_model(model, 5, recs)
    with pytest.raises(CorpusError, match="other characters"):
        start_branch({**SEED_000, "box": 1}, TrainConfig(), point)
    with pytest.raises(CorpusError, match="symbols"):  # same letters, other counts: the size differs
        start_branch({**SEED_000, "low": 6}, TrainConfig(), point)
    # same letters and size (widest 3 = 21 symbols = wid 3 + tt 3), but e+s is now only in newest: 6, not 9
    other = {"low": 5, "lower": 2, "newest": 6, "wid": 3, "tt": 3}
    with pytest.raises(CorpusError, match=r"merge 1 \(e s\) has count 6 on this corpus, 9 in the source run"):
        start_branch(other, TrainConfig(), point)
    # without records the replay still refuses a merge that does not occur
    with pytest.raises(CorpusError, match=r"merge 1 \(e s\) does not occur"):
        start_branch({"low": 5, "lower": 2, "nsewt": 1, "wid": 1}, TrainConfig(), BranchPoint.from_model(model, 5))


def test_budget_before_the_branch_step_and_steps_out_of_range_are_refused() -> None:
    model, recs = train(SEED_000, TrainConfig(merges=7))
    with pytest.raises(ConfigError, match="ends before the branch step 5"):
        start_branch(SEED_000, TrainConfig(merges=4), BranchPoint.from_model(model, 5, recs))
    with pytest.raises(ConfigError, match="vocabulary of 14 is smaller than the 16 tokens at the branch step 5"):
        start_branch(SEED_000, TrainConfig(vocab_size=14), BranchPoint.from_model(model, 5, recs))
    with pytest.raises(ConfigError, match="merges 0 to 7"):
        BranchPoint.from_model(model, 8, recs)


def test_records_survive_the_native_file() -> None:
    model, recs = train(SEED_001, TrainConfig(merges=12, tie_break="first-seen"))
    loaded, stats = native.loads(native.dumps(model, recs))
    assert records_from_stats(loaded, stats) == recs
    assert records_from_stats(loaded, stats[:-1]) == []  # not one record per merge: unknown, not guessed


def _branch_in_worker(table, config, point):
    branch = start_branch(table, config, point)
    return branch.records + list(branch.trainer)


def test_a_worker_process_can_branch_from_plain_values() -> None:
    model, recs = train(SEED_001, TrainConfig(merges=12, tie_break="first-seen"))
    point = BranchPoint.from_model(model, 6, recs)
    cfg = TrainConfig(merges=12, tie_break="lexical", forbid=(("r", "</w>"),))
    assert pickle.loads(pickle.dumps(point)) == point
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        got = pool.apply(_branch_in_worker, (SEED_001, cfg, point))
    assert got == _branch_in_worker(SEED_001, cfg, point)
    assert got[:6] == recs[:6] and ("r", "</w>") not in [(r.left, r.right) for r in got]


def test_replay_reports_progress_in_slices_and_can_be_cancelled() -> None:

    from bpe_desktop.core.counting.sources import count_files
    from bpe_desktop.core.errors import Cancelled
    from bpe_desktop.core.training.branch import REPLAY_SLICE

    cfg = TrainConfig(mode="bytes", merges=2 * REPLAY_SLICE + 40)
    sample = ROOT / "resources" / "samples" / "robotlogs_sample.txt"
    wc = count_files([sample], cfg)
    model, recs = train(wc, cfg)
    point = BranchPoint.from_model(model, len(recs), recs)
    seen: list[tuple[str, int, int]] = []
    branch = start_branch(wc, cfg, point, progress=lambda *a: seen.append(a))
    k = len(recs)
    assert seen == [("replaying", REPLAY_SLICE, k), ("replaying", 2 * REPLAY_SLICE, k), ("replaying", k, k)]
    assert branch.records == recs and branch.trainer.step() is None
    calls = []

    def cancel() -> bool:
        calls.append(1)
        return len(calls) > 1  # let the first slice through, then cancel

    with pytest.raises(Cancelled):
        start_branch(wc, cfg, point, cancel=cancel)
    assert len(calls) == 2
