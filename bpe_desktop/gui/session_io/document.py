"""What a session holds in the window: captured from a :class:`MainWindow`, applied to one.

:func:`capture` takes plain values on the GUI thread (cheap: the merge list is copied, nothing hashed);
:func:`to_doc` turns them into a :class:`~bpe_desktop.core.formats.session_file.SessionDoc` anywhere (it hashes
the corpus files once per size and modification time, so an autosave thread can run it); :func:`apply`
puts a document into a window after asking what to do when the corpus file changed or vanished.

Other parts of the window add their own fields with :func:`register_extra` (stored under the document's
``extras``; a part that is missing when a session is opened leaves its value alone).
It does not choose paths, autosave or ask about unsaved work (:mod:`.manager`, :mod:`.autosave`).
"""

from __future__ import annotations

import base64
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6 import QtCore, QtWidgets

from ...core.config import TrainConfig
from ...core.errors import BpeError
from ...core.formats.session_file import CorpusFile, CorpusState, SessionCorpus, SessionDoc, check_corpus
from ...core.records import MergeRecord
from ...core.stopping import StopReason
from ...core.tokenizers.model import BPEModel
from .. import file_actions, layouts
from ..runs.persist import restore_runs, runs_document
from ..training.protocol import TrainingState
from . import dialogs

if TYPE_CHECKING:
    from ..main_window import MainWindow

#: name -> (save(window) -> JSON value, load(window, value) -> None); see :func:`register_extra`
EXTRAS: dict[str, tuple[Callable[[MainWindow], Any], Callable[[MainWindow, Any], None]]] = {}


def register_extra(name: str, save: Callable[[MainWindow], Any], load: Callable[[MainWindow, Any], None]) -> None:
    """Save ``save(window)`` (any JSON value) under *name* in every session; when a session holding *name*
    is opened, ``load(window, value)`` runs after the corpus, merges, step and layout are in place."""
    EXTRAS[name] = (save, load)


@dataclass(frozen=True)
class Snapshot:
    """A window's session as plain values (safe to hand to another thread)."""

    paths: tuple[str, ...]
    text: str | None
    word_counts: bool
    config: TrainConfig
    model: BPEModel | None
    records: tuple[MergeRecord, ...]
    step: int
    compare: tuple[str, ...]
    layout: str
    extras: dict[str, Any] = field(default_factory=dict)
    runs: dict[str, Any] = field(default_factory=dict)  # SessionDoc's runs/current_run (gui.runs.persist)


def capture(w: MainWindow) -> Snapshot:
    s = w.session
    src = w.corpus.source()
    try:
        config = w.settings.config()
    except BpeError:  # the form holds something invalid (a half-typed regex): keep the last run's settings
        config = s.config
    n = len(s.records)
    model = s.model.truncated(n) if n else None
    compare = tuple(r.spec for r in w.compare.references if r.enabled)
    lay = w.layout()
    if lay is not None:
        lay.activate()  # a layout change still pending (a named layout, resizeDocks) is fitted first
    layout = base64.b64encode(bytes(w.saveState().data())).decode("ascii")  # what is on screen
    extras = {name: save(w) for name, (save, _) in EXTRAS.items()}
    paths, text = src.paths, (src.text if not src.paths else None)
    opened = w.sessions.corpus_file
    if not paths and opened is not None and text == opened[1]:  # the opened file, unedited: by reference
        paths, text = (opened[0],), None
    runs = runs_document(w.runs.store) if len(w.runs.store.runs) > 1 else {}  # one run: the fields above
    return Snapshot(paths, text, src.word_counts, config, model, tuple(s.records), min(s.step, n), compare,
                    layout, extras, runs)


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
    if snap.paths:
        corpus = SessionCorpus(tuple(hashes.describe(p) for p in snap.paths), None, snap.word_counts)
    else:
        corpus = SessionCorpus.from_text(snap.text or "", word_counts=snap.word_counts)
    return SessionDoc(corpus, snap.config, snap.model, snap.records if snap.model else (), snap.step,
                      snap.compare, snap.layout, extras=dict(snap.extras), **snap.runs)


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
    """Put *doc* into the window: settings, corpus (*corpus_path*, the embedded text, or none), merges,
    step, compare references, layout and extras.  Nothing is retrained."""
    from ..panes.corpus_editor import CorpusError

    w.timeline.set_playing(False)
    w.controller.shutdown()
    w.settings.set_config(doc.config)
    c = doc.corpus
    if corpus_path is not None:
        try:
            w.corpus.open_file(corpus_path)
            w.sessions.corpus_opened(corpus_path)
        except CorpusError as e:
            file_actions.show_error(w, "Cannot open corpus", str(e))
            w.corpus.set_text("", name=os.path.basename(corpus_path) + " (unreadable)")
    elif c.text is not None:
        w.corpus.set_text(c.text, name="session text", word_counts=c.word_counts)
        w.sessions.corpus_file = None
    else:
        w.corpus.set_text("", name=os.path.basename(c.files[0].path) + " (missing)" if c.files else "<editor>")
    w.corpus.table_toggle.setChecked(c.word_counts)
    s = w.session
    s.set_corpus(w.corpus.source(), doc.config)
    if doc.model is not None:
        records = list(doc.records) or file_actions.records_for(doc.model)
        first = records[0] if records else None
        s.initial_symbols = first.symbols_before if first is not None and first.merged else 0
        s.reset_model(doc.model, records)
        s.set_stop(StopReason.LOADED, f"restored from {where}")
        s.set_state(TrainingState.FINISHED)
        s.set_step(doc.step)
    else:
        s.set_state(TrainingState.IDLE)
    opened = s.source if corpus_path is not None or c.text is not None else None  # as the editor has it
    # several runs: the shown one is put into the session (not retrained)
    if not restore_runs(w.runs.store, doc, opened):
        w.runs.store.reset_to_session()  # one run: the document's own fields, now in the session
    _apply_compare(w, doc.compare)
    if doc.layout:
        restore_layout(w, doc.layout)
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


def _layout_name(w: MainWindow, name: Any) -> None:
    if isinstance(name, str) and name in layouts.LAYOUTS:
        layouts.state(w).name = name  # View → Layout ticks it; docks placed later go where it puts them


register_extra("layout_name", layouts.current, _layout_name)


def _apply_compare(w: MainWindow, specs: tuple[str, ...]) -> None:
    panel = w.compare
    for ref in list(panel.references):
        if ref.spec in specs:
            continue
        if ref.removable:
            panel.remove_reference(ref.name)
        elif ref.enabled:
            panel.set_reference_enabled(ref.name, False)
    for spec in specs:
        found = next((r for r in panel.references if r.spec == spec), None)
        if found is None:
            panel.add_reference(spec)
        elif not found.enabled:
            panel.set_reference_enabled(found.name, True)
