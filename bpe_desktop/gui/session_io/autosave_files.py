"""The autosave files in the data folder and how long each lives (Qt-free).

Each window's process writes ``autosave-PID.bpesession`` and holds an exclusive lock (``flock``) on
``autosave-PID.lock`` for as long as it lives; the kernel drops the lock when the process ends, however it
ends (``kill -9`` included), so a lock that can be taken means its owner is gone even if the PID was
reused since.  (Without ``fcntl``, or for a file without a lock file, the PID is asked instead.)

* :func:`folder_problem` says why the data folder cannot hold autosaves (a file, under a file, read-only)
  -- the window then starts with autosave off and says why.
* :func:`orphans` lists the autosaves whose owner is gone, newest first, each with its time and corpus.
* :func:`claim` takes an orphan's lock before it is restored, so a second window starting at the same
  time does not offer it too, and a crash of the restoring window gives it back (the lock drops).
* :func:`retire` deletes an autosave.  The caller does so only once its content is safe elsewhere -- in a
  newer autosave or a saved session -- or the user said to discard it; restoring alone never deletes one.
* :func:`clean_stale` removes what a killed writer left: ``.autosave-PID.bpesession.*.tmp`` (an atomic
  write cut short) and lock files without an autosave, when their owner is gone -- never a live process's.

It does not write sessions (:mod:`.autosave`), ask the user (:mod:`.manager`) or know about widgets.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import os
import re
import tempfile
import time
from dataclasses import dataclass

try:
    import fcntl
except ImportError:  # not on Windows: the PID is asked instead
    fcntl = None  # type: ignore[assignment]

from ...core.errors import BpeError
from ...core.formats.session_file import load_session
from ..runs.persist import shown_extension
from ..wording import plural

PREFIX = "autosave-"
SUFFIX = ".bpesession"
LOCK = ".lock"
_TEMP = re.compile(r"^\.autosave-(\d+)\.bpesession\..*\.tmp$")  # core/io/atomic.py's temporary name
_held: dict[str, int] = {}  # lock path -> open descriptor holding its lock (this process)


def autosave_path(folder: str, pid: int) -> str:
    return os.path.join(folder, f"{PREFIX}{pid}{SUFFIX}")


def lock_path(folder: str, pid: int) -> str:
    return os.path.join(folder, f"{PREFIX}{pid}{LOCK}")


def folder_problem(folder: str) -> str | None:
    """Create *folder* if needed; ``None`` if autosaves can be written there, else why not (a sentence)."""
    fix = "choose another folder with the environment variable BPE_DESKTOP_DATA_DIR"
    if os.path.exists(folder) and not os.path.isdir(folder):
        return f"the data folder {folder} is a file, not a folder -- move the file away, or {fix}"
    try:
        os.makedirs(folder, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".bpe-desktop-probe.", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        if e.errno == errno.ENOTDIR or isinstance(e, (FileExistsError, NotADirectoryError)):
            return f"a part of the data folder's path {folder} is a file, not a folder -- {fix}"
        if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return f"the data folder {folder} cannot be written ({e.strerror}) -- change its permissions, or {fix}"
        return f"the data folder {folder} cannot be used ({e.strerror or e}) -- {fix}"
    return None


# -- owners -------------------------------------------------------------------------------------------
def claim(path: str) -> bool:
    """Take the lock file *path* for this process (True), or False if a live process holds it.  A lock this
    process holds already counts as taken."""
    if path in _held:
        return True
    if fcntl is None:
        return True
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return False
    _held[path] = fd
    return True


def release(path: str, *, remove: bool = False) -> None:
    """Give up the lock *path* (and delete the lock file with *remove*)."""
    fd = _held.pop(path, None)
    if remove:
        with contextlib.suppress(OSError):
            os.unlink(path)
    if fd is not None:
        os.close(fd)


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def owner_alive(folder: str, pid: int) -> bool:
    """Whether the process that wrote ``autosave-PID`` (or restored it since) still lives."""
    lock = lock_path(folder, pid)
    if lock in _held:
        return True
    if fcntl is None or not os.path.exists(lock):
        return _pid_alive(pid)
    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:
        return _pid_alive(pid)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True  # held: its owner lives
    finally:
        os.close(fd)  # closing drops a lock taken just now
    return False


# -- orphans ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Orphan:
    """An autosave whose window is gone: where it is, whose it was, when it was written, and one line."""

    path: str
    pid: int
    mtime: float
    description: str

    @property
    def lock(self) -> str:
        return lock_path(os.path.dirname(self.path), self.pid)


def orphans(folder: str) -> list[Orphan]:
    """The autosaves in *folder* whose owner is gone, newest first (none if the folder is unusable)."""
    out = []
    for path in glob.glob(os.path.join(glob.escape(folder), f"{PREFIX}*{SUFFIX}")):
        stem = os.path.basename(path)[len(PREFIX):-len(SUFFIX)]
        if not stem.isdigit() or owner_alive(folder, int(stem)):
            continue
        try:
            mtime = os.path.getmtime(path)
        except OSError:
            continue  # gone meanwhile (retired by another window)
        out.append(Orphan(path, int(stem), mtime, describe(path, mtime)))
    return sorted(out, key=lambda o: o.mtime, reverse=True)


def describe(path: str, mtime: float) -> str:
    """One line about an autosave: when, how many merges, which corpus, which step."""
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(mtime))
    try:
        doc = load_session(path)
    except BpeError as e:
        return f"saved {when}: {shown(path)} cannot be read ({shown(str(e))})"
    corpus = shown(doc.corpus.files[0].path) if doc.corpus.files else "typed text"
    ext = shown_extension(doc)
    if ext is not None:  # (its merges and step as its timeline counts them: from the original, "step 0 = cl100k")
        label, added, step = ext
        label = " ".join(shown(label).splitlines())  # (a file's name: one line in the list)
        return f"saved {when}: {label} + {plural(added, 'new merge')} on {corpus}, at step {step:,}"
    merges = len(doc.model.merges) if doc.model is not None else 0
    return f"saved {when}: {merges:,} merges on {corpus}, at step {doc.step:,}"


def shown(text: str) -> str:
    """*text* as it can be displayed: a file name's bytes that are not UTF-8 become U+FFFD."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def retire(path: str) -> bool:
    """Delete the autosave *path* and its lock file (True if the autosave is gone now)."""
    with contextlib.suppress(OSError):
        os.unlink(path)
    stem = os.path.basename(path)[len(PREFIX):-len(SUFFIX)]
    if stem.isdigit():
        release(lock_path(os.path.dirname(path), int(stem)), remove=True)
    return not os.path.exists(path)


def clean_stale(folder: str) -> list[str]:
    """Remove temporaries and lock files left by autosave writers that are gone; returns what was removed."""
    removed: list[str] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        path = os.path.join(folder, name)
        m = _TEMP.match(name)
        if m and not owner_alive(folder, int(m.group(1))):
            with contextlib.suppress(OSError):
                os.unlink(path)
                removed.append(path)
        elif name.startswith(PREFIX) and name.endswith(LOCK):
            stem = name[len(PREFIX):-len(LOCK)]
            if (stem.isdigit() and not os.path.exists(autosave_path(folder, int(stem)))
                    and not owner_alive(folder, int(stem))):
                with contextlib.suppress(OSError):
                    os.unlink(path)
                    removed.append(path)
    return removed
