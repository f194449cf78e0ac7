"""The kernel's batched path (``Trainer.run_into`` with a log numbered by the trainer's ids: many merges per
kernel call, each record written by the kernel as the log's row) against the pure-Python trainer merge by
merge: identical records (every field, contenders included) and identical state after, for every tie rule the
kernel has, both modes, forbids, minimum frequency, merge and vocabulary limits, training further, branching;
with batches of 1, 2 and 3 merges so that every stop falls inside a batch, at its end and at its start."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_kernel import RULES, _forbid_some, configs, env, state, tables

from bpe_desktop.core import TrainConfig, Trainer
from bpe_desktop.core.errors import ConfigError
from bpe_desktop.core.records import RecordLog
from bpe_desktop.core.training import kernel_trainer
from bpe_desktop.core.training.branch import BranchPoint, start_branch
from bpe_desktop.core.training.kernel_trainer import PURE_ENV, KernelTrainer, kernel_built
from support import SEED_001

pytestmark = pytest.mark.skipif(not kernel_built(), reason="the compiled kernel is not built "
                                "(python setup.py build_ext --inplace)")

limits = st.tuples(st.one_of(st.none(), st.integers(0, 30)), st.one_of(st.none(), st.integers(1, 60)))


def batched(t: Trainer, batch: int, log: RecordLog | None = None) -> tuple[RecordLog, list[int]]:
    """Train *t* to the end through run_into with batches of *batch* merges; the log and the progress seen."""
    log = RecordLog(texts=t.texts) if log is None else log
    seen: list[int] = []
    old, kernel_trainer.BATCH = kernel_trainer.BATCH, batch
    try:
        t.run_into(log, seen.append)
    finally:
        kernel_trainer.BATCH = old
    return log, seen


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables, cfg=configs, picks=st.lists(st.integers(0, 11), max_size=3), limit=limits,
       batch=st.sampled_from([1, 2, 3, 256]), specials=st.sampled_from([(), ("<s>",), ("<s>", "</s>")]))
def test_batches_give_the_pure_trainers_records_and_state(table, cfg, picks, limit, batch, specials) -> None:
    merges, vocab = limit
    cfg = _forbid_some(table, cfg, picks).with_(merges=merges, vocab_size=vocab, specials=specials)
    pure, kernel = Trainer(table, cfg, pure=True), Trainer(table, cfg, pure=False)
    assert type(kernel) is KernelTrainer
    want = pure.run()
    log, seen = batched(kernel, batch)
    assert list(log) == want and len(log) == len(want)
    assert state(kernel) == state(pure)  # stop reason, symbols, forbidden pairs, tokens, texts, merges...
    assert kernel.model.tokens == pure.model.tokens  # the model's own tables follow the merges made in C
    assert seen == sorted(seen) and (not want or seen[-1] == len(want))
    for name in ("left", "token", "count", "symbols_after", "vocab_size", "contenders"):  # what the file writes
        assert log.column(name, 0, len(log)) == [getattr(r, name) for r in want]


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables, cfg=configs, first=st.integers(0, 12), more=st.integers(0, 12),
       vocab=st.one_of(st.none(), st.integers(1, 60)), batch=st.sampled_from([1, 2, 5]))
def test_stepping_then_batches_then_a_vocabulary_target(table, cfg, first, more, vocab, batch) -> None:
    """A few merges one at a time (the window), then batches into the same log, then further with new limits."""
    pure, kernel = Trainer(table, cfg.with_(merges=first), pure=True), Trainer(table, cfg.with_(merges=first),
                                                                               pure=False)
    want = pure.run()
    log = RecordLog(texts=kernel.texts)
    for rec in iter(kernel.step, None):
        log.append(rec)  # numbered by id from the trainer's texts, as the kernel numbers them
    assert list(log) == want
    for t in (pure, kernel):
        t.set_limits(merges=t.n_merges + more)
    want += pure.run()
    batched(kernel, batch, log)
    pure.set_limits(merges=None, vocab_size=vocab)
    kernel.set_limits(merges=None, vocab_size=vocab)
    want += pure.run()
    batched(kernel, batch, log)
    assert list(log) == want and state(kernel) == state(pure)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables, cfg=configs, k=st.integers(0, 10), rule=st.sampled_from(RULES), batch=st.sampled_from([1, 3]))
def test_a_branch_continues_in_batches_as_the_pure_branch_does(table, cfg, k, rule, batch) -> None:
    source = Trainer(table, cfg.with_(merges=k), pure=True)
    recs = source.run()
    point = BranchPoint.from_model(source.model, len(recs), recs)
    after = cfg.with_(tie_break=rule, merges=len(recs) + 8)
    with env(PURE_ENV, "1"):
        pure = start_branch(table, after, point)
    with env(PURE_ENV, None):
        kernel = start_branch(table, after, point)
    assert type(kernel.trainer) is KernelTrainer
    log = RecordLog(kernel.records, texts=kernel.trainer.texts)
    batched(kernel.trainer, batch, log)
    assert list(log) == pure.records + pure.trainer.run() and state(kernel.trainer) == state(pure.trainer)


@pytest.mark.parametrize("rule", RULES)
def test_a_log_of_its_own_numbering_is_filled_merge_by_merge(rule) -> None:
    """A log not numbered by this trainer's texts gets the same records (the kernel cannot write its rows)."""
    cfg = TrainConfig(tie_break=rule, merges=9, forbid=(("l", "o"),))
    plain, log = RecordLog(), RecordLog(texts=[])
    batched(Trainer(SEED_001, cfg, pure=False), 2, plain)
    with pytest.raises(ValueError, match="not one of the trainer's tokens"):
        batched(Trainer(SEED_001, cfg, pure=False), 2, log)  # numbered by another list: refused, not guessed
    assert list(plain) == Trainer(SEED_001, cfg, pure=True).run()
    with pytest.raises(ValueError, match="only a log made with texts="):
        plain.extend_rows(b"", b"", b"", b"")


def test_the_kernels_run_refuses_lists_that_are_not_its_tokens() -> None:
    t = Trainer(SEED_001, TrainConfig(merges=3), pure=False)
    k = t._kernel  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="the kernel's tokens"):
        k.run(3, 1 << 40, 0, 1, None, t.tokens[:-1], t.texts, t.ids, t.model.merges, t.total_symbols, 0)
    with pytest.raises(TypeError):
        k.run(3, 1 << 40, 0, 1, None, t.tokens, t.texts, [], t.model.merges, t.total_symbols, 0)
    assert t.n_merges == 0
    with pytest.raises(ConfigError):  # the pure path's message, from the same place
        raise kernel_trainer.too_many_tokens()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables, cfg=configs, fail_at=st.integers(1, 12), batch=st.sampled_from([1, 3, 256]))
def test_an_error_of_the_forbid_rule_leaves_the_merges_made_and_their_records(table, cfg, fail_at, batch) -> None:
    """The forbid rule raising mid-batch (a pattern's timeout) reaches the caller after the merges before it,
    whose records are in the log, as merge by merge."""
    cfg = cfg.with_(forbid_regex=cfg.forbid_regex or "^.$")

    def failing(t: Trainer) -> Trainer:
        asked = [0]
        rule = t._forbids

        def forbids(a: int, b: int) -> bool:
            asked[0] += 1
            if asked[0] == fail_at:
                raise ZeroDivisionError("the rule failed")
            return rule(a, b)

        t._forbids = forbids  # type: ignore[method-assign]
        return t

    pure, kernel = failing(Trainer(table, cfg, pure=True)), failing(Trainer(table, cfg, pure=False))
    want: list = []
    failed = False
    try:
        for rec in pure:
            want.append(rec)
    except ZeroDivisionError:
        failed = True
    log = RecordLog(texts=kernel.texts)
    if failed:
        with pytest.raises(ZeroDivisionError, match="the rule failed"):
            batched(kernel, batch, log)
    else:
        batched(kernel, batch, log)
    assert list(log) == want and state(kernel) == state(pure)
