"""An extension, once learned, as a run of the window: the original's merges then the new ones, the timeline
starting at the original ("step 0 = cl100k") and stepping over the new merges only.

:func:`extension_work` turns the worker's :class:`~.job.ExtendDone` into a :class:`~..work.Work` -- the same
representation as a tokenizer opened from a file (:func:`~..file_actions.load_for_timeline`: the merges, a record
per merge, ``stop_reason`` LOADED), plus :class:`~..work.ExtensionOf`: how many merges are the original's, the
rule that encodes it (tiktoken's rank rule for a rank table: ``Session.tokenizer``), and the original by name or
by path and SHA-256.  The original's records say only what the file says (no counts); the new ones keep the
trainer's counts and runner-ups.  It is Qt-free (it runs on a helper thread: unpacking the worker's merges
(:class:`~.job.PackedRun`) and listing 100k merges take a moment); :func:`show_extension` runs it behind a
progress dialog and shows the run (never while a run trains: that would stop it).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from ...core.config import TrainConfig
from ...core.counting.sources import CorpusSource
from ...core.formats.presets import is_bundled, split_spec
from ..file_actions import records_for, tokenizer_config
from ..modal_job import Cancelled, Progress, run_modal
from ..work import ExtensionOf, Work
from .job import ExtendDone


def original_label(spec: str) -> str:
    """How the timeline names the original: a bundled encoding's name, else the file's name."""
    preset, path = split_spec(spec)
    if is_bundled(path) or not os.path.exists(path):
        return preset.name if preset is not None else spec
    return os.path.basename(path.rstrip("/\\")) or spec


def extension_work(done: ExtendDone, source: CorpusSource, base: TrainConfig | None = None,
                   progress: Progress | None = None) -> Work:
    """The run *done* learned on *source*: every merge with its record, shown at its last step."""
    if done.run is None:
        raise ValueError("the extension has no merge list to show")
    progress = progress if progress is not None else Progress()
    progress.stage, progress.total = "Unpacking the merges…", 0
    run = done.run.unpack(progress.step)
    model = run.model
    progress.stage, progress.total = "Listing the original's merges…", 0
    original = records_for(model.truncated(run.start), None, progress.step)
    if original:  # the corpus under the original: what the timeline's step 0 holds
        original[-1] = dataclasses.replace(original[-1], symbols_after=run.initial_symbols)
    records = original + list(run.records)
    label = original_label(done.spec)
    config = tokenizer_config(model, base if base is not None else done.config or TrainConfig())
    asked = done.config.merges if done.config is not None else None  # the Merges box: the budget asked for
    config = config.with_(merges=asked if asked is not None else len(run.records))
    stop = f"{label} extended on {source.name or 'the corpus'}: {done.stop_reason}"
    work = Work.loaded(model, records, source, config, stop, "tiktoken" if run.rule == "ranks" else "")
    work.extension = ExtensionOf(done.spec, label, run.start, run.rule, done.sha256, len(run.records),
                                 source.name)
    work.name = work.extension.name
    work.opened_from = done.read_as  # (Training → Extend offers the file written: extend it again)
    work.initial_symbols = run.initial_symbols
    work.rewrites = run.rewrites
    progress.stage, progress.total = "Preparing the encoder…", 0
    work.prepare()
    return work


def show_extension(window: Any, done: ExtendDone, source: CorpusSource) -> str:
    """Show *done* as a run of *window* (a progress dialog while the original's merges are listed): "" when
    shown, else why not -- a run is training (the extension waits: showing it would stop that run), or the
    listing was cancelled."""
    if done.run is None:
        return done.run_refusal
    if window.controller.running:
        return "a run is training -- when it ends (or after Stop), press Show as a run"
    try:
        work = run_modal(window, "Showing the extension", lambda p: extension_work(done, source, None, p))
    except Cancelled:
        return "cancelled -- press Show as a run to list its merges again"
    if window.controller.can_continue:
        window.controller.shutdown()  # (as File > Open tokenizer: the shown run's process no longer matches)
    window.session.load(work)
    return ""
