"""The compiled kernel against the pure-Python trainer (and the textbook trainer where it applies): identical
records (every field, contenders included), identical state after every operation (pair counts, words,
index work, forbidden pairs, stop reasons), for every tie rule the kernel has, both modes, forbids, minimum
frequency, limits, training further and replaying; and the switch that decides which path runs."""

from __future__ import annotations

import os
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig, Trainer, count_text
from bpe_desktop.core.errors import ConfigError, CorpusError
from bpe_desktop.core.training import kernel_trainer
from bpe_desktop.core.training.branch import BranchPoint, start_branch
from bpe_desktop.core.training.kernel_trainer import PURE_ENV, KernelTrainer, kernel_built, path_name, uses_kernel
from bpe_desktop.core.training.naive import naive_train
from support import SEED_000, SEED_001, SHARED

pytestmark = pytest.mark.skipif(not kernel_built(), reason="the compiled kernel is not built "
                                "(python setup.py build_ext --inplace)")

RULES = ("hf", "lexical", "subword-nmt")
PATTERNS = [None, "ab", "^a", "é", "a.*a", "🙂", r"\d", "b</w>$", "^.$"]
# Small alphabets make ties and overlaps common; long runs with no spaces ("aaaa...", "abab...") are the
# words where listing a word once per occurrence went quadratic.
short = st.text(alphabet="abcé🙂1", min_size=1, max_size=9)
long = st.builds(lambda unit, n, tail: unit * n + tail, st.sampled_from(["a", "ab", "aab", "é🙂", "abc"]),
                 st.integers(5, 60), st.text(alphabet="abc", max_size=5))
tables = st.dictionaries(st.one_of(short, short, long), st.integers(1, 6), min_size=1, max_size=12)
configs = st.builds(
    TrainConfig, mode=st.sampled_from(["chars", "bytes"]), tie_break=st.sampled_from(RULES),
    glue_marker=st.booleans(), end_of_word=st.sampled_from(["</w>", "", "_"]), min_frequency=st.integers(1, 3),
    forbid_regex=st.sampled_from(PATTERNS),
)


def state(t: Trainer) -> dict[str, object]:
    """Everything a caller can read from a trainer."""
    return {
        "pair_counts": t.pair_counts, "words": t.words, "wcounts": list(t.wcounts), "segmentation": t.segmentation(),
        "forbidden": t.forbidden_pairs, "visits": t.word_visits, "stop": (t.stop_reason, t.stopped_by),
        "symbols": (t.initial_symbols, t.total_symbols), "vocab": t.vocab_size, "n": t.n_merges,
        "tokens": list(t.tokens), "texts": list(t.texts), "merges": list(t.model.merges),
    }


def both(table: dict[str, int], cfg: TrainConfig) -> tuple[Trainer, Trainer]:
    pure, kernel = Trainer(table, cfg, pure=True), Trainer(table, cfg, pure=False)
    assert type(pure) is Trainer and type(kernel) is KernelTrainer
    assert state(pure) == state(kernel)
    return pure, kernel


def _forbid_some(table: dict[str, int], cfg: TrainConfig, picks: list[int]) -> TrainConfig:
    """*cfg* forbidding some of the pairs an unforbidden run merges (so the forbids matter)."""
    made = [(r.left, r.right) for r in Trainer(table, cfg.with_(merges=12, forbid_regex=None), pure=True).run()]
    return cfg.with_(forbid=tuple(made[i] for i in sorted(set(picks)) if i < len(made)))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables, cfg=configs, picks=st.lists(st.integers(0, 11), max_size=3), n=st.integers(0, 40))
def test_kernel_records_and_state_equal_the_pure_trainer_and_the_textbook(table, cfg, picks, n) -> None:
    cfg = _forbid_some(table, cfg, picks).with_(merges=n)
    pure, kernel = both(table, cfg)
    want = pure.run()
    assert kernel.run() == want
    assert state(kernel) == state(pure)
    assert [(kernel.model.tokens[a], kernel.model.tokens[b]) for a, b in kernel.model.merges] == naive_train(table, cfg)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables, cfg=configs, first=st.integers(0, 15), more=st.integers(0, 15),
       vocab=st.one_of(st.none(), st.integers(1, 60)))
def test_training_further_and_vocab_limits_stay_identical(table, cfg, first, more, vocab) -> None:
    """Step by step with a stop between (the window's pause and "train further"), then a vocabulary target."""
    pure, kernel = both(table, cfg.with_(merges=first))
    for t in (pure, kernel):
        t.recs = [r for r in iter(t.step, None)]  # type: ignore[attr-defined]
    assert kernel.recs == pure.recs and state(kernel) == state(pure)  # type: ignore[attr-defined]
    for t in (pure, kernel):
        t.set_limits(merges=t.n_merges + more)
        t.recs = t.run()  # type: ignore[attr-defined]
        t.step()  # past the limit: no merge, a stop reason
        t.set_limits(merges=None, vocab_size=vocab)
        t.recs += t.run()  # type: ignore[attr-defined]
    assert kernel.recs == pure.recs and state(kernel) == state(pure)  # type: ignore[attr-defined]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables, cfg=configs, k=st.integers(0, 12), rule=st.sampled_from(RULES),
       picks=st.lists(st.integers(0, 11), max_size=3))
def test_replay_then_branch_settings_stay_identical(table, cfg, k, rule, picks) -> None:
    """Replay the first k merges of a run (branching), then train on under another rule and other forbids."""
    source = Trainer(table, cfg.with_(merges=k), pure=True).run()
    after = _forbid_some(table, cfg.with_(tie_break=rule), picks).with_(merges=k + 10)
    pure, kernel = both(table, after)
    pairs = [(r.left, r.right) for r in source]
    assert kernel.replay(pairs) == pure.replay(pairs)
    assert state(kernel) == state(pure)
    assert kernel.run() == pure.run() and state(kernel) == state(pure)
    if pairs:  # a pair that no longer occurs is refused by both, with the same message
        with pytest.raises(CorpusError) as a:
            pure.replay(pairs[:1])
        with pytest.raises(CorpusError) as b:
            kernel.replay(pairs[:1])
        assert str(a.value) == str(b.value) and state(kernel) == state(pure)


@contextmanager
def env(name: str, value: str | None):
    old = os.environ.get(name)
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


def test_start_branch_on_either_path_gives_the_same_branch() -> None:
    cfg = TrainConfig(merges=6, tie_break="lexical")
    model = Trainer(SEED_001, cfg, pure=True)
    recs = model.run()
    point = BranchPoint.from_model(model.model, 3, recs)
    after = TrainConfig(merges=9, tie_break="hf", forbid=(("l", "o"),))
    with env(PURE_ENV, "1"):
        pure = start_branch(SEED_001, after, point)
    with env(PURE_ENV, None):
        kernel = start_branch(SEED_001, after, point)
    assert type(pure.trainer) is Trainer and type(kernel.trainer) is KernelTrainer
    assert kernel.records == pure.records
    assert kernel.trainer.run() == pure.trainer.run() and state(kernel.trainer) == state(pure.trainer)


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("seed", [SEED_000, SEED_001])
def test_seeds_give_identical_records(seed, rule) -> None:
    pure, kernel = both(seed, TrainConfig(tie_break=rule))
    assert kernel.run() == pure.run() and state(kernel) == state(pure)


@pytest.mark.parametrize("rule", RULES)
def test_running_text_in_bytes_with_the_gpt2_pattern(rule) -> None:
    """A slice of the King James Bible, bytes + GPT-2 pattern: the benchmark's setting, identical records."""
    text = (SHARED / "corpora" / "kjv.txt").read_text(encoding="utf-8")[:60_000]
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break=rule, merges=300)
    counts = count_text(text, cfg)
    pure, kernel = both(counts.counts, cfg)
    assert kernel.run() == pure.run() and state(kernel) == state(pure)


@pytest.mark.parametrize("rule", RULES)
def test_pieces_with_escaped_bytes_map_like_the_pure_path(rule) -> None:
    """Lone surrogates (bytes a file's decoding escaped) stand for those bytes in bytes mode on both paths."""
    table = {"a\udcffb": 2, "\udc80\udc80\udc80": 3, "ab": 1, "é\udcffé": 2, "": 4, "zero": 0}
    pure, kernel = both(table, TrainConfig(mode="bytes", tie_break=rule))
    assert [b"".join(kernel.tokens[i] for i in w) for w in kernel.words] == [  # type: ignore[misc]
        b"a\xffb", b"\x80\x80\x80", b"ab", "é".encode() + b"\xff" + "é".encode()]
    assert kernel.run() == pure.run() and state(kernel) == state(pure)


def test_a_long_word_costs_the_same_index_work_on_both_paths() -> None:
    word = "ACGT" * 5_000 + "AC" * 3_000
    cfg = TrainConfig(mode="chars", end_of_word="", merges=25)
    pure, kernel = both({word: 2, word[:99]: 3}, cfg)
    assert kernel.run() == pure.run()
    assert kernel.word_visits == pure.word_visits <= 25 * 26


def test_the_one_switch_decides_which_path_runs() -> None:
    hf, first_seen = TrainConfig(), TrainConfig(tie_break="first-seen")
    assert type(Trainer(SEED_000, hf)) is KernelTrainer and path_name(hf) == "compiled kernel"
    assert type(Trainer(SEED_000, first_seen)) is Trainer  # the first-seen rule has no kernel
    assert "first-seen" in path_name(first_seen)
    with pytest.raises(ConfigError, match="first-seen tie rule has no kernel"):
        Trainer(SEED_000, first_seen, pure=False)
    with env(PURE_ENV, "1"):
        assert not uses_kernel(hf) and type(Trainer(SEED_000, hf)) is Trainer
        assert type(Trainer(SEED_000, hf, pure=False)) is KernelTrainer  # an explicit choice wins
    with env(PURE_ENV, "0"):
        assert uses_kernel(hf)
    assert kernel_trainer.pure_python_note() is None


def test_release_empties_the_table_on_the_kernel_too() -> None:
    table = count_text("low low lower", TrainConfig())
    t = Trainer(table, TrainConfig(merges=3), release=True)
    assert table.counts == {} and type(t) is KernelTrainer
    assert [(r.left, r.right, r.count) for r in t.run()] == [("l", "o", 3), ("lo", "w", 3), ("low", "</w>", 2)]


def test_the_kernel_refuses_bad_input_instead_of_crashing() -> None:
    from bpe_desktop.core.training import _kernel

    with pytest.raises(ValueError):
        _kernel.Kernel(7, ["a"])
    with pytest.raises(TypeError):
        _kernel.Kernel(0, [1])  # type: ignore[list-item]
    k = _kernel.Kernel(0, ["a", "b"])
    with pytest.raises(ValueError, match="unknown token id"):
        k.add_words(["\x05"], [1])
    with pytest.raises(ValueError, match="differ in length"):
        k.add_words(["a"], [])
    with pytest.raises(RuntimeError, match="before build"):
        k.step(1, None)
    assert k.add_words(["\x00\x01\x00\x01", "\x00"], [2, 9]) == 17
    k.build()
    with pytest.raises(RuntimeError, match="after build"):
        k.add_words(["\x00"], [1])
    with pytest.raises(ValueError, match="out of range"):
        k.merge(0, 1, 9, "ab")
    assert k.step(1, None) == (0, 1, 4, [(1, 0, 2)])
    assert k.merge(0, 1, 2, "ab") == (4, 1)
    assert k.words() == [[2, 2], [0]] and k.pair_counts() == {(1, 0): 0, (2, 2): 2}
    with pytest.raises(ZeroDivisionError):
        k.step(1, lambda a, b: 1 / 0)  # the forbid rule's error reaches the caller
