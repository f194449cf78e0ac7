"""Autosave to the user's data folder, and the crash check at start.

Each running window writes ``autosave-PID.bpesession`` in :func:`data_dir` (``QStandardPaths``'
``AppDataLocation``, or the folder named by the environment variable :data:`ENV_DIR`, which tests set)
:data:`DELAY_MS` after the first change since the last autosave, and at once when a training run
finishes.  The document is captured on the GUI thread (plain values) and hashed, serialized and written
atomically on a worker thread, so a 4 MB corpus or 8,000 merges never stall the window.  A clean close
deletes the file; a file whose process is gone is an *orphan*: the window did not close cleanly, and the
next start offers to restore it (:func:`orphans`).
It does not decide what a session holds (:mod:`.document`) nor ask the user (:mod:`.manager`).
"""

from __future__ import annotations

import glob
import os
import threading
from typing import TYPE_CHECKING

from PySide6 import QtCore

from ...core.errors import BpeError
from ...core.formats.session_file import save_session
from . import document

if TYPE_CHECKING:
    from ..main_window import MainWindow

ENV_DIR = "BPE_DESKTOP_DATA_DIR"
DELAY_MS = 3_000
PREFIX = "autosave-"
SUFFIX = ".bpesession"


def data_dir() -> str:
    """The folder for autosaves (created on demand)."""
    path = os.environ.get(ENV_DIR) or QtCore.QStandardPaths.writableLocation(
        QtCore.QStandardPaths.StandardLocation.AppDataLocation)
    os.makedirs(path, exist_ok=True)
    return path


def autosave_path(pid: int | None = None) -> str:
    return os.path.join(data_dir(), f"{PREFIX}{os.getpid() if pid is None else pid}{SUFFIX}")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def orphans() -> list[str]:
    """Autosaves left by windows that did not close cleanly (their process is gone), newest first."""
    out = []
    for path in glob.glob(os.path.join(data_dir(), f"{PREFIX}*{SUFFIX}")):
        stem = os.path.basename(path)[len(PREFIX):-len(SUFFIX)]
        if stem.isdigit() and int(stem) != os.getpid() and not _alive(int(stem)):
            out.append(path)
    return sorted(out, key=lambda p: os.path.getmtime(p), reverse=True)


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
        self.last_error = ""
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.save_now)
        self._busy = False
        self._pending = False
        self._thread: threading.Thread | None = None
        self._ever = False  # enabled at some time: only then is there a file to delete
        self.written.connect(self._done)
        self.failed.connect(self._failed)

    @property
    def path(self) -> str:
        return autosave_path()

    def enable(self, on: bool = True) -> None:
        self.enabled = on
        self._ever = self._ever or on
        if not on:
            self._timer.stop()

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
        self._busy = True
        snap = document.capture(self.window)
        path = self.path
        self._thread = threading.Thread(target=self._write, args=(snap, path), name="bpe-autosave", daemon=True)
        self._thread.start()

    def _write(self, snap: document.Snapshot, path: str) -> None:  # on the worker thread: no widgets here
        try:
            save_session(path, document.to_doc(snap, self.hashes))
        except (BpeError, OSError) as e:
            self.failed.emit(str(e))
            return
        self.written.emit(path)

    def _done(self, _path: str) -> None:
        self._busy = False
        self.saves += 1
        self.last_error = ""
        if self._pending:
            self._pending = False
            self.save_now()

    def _failed(self, message: str) -> None:
        self._busy = False
        self._pending = False
        self.last_error = message
        self.window.statusBar().showMessage(f"Autosave failed: {message}", 10_000)

    def wait(self, timeout_s: float = 30.0) -> None:
        """Block until the current write ends (closing the window)."""
        if self._thread is not None:
            self._thread.join(timeout_s)

    def discard(self) -> None:
        """The window closes cleanly: no recovery is needed."""
        self._timer.stop()
        self.enabled = False
        self.wait()
        if not self._ever:
            return
        try:
            os.remove(self.path)
        except OSError:
            pass
