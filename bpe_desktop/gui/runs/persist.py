"""The runs of a session as a session document and back, Qt-free: what File ▸ Save session writes and File ▸
Open session reads, from the :class:`~..work.Work` list alone (never from the panes).

:func:`snapshot` copies the works (their merge lists, so another thread may write them while training
goes on); :func:`to_document` turns them into a
:class:`~bpe_desktop.core.formats.session_file.SessionDoc`: every run with its own corpus, settings,
merges, step, stop reason, name and branch origin (``runs``), the shown one's also as the document's own
fields (what a reader of version 1.0 opens), and what the window held but had not trained on (the drafts)
under ``extras``.  :func:`from_document` gives the works back, equal (``==``) to those saved.  A corpus
that is text read from a file the window opened is written by reference (path, size, hash) and read back
through *file_source*, the editor's own rule for turning a file into a corpus.  A run shown through a
``tokenizer.json``'s own pipeline keeps that file by reference (path and SHA-256, under ``extras``) and is
read from it again; a file gone or changed refuses the document with a message naming it.  An extension run
keeps its merges (the original's and the new ones) like any run, and under ``extras`` what it extends: the
original by name (a bundled encoding) or by path and SHA-256, where its timeline starts and its encoding rule.

It writes no file itself (:mod:`bpe_desktop.core.formats.session_file` does) and asks nothing.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...core.config import TrainConfig
from ...core.counting.sources import CorpusSource
from ...core.errors import BpeError, SessionError
from ...core.formats.hf.pipeline_ref import PipelineRef
from ...core.formats.session_file import CorpusFile, RunDoc, SessionCorpus, SessionDoc
from ...core.stopping import StopReason
from ...core.tokenizers.model import BPEModel
from ...core.training.branch import config_changes
from ..work import ExtensionOf, Origin, Work

#: (path, word-count table?) -> the corpus the window makes of that file (the editor's rule)
FileSource = Callable[[str, bool], CorpusSource]
#: the extras name under which the drafts are kept
DRAFTS = "drafts"
#: the extras name under which a run shown through a tokenizer.json's own pipeline keeps that file (by reference)
PIPELINES = "pipelines"
#: the extras name under which an extension run keeps what it extends (:class:`~..work.ExtensionOf`)
EXTENSIONS = "extensions"


def _plain_file_source(path: str, word_counts: bool) -> CorpusSource:
    return CorpusSource.from_files([path], word_counts=word_counts)


def snapshot(runs: Sequence[Work], *, active: int | None = None) -> tuple[Work, ...]:
    """Copies of *runs* that later merges do not change (the model cut to the records held); run *active*
    is still training: saved as stopped there.  What they are saved as: ``==`` to what reading them back gives."""
    out = []
    for i, w in enumerate(runs):
        n = len(w.records)
        stop, text = (StopReason.STOPPED, "stopped") if i == active else (w.stop_reason, w.stop_text)
        model = w.model.truncated(n) if n else BPEModel.empty(w.config)  # (no base previewed for untrained text)
        out.append(dataclasses.replace(w, records=list(w.records), model=model,
                                       step=min(w.step, n), stop_reason=stop, stop_text=text))
    return tuple(out)


def corpus_doc(source: CorpusSource, describe: Callable[[str], CorpusFile], opened: Mapping[str, str]
               ) -> SessionCorpus:
    """*source* as the document describes it: files by reference; a text that is, unedited, the file
    *opened* names (path -> text) by reference too; any other text embedded, with its name."""
    if source.paths:
        return SessionCorpus(tuple(describe(p) for p in source.paths), None, source.word_counts, source.errors)
    text = source.text or ""
    for path, opened_text in opened.items():
        if opened_text == text and source.name == os.path.basename(path):
            return SessionCorpus((describe(path),), None, source.word_counts)
    return SessionCorpus((), text, source.word_counts, name=source.name)


def source_doc(corpus: SessionCorpus, file_source: FileSource = _plain_file_source) -> CorpusSource:
    if len(corpus.files) == 1:
        return file_source(corpus.files[0].path, corpus.word_counts)
    if corpus.files:
        return CorpusSource.from_files([f.path for f in corpus.files], word_counts=corpus.word_counts,
                                       errors=corpus.encoding_errors)
    return CorpusSource.from_text(corpus.text or "", word_counts=corpus.word_counts, name=corpus.name or "<editor>")


def _draft_json(w: Work) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    d = w.draft
    if d is not None and d.text is not None and not d.paths:
        out["corpus"] = {"text": d.text, "word_counts": d.word_counts, "name": d.name}
    elif d is not None and len(d.paths) == 1:
        out["corpus"] = {"path": d.paths[0], "word_counts": d.word_counts}
    if w.draft_config is not None:
        out["settings"] = dataclasses.asdict(w.draft_config)
    return out or None


def to_document(runs: Sequence[Work], current: int, *, describe: Callable[[str], CorpusFile] = CorpusFile.of,
                opened: Mapping[str, str] | None = None, compare: tuple[str, ...] = (), layout: str = "",
                extras: Mapping[str, Any] | None = None) -> SessionDoc:
    """The session document of *runs*, run *current* shown (raises BpeError/OSError for an unreadable file)."""
    opened = opened or {}
    index = {r.id: i for i, r in enumerate(runs)}
    corpora = [corpus_doc(r.source, describe, opened) for r in runs]
    docs = tuple(RunDoc(
        name=r.name, config=r.config, model=r.model if r.model.merges else None,
        records=tuple(r.records) if len(r.records) == len(r.model.merges) else (),
        step=min(r.step, len(r.model.merges)), stop=r.stop_reason, stop_text=r.stop_text, renamed=r.renamed,
        parent=index.get(r.origin.parent) if r.origin.parent is not None else None,
        branch_step=r.origin.step, corpus=corpora[i]) for i, r in enumerate(runs))
    shown, main = runs[current], docs[current]
    more = dict(extras or {})
    drafts = {str(i): d for i, r in enumerate(runs) if (d := _draft_json(r)) is not None}
    if drafts:
        more[DRAFTS] = drafts
    pipelines = {str(i): {"path": r.pipeline_ref.path, "sha256": r.pipeline_ref.sha256}
                 for i, r in enumerate(runs) if r.pipeline_ref is not None}
    if pipelines:
        more[PIPELINES] = pipelines
    extensions = {str(i): dataclasses.asdict(r.extension) for i, r in enumerate(runs) if r.extension is not None}
    if extensions:
        more[EXTENSIONS] = extensions
    return SessionDoc(corpora[current], shown.config, main.model, main.records, main.step, compare, layout,
                      extras=more, runs=docs, current_run=current)


def _draft_of(raw: Any, file_source: FileSource) -> tuple[CorpusSource | None, TrainConfig | None]:
    corpus = config = None
    if not isinstance(raw, dict):
        return None, None
    c = raw.get("corpus")
    if isinstance(c, dict) and isinstance(c.get("text"), str):
        corpus = CorpusSource.from_text(c["text"], word_counts=bool(c.get("word_counts")),
                                        name=str(c.get("name") or "<editor>"))
    elif isinstance(c, dict) and isinstance(c.get("path"), str):
        corpus = file_source(c["path"], bool(c.get("word_counts")))
    s = raw.get("settings")
    if isinstance(s, dict):
        try:
            config = TrainConfig(**{**s, "specials": tuple(s.get("specials", ()))})
        except (BpeError, TypeError, ValueError):  # a draft that does not read is dropped, never guessed
            config = None
    return corpus, config


def _read_pipelines(raw: Any, works: list[Work]) -> None:
    """Each run kept with a tokenizer.json's pipeline gets it again, read from that file (refused -- the
    whole document -- when the file is gone or changed: its merges alone would show other tokens)."""
    if raw is None:
        return
    if not isinstance(raw, dict):
        raise SessionError(f"extras.{PIPELINES} must be an object -- the session file is damaged")
    for key, ref in raw.items():
        if not (isinstance(key, str) and key.isdigit() and int(key) < len(works) and isinstance(ref, dict)
                and isinstance(ref.get("path"), str) and isinstance(ref.get("sha256"), str)):
            raise SessionError(f"extras.{PIPELINES}: entry {key!r:.20} is not a run's tokenizer.json -- the "
                               "session file is damaged")
        w = works[int(key)]
        w.pipeline_ref = PipelineRef(ref["path"], ref["sha256"])
        w.pipeline = w.pipeline_ref.read(w.model, f"run {int(key) + 1} ({w.name})")
        w.model = w.pipeline.model  # (equal merges and base: the pipeline encodes in its own model's ids)
        w.loaded_format = "hf"


def _read_extensions(raw: Any, works: list[Work]) -> None:
    """Each extension run gets what it extends again (its merges and records are the document's own)."""
    if raw is None:
        return
    fields = {f.name: f.type for f in dataclasses.fields(ExtensionOf)}
    if not isinstance(raw, dict):
        raise SessionError(f"extras.{EXTENSIONS} must be an object -- the session file is damaged")
    for key, ext in raw.items():
        ok = (isinstance(key, str) and key.isdigit() and int(key) < len(works) and isinstance(ext, dict)
              and set(ext) == set(fields) and all(isinstance(ext[n], int if t == "int" else str)
                                                  for n, t in fields.items()))
        w = works[int(key)] if ok else None
        if w is None or not 0 < ext["start"] <= len(w.records) or ext["rule"] not in ("ranks", "merge-list"):
            raise SessionError(f"extras.{EXTENSIONS}: entry {key!r:.20} is not an extension run -- the session file "
                               "is damaged")
        w.extension = ExtensionOf(**ext)
        w.loaded_format = "tiktoken" if w.extension.rule == "ranks" else ""
        w.initial_symbols = w.records[w.extension.start - 1].symbols_after  # the corpus under the original


def from_document(doc: SessionDoc, *, file_source: FileSource = _plain_file_source,
                  corpus_path: str | None = None, where: str = "") -> tuple[list[Work], int]:
    """The works of *doc* and which is shown.  A document without runs (an older file) is one run: its own
    fields, stopped as "restored from *where*".  *corpus_path*: the file to read for the shown run's file
    corpus (the user pointed at a moved one); a run has ``word_counts`` None: counted again when needed."""
    runs: tuple[RunDoc, ...]
    if not doc.runs:
        runs = (RunDoc("", doc.config, doc.model, doc.records, doc.step,
                       StopReason.LOADED if doc.model is not None else None,
                       f"restored from {where}" if doc.model is not None else "", corpus=doc.corpus),)
        current = 0
    else:
        runs, current = doc.runs, doc.current_run
    moved = doc.corpus.files[0].path if corpus_path is not None and doc.corpus.files else None
    works: list[Work] = []
    for i, rd in enumerate(runs, 1):
        if rd.model is not None and not rd.records and rd.model.merges:
            raise SessionError(f"run {i} ({rd.name}) has merges but no records -- the session file is damaged")
        corpus = rd.corpus or doc.corpus
        if corpus_path is not None and moved is not None and corpus.files and corpus.files[0].path == moved:
            corpus = dataclasses.replace(corpus, files=(dataclasses.replace(corpus.files[0], path=corpus_path),))
        model = rd.model if rd.model is not None else BPEModel.empty(rd.config)
        records = list(rd.records)
        first = records[0] if records else None
        works.append(Work(source_doc(corpus, file_source), rd.config, model, records, rd.stop, rd.stop_text,
                          rd.step, rd.name, rd.renamed, id=i,
                          origin=Origin(None if rd.parent is None else rd.parent + 1, rd.branch_step),
                          initial_symbols=first.symbols_before if first is not None and first.merged else 0))
    for w in works:  # a branch's changes, named again from its parent's settings
        if w.origin.parent is not None and 0 < w.origin.parent <= len(works):
            parent = works[w.origin.parent - 1]
            w.origin = Origin(w.origin.parent, w.origin.step, config_changes(parent.config, w.config))
    _read_pipelines(doc.extras.get(PIPELINES), works)
    _read_extensions(doc.extras.get(EXTENSIONS), works)
    drafts = doc.extras.get(DRAFTS)
    if isinstance(drafts, dict):
        for key, raw in drafts.items():
            if key.isdigit() and int(key) < len(works):
                works[int(key)].draft, works[int(key)].draft_config = _draft_of(raw, file_source)
    return works, max(0, min(current, len(works) - 1))
