"""The runs in a saved session: what File ▸ Save session writes and File ▸ Open session reads back.

:func:`runs_document` turns the :class:`~.store.RunStore` into the session document's ``runs`` and
``current_run`` (:class:`~bpe_desktop.core.formats.session_file.RunDoc`); :func:`restore_runs` puts them back into a
store (the run that was shown is shown again; nothing is retrained, word counts are recounted only when a
run is trained further or branched).  A run's corpus is written only when it differs from the shown run's.
The save/open code calls::

    doc = SessionDoc(corpus, config, model, records, step, compare, layout, **runs_document(store))
    ...
    restore_runs(store, load_session(path))   # after putting the document's own fields into the session

It writes no file itself (:mod:`bpe_desktop.core.formats.session_file` does).
"""

from __future__ import annotations

from typing import Any

from ...core.counting.sources import CorpusSource
from ...core.errors import SessionError
from ...core.formats.session_file import RunDoc, SessionCorpus, SessionDoc
from ...core.tokenizers.model import BPEModel
from ...core.training.branch import config_changes
from .store import Origin, Run, RunStore


def corpus_of(source: CorpusSource) -> SessionCorpus:
    """A corpus source as the session document describes it (files by reference, hashed now)."""
    if source.paths:
        return SessionCorpus.from_files(source.paths, word_counts=source.word_counts, encoding_errors=source.errors)
    return SessionCorpus.from_text(source.text or "", word_counts=source.word_counts)


def source_of(corpus: SessionCorpus) -> CorpusSource:
    if corpus.files:
        return CorpusSource.from_files([f.path for f in corpus.files], word_counts=corpus.word_counts,
                                       errors=corpus.encoding_errors)
    return CorpusSource.from_text(corpus.text or "", word_counts=corpus.word_counts)


def runs_document(store: RunStore) -> dict[str, Any]:
    """``runs`` and ``current_run`` for :class:`SessionDoc` (keyword arguments), every run as it is now."""
    store.capture()
    shown = store.current_run.source
    index = {r.id: i for i, r in enumerate(store.runs)}
    docs = []
    for r in store.runs:
        docs.append(RunDoc(
            name=r.name, config=r.config, model=r.model if r.records or r.model.merges else None,
            records=tuple(r.records) if len(r.records) == len(r.model.merges) else (),
            step=min(r.step, len(r.model.merges)), stop=r.stop_reason, stop_text=r.stop_text, renamed=r.renamed,
            parent=index.get(r.origin.parent) if r.origin.parent is not None else None,
            branch_step=r.origin.step, corpus=None if r.source == shown else corpus_of(r.source),
        ))
    return {"runs": tuple(docs), "current_run": store.current}


def restore_runs(store: RunStore, doc: SessionDoc, shown: CorpusSource | None = None) -> bool:
    """Replace the store's runs with the document's and show its current run; False (nothing changed) when
    the document holds no runs (an older file: the session's own fields are its one run).  *shown*: the
    document's corpus as the window opened it (the editor's source; default: read from the document)."""
    if not doc.runs:
        return False
    shown = shown if shown is not None else source_of(doc.corpus)
    runs: list[Run] = []
    for i, rd in enumerate(doc.runs, 1):
        model = rd.model if rd.model is not None else BPEModel.empty(rd.config)
        if rd.model is not None and not rd.records and rd.model.merges:
            raise SessionError(f"run {i} ({rd.name}) has merges but no records -- the session file is damaged")
        origin = Origin(None if rd.parent is None else rd.parent + 1, rd.branch_step)
        runs.append(Run(i, rd.config, shown if rd.corpus is None else source_of(rd.corpus), model,
                        list(rd.records), None, rd.records[0].symbols_before if rd.records else 0, rd.stop,
                        rd.stop_text, rd.step, origin, rd.name, rd.renamed))
    for run in runs:  # a branch's changes, named again from its parent's settings
        if run.origin.parent is not None:
            parent = runs[run.origin.parent - 1]
            run.origin = Origin(run.origin.parent, run.origin.step, config_changes(parent.config, run.config))
    store.replace_all(runs, doc.current_run)
    return True
