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
keeps the original by reference too (``extras.extensions``: a bundled encoding by name, a file by path and
SHA-256, read again and refused the same way when gone or changed) and only the merges it adds, with their
records: its 100,000 cl100k merges are cl100k's, not the document's.

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
from ...core.extend.reopen import reopen
from ...core.formats import load
from ...core.formats.hf.pipeline_ref import PipelineRef
from ...core.formats.presets import split_spec
from ...core.formats.session_file import CorpusFile, RunDoc, SessionCorpus, SessionDoc
from ...core.records import MergeRecord
from ...core.stopping import StopReason
from ...core.tokenizers.model import BPEModel, token_text
from ...core.tokenizers.ranks import RankTokenizer
from ...core.training.branch import config_changes
from ..loaded import extension_records
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
    docs = tuple(RunDoc(  # (an extension run's merges: under extras, the original's by reference)
        name=r.name, config=r.config, model=r.model if r.model.merges and r.extension is None else None,
        records=tuple(r.records) if len(r.records) == len(r.model.merges) and r.extension is None else (),
        step=min(r.step, len(r.model.merges)) if r.extension is None else 0, stop=r.stop_reason,
        stop_text=r.stop_text, renamed=r.renamed,
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
    extensions = {str(i): _extension_json(r, r.extension) for i, r in enumerate(runs) if r.extension is not None}
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


def _extension_json(w: Work, ext: ExtensionOf) -> dict[str, Any]:
    """What an extension run saves: what it extends, where its timeline stands, and only the merges it adds."""
    added = w.records[ext.start:]
    return {**dataclasses.asdict(ext), "step": w.step - ext.start, "initial_symbols": w.initial_symbols,
            "merges": [list(p) for p in w.model.merges[ext.start:]],
            "records": [[r.count, r.merged, r.symbols_after, r.words_touched, [list(c) for c in r.contenders]]
                        for r in added]}


def shown_extension(doc: SessionDoc) -> tuple[str, int, int] | None:
    """(original, added merges, step counted from the original) when *doc*'s shown run is an extension run, as
    the document says it without reading the original (None: no extension, or not one this reads -- opening the
    session says why)."""
    raw = doc.extras.get(EXTENSIONS)
    entry = raw.get(str(doc.current_run)) if isinstance(raw, dict) else None
    if not isinstance(entry, dict):
        return None
    label, added, step = entry.get("label"), entry.get("added"), entry.get("step")
    if type(label) is str and type(added) is int and type(step) is int:
        return label, added, step
    return None


def _damaged(key: object, why: str) -> SessionError:
    return SessionError(f"extras.{EXTENSIONS}: entry {key!r:.20} {why} -- the session file is damaged")


def _original(ext: ExtensionOf, run: str) -> BPEModel:
    """The merge list *ext* extends, read again (a file checked against its SHA-256 first)."""
    _, path = split_spec(ext.spec)
    if ext.sha256 and not os.path.isfile(path):
        raise SessionError(f"{run} extends {path}, which is gone -- put the file back, or open the session without "
                           "that run's file being needed (remove the run first)")
    if ext.sha256 and CorpusFile.of(path).sha256 != ext.sha256:
        raise SessionError(f"{run} extends {path}, which changed since the session was saved (its SHA-256 differs), "
                           "so its merges would extend another tokenizer -- restore that file")
    tok = load(ext.spec).tokenizer
    again = reopen(tok) if isinstance(tok, RankTokenizer) else None  # (an extension's file, extended again)
    base = again.model if again is not None else tok.recover() if isinstance(tok, RankTokenizer) else tok.model
    if len(base.merges) != ext.start:
        raise SessionError(f"{run} extends {ext.spec} after {ext.start:,} merges, but it has {len(base.merges):,} "
                           "-- the session file is damaged")
    return base


def _read_extensions(raw: Any, works: list[Work]) -> None:
    """Each extension run gets its original again (read by name, or from its file), then the merges it adds."""
    if raw is None:
        return
    if not isinstance(raw, dict):
        raise SessionError(f"extras.{EXTENSIONS} must be an object -- the session file is damaged")
    types: dict[str, type] = {f.name: int if f.type == "int" else str for f in dataclasses.fields(ExtensionOf)}
    types.update(step=int, initial_symbols=int, merges=list, records=list)
    for key, entry in raw.items():
        if not (isinstance(key, str) and key.isdigit() and int(key) < len(works) and isinstance(entry, dict)
                and set(entry) == set(types) and all(type(entry[n]) is t for n, t in types.items())):
            raise _damaged(key, "is not an extension run")
        w = works[int(key)]
        fields = {n: entry[n] for n in types if n in {f.name for f in dataclasses.fields(ExtensionOf)}}
        ext = ExtensionOf(**fields)
        merges, rows = entry["merges"], entry["records"]
        if ext.rule not in ("ranks", "merge-list") or len(merges) != len(rows) or len(merges) != ext.added or not (
                0 <= entry["step"] <= len(merges)):
            raise _damaged(key, "does not hold its merges")
        base = _original(ext, f"run {int(key) + 1} ({w.name})")
        model = dataclasses.replace(base, merges=list(base.merges), base=list(base.base))  # (a loaded one is shared)
        n = len(model.tokens)  # (merge j may take the tokens of the merges before it)
        if not all(isinstance(p, list) and len(p) == 2 and all(type(i) is int and 0 <= i < n + j for i in p)
                   for j, p in enumerate(merges)):
            raise _damaged(key, "has a merge that is no pair of its tokens")
        model.extend_merges([(p[0], p[1]) for p in merges])
        try:
            added = [_record(model, ext.start + j, row) for j, row in enumerate(rows)]
        except (TypeError, ValueError) as e:
            raise _damaged(key, f"has a malformed record ({type(e).__name__})") from None
        w.model, w.records = model, extension_records(model, ext.start, added, entry["initial_symbols"])
        w.extension, w.step, w.initial_symbols = ext, ext.start + entry["step"], entry["initial_symbols"]
        w.loaded_format = "tiktoken" if ext.rule == "ranks" else ""


def _record(model: BPEModel, k: int, row: list[Any]) -> MergeRecord:
    """Merge *k* (0-based) of *model* with a saved row's numbers."""
    count, merged, after, touched, contenders = row
    (a, b), c = model.merges[k], model.merge_token_ids[k]
    t = model.tokens
    nums = (count, merged, after, touched)
    if not all(type(x) is int and x >= 0 for x in nums) or not all(
            isinstance(x, list) and len(x) == 3 and isinstance(x[0], str) and isinstance(x[1], str)
            and type(x[2]) is int for x in contenders):
        raise ValueError("a record's numbers")
    return MergeRecord(rank=k + 1, left=token_text(t[a]), right=token_text(t[b]), token=token_text(t[c]), left_id=a,
                       right_id=b, token_id=c, count=count, merged=merged, symbols_after=after,
                       vocab_size=model.vocab_size_at(k + 1), words_touched=touched,
                       contenders=tuple((x, y, n) for x, y, n in contenders))


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
