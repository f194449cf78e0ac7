"""Autosave to the user's data folder, and the crash check at start.

Each running window writes ``autosave-PID.bpesession`` in :func:`data_dir` (``QStandardPaths``'
``AppDataLocation``, or the folder named by the environment variable :data:`ENV_DIR`, which tests set)
:data:`DELAY_MS` after the first change since the last autosave, and at once when a training run
finishes.  The document is captured on the GUI thread (plain values) and hashed, serialized and written
atomically on a worker thread, so a 4 MB corpus or 8,000 merges never stall the window.  A clean close
deletes the file; a file whose process is gone is an *orphan*: the window did not close cleanly, and the
next start offers to restore it (:func:`orphans`; which files live how long: :mod:`.autosave_files`).

An orphan that was restored (:meth:`Autosaver.adopt`) is deleted only once its content is in this
window's next autosave or in a saved session; until then a crash of this window still leaves it.  A data
folder that cannot hold autosaves (a file, under a file, read-only) leaves autosave off, and the status
bar says why; a failed write (any exception, not only a full disk) is shown there too and at the next
Save session, and the next change tries again: the autosave thread never ends silently.
It does not decide what a session holds (:mod:`.document`) nor ask the user (:mod:`.manager`).
"""

from __future__ import annotations

import os
import sys
import threading
import traceback
from typing import TYPE_CHECKING

from PySide6 import QtCore, QtWidgets

from ...core.errors import BpeError
from ...core.formats.session_file import save_session
from . import autosave_files, document
from .autosave_files import PREFIX, SUFFIX, Orphan  # noqa: F401 (the names tests and callers use)

if TYPE_CHECKING:
    from ..main_window import MainWindow

ENV_DIR = "BPE_DESKTOP_DATA_DIR"
DELAY_MS = 3_000
_live: set[Autosaver] = set()  # enabled autosavers of this process: the last one to close drops the lock file


def data_dir() -> str:
    """The folder for autosaves (not created here: :func:`autosave_files.folder_problem` does that)."""
    return os.environ.get(ENV_DIR) or QtCore.QStandardPaths.writableLocation(
        QtCore.QStandardPaths.StandardLocation.AppDataLocation)


def autosave_path(pid: int | None = None) -> str:
    return autosave_files.autosave_path(data_dir(), os.getpid() if pid is None else pid)


def orphans() -> list[Orphan]:
    """Autosaves left by windows that did not close cleanly (their process is gone), newest first."""
    return autosave_files.orphans(data_dir())


class Autosaver(QtCore.QObject):
    """Autosaves one window (off until :meth:`enable`).  Signals: ``written(str path)``, ``failed(str)``."""

    written = QtCore.Signal(str)
    failed = QtCore.Signal(str)

    def __init__(self, window: MainWindow, hashes: document.HashCache) -> None:
        super().__init__(window)
        self.window = window
        self.hashes = hashes
        self.enabled = False
        self.saves = 0  # autosaves written (tests)
        self.last_error = ""  # why the last autosave failed ("" after a success)
        self.off_reason = ""  # why autosave could not be turned on
        self.adopted: list[Orphan] = []  # restored orphans kept until their content is saved again
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.save_now)
        self._busy = False
        self._pending = False
        self._thread: threading.Thread | None = None
        self._ever = False  # enabled at some time: only then is there a file to delete
        self._writing: list[Orphan] = []  # the adopted orphans whose content the write under way holds
        self._label: QtWidgets.QLabel | None = None  # in the status bar while autosave is off or failing
        self.written.connect(self._done)
        self.failed.connect(self._failed)

    @property
    def path(self) -> str:
        return autosave_path()

    def enable(self, on: bool = True) -> None:
        if on:
            folder = data_dir()
            problem = autosave_files.folder_problem(folder)
            if problem is None and not autosave_files.claim(autosave_files.lock_path(folder, os.getpid())):
                problem = f"another process holds {autosave_files.lock_path(folder, os.getpid())}"
            if problem is not None:
                self.off_reason = problem
                self._show("Autosave is off", f"Autosave is off: {problem}")
                on = False
            else:
                self.off_reason = ""
                autosave_files.clean_stale(folder)
                self._show("", "")
        self.enabled = on
        self._ever = self._ever or on
        if on:
            _live.add(self)
        else:
            self._timer.stop()

    def adopt(self, orphan: Orphan) -> None:
        """*orphan* was restored into the window: delete it once its content is autosaved or saved."""
        self.adopted.append(orphan)
        self.changed()

    def saved_elsewhere(self) -> None:
        """The window's content was saved to a session file: restored orphans are safe now."""
        self._retire(list(self.adopted))

    def changed(self) -> None:
        """Something changed: autosave within :data:`DELAY_MS` (a run of changes saves every few seconds)."""
        if self.enabled and not self._timer.isActive():
            self._timer.start(DELAY_MS)

    def soon(self) -> None:
        """Autosave as soon as the event loop runs (a training run finished)."""
        if self.enabled:
            self._timer.start(0)

    def save_now(self) -> None:
        if not self.enabled:
            return
        if self._busy:  # one write at a time: the change is saved right after
            self._pending = True
            return
        try:
            snap = document.capture(self.window)
        except Exception as e:  # never lose autosave for good over one bad capture: say so, try next change
            self._failed(_unexpected(e))
            return
        self._busy = True
        self._writing = list(self.adopted)  # captured after they were restored: this write holds them
        path = self.path
        self._thread = threading.Thread(target=self._write, args=(snap, path), name="bpe-autosave", daemon=True)
        self._thread.start()

    def _write(self, snap: document.Snapshot, path: str) -> None:  # on the worker thread: no widgets here
        try:
            save_session(path, document.to_doc(snap, self.hashes))
        except (BpeError, OSError) as e:
            self.failed.emit(str(e))
            return
        except Exception as e:  # a bug must not end autosaving silently
            self.failed.emit(_unexpected(e))
            return
        self.written.emit(path)

    def _done(self, _path: str) -> None:
        self._busy = False
        self.saves += 1
        if self.last_error:
            self.last_error = ""
            self._show("", "Autosave works again")
        self._retire(self._writing)
        self._writing = []
        if self._pending:
            self._pending = False
            self.save_now()

    def _failed(self, message: str) -> None:
        self._busy = False
        self._pending = False
        self._writing = []
        self.last_error = message
        self._show("Autosave failed", f"Autosave failed: {message} -- your work is not autosaved; use File → "
                   "Save session")

    def _retire(self, orphans: list[Orphan]) -> None:
        for o in orphans:
            if o in self.adopted:
                self.adopted.remove(o)
                autosave_files.retire(o.path)

    @property
    def label(self) -> QtWidgets.QLabel:
        """"Autosave is off" / "Autosave failed" in the status bar (made on first use: the window sets its
        status bar after the session manager is made)."""
        if self._label is None:
            self._label = QtWidgets.QLabel(self.window)
            self._label.setObjectName("autosaveStatus")
            self.window.statusBar().addPermanentWidget(self._label)
        return self._label

    def _show(self, short: str, sentence: str) -> None:
        if not short and self._label is None:
            return
        self.label.setText(short)
        self.label.setToolTip(sentence)
        self.label.setVisible(bool(short))
        if sentence:
            self.window.statusBar().showMessage(sentence, 0 if short else 5_000)

    def wait(self, timeout_s: float = 30.0) -> None:
        """Block until the current write ends (closing the window)."""
        if self._thread is not None:
            self._thread.join(timeout_s)

    def discard(self) -> None:
        """The window closes cleanly: no recovery is needed.  Restored orphans not yet saved again stay."""
        self._timer.stop()
        self.enabled = False
        self.wait()
        for o in self.adopted:
            autosave_files.release(o.lock)
        self.adopted = []
        if not self._ever:
            return
        try:
            os.remove(self.path)
        except OSError:
            pass
        _live.discard(self)
        if not _live:  # no other window of this process autosaves: nothing is left to recover
            autosave_files.release(autosave_files.lock_path(data_dir(), os.getpid()), remove=True)


def _unexpected(e: Exception) -> str:
    traceback.print_exception(e, file=sys.stderr)
    return f"internal error ({type(e).__name__}: {str(e)[:200]}) -- please report it"
