"""Safe file writes: a write either completes or leaves what was there before, and says why it failed.

* A path that is a symbolic link is followed: the link's *target* is replaced (the link stays a link).
* A regular file is replaced atomically: write a temporary file beside it, fsync, rename into place.  The
  replaced file keeps its permission bits; a new file gets ``0666`` minus the umask.
* A character device (``/dev/null``, ``/dev/full``...) or a FIFO is written in place, never replaced by a
  regular file; a FIFO without a reader is refused instead of blocking.  Folders, sockets and block
  devices are refused.  A missing parent folder is refused (never created behind the user's back).
* A group of files that only make sense together (GPT-2's ``encoder.json`` + ``vocab.bpe``) is written by
  :func:`write_group`: every temporary file is written and fsynced first, then all are renamed.  If a
  rename fails the files already renamed are put back from backups (hard links, or copies where links
  are not supported), so the group is all new or
  all old.  Only a crash of the machine *between* two renames (microseconds) can leave a mix.
* Every ``OSError`` (full disk, permission denied, read-only file system, quota) becomes one
  :class:`~bpe_desktop.core.errors.WriteError` naming the path and the fix; no temporary file is left.

:func:`check_writable` is the same set of checks without writing, for a command to call on its output
paths *before* a long job starts.  This module does not choose file names or formats.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator, Sequence
from typing import IO, Any

from ..errors import WriteError

_FIX = {
    errno.ENOSPC: "the disk is full -- free some space or write somewhere else",
    errno.EDQUOT: "the disk quota is exceeded -- free some space or write somewhere else",
    errno.EACCES: "permission denied -- choose a folder you can write to, or change its permissions",
    errno.EPERM: "operation not permitted -- choose a folder you can write to",
    errno.EROFS: "the file system is read-only -- write somewhere else",
    errno.ENAMETOOLONG: "the file name is too long -- choose a shorter name",
    errno.ENXIO: "the FIFO has no reader -- start the reading process first",
    errno.ENOTDIR: "a part of the path is a file, not a folder -- check the path",
}


def _fail(path: str, e: OSError) -> WriteError:
    fix = _FIX.get(e.errno or 0, f"{e.strerror or e} -- check the path and try again")
    return WriteError(f"cannot write {path}: {fix}")


def resolve_target(path: str | os.PathLike[str]) -> str:
    """The file a write to *path* must change: symbolic links followed (also dangling ones), so the
    link itself is kept.  Checks the target as :func:`check_writable` does, without writing."""
    path = os.fspath(path)
    if path == "":
        raise WriteError("no output path given -- name the file to write")
    target = os.path.realpath(path) if os.path.islink(path) else os.path.abspath(path)
    try:
        st = os.stat(target)
    except (FileNotFoundError, NotADirectoryError):
        st = None
    except OSError as e:
        raise _fail(path, e) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise WriteError(f"cannot write {path}: it is a folder -- give a file name inside it")
    if st is not None and not (stat.S_ISREG(st.st_mode) or stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
        raise WriteError(f"cannot write {path}: it is neither a regular file, a character device nor a FIFO "
                         "-- choose a file path")
    folder = os.path.dirname(target)
    if st is None and not os.path.isdir(folder):
        what = "is not a folder" if os.path.exists(folder) else "does not exist"
        raise WriteError(f"cannot write {path}: the folder {folder} {what} -- create it or choose another path")
    return target


def _in_place(target: str) -> bool:
    try:
        st = os.stat(target)
    except (FileNotFoundError, NotADirectoryError):
        return False
    return stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)


def check_writable(path: str | os.PathLike[str], *, folder: bool = False) -> None:
    """Raise :class:`WriteError` now if writing *path* later would fail for a reason known now: a folder
    (or, with *folder*, the name of an existing file, for formats that write into a folder), a missing
    parent folder, no permission, a read-only file system.  It creates and removes a probe file."""
    path = os.fspath(path)
    if folder:
        if os.path.isdir(path):
            probe_dir = path
        elif os.path.exists(path):
            raise WriteError(f"cannot write into {path}: it is a file, and this format writes a folder of "
                             "files -- name a folder (it is created if missing)")
        else:
            parent = os.path.dirname(os.path.abspath(path))
            if not os.path.isdir(parent):
                raise WriteError(f"cannot write {path}: the folder {parent} does not exist -- create it or "
                                 "choose another path")
            probe_dir = parent
    else:
        target = resolve_target(path)
        if _in_place(target):
            if not os.access(target, os.W_OK):
                raise WriteError(f"cannot write {path}: permission denied -- choose another path")
            return
        probe_dir = os.path.dirname(target)
    try:
        fd, probe = tempfile.mkstemp(prefix=".bpe-desktop-probe.", dir=probe_dir)
    except OSError as e:
        raise _fail(path, e) from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)


def _open_in_place(path: str, target: str, mode: str, encoding: str | None) -> IO:
    try:
        fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK)  # a FIFO without a reader fails (ENXIO), never blocks
        os.set_blocking(fd, True)
    except OSError as e:
        raise _fail(path, e) from None
    return _fdopen(fd, mode, encoding)


def _fdopen(fd: int, mode: str, encoding: str | None) -> IO[Any]:
    """*fd* as a file: bytes for a binary *mode*, else text in *encoding* with ``\n`` line ends."""
    if "b" in mode:
        return os.fdopen(fd, mode)
    return os.fdopen(fd, mode, encoding=encoding, newline="\n")


def _temp_for(path: str, target: str) -> tuple[int, str]:
    folder = os.path.dirname(target)
    try:
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(target) + ".", suffix=".tmp", dir=folder)
    except OSError as e:
        raise _fail(path, e) from None
    try:
        try:
            bits = stat.S_IMODE(os.stat(target).st_mode)  # keep the replaced file's permissions
        except FileNotFoundError:
            umask = os.umask(0)  # mkstemp creates 0600; a new file gets what open() would give
            os.umask(umask)
            bits = 0o666 & ~umask
        os.chmod(tmp, bits)
    except OSError as e:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise _fail(path, e) from None
    return fd, tmp


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str], mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open *path* for writing as described in the module docstring; on success the new content replaces
    the target, on error nothing changes and an ``OSError`` raised inside becomes :class:`WriteError`.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "x.txt")
    >>> with atomic_write(p) as f:
    ...     _ = f.write("hi")
    >>> open(p).read()
    'hi'
    """
    path = os.fspath(path)
    target = resolve_target(path)
    if _in_place(target):
        f = _open_in_place(path, target, mode, encoding)
        try:
            with f:
                yield f
        except OSError as e:
            raise _fail(path, e) from None
        return
    fd, tmp = _temp_for(path, target)
    try:
        with _fdopen(fd, mode, encoding) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError):
            raise _fail(path, e) from None
        raise


def write_group(files: Sequence[tuple[str | os.PathLike[str], str | bytes]]) -> None:
    """Write several files as a unit: all replaced by the new contents, or (on any error) all left as
    they were.  Contents of type ``str`` are written as UTF-8 with ``\\n`` line ends.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> write_group([(os.path.join(d, "a"), "1"), (os.path.join(d, "b"), b"2")])
    >>> sorted(os.listdir(d)), open(os.path.join(d, "b")).read()
    (['a', 'b'], '2')
    """
    names = [os.fspath(p) for p, _ in files]
    targets = [resolve_target(p) for p in names]
    if len(set(targets)) != len(targets):
        raise WriteError(f"cannot write {', '.join(names)}: two of them are the same file -- use distinct names")
    if any(_in_place(t) for t in targets):  # a device cannot take part in an all-or-nothing rename
        raise WriteError(f"cannot write {', '.join(names)} as a set: one of them is a device or FIFO "
                         "-- write the set into a folder")
    temps: list[str] = []
    backups: list[tuple[str, str]] = []  # (backup link, target) of files replaced so far
    try:
        for name, target, (_, data) in zip(names, targets, files, strict=True):
            fd, tmp = _temp_for(name, target)
            temps.append(tmp)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data.encode("utf-8") if isinstance(data, str) else data)
                    f.flush()
                    os.fsync(f.fileno())
            except OSError as e:
                raise _fail(name, e) from None
        for name, target, tmp in zip(names, targets, temps, strict=True):
            backup = _backup(target)
            try:
                os.replace(tmp, target)
            except OSError as e:
                if backup:
                    with contextlib.suppress(OSError):
                        os.unlink(backup)
                raise _fail(name, e) from None
            backups.append((backup, target))
    except BaseException:
        for tmp in temps:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        for backup, target in reversed(backups):  # put back what was already renamed
            with contextlib.suppress(OSError):
                if backup:
                    os.replace(backup, target)
                else:
                    os.unlink(target)  # it did not exist before
        raise
    for backup, _ in backups:
        if backup:
            with contextlib.suppress(OSError):
                os.unlink(backup)


def _backup(target: str) -> str:
    """A hard link to the current *target* (``""`` if there is none), to undo a group's rename."""
    if not os.path.exists(target):
        return ""
    folder, base = os.path.split(target)
    for k in range(100):
        link = os.path.join(folder, f".{base}.{os.getpid()}.{k}.old")
        try:
            os.link(target, link)
            return link
        except FileExistsError:
            continue
        except OSError:  # no hard links here (FAT, some network file systems): copy instead
            try:
                shutil.copy2(target, link)
            except OSError as e:
                with contextlib.suppress(OSError):
                    os.unlink(link)
                raise _fail(target, e) from None
            return link
    raise WriteError(f"cannot write {target}: too many stale backups .{base}.*.old in {folder} -- remove them")
