"""The session document: everything needed to reopen a piece of work, as one versioned JSON file.

A :class:`SessionDoc` holds the corpus (files *by reference*, each with its size, modification time and
SHA-256, or the text itself when it was typed), the training settings (:class:`TrainConfig`), the merge
list with its per-merge records, the timeline step, the compare references (tokenizer specs such as
``cl100k:PATH``), the window layout (an opaque base64 string the GUI fills and reads back) and ``extras``:
named JSON values a GUI part adds without a new document version (an object, absent when empty; readers
ignore names they do not know).

* :func:`save_session` writes it atomically (:mod:`.atomic`); :func:`load_session` reads it back with full
  validation (:mod:`.session_check` first checks the whole parsed JSON: ranges the window holds, runs'
  lineage, paths, nesting): any malformed value is a :class:`~bpe_desktop.core.errors.SessionError`
  naming the file and the field, and a document from a newer version says which version wrote it.  The
  file is plain JSON read with :func:`json.loads` (a leading byte order mark is skipped): no pickle,
  nothing in it is ever executed.  File names that are not UTF-8 are kept exactly (:mod:`.json_text`).
  With a progress *step* (the window's helper thread) a big file is read and parsed a piece at a time
  (:mod:`.session_pieces`), with the same result.
* The tokenizer part is the native tokenizer document (:mod:`.formats.native`, through its public
  ``dumps``/``loads``), so a session and a native file describe merges identically.
* A session may hold several *runs* ("what if": :class:`RunDoc`, each its settings, merges, step, stop
  reason, branch origin and, when it differs, its own corpus) beside the fields of the run shown; they are
  written under ``"runs"`` (format minor version 1: readers of version 1 ignore them, and a file without
  them reads as a session of one run).
* :func:`check_corpus` (:mod:`.session_corpus`) says whether the referenced corpus files are unchanged,
  changed or gone, so a caller can report it instead of silently retraining on different text.

It does not decide *when* to save (autosave, recovery) nor touch any widget: that is the GUI's part.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from ... import __version__
from ..choices import ByteIds
from ..config import TrainConfig
from ..errors import BpeError, SessionError
from ..io.atomic import atomic_write
from ..io.reading import read_regular
from ..records import MergeRecord
from ..stopping import StopReason
from ..tokenizers.model import BPEModel
from . import check_model, json_text, native, session_check, session_pieces
from .session_check import fail
from .session_corpus import CorpusCheck, CorpusFile, CorpusState, SessionCorpus, check_corpus

__all__ = ["CorpusCheck", "CorpusFile", "CorpusState", "RunDoc", "SessionCorpus", "SessionDoc", "check_corpus",
           "dumps_session", "load_session", "loads_session", "save_session"]

FORMAT_NAME = "bpe-desktop-session"
VERSION = 1
MINOR_VERSION = 1  # 1: optional "runs" and "current_run" (readers of 1.0 ignore them)
SESSION_LIMIT = 2 << 30  # a session read whole: its typed corpus text may be hundreds of MB


@dataclass(frozen=True)
class SessionDoc:
    """One saved session.  ``model`` is ``None`` before any training; ``step`` is the timeline step."""

    corpus: SessionCorpus
    config: TrainConfig
    model: BPEModel | None = None
    records: tuple[MergeRecord, ...] = ()
    step: int = 0
    compare: tuple[str, ...] = ()
    layout: str = ""  # base64, opaque to the core
    saved_by: str = field(default=f"bpe-desktop {__version__}")
    extras: dict[str, Any] = field(default_factory=dict)  # name -> JSON value (see the module docstring)
    runs: tuple[RunDoc, ...] = ()  # every run of the session (empty: just the one above)
    current_run: int = 0  # which of ``runs`` is the one shown (its fields are also the document's own)


@dataclass(frozen=True)
class RunDoc:
    """One run of a session.  ``parent``/``branch_step``: a branch of run ``parent`` (an index into the
    session's runs) at that step; ``corpus`` None means the session's corpus."""

    name: str
    config: TrainConfig
    model: BPEModel | None = None
    records: tuple[MergeRecord, ...] = ()
    step: int = 0
    stop: StopReason | None = None
    stop_text: str = ""
    renamed: bool = False  # the user named it
    parent: int | None = None
    branch_step: int | None = None
    corpus: SessionCorpus | None = None


# -- writing ------------------------------------------------------------------------------------------
def dumps_session(doc: SessionDoc) -> str:
    """The JSON text of *doc* (validated first, so a bad document is never written)."""
    _check_doc(doc, "<session>")
    out: dict[str, Any] = {
        "format": FORMAT_NAME,
        "version": VERSION,
        "saved_by": f"bpe-desktop {__version__}",
        "corpus": {
            "files": [asdict(f) for f in doc.corpus.files],
            "text": doc.corpus.text,
            "word_counts": doc.corpus.word_counts,
            "encoding_errors": doc.corpus.encoding_errors,
            **({"name": doc.corpus.name} if doc.corpus.name else {}),
        },
        "settings": settings_json(doc.config),
        "tokenizer": None if doc.model is None else json.loads(native.dumps(doc.model, list(doc.records) or None)),
        "step": doc.step,
        "compare": list(doc.compare),
        "layout": doc.layout,
    }
    if doc.extras:
        out["extras"] = doc.extras
    if doc.runs:
        out["minor"] = MINOR_VERSION
        out["runs"] = [_run_json(r, doc) for r in doc.runs]
        out["current_run"] = doc.current_run
    try:
        return json_text.dumps(out, indent=1)  # a file name that is not UTF-8 is kept as \udcXX escapes
    except (TypeError, ValueError, RecursionError) as e:  # an extra that is not JSON
        raise SessionError(f"<session>: an extra value cannot be saved as JSON ({e})") from None


def save_session(path: str | os.PathLike[str], doc: SessionDoc) -> None:
    """Write *doc* to *path* atomically (a failed write leaves the previous session file intact)."""
    text = dumps_session(doc)
    with atomic_write(path) as f:
        f.write(text)


# -- reading ------------------------------------------------------------------------------------------
def settings_json(config: TrainConfig) -> dict[str, Any]:
    """The settings as the document holds them; ``byte_ids`` only when not GPT-2's order (the default, and
    all that sessions before it held), so such a session is written byte for byte as before."""
    out = {**asdict(config), "specials": list(config.specials)}
    if config.byte_ids == ByteIds.GPT2:
        del out["byte_ids"]
    return out


def load_session(path: str | os.PathLike[str], step: Callable[[int, int], None] | None = None) -> SessionDoc:
    """Read and fully validate a session file; with *step*, read and parsed in pieces with ``step(done,
    size)`` after each (a helper thread's progress: each piece holds the interpreter lock briefly)."""
    path = os.fspath(path)
    data = read_regular(path, error=SessionError, what="session file", limit=SESSION_LIMIT, step=step)
    if step is not None:
        raw = session_pieces.json_in_pieces(data, step)
        if raw is not None:
            return _loads_raw(raw, path)
    try:
        text = session_pieces.decode(data, step)  # a byte order mark some editors add is not part of the session
    except UnicodeDecodeError as e:
        raise SessionError(f"{path}: not UTF-8 text at byte {e.start} -- is this a bpe-desktop session?") from None
    return loads_session(text, path)


def loads_session(text: str, source: str = "<session>") -> SessionDoc:
    """Parse and validate session JSON (see :func:`load_session`)."""
    text = session_check.strip_bom(text)
    if not text.strip():
        raise SessionError(f"{source}: the file is empty -- it holds no session")
    try:
        raw = json.loads(text)
    except RecursionError:
        raise fail(source, "the JSON is nested too deeply to read", "the file is damaged or not a bpe-desktop "
                   "session") from None
    except json.JSONDecodeError as e:
        raise SessionError(f"{source}: line {e.lineno}: not valid JSON -- is this a bpe-desktop session file?"
                           ) from None
    return _loads_raw(raw, source)


def _loads_raw(raw: Any, source: str) -> SessionDoc:
    """Validate the parsed JSON *raw* of a session (from *source*) and make its document."""
    session_check.check_depth(raw, source)
    if not isinstance(raw, dict) or raw.get("format") != FORMAT_NAME:
        raise SessionError(f"{source}: not a bpe-desktop session (no \"format\": \"{FORMAT_NAME}\") -- open it "
                           "as a tokenizer or corpus instead")
    version = raw.get("version")
    saved_by = raw["saved_by"] if isinstance(raw.get("saved_by"), str) else "version of bpe-desktop"
    if type(version) is not int or version < 1:
        raise SessionError(f"{source}: the session version {version!r:.20} is not valid -- the file is damaged")
    if version > VERSION:
        raise SessionError(f"{source}: saved by a newer {saved_by} (session version {version}; this is "
                           f"bpe-desktop {__version__}, which reads version {VERSION}) -- update bpe-desktop")
    try:
        doc = _from_raw(raw, source, saved_by)
    except BpeError as e:
        if isinstance(e, SessionError):
            raise
        raise _wrapped(e, source) from None
    except (TypeError, KeyError, ValueError, AttributeError, IndexError, RecursionError) as e:
        raise SessionError(f"{source}: malformed session ({type(e).__name__}: {str(e)[:80]}) -- the file is "
                           "damaged") from None
    _check_doc(doc, source)
    return doc


def _wrapped(e: BpeError, source: str) -> SessionError:
    """A settings or tokenizer error inside a session, as a SessionError naming the file (once) and a fix."""
    text = str(e) if str(e).startswith(source) else f"{source}: {e}"
    text = text.replace("\r", "\\r").replace("\n", "\\n")  # a token or pattern quoted in it: still one line
    return SessionError(text if " -- " in text else f"{text} -- the session file is damaged")


def _need(cond: bool, source: str, what: str) -> None:
    if not cond:
        raise SessionError(f"{source}: {what} -- the session file is damaged")


def _from_raw(raw: dict[str, Any], source: str, saved_by: str) -> SessionDoc:
    keys = {"format", "version", "saved_by", "corpus", "settings", "tokenizer", "step", "compare", "layout",
            "extras"}
    optional = {"saved_by", "tokenizer", "extras"}
    _need(keys - optional <= raw.keys(), source,
          f"missing field(s) {', '.join(sorted(keys - optional - raw.keys()))}")
    c = raw["corpus"]
    _need(isinstance(c, dict), source, "corpus must be an object")
    files_raw = c.get("files")
    session_check.corpus_files(files_raw, source)
    files = [CorpusFile(f["path"], f["size"], f["mtime_ns"], f["sha256"]) for f in files_raw]
    text = c.get("text")
    _need(text is None or isinstance(text, str), source, "corpus.text must be text or null")
    _need((text is None) != (not files), source, "the corpus must be either files or typed text, exactly one")
    _need(type(c.get("word_counts", False)) is bool, source, "corpus.word_counts must be true or false")
    _need(c.get("encoding_errors", "strict") in ("strict", "replace", "ignore"), source,
          "corpus.encoding_errors must be strict, replace or ignore")
    _need(isinstance(c.get("name", ""), str), source, "corpus.name must be text")
    corpus = SessionCorpus(tuple(files), text, c.get("word_counts", False), c.get("encoding_errors", "strict"),
                           c.get("name", ""))

    s = raw["settings"]
    session_check.settings(s, source, [f.name for f in fields(TrainConfig)])
    config = TrainConfig(**{**s, "specials": tuple(s.get("specials", ())),  # ConfigError/PatternError: wrapped
                            "forbid": tuple(tuple(p) for p in s.get("forbid", ()))})

    model = None
    records: tuple[MergeRecord, ...] = ()
    tok = raw.get("tokenizer")
    if tok is not None:
        _need(isinstance(tok, dict), source, "tokenizer must be an object or null")
        model, stats = native.loads(json.dumps(tok), f"{source} (tokenizer)")
        check_model(model, f"{source} (tokenizer)")
        records = _records(model, stats, source)

    step = raw["step"]
    session_check.whole(step, source, "step")
    compare = raw["compare"]
    session_check.compare(compare, source)
    layout = raw["layout"]
    _need(isinstance(layout, str), source, "layout must be a base64 text")
    extras = raw.get("extras", {})
    _need(isinstance(extras, dict), source, "extras must be an object")
    runs, current = _runs_from_raw(raw, source, saved_by)
    return SessionDoc(corpus, config, model, records, step, tuple(compare), layout, saved_by, extras=extras,
                      runs=runs, current_run=current)


_RECORD_INTS = ("rank", "count", "merged", "symbols_after", "vocab_size", "words_touched")


def _records(model: BPEModel, stats: list[dict[str, Any]], source: str) -> tuple[MergeRecord, ...]:
    """Rebuild the per-merge records from the native document's stats and the merge list."""
    if not stats:
        return ()
    _need(len(stats) == len(model.merges), source,
          f"the tokenizer has {len(model.merges)} merges but {len(stats)} records")
    made = model.merge_token_ids
    out = []
    for k, st in enumerate(stats):
        _need(isinstance(st, dict) and all(type(st.get(n)) is int for n in _RECORD_INTS), source,
              f"record {k + 1} needs whole numbers {', '.join(_RECORD_INTS)}")
        _need(st["rank"] == k + 1, source, f"record {k + 1} has rank {st['rank']}")
        for n in _RECORD_INTS:
            session_check.whole(st[n], source, f"record {k + 1}: {n}")
        cont = st.get("contenders", [])
        _need(isinstance(cont, list) and all(
            isinstance(x, list) and len(x) == 3 and isinstance(x[0], str) and isinstance(x[1], str)
            and type(x[2]) is int and 0 <= x[2] <= session_check.MAX_COUNT for x in cont), source,
              f"record {k + 1}: contenders must be [left, right, count] with a count of 0..2**63-1")
        a, b = model.merges[k]
        out.append(MergeRecord(
            rank=k + 1, left=model.token_str(a), right=model.token_str(b), token=model.token_str(made[k]),
            left_id=a, right_id=b, token_id=made[k], count=st["count"], merged=st["merged"],
            symbols_after=st["symbols_after"], vocab_size=st["vocab_size"], words_touched=st["words_touched"],
            contenders=tuple((x[0], x[1], x[2]) for x in cont),
        ))
    return tuple(out)


def _check_doc(doc: SessionDoc, source: str) -> None:
    _need(not doc.runs or 0 <= doc.current_run < len(doc.runs), source,
          f"current_run {doc.current_run} is not one of the {len(doc.runs)} runs")
    for i, run in enumerate(doc.runs, 1):
        n = 0 if run.model is None else len(run.model.merges)
        _need(0 <= run.step <= n, source, f"run {i}: the step {run.step} is outside 0..{n} (the merges held)")
        _need(not run.records or len(run.records) == n, source, f"run {i}: the records do not match the merges")
    session_check.lineage([r.parent for r in doc.runs], [r.branch_step for r in doc.runs], source)
    n = 0 if doc.model is None else len(doc.model.merges)
    _need(0 <= doc.step <= n, source, f"the step {doc.step} is outside 0..{n} (the merges held)")
    _need(not doc.records or len(doc.records) == n, source, "the records do not match the merges")
    try:
        base64.b64decode(doc.layout.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise SessionError(f"{source}: the window layout is not base64 text -- the session file is damaged") from None


# -- runs ("what if") -------------------------------------------------------------------------------------
def _run_json(run: RunDoc, doc: SessionDoc) -> dict[str, Any]:
    """A run as JSON: the fields of a session document of its own (same validation), plus its name,
    stop reason and branch origin."""
    inner = json.loads(dumps_session(SessionDoc(run.corpus or doc.corpus, run.config, run.model, run.records,
                                                run.step)))
    return {
        "name": run.name, "renamed": run.renamed,
        "corpus": None if run.corpus is None else inner["corpus"],
        "settings": inner["settings"], "tokenizer": inner["tokenizer"], "step": inner["step"],
        "stop": None if run.stop is None else run.stop.value, "stop_text": run.stop_text,
        "parent": run.parent, "branch_step": run.branch_step,
    }


def _runs_from_raw(raw: dict[str, Any], source: str, saved_by: str) -> tuple[tuple[RunDoc, ...], int]:
    if raw.get("runs") is None:
        return (), 0
    runs_raw = raw["runs"]
    _need(isinstance(runs_raw, list) and all(isinstance(r, dict) for r in runs_raw), source,
          "runs must be a list of objects")
    current = raw.get("current_run", 0)
    _need(type(current) is int, source, "current_run must be a whole number")
    out = []
    for i, r in enumerate(runs_raw, 1):
        where = f"{source} (run {i})"
        _need(isinstance(r.get("name"), str) and type(r.get("renamed", False)) is bool, where,
              "a run needs a name (text) and renamed (true or false)")
        stop = r.get("stop")
        _need(stop is None or stop in {s.value for s in StopReason}, where, f"unknown stop reason {stop!r:.30}")
        _need(isinstance(r.get("stop_text", ""), str), where, "stop_text must be text")
        for k in ("parent", "branch_step"):
            session_check.whole(r.get(k), where, k, null=True)
        if r.get("corpus") is not None:
            _need(isinstance(r["corpus"], dict), where, "corpus must be an object or null")
        corpus_raw = r.get("corpus")
        try:
            inner = _from_raw({"format": FORMAT_NAME, "version": VERSION, "corpus": corpus_raw or raw["corpus"],
                               "settings": r.get("settings"), "tokenizer": r.get("tokenizer"), "step": r.get("step"),
                               "compare": [], "layout": ""}, where, saved_by)
        except BpeError as e:
            if isinstance(e, SessionError):
                raise
            raise _wrapped(e, where) from None
        _need(inner.model is None or not inner.model.merges or bool(inner.records), where,
              "the run has merges but no records")
        out.append(RunDoc(r["name"], inner.config, inner.model, inner.records, inner.step,
                          None if stop is None else StopReason(stop), r.get("stop_text", ""), r.get("renamed", False),
                          r.get("parent"), r.get("branch_step"), None if corpus_raw is None else inner.corpus))
    session_check.lineage([r.parent for r in out], [r.branch_step for r in out], source)
    return tuple(out), current


