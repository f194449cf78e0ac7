"""The window's extension job, run in a worker process: extend a tokenizer on the corpus, write the file, and say
what it changed (Qt-free, picklable in and out).

It is :func:`bpe_desktop.core.extend.start` plus writing, as ``train --extend`` does; the counts it reports are
the trainer's (tokens of the corpus under the original and under the extension).  It also hands back the
extension as one merge list in the original model's ids (:meth:`~bpe_desktop.core.extend.Extension.timeline`),
which the window shows as a run (:mod:`.show`), or why it cannot -- packed (:class:`PackedRun`: the merges as one
integer array), because the window's process unpickles the result in one call that holds the interpreter lock,
and cl100k's 100,000 merge tuples with their derived tables would stall the window's GUI thread meanwhile --, and
the corpus segmented at every step of it (``ExtensionRun.rewrites``: the plots'), which
:func:`segmentation_again` finds again for a reopened session.
It leaves out what the window shows (:mod:`.dialog`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...core.config import TrainConfig
from ...core.counting.sources import CorpusSource
from ...core.errors import BpeError
from ...core.extend import ExtensionRun, corpus_pieces, count_files, prepare, rewrites_again
from ...core.formats import load
from ...core.formats.presets import split_spec
from ...core.formats.session_corpus import CorpusFile
from ...core.measure.holdout import totaling
from ...core.measure.quality import TextTotals
from ...core.measure.stats import Rewrites, finish
from ...core.records import MergeRecord
from ...core.tokenizers.model import BPEModel
from ...core.training.extend import Kind

#: merges rebuilt per slice by :meth:`PackedRun.unpack` (each slice one short C call: the GIL changes hands between)
UNPACK_SLICE = 8192


@dataclass(frozen=True)
class ExtendJob:
    spec: str  # the tokenizer to extend: cl100k, o200k, gpt2, a file
    merges: int
    out: str  # where to write the extension (in the tokenizer's own format)
    text: str | None = None  # the corpus: the editor's text, or
    paths: tuple[str, ...] = ()  # its files
    min_frequency: int = 1  # stop when the best pair is rarer
    forbid: tuple[tuple[str, str], ...] = ()  # pairs never merged (as the merge list shows their symbols)
    forbid_regex: str | None = None  # never a new token this pattern matches


@dataclass(frozen=True)
class PackedRun:
    """An :class:`~bpe_desktop.core.extend.ExtensionRun` as the worker sends it: the model without its merges, the
    merges as one ``(n, 2)`` integer array (unpickled as one copy), the records as they are; :meth:`unpack` gives
    the run back (on a helper thread: it builds the merge tuples and the model's derived tables)."""

    shell: BPEModel  # the model's settings and base symbols, no merges
    merges: np.ndarray  # (n, 2) int64: the merges' (left id, right id)
    records: list[MergeRecord]
    start: int
    rule: Kind
    initial_symbols: int
    rewrites: Rewrites | None = None  # the corpus at every step (the plots'), as the run holds it

    @classmethod
    def of(cls, run: ExtensionRun) -> PackedRun:
        merges = np.asarray(run.model.merges, dtype=np.int64).reshape(-1, 2)
        return cls(run.model.truncated(0), merges, run.records, run.start, run.rule, run.initial_symbols,
                   run.rewrites)

    def unpack(self, step: Callable[[int, int], None] | None = None) -> ExtensionRun:
        """The run, its model's tables built here (*step(done, total)* between slices: it may raise to cancel)."""
        n = len(self.merges)
        merges: list[tuple[int, int]] = []
        for i in range(0, n, UNPACK_SLICE):
            flat = iter(self.merges[i:i + UNPACK_SLICE].ravel().tolist())
            merges.extend(zip(flat, flat, strict=True))
            if step is not None:
                step(min(i + UNPACK_SLICE, n), n)
        model = self.shell.truncated(0)
        model.merges = merges
        model.invalidate()
        model.vocab_size_at(n)  # the derived tables (Python loops, GIL-friendly) on this thread, not the GUI's
        return ExtensionRun(model, list(self.records), self.start, self.rule, self.initial_symbols, self.rewrites)


@dataclass(frozen=True)
class ExtendDone:
    spec: str
    out: str
    read_as: str  # the spec that reads the written file back (cl100k:FILE for an extended rank file)
    made: int  # new merges
    stop_reason: str
    first_id: int | None  # the new tokens' ids (None: no merge made)
    last_id: int | None
    how: str  # how to read the file, in a sentence
    lines: int  # lines of the corpus
    tokens_before: int  # the corpus's tokens under the original
    tokens_after: int  # and under the extension
    run: PackedRun | None = None  # the extension as the timeline shows it (None: see run_refusal)
    run_refusal: str = ""  # why it cannot be shown as a run
    config: TrainConfig | None = None  # the settings it was learned with
    sha256: str = ""  # the original's file ("" for a bundled encoding)

    @property
    def summary(self) -> str:
        ids = f", ids {self.first_id:,}..{self.last_id:,}" if self.first_id is not None else ""
        per = ""
        if self.lines:
            b, a = self.tokens_before / self.lines, self.tokens_after / self.lines
            per = f"; tokens per line on this corpus {b:.2f} -> {a:.2f} ({a / b - 1:+.1%})" if b else ""
        return (f"{self.made:,} new merges on {self.spec} ({self.stop_reason}{ids}){per}; wrote {self.out} "
                f"({self.how})")


def run(job: ExtendJob) -> ExtendDone:
    """Extend, write, report (a :class:`~bpe_desktop.core.errors.BpeError` for a refusal)."""
    loaded = load(job.spec)
    tok = loaded.tokenizer
    if job.text is not None:
        pieces, lines = corpus_pieces(tok, job.text), job.text.count("\n") + (not job.text.endswith("\n"))
    else:
        pieces, lines = count_files(tok, job.paths)
    config = TrainConfig(mode=tok.mode, merges=job.merges, min_frequency=job.min_frequency, forbid=job.forbid,
                         forbid_regex=job.forbid_regex)
    ext = prepare(loaded, job.spec, pieces, config, history=True)
    ext.trainer.run()
    how = ext.save(job.out)
    try:
        shown, refusal = PackedRun.of(ext.timeline()), ""
    except BpeError as e:
        shown, refusal = None, str(e)
    _, path = split_spec(job.spec)
    ids = ext.file_ids
    read_as = f"{ext.preset}:{job.out}" if loaded.fmt == "tiktoken" and ext.preset else job.out
    t = ext.trainer
    return ExtendDone(job.spec, job.out, read_as, len(ext.records), t.stop_reason or "", ids[0] if ids else None,
                      ids[-1] if ids else None, how, lines, t.initial_symbols, t.total_symbols, shown, refusal,
                      config,
                      CorpusFile.of(path).sha256 if os.path.isfile(path) else "")


def segmentation_again(spec: str, source: CorpusSource, model: BPEModel, start: int, config: TrainConfig, *,
                       strict: bool = True) -> Rewrites:
    """The corpus of an extension run (of *spec*, learned on *source*: *model*'s merges after *start*) segmented
    at every step, found again by replaying its merges (:func:`~bpe_desktop.core.extend.rewrites_again`): what
    the job handed the plots, for a run reopened from a session; with *strict* False any text (a held-out one).
    Reads the original and the text; run it off the GUI thread."""
    loaded = load(spec)
    tok = loaded.tokenizer
    pieces = count_files(tok, source.paths)[0] if source.paths else corpus_pieces(tok, source.text or "")
    return rewrites_again(loaded, spec, pieces, model, start, config, strict=strict)


def held_out_segmentation(spec: str, path: str, model: BPEModel, start: int,
                          config: TrainConfig) -> tuple[Rewrites, TextTotals]:
    """A held-out file segmented at every step of an extension run, with its bytes and words (the quality tab's
    held-out curve); off the GUI thread."""
    src = CorpusSource.from_files([path])
    rewrites = segmentation_again(spec, src, model, start, config, strict=False)
    return rewrites, finish(totaling(src, model.mode))
