"""What a session holds in the window: captured from its :class:`~..session.Session`, applied to one.

:func:`capture` takes the session's model on the GUI thread -- its runs (cheap: the merge lists are copied,
nothing hashed) and the references ticked in Compare (``Session.compare``) -- with what is the window's,
not the model's: the layout (:func:`..layouts.capture`, the one place it is read) and the extras;
:func:`to_doc` turns them into a :class:`~bpe_desktop.core.formats.session_file.SessionDoc` anywhere
(:func:`..runs.persist.to_document`; corpus files are hashed once per size and modification time, so an
autosave thread can run it); :func:`apply` puts a document's runs into the session with ``Session.load``
after asking what to do when the corpus file changed or vanished: the corpus editor and the settings
follow the run shown.  Opening is two halves: :func:`prepare` works out everything that needs no
widget (the runs validated whole, the shown run's rows) -- on the helper job for a big file -- and
:func:`apply` swaps it in.  Nothing is read from the corpus or settings panes except their drafts, which the
session keeps with their run.

Other parts of the window add their own fields with :func:`register_extra` (stored under the document's
``extras``; a part that is missing when a session is opened leaves its value alone).
It does not choose paths, autosave or ask about unsaved work (:mod:`.manager`, :mod:`.autosave`).
"""

from __future__ import annotations

import base64
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6 import QtCore, QtWidgets

from ...core.counting.sources import CorpusSource
from ...core.formats.session_file import CorpusFile, CorpusState, SessionDoc, check_corpus
from .. import layouts
from ..panes import text_facts
from ..runs.persist import from_document, snapshot, to_document
from ..stream.rows import RowSource
from ..work import Work
from . import dialogs
from .recent import RecentKind

if TYPE_CHECKING:
    from ..main_window import MainWindow
    from ..session import Session

#: the extras field holding the named layout the docks were arranged by (View → Layout)
LAYOUT_NAME = "layout_name"
#: name -> (save(window) -> JSON value, load(window, value) -> None); see :func:`register_extra`
EXTRAS: dict[str, tuple[Callable[[MainWindow], Any], Callable[[MainWindow, Any], None]]] = {}


def register_extra(name: str, save: Callable[[MainWindow], Any], load: Callable[[MainWindow, Any], None]) -> None:
    """Save ``save(window)`` (any JSON value) under *name* in every session; when a session holding *name*
    is opened, ``load(window, value)`` runs after the corpus, merges, step and layout are in place."""
    EXTRAS[name] = (save, load)


@dataclass(frozen=True)
class Snapshot:
    """A window's session as plain values (safe to hand to another thread)."""

    runs: tuple[Work, ...]  # copies (runs.persist.snapshot): training may go on meanwhile
    current: int
    opened: dict[str, str]  # files opened into the editor: path -> the text they gave (saved by reference)
    compare: tuple[str, ...]
    layout: str
    extras: dict[str, Any] = field(default_factory=dict)


def capture(w: MainWindow) -> Snapshot:
    """The window's session now: the model's (:func:`of_model`), the layout and the extras."""
    w.session.keep_drafts()  # what the editor and settings hold, not trained on yet, goes with the shown run
    layout = layouts.capture(w)
    extras = {name: save(w) for name, (save, _) in EXTRAS.items()}
    extras[LAYOUT_NAME] = layout.name
    return of_model(w.session, opened=w.sessions.opened_files, layout=layout.state, extras=extras)


def of_model(s: Session, *, opened: Mapping[str, str] | None = None, layout: str = "",
             extras: Mapping[str, Any] | None = None) -> Snapshot:
    """What *s* holds as a session saves it -- the user's runs (a run still training saved as stopped),
    which is shown, the compare references -- read from the session alone, never from a pane."""
    runs, current = s.saved_runs()
    active = current if s.state.active and not s.touring else None
    return Snapshot(snapshot(runs, active=active), current, dict(opened or {}), s.compare, layout,
                    dict(extras or {}))


def load_model(s: Session, doc: SessionDoc, works: list[Work], current: int) -> None:
    """*doc*'s model into *s*: its runs (*works*, read from it), run *current* shown, its compare references
    (the panes follow the session's signals)."""
    s.load(works[current], runs=works)
    s.set_compare(doc.compare)


class HashCache:
    """:class:`CorpusFile` descriptions by (path, size, mtime): a file is hashed once while unchanged."""

    def __init__(self) -> None:
        self._known: dict[tuple[str, int, int], CorpusFile] = {}
        self._lock = threading.Lock()

    def describe(self, path: str) -> CorpusFile:
        key = self._key(path)  # taken before reading: a file changed meanwhile is hashed again next time
        with self._lock:
            known = self._known.get(key)
        if known is None:
            known = CorpusFile.of(path)
            with self._lock:
                self._known[key] = known
        return known

    def known(self, path: str) -> CorpusFile | None:
        """*path*'s description if it was hashed while the file had its present size and time, else None
        (one ``stat``; nothing read)."""
        key = self._key(path)
        with self._lock:
            return self._known.get(key)

    @staticmethod
    def _key(path: str) -> tuple[str, int, int]:
        st = os.stat(path)
        return os.path.abspath(path), st.st_size, st.st_mtime_ns


class _NotHashed(Exception):
    """A file the document references has not been hashed yet (:func:`to_doc_if_hashed`)."""


def to_doc(snap: Snapshot, hashes: HashCache) -> SessionDoc:
    """The session document of *snap* (hashes corpus files not seen before; raises BpeError/OSError)."""
    return to_document(snap.runs, snap.current, describe=hashes.describe, opened=snap.opened,
                       compare=snap.compare, layout=snap.layout, extras=snap.extras)


def to_doc_if_hashed(snap: Snapshot, hashes: HashCache) -> SessionDoc | None:
    """:func:`to_doc` if every corpus file it references is hashed already, so no file is read; else None
    (the caller hashes them off the GUI thread)."""
    def known(path: str) -> CorpusFile:
        found = hashes.known(path)
        if found is None:
            raise _NotHashed(path)
        return found

    try:
        return to_document(snap.runs, snap.current, describe=known, opened=snap.opened, compare=snap.compare,
                           layout=snap.layout, extras=snap.extras)
    except _NotHashed:
        return None


# -- applying ------------------------------------------------------------------------------------------
def corpus_problems(doc: SessionDoc) -> list[Any]:
    return [c for c in check_corpus(doc.corpus) if c.state in (CorpusState.CHANGED, CorpusState.MISSING)]


def resolve_corpus(w: MainWindow, doc: SessionDoc, answer: Callable[..., dialogs.CorpusAnswer],
                   problems: list[Any] | None = None) -> tuple[bool, str | None]:
    """(go on?, the corpus file to show): asks *answer* when the file changed or vanished (*problems*:
    :func:`corpus_problems` of *doc* if already worked out)."""
    if not doc.corpus.files:
        return True, None
    path = doc.corpus.files[0].path
    problems = corpus_problems(doc) if problems is None else problems
    if not problems:
        return True, path
    choice = answer(w, problems)
    if choice is dialogs.CorpusAnswer.CANCEL:
        return False, None
    if choice is dialogs.CorpusAnswer.CHOOSE:
        chosen = dialogs.choose_corpus_file(w, path)
        return (True, chosen) if chosen else (False, None)
    return True, (None if any(p.state is CorpusState.MISSING for p in problems) else path)


@dataclass
class Prepared:
    """What opening *doc* works out before the window changes (:func:`prepare`): its runs and which is shown,
    the corpus files read as the editor's text (saved by reference again while unedited) and the shown run's
    token-stream rows when its corpus is text in memory (None: the stream reads them itself)."""

    works: list[Work]
    current: int
    corpus_path: str | None
    opened: dict[str, str]
    rows: RowSource | None = None


def prepare(doc: SessionDoc, corpus_path: str | None, where: str, check: Callable[[], None] = lambda: None
            ) -> Prepared:
    """Everything of opening *doc* that needs no widget, so it may run on a helper thread: the runs read and
    validated whole (a damaged document or a run's tokenizer.json gone or changed raises BpeError before
    anything is applied), then the shown run's rows split or parsed and its typed text measured for the
    editor (:mod:`..panes.text_facts`).  *corpus_path*: the file to read for its corpus file; *check* is
    called between the stages (raises to cancel)."""
    from ..panes.corpus_editor import LARGE_FILE_BYTES, corpus_of_file

    opened: dict[str, str] = {}

    def file_source(path: str, word_counts: bool) -> CorpusSource:
        src = corpus_of_file(path, word_counts)
        if src.text is not None:  # a small file read as text: saved by reference again while unedited
            opened[os.path.abspath(path)] = src.text
        return src

    works, current = from_document(doc, file_source=file_source, corpus_path=corpus_path, where=where)
    check()
    shown, rows = works[current], None
    if shown.draft is None and shown.source.text is not None:  # (a draft is the editor's: shown as edited text)
        rows = RowSource()
        rows.load(shown.source, shown.config, trained=bool(shown.records))
        check()
    typed = (shown.draft or shown.source).text
    if typed is not None and len(typed) > LARGE_FILE_BYTES:  # the editor's preview notice and title say these
        text_facts.remember(typed)
    check()
    return Prepared(works, current, corpus_path, opened, rows)


def apply(w: MainWindow, doc: SessionDoc, ready: Prepared) -> None:
    """Put *doc*'s runs as *ready* holds them (:func:`prepare`) into the session (its shown run shown, with
    its corpus, settings, merges and step), then the compare references, layout and extras.  Nothing is
    retrained, read or parsed here: only state swapped in."""
    w.timeline.set_playing(False)
    w.controller.shutdown()
    w.sessions.opened_files.update(ready.opened)
    if ready.corpus_path is not None:
        w.sessions.note_recent(RecentKind.CORPUS, ready.corpus_path)
    shown, loader = ready.works[ready.current], w.token_view.canvas.loader
    if ready.rows is not None:
        loader.offer(shown.source, shown.config, ready.rows)
    try:
        load_model(w.session, doc, ready.works, ready.current)  # (the stream reloads in it: the rows offered)
    finally:
        loader.offer(None)  # (not kept: a later reload of that run reads its rows itself)
    if doc.layout:
        restore_layout(w, doc.layout)
    if doc.extras.get(LAYOUT_NAME) in layouts.LAYOUTS:
        layouts.state(w).name = doc.extras[LAYOUT_NAME]  # View → Layout ticks it; later docks go where it says
    for name, value in doc.extras.items():
        hook = EXTRAS.get(name)
        if hook is not None:
            hook[1](w, value)


def restore_layout(w: MainWindow, state: str) -> bool:
    """Put the docks where *state* (base64 ``saveState()``) has them; ``False`` if Qt refused it.

    Qt shows the dock tab bars the restored layout uses; those of the layout it replaces are hidden first.
    A restored layout keeps its own sizes: a named layout's resize still pending for the window's first
    show (:mod:`..layouts`) would otherwise replace them when a session is opened before the window shows.
    """
    for bar in w.findChildren(QtWidgets.QTabBar):  # the dock tab bars: restoreState shows those it uses and
        if bar.parent() is w:  # leaves the others (the replaced layout's) drawn over the panes (Qt 6.10)
            bar.hide()
    if not w.restoreState(QtCore.QByteArray(base64.b64decode(state))):
        return False
    layouts.state(w).restored = True
    return True
