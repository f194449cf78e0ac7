"""Opening files for reading only when they are what they claim: regular files, read whole only below a
size limit.

A FIFO blocks whoever opens it, a device such as ``/dev/zero`` never ends, a folder holds no text: each is
refused before a byte is read, with an error (of the caller's :class:`BpeError` class) naming the path and
the fix.  The file is opened without blocking (``O_NONBLOCK``) and what was opened is checked (``fstat``),
so a path swapped for a FIFO between a check and the read cannot hang the program either.  Standard input
(``-``) is the callers' business: they accept it only where the user named it.

Every reader of user-named paths goes through :func:`open_regular` / :func:`read_regular` (streams) or
:func:`check_regular` (a path listed before it is read).  This module parses nothing and knows no format.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from typing import BinaryIO, overload

from ..errors import BpeError

#: what a file read whole into memory may weigh unless its reader says otherwise
WHOLE_FILE_LIMIT = 1 << 30
#: a piece read at once when the reader reports progress (:func:`read_regular`'s *step*)
PIECE_BYTES = 8 << 20

_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _size(n: int) -> str:
    for unit, k in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << k:
            return f"{n / (1 << k):.1f} {unit}"
    return f"{n} bytes"


def _refusal(name: str, st: os.stat_result, what: str, limit: int | None) -> str | None:
    """Why a file with status *st* is refused (``None``: it is fine)."""
    mode = st.st_mode
    if stat.S_ISDIR(mode):
        return f"{name}: is a folder, not a {what} -- name a file inside it"
    if not stat.S_ISREG(mode):
        kind = next((k for test, k in _KINDS if test(mode)), "not a regular file")
        return (f"{name}: is {kind}, not a regular file -- a {what} must be a file on disk (pipes and devices "
                "can block or never end): save the data to a file and name that")
    if limit is not None and st.st_size > limit:
        return (f"{name}: the {what} is {_size(st.st_size)}, more than the {_size(limit)} this program reads "
                "into memory -- is it the right file?")
    return None


def _os_error(name: str, e: OSError, what: str) -> str:
    if isinstance(e, FileNotFoundError):
        return f"{name}: no such file -- check the path"
    if isinstance(e, PermissionError):
        return f"{name}: permission denied -- make the {what} readable (chmod a+r) or run as its owner"
    if isinstance(e, IsADirectoryError):
        return f"{name}: is a folder, not a {what} -- name a file inside it"
    return f"{name}: cannot read ({e.strerror or e}) -- check the path"


def check_regular(path: str | os.PathLike[str], *, error: type[BpeError] = BpeError, what: str = "file",
                  limit: int | None = None) -> int:
    """The size of *path*, or *error* if it is missing, not a regular file, or over *limit* bytes.

    Only ``stat`` is called: nothing is opened, so this never blocks.

    >>> check_regular("/dev/zero")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    bpe_desktop.core.errors.BpeError: /dev/zero: is a character device, not a regular file -- a file must be ...
    """
    name = os.fspath(path)
    try:
        st = os.stat(name)
    except (OSError, ValueError) as e:
        raise error(_os_error(name, e, what) if isinstance(e, OSError)
                    else f"{name!r}: not a usable path ({e}) -- check the path") from None
    why = _refusal(name, st, what, limit)
    if why:
        raise error(why)
    return st.st_size


def open_regular(path: str | os.PathLike[str], *, error: type[BpeError] = BpeError, what: str = "file",
                 limit: int | None = None) -> BinaryIO:
    """*path* opened for binary reading, if it is a regular file of at most *limit* bytes (else *error*).

    >>> import tempfile
    >>> with open_regular(tempfile.mkdtemp(), what="tokenizer file") as f:  # doctest: +ELLIPSIS
    ...     pass
    Traceback (most recent call last):
    bpe_desktop.core.errors.BpeError: ...: is a folder, not a tokenizer file -- name a file inside it
    """
    name = os.fspath(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(name, flags)
    except OSError as e:
        raise error(_os_error(name, e, what)) from None
    except ValueError as e:  # a NUL in the path
        raise error(f"{name!r}: not a usable path ({e}) -- check the path") from None
    try:
        why = _refusal(name, os.fstat(fd), what, limit)
        if why:
            raise error(why)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


@overload
def read_regular(path: str | os.PathLike[str], *, error: type[BpeError] = BpeError, what: str = "file",
                 limit: int = WHOLE_FILE_LIMIT, step: None = None) -> bytes: ...


@overload
def read_regular(path: str | os.PathLike[str], *, error: type[BpeError] = BpeError, what: str = "file",
                 limit: int = WHOLE_FILE_LIMIT, step: Callable[[int, int], None]) -> bytearray: ...


def read_regular(path: str | os.PathLike[str], *, error: type[BpeError] = BpeError, what: str = "file",
                 limit: int = WHOLE_FILE_LIMIT, step: Callable[[int, int], None] | None = None) -> bytes | bytearray:
    """The whole of a regular file of at most *limit* bytes (a file that grows past it while read is
    refused too: never more than ``limit + 1`` bytes are held).  With *step*, the file is read in pieces of
    :data:`PIECE_BYTES` into a ``bytearray`` and ``step(done, size)`` called after each (it may raise to
    stop the reading).

    >>> read_regular("/dev/urandom", what="session")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    bpe_desktop.core.errors.BpeError: /dev/urandom: is a character device, not a regular file -- a session ...
    """
    name = os.fspath(path)
    with open_regular(name, error=error, what=what, limit=limit) as f:
        try:
            data = f.read(limit + 1) if step is None else _read_in_pieces(f, limit, step)
        except OSError as e:
            raise error(_os_error(name, e, what)) from None
    if len(data) > limit:
        raise error(f"{name}: the {what} grew past the {_size(limit)} this program reads into memory while "
                    "it was read -- is it still being written?")
    return data


def _read_in_pieces(f: BinaryIO, limit: int, step: Callable[[int, int], None]) -> bytearray:
    """At most ``limit + 1`` bytes of *f*, read a piece at a time onto the end of one buffer (the interpreter
    lock is let go while each piece is read; appending copies only that piece -- a large buffer grows in
    place -- so no whole-file join or zero-filled allocation of the whole size holds the lock afterwards)."""
    size = os.fstat(f.fileno()).st_size
    buf = bytearray()
    while len(buf) <= limit and (part := f.read(min(PIECE_BYTES, limit + 1 - len(buf)))):
        buf += part
        step(len(buf), max(size, len(buf)))
    return buf


def read_head(path: str | os.PathLike[str], n: int, *, error: type[BpeError] = BpeError,
              what: str = "file") -> bytes:
    """The first *n* bytes of a regular file (fewer if it is shorter)."""
    name = os.fspath(path)
    with open_regular(name, error=error, what=what) as f:
        try:
            return f.read(n)
        except OSError as e:
            raise error(_os_error(name, e, what)) from None
