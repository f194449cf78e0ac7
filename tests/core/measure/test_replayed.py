"""Zipf data from the compiled trainer replayed over the word counts (ReplayedCounts): the same as the pure
history's at every step asked, in any order (the oracle: SegmentationHistory.zipf, itself checked against a
recount from scratch in test_stats.py), in every mode the kernel trains; and what it refuses or fails on."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig
from bpe_desktop.core.errors import CorpusError
from bpe_desktop.core.measure.stats import SegmentationHistory, finish
from bpe_desktop.core.measure.stats.replayed import ReplayedCounts, kernel_config
from bpe_desktop.core.tokenizers.model import BPEModel
from bpe_desktop.core.training.kernel_trainer import kernel_built
from bpe_desktop.core.training.trainer import Trainer
from support import gpt2_bytes_run

pytestmark = pytest.mark.skipif(not kernel_built(), reason="the compiled kernel is not built")

CONFIGS = {
    "chars, marker a symbol": dict(mode="chars"),
    "chars, marker glued": dict(mode="chars", glue_marker=True),
    "chars, no marker": dict(mode="chars", end_of_word=""),
    "chars, specials": dict(mode="chars", specials=("<s>", "</s>")),
    "bytes, gpt2 ids": dict(mode="bytes"),
    "bytes, raw ids": dict(mode="bytes", byte_ids="raw"),
}
words = st.text(alphabet="abcé d", min_size=1, max_size=8)


def trained(corpus: dict[str, int], cfg: TrainConfig) -> BPEModel:
    t = Trainer(dict(corpus), cfg, pure=True)
    t.run()
    return t.model


def following(counts: dict[str, int], model: BPEModel) -> ReplayedCounts:
    """A ReplayedCounts built over *counts* and following *model*'s whole merge list."""
    grown = model.truncated(0)
    r = ReplayedCounts(counts, grown)
    assert finish(r.building()) is True
    grown.extend_merges(model.merges)
    finish(r.extending())
    assert r.n_merges == len(model.merges) and r.pending == 0
    return r


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    corpus=st.dictionaries(words, st.integers(1, 6), min_size=1, max_size=14),
    setting=st.sampled_from(sorted(CONFIGS)),
    tie=st.sampled_from(["hf", "lexical", "subword-nmt"]),
    data=st.data(),
)
def test_every_step_asked_in_any_order_is_the_history_s(corpus, setting, tie, data) -> None:
    cfg = TrainConfig(tie_break=tie, merges=12, **CONFIGS[setting])
    model = trained(corpus, cfg)
    oracle = SegmentationHistory(corpus, model)
    r = following(corpus, model)
    last = len(model.merges)
    steps = [last, 0, *data.draw(st.lists(st.integers(0, last), max_size=5)), last, last // 2, 0]
    for k in steps:
        assert finish(r.zipf_steps(k, chunk=2)) == oracle.zipf(k), (k, steps)
    assert (r.n_words, r.n_bytes) == (oracle.n_words, oracle.n_bytes)


def test_a_growing_merge_list_is_followed_and_asked_as_it_grows(topics_text) -> None:
    counts, t = gpt2_bytes_run(topics_text[:30_000], 60)
    oracle = SegmentationHistory(counts, t.model)
    grown = t.model.truncated(0)
    r = ReplayedCounts(counts, grown)
    assert finish(r.building()) and r.built == len(counts)
    for end in (10, 25, 60):
        grown.extend_merges(t.model.merges[len(grown.merges):end])
        assert r.pending == end - r.n_merges
        finish(r.extending())
        assert finish(r.zipf_steps(end)) == oracle.zipf(end)
        assert finish(r.zipf_steps(end - 7)) == oracle.zipf(end - 7)  # (behind: a rebuild)
    assert finish(r.zipf_steps(1000)).step == 60  # (a step beyond the merges replayed: the last one)


def test_what_the_kernel_does_not_cover_is_left_to_the_history() -> None:
    corpus = {"low": 5, "lower": 2}
    first_seen = trained(corpus, TrainConfig(tie_break="first-seen", merges=2))
    assert kernel_config(first_seen) is None
    r = ReplayedCounts(corpus, first_seen.truncated(0))
    assert finish(r.building()) is False and r.trainer is None
    other_base = BPEModel("chars", [*"lowerxyz", "</w>"], tie_break="hf")  # (not the corpus's alphabet)
    r = ReplayedCounts(corpus, other_base)
    assert finish(r.building()) is False and r.trainer is None


def test_merges_of_another_run_fail_with_the_replay_s_reason() -> None:
    corpus = {"low": 5, "lower": 2, "newest": 6}
    model = trained(corpus, TrainConfig(tie_break="hf", merges=4))
    other = trained({"wonder": 3, "owner": 1, "lest": 9}, TrainConfig(tie_break="hf", merges=4))
    grown = model.truncated(0)
    r = ReplayedCounts(corpus, grown)
    assert finish(r.building())
    grown.extend_merges(other.merges)  # (ids of another alphabet: they do not occur in this corpus)
    with pytest.raises(CorpusError, match="does not occur in this corpus"):
        finish(r.extending())


def test_a_step_snapshotted_is_answered_after_the_trainer_moved_on_without_a_rebuild(topics_text) -> None:
    from bpe_desktop.core.counting.pieces import count_text

    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=40)
    counts = count_text(topics_text[:20_000], cfg).counts
    model = trained(dict(counts), cfg)
    oracle = SegmentationHistory(counts, model)
    grown = model.truncated(0)
    r = ReplayedCounts(counts, grown)
    assert finish(r.building())
    grown.extend_merges(model.merges[:15])
    finish(r.extending())
    r.snapshot()  # (what the process does as it reports step 15)
    grown.extend_merges(model.merges[15:])
    finish(r.extending())
    assert finish(r.zipf_steps(15)) == oracle.zipf(15) and r._back is None  # (from the snapshot)
    assert finish(r.zipf_steps(9)) == oracle.zipf(9) and r._back is not None  # (a second trainer, rebuilt)
    assert finish(r.zipf_steps(12)) == oracle.zipf(12) and r._back.n_merges == 12  # (that one, forward)
    assert finish(r.zipf_steps(40)) == oracle.zipf(40) and r.trainer.n_merges == 40
