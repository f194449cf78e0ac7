"""What a session holds in the window: captured from its :class:`~..session.Session`, applied to one.

:func:`capture` takes the session's model on the GUI thread -- its runs (cheap: the merge lists are copied,
nothing hashed) and the references ticked in Compare (``Session.compare``) -- with what is the window's,
not the model's: the layout (:func:`..layouts.capture`, the one place it is read) and the extras;
:func:`to_doc` turns them into a :class:`~bpe_desktop.core.formats.session_file.SessionDoc` anywhere
(:func:`..runs.persist.to_document`; corpus files are hashed once per size and modification time, so an
autosave thread can run it); :func:`apply` puts a document's runs into the session with ``Session.load``
after asking what to do when the corpus file changed or vanished: the corpus editor and the settings
follow the run shown.  Nothing is read from the corpus or settings panes except their drafts, which the
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
from ..modal_job import Progress, run_modal
from ..runs.persist import EXTENSIONS, from_document, snapshot, to_document
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
        st = os.stat(path)
        key = (os.path.abspath(path), st.st_size, st.st_mtime_ns)
        with self._lock:
            known = self._known.get(key)
        if known is None:
            known = CorpusFile.of(path)
            with self._lock:
                self._known[key] = known
        return known


def to_doc(snap: Snapshot, hashes: HashCache) -> SessionDoc:
    """The session document of *snap* (hashes corpus files not seen before; raises BpeError/OSError)."""
    return to_document(snap.runs, snap.current, describe=hashes.describe, opened=snap.opened,
                       compare=snap.compare, layout=snap.layout, extras=snap.extras)


# -- applying ------------------------------------------------------------------------------------------
def corpus_problems(doc: SessionDoc) -> list[Any]:
    return [c for c in check_corpus(doc.corpus) if c.state in (CorpusState.CHANGED, CorpusState.MISSING)]


def resolve_corpus(w: MainWindow, doc: SessionDoc, answer: Callable[..., dialogs.CorpusAnswer]
                   ) -> tuple[bool, str | None]:
    """(go on?, the corpus file to show): asks *answer* when the file changed or vanished."""
    if not doc.corpus.files:
        return True, None
    path = doc.corpus.files[0].path
    problems = corpus_problems(doc)
    if not problems:
        return True, path
    choice = answer(w, problems)
    if choice is dialogs.CorpusAnswer.CANCEL:
        return False, None
    if choice is dialogs.CorpusAnswer.CHOOSE:
        chosen = dialogs.choose_corpus_file(w, path)
        return (True, chosen) if chosen else (False, None)
    return True, (None if any(p.state is CorpusState.MISSING for p in problems) else path)


def apply(w: MainWindow, doc: SessionDoc, corpus_path: str | None, where: str) -> None:
    """Put *doc*'s runs into the session (its shown run shown, with its corpus, settings, merges and step;
    *corpus_path*: the file to read for its corpus file), then the compare references, layout and extras.
    Nothing is retrained.  A damaged document (BpeError) changes nothing; a document holding extension runs is
    read on a helper thread behind a progress dialog (their originals are read again)."""
    from ..panes.corpus_editor import corpus_of_file

    opened: dict[str, str] = {}

    def file_source(path: str, word_counts: bool) -> CorpusSource:
        src = corpus_of_file(path, word_counts)
        if src.text is not None:  # a small file read as text: saved by reference again while unedited
            opened[os.path.abspath(path)] = src.text
        return src

    def read(progress: Progress) -> tuple[list[Work], int]:
        return from_document(doc, file_source=file_source, corpus_path=corpus_path, where=where)

    if doc.extras.get(EXTENSIONS):  # (reading the tokenizers extension runs extend: cl100k's merges take seconds)
        works, current = run_modal(w, "Reading the tokenizers the runs extend", read)
    else:
        works, current = read(Progress())
    w.timeline.set_playing(False)
    w.controller.shutdown()
    w.sessions.opened_files.update(opened)
    if corpus_path is not None:
        w.sessions.note_recent(RecentKind.CORPUS, corpus_path)
    load_model(w.session, doc, works, current)
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
