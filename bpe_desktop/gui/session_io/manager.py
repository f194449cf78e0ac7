"""One :class:`SessionManager` per window: File → Save session / Save session as / Open session / Recent,
the modified marker in the title, the ask-before-losing prompt, autosave and the restore offer.

Off by default so scripted windows (tests, benchmarks, screenshots) never block on a question:
``window.sessions.enable(autosave=True, ask=True)`` (what ``bpe-desktop`` does) turns on autosave and the
Save / Discard / Cancel prompt before quitting, opening another corpus or session, or retraining over
unsaved merges.  With :attr:`SessionManager.interactive` False the questions get fixed answers (open a
changed corpus with the saved merges, report on stderr).  It does not train or draw anything.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6 import QtCore, QtGui, QtWidgets

from ...core.errors import BpeError
from ...core.formats.session_file import CorpusCheck, SessionDoc, load_session, save_session
from .. import file_actions
from ..modal_job import Cancelled, Progress, run_modal
from ..runs.persist import EXTENSIONS
from ..training.protocol import TrainingState
from ..work import Replacing, what_would_be_lost
from . import autosave, autosave_files, dialogs, document, recent
from .recent import RecentKind

if TYPE_CHECKING:
    from ..main_window import MainWindow

UNTITLED = "bpe-desktop — watch BPE learn a tokenizer"
#: a session file bigger than this (a large typed corpus) is read behind a progress dialog
BACKGROUND_BYTES = 16 << 20


def _big(path: str) -> bool:
    """Whether *path* is a session file read, validated and prepared on a helper thread."""
    try:
        return os.path.getsize(path) > BACKGROUND_BYTES
    except OSError:
        return False  # load_session says why


class SessionManager(QtCore.QObject):
    """Signals: ``saved(str path)``, ``opened(str path)``, ``modifiedChanged(bool)``."""

    saved = QtCore.Signal(str)
    opened = QtCore.Signal(str)
    modifiedChanged = QtCore.Signal(bool)

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.w = window
        self.path: str | None = None  # the session file, once saved or opened
        # the files small corpora were opened from and the text each gave the editor: a run's corpus that is
        # exactly that text is saved by reference
        self.opened_files: dict[str, str] = {}
        self.modified = False
        self.ask_before_discarding = False
        self.interactive = True
        self.hashes = document.HashCache()
        self.autosaver = autosave.Autosaver(window, self.hashes)
        self._quiet = 0  # > 0 while a session is being applied: its own changes do not count
        s = window.session
        for sig in (s.corpusChanged, window.settings.changed, window.corpus.edited, s.runsChanged):
            sig.connect(self.mark_modified)
        s.recordsAppended.connect(self.mark_modified)
        for sig in (s.modelReset, s.stepChanged):  # the base alphabet previewed for untrained text is no work
            sig.connect(lambda *_: None if s.preview_base else self.mark_modified())
        s.trainingStateChanged.connect(self._state_changed)
        self._update_title()

    # -- state --------------------------------------------------------------------------------------
    def enable(self, *, autosave: bool = True, ask: bool = True) -> None:
        self.autosaver.enable(autosave)
        self.ask_before_discarding = ask

    def mark_modified(self, *_: object) -> None:
        if self._quiet or self.w.session.touring:  # the tour's own work is not the user's
            return
        self.autosaver.changed()
        if not self.modified:
            self.modified = True
            self._update_title()
            self.modifiedChanged.emit(True)

    def mark_clean(self, path: str | None = None) -> None:
        if path is not None:
            self.path = path
        if self.modified:
            self.modified = False
            self.modifiedChanged.emit(False)
        self._update_title()

    def _update_title(self) -> None:
        if self.path:
            self.w.setWindowTitle(f"{os.path.basename(self.path)}[*] — bpe-desktop")
        else:
            self.w.setWindowTitle(f"{UNTITLED}[*]")
        self.w.setWindowModified(self.modified)

    def _state_changed(self, state: object) -> None:
        if state is TrainingState.FINISHED and not self._quiet:
            self.autosaver.soon()

    @property
    def unsaved_work(self) -> bool:
        """Merges that would be lost: modified since the last save and holding a trained or opened run."""
        return self.modified and any(r.holds_work for r in self.w.session.saved_runs()[0])

    # -- menus --------------------------------------------------------------------------------------
    def fill_file_menu(self, menu: QtWidgets.QMenu) -> None:
        """Add Open session…, Recent, Save session, Save session as… to *menu* (at its end)."""
        def act(text: str, slot: object, key: str) -> QtGui.QAction:
            a = QtGui.QAction(text, self.w)
            a.setShortcut(QtGui.QKeySequence(key))
            a.triggered.connect(slot)
            menu.addAction(a)
            return a

        self.open_action = act("Open session…", lambda: self.open_session(), "Ctrl+Alt+O")
        self.recent_menu = menu.addMenu("Recent")
        self.recent_menu.setObjectName("recentMenu")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.save_action = act("Save session", lambda: self.save(), "Ctrl+Alt+S")
        self.save_as_action = act("Save session as…", lambda: self.save_as(), "Ctrl+Alt+Shift+S")

    def _fill_recent(self) -> None:
        m = self.recent_menu
        m.clear()
        any_entry = False
        for kind in RecentKind:
            items = recent.entries(kind)
            if not items:
                continue
            m.addSection(kind.title)
            for path in items:
                a = m.addAction(os.path.basename(path) or path)
                a.setToolTip(path)
                a.triggered.connect(lambda _=False, k=kind, p=path: self.open_recent(k, p))
                any_entry = True
        if not any_entry:
            m.addAction("(nothing opened yet)").setEnabled(False)

    def note_recent(self, kind: RecentKind, path: str) -> None:
        recent.add(kind, path)

    def corpus_opened(self, path: str) -> None:
        """A corpus file was opened into the editor: remember it (Recent, and a session references it)."""
        recent.add(RecentKind.CORPUS, path)
        c = self.w.corpus
        if c.path is None:
            self.opened_files[os.path.abspath(path)] = c.text()
        threading.Thread(target=self._prehash, args=(path,), name="bpe-corpus-hash", daemon=True).start()

    def _prehash(self, path: str) -> None:  # a worker thread: Save session then finds the hash ready
        try:
            self.hashes.describe(path)
        except (BpeError, OSError):
            pass  # Save reports it

    def open_recent(self, kind: RecentKind, path: str) -> bool:
        """Open a Recent entry; a missing file is removed from the list with a message."""
        if not recent.exists(path):
            recent.remove(kind, path)
            file_actions.show_error(self.w, "File not found", f"{path} no longer exists -- it was removed from "
                                    "File → Recent")
            return False
        if kind is RecentKind.SESSION:
            return self.open_session(path)
        if kind is RecentKind.CORPUS:
            self.w.open_corpus(path)
        else:
            self.w.open_tokenizer(path)
        return True

    # -- saving -------------------------------------------------------------------------------------
    def save(self) -> bool:
        return self.save_to(self.path) if self.path else self.save_as()

    def save_as(self, path: str | None = None) -> bool:
        if path is None:
            path = dialogs.choose_session_to_save(self.w, self.path or "session.bpesession")
            if not path:
                return False
        return self.save_to(path)

    def save_to(self, path: str) -> bool:
        """Write the session to *path*; a write error is a dialog with the core's message (nothing lost).  A
        corpus file not hashed yet (a big one saved the moment it was opened) is hashed on a helper thread
        behind the modal progress dialog, so the window stays painted and nothing changes meanwhile."""
        try:
            snap = document.capture(self.w)
            doc = document.to_doc_if_hashed(snap, self.hashes)
            if doc is None:
                def job(p: Progress) -> SessionDoc:
                    whole = document.to_doc(snap, self.hashes)
                    p.check()  # Cancel pressed while the files were read: nothing is written
                    return whole

                doc = run_modal(self.w, "Saving session: reading its corpus files", job)
            save_session(path, doc)
        except Cancelled:
            return False
        except (BpeError, OSError) as e:
            file_actions.show_error(self.w, "Cannot save session", str(e))
            return False
        self.mark_clean(os.path.abspath(path))
        recent.add(RecentKind.SESSION, path)
        self.autosaver.saved_elsewhere()  # a restored autosave's content is in this file now
        shown = autosave_files.shown(path)
        if self.autosaver.last_error or self.autosaver.off_reason:
            why = self.autosaver.last_error or self.autosaver.off_reason
            self.w.statusBar().showMessage(f"Session saved to {shown}; autosave is not working: {why}")
        else:
            self.w.statusBar().showMessage(f"Session saved to {shown}", 5_000)
        self.saved.emit(path)
        return True

    # -- opening ------------------------------------------------------------------------------------
    def open_session(self, path: str | None = None, *, recovered: bool = False) -> bool:
        """Open a session file (asks first about unsaved work); refused files change nothing."""
        if path is None:
            if not self.may_discard("open another session"):
                return False
            path = dialogs.choose_session_to_open(self.w)
            if not path:
                return False
        elif not recovered and not self.may_discard("open another session"):
            return False
        where = os.path.basename(path)
        try:
            doc, problems, ready = self._read(path, where)
        except Cancelled:
            return False
        except BpeError as e:
            file_actions.show_error(self.w, "Cannot open session", str(e))
            return False
        if ready is None:
            go, corpus_path = document.resolve_corpus(self.w, doc, self._ask_corpus, problems)
            if not go:
                return False
            try:  # the runs read and validated whole before anything changes (a run's tokenizer.json gone...)
                ready = self._prepare(doc, corpus_path, where, path)
            except Cancelled:
                return False
            except BpeError as e:
                file_actions.show_error(self.w, "Cannot open session", str(e))
                return False
        self._quiet += 1
        try:
            document.apply(self.w, doc, ready)
        finally:
            QtCore.QTimer.singleShot(0, self._unquiet)  # the editor's deferred signals belong to the opening
        if recovered:  # restored work is not saved anywhere yet
            self.path = None
            self.modified = True
            self._update_title()
            self.autosaver.changed()
            self.modifiedChanged.emit(True)
        else:
            self.mark_clean(os.path.abspath(path))
            recent.add(RecentKind.SESSION, path)
        self.opened.emit(path)
        return True

    def _read(self, path: str, where: str
              ) -> tuple[SessionDoc, list[CorpusCheck] | None, document.Prepared | None]:
        """The validated document of *path*, its corpus files' problems and, when there are none, the
        prepared runs (:func:`.document.prepare`): for a big file all on a helper thread behind a progress
        dialog with Cancel (:mod:`..modal_job`), for a small one here (its prepared runs: None, made later)."""
        if not _big(path):
            return load_session(path), None, None  # (the problems: worked out by resolve_corpus, here)

        def job(p: Progress) -> tuple[SessionDoc, list[CorpusCheck] | None, document.Prepared | None]:
            doc = load_session(path, p.step)
            p.stage = "Checking the corpus files"
            problems = document.corpus_problems(doc)
            if problems:
                return doc, problems, None  # the user is asked first
            p.stage = "Reading the runs"
            path0 = doc.corpus.files[0].path if doc.corpus.files else None
            return doc, problems, document.prepare(doc, path0, where, p.check)

        return run_modal(self.w, "Opening session", job)

    def _prepare(self, doc: SessionDoc, corpus_path: str | None, where: str, path: str) -> document.Prepared:
        extends = bool(doc.extras.get(EXTENSIONS))  # (reading the tokenizers extension runs extend takes seconds)
        if not _big(path) and not extends:
            return document.prepare(doc, corpus_path, where)
        title = "Reading the tokenizers the runs extend" if extends else "Opening session"
        return run_modal(self.w, title, lambda p: document.prepare(doc, corpus_path, where, p.check))

    def _unquiet(self) -> None:
        self._quiet = max(0, self._quiet - 1)

    def _ask_corpus(self, parent: QtWidgets.QWidget, problems: Sequence[CorpusCheck]) -> dialogs.CorpusAnswer:
        if self.interactive:
            return dialogs.ask_corpus(parent, problems)
        for p in problems:
            sys.stderr.write(f"bpe-desktop: warning: {p.message}; opened with the saved merges\n")
        return dialogs.CorpusAnswer.OPEN_ANYWAY

    # -- not losing work ----------------------------------------------------------------------------
    def may_discard(self, action: str, replacing: Replacing = "session") -> bool:
        """Before *action* replaces the editor's corpus (*replacing* ``"corpus"``) or the whole session: when
        that would lose work (:func:`..work.what_would_be_lost`) ask Save / Discard / Cancel, saying what
        (True: go on).  Runs are never lost by a new corpus: they stay in the Runs list."""
        if not self.ask_before_discarding:
            return True
        runs, _ = self.w.session.saved_runs()
        lost = what_would_be_lost(replacing, runs, typed=self.w.corpus.typed_source(), unsaved=self.modified)
        if not lost:
            return True
        answer = (dialogs.ask_unsaved(self.w, action, lost) if self.interactive
                  else dialogs.UnsavedAnswer.DISCARD)
        if answer is dialogs.UnsavedAnswer.SAVE:
            return self.save()
        return answer is dialogs.UnsavedAnswer.DISCARD

    def closing(self) -> None:
        """The window closes cleanly: its autosave is not needed for recovery."""
        self.autosaver.discard()

    def offer_recovery(self, answer: dialogs.RestoreAnswer | None = None) -> bool:
        """After a crash: offer every orphaned autosave, newest first, with its time and corpus (*answer*
        given: no question, the newest).  A restored one is deleted only once its content is autosaved
        again or saved (:meth:`.autosave.Autosaver.adopt`); Discard deletes the one chosen; the others
        stay for the next start."""
        found = autosave.orphans()
        if not found:
            return False
        index = 0
        if answer is None:
            answer, index = dialogs.ask_restore(self.w, [o.description for o in found])
        if answer is dialogs.RestoreAnswer.LATER or not 0 <= index < len(found):
            return False
        chosen = found[index]
        if not autosave_files.claim(chosen.lock):  # another window restored it meanwhile
            return False
        if answer is dialogs.RestoreAnswer.DISCARD:
            autosave_files.retire(chosen.path)
            return False
        if not self.open_session(chosen.path, recovered=True):
            autosave_files.release(chosen.lock)
            return False
        self.autosaver.adopt(chosen)
        return True
