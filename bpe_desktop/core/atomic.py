"""Atomic file writes: write to a temporary file beside the target, fsync, then rename into place.

A crash or a full disk mid-write leaves the old file intact.  Nothing else lives here.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from typing import IO

from .errors import BpeError


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str], mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a temporary file for writing; on success it replaces *path*, on error it is removed.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "x.txt")
    >>> with atomic_write(p) as f:
    ...     _ = f.write("hi")
    >>> open(p).read()
    'hi'
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise BpeError(f"{path}: the folder {folder} does not exist -- create it or choose another path")
    kwargs = {} if "b" in mode else {"encoding": encoding, "newline": "\n"}
    try:
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=folder)
    except PermissionError:
        raise BpeError(f"{path}: cannot write in {folder} (permission denied) -- choose another folder") from None
    try:
        # mkstemp creates 0600; give the file the mode a plain open() would (0666 minus the umask)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, mode, **kwargs) as f:  # type: ignore[call-overload]
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
