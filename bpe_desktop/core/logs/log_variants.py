"""Train variants on one log: the same merge budget under several pre-tokenizers, and where each one's
tokens go on that log.

:func:`train_variant` is one variant's whole job -- count the log's pieces under its pattern, train, then
inspect the log with the result (:mod:`.log_inspect`) -- as a picklable top-level function of picklable
arguments, so a GUI can hand each variant to a worker process (``ProcessPoolExecutor``).
:func:`train_variants` runs a list of them, in this process or on an executor it is given, with
``progress("variants", done, total)`` and ``cancel()`` between variants.

This module does not choose presets (:mod:`.log_patterns` names them) and does not save anything.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, wait
from dataclasses import dataclass

from ..config import Mode, TieBreak, TrainConfig
from ..counting.pieces import count_text
from ..errors import Cancelled
from ..records import MergeRecord
from ..tokenizers.model import BPEModel
from ..tokenizers.tokenizer import Tokenizer
from ..training.trainer import train
from .log_inspect import NamedTokenizer, TokenizerReport, inspect_text

ProgressFn = Callable[[str, int, int], None]
CancelFn = Callable[[], bool]

#: the presets the issue asks to compare, with cl100k's own pattern as the baseline
DEFAULT_PRESETS = ("cl100k", "log-digits", "log-digits3", "log-numbers", "log-stamps", "log-punct")


@dataclass(frozen=True)
class VariantJob:
    """One variant to train: a pre-tokenizer (a named pattern or a regex) and the shared settings."""

    pretokenizer: str
    merges: int
    mode: Mode = Mode.BYTES
    tie_break: TieBreak = TieBreak.HF

    def config(self) -> TrainConfig:
        return TrainConfig(mode=self.mode, pretokenizer=self.pretokenizer, tie_break=self.tie_break,
                           merges=self.merges, end_of_word="" if self.mode == Mode.BYTES else "</w>")


@dataclass(frozen=True)
class VariantResult:
    """A trained variant: its merge list (the model) and where its tokens go on the log it was trained on."""

    job: VariantJob
    model: BPEModel
    records: list[MergeRecord]
    report: TokenizerReport  # report.categories sums to report.tokens

    @property
    def digit_merges(self) -> int:
        """Merges spent on tokens made only of digits ("87" + "2" -> "872"): on logs, mostly random numbers."""
        return sum(1 for r in self.records if r.token.isdigit())


def train_variant(text: str, job: VariantJob) -> VariantResult:
    """Train *job* on *text* and inspect *text* with the result (picklable: run it in a worker process).

    >>> from bpe_desktop.core.logs.robotlogs import generate
    >>> r = train_variant(generate(50, seed=1), VariantJob("log-digits", merges=40))
    >>> len(r.model.merges), r.report.tokens == sum(r.report.categories.values())
    (40, True)
    """
    cfg = job.config()
    model, records = train(count_text(text, cfg), cfg)
    inspection = inspect_text(text, [NamedTokenizer(job.pretokenizer, Tokenizer(model))])
    return VariantResult(job, model, records, inspection.reports[0])


def train_variants(
    text: str,
    presets: Sequence[str],
    merges: int,
    *,
    mode: Mode = Mode.BYTES,
    tie_break: TieBreak = TieBreak.HF,
    executor: Executor | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
) -> list[VariantResult]:
    """Train one variant per preset with the same merge budget; results in the order of *presets*.

    With an *executor* the variants run there (each job is :func:`train_variant`); *cancel* is polled
    every 0.1 s and cancels the variants not yet started.
    """
    jobs = [VariantJob(p, merges, mode, tie_break) for p in presets]
    for j in jobs:
        j.config()  # a bad pattern or budget fails here, before any work
    total = len(jobs)
    if executor is None:
        out = []
        for k, job in enumerate(jobs):
            if cancel is not None and cancel():
                raise Cancelled()
            out.append(train_variant(text, job))
            if progress is not None:
                progress("variants", k + 1, total)
        return out
    futures: list[Future[VariantResult]] = [executor.submit(train_variant, text, j) for j in jobs]
    pending = set(futures)
    try:
        while pending:
            done, pending = wait(pending, timeout=0.1)
            if cancel is not None and cancel():
                raise Cancelled()
            if done and progress is not None:
                progress("variants", total - len(pending), total)
    except BaseException:
        for f in futures:
            f.cancel()
        raise
    return [f.result() for f in futures]
