"""Corpus inputs: expand what the user named into readable inputs, and stream each in chunks of whole lines.

An input is a file, a folder (its files, recursively, in sorted order, optionally filtered by a glob such
as ``*.txt`` matched against the name or the path below the folder), a ``.gz``/``.bz2``/``.xz`` file
(decompressed as it is read), or ``-`` for standard input.  Anything else -- a FIFO, a device such as
``/dev/zero`` -- is refused before it is opened (:mod:`..io.reading`).  Chunks end on line boundaries, so a chunk
never cuts a line (except a line longer than :data:`MAX_LINE_BYTES`, cut at a UTF-8 character boundary).

Plain files can also be read by byte ranges that start on line boundaries (:func:`next_line_start`), which
is how :mod:`.parallel_count` hands one large file to several processes.  This module does not decode
or count text (see :mod:`.corpus`).
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import sys
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import IO

from ..errors import CorpusError
from ..io.reading import check_regular, open_regular

STDIN = "-"
CHUNK_BYTES = 1 << 20
MAX_LINE_BYTES = 16 * CHUNK_BYTES
COMPRESSED = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}


@dataclass(frozen=True)
class Input:
    """One readable input: a path (or ``-``) and its size on disk (compressed size; 0 for stdin)."""

    name: str
    size: int

    @property
    def compression(self) -> str:
        """``.gz``, ``.bz2``, ``.xz``, or "" for an uncompressed input."""
        ext = os.path.splitext(self.name)[1].lower() if self.name != STDIN else ""
        return ext if ext in COMPRESSED else ""

    @property
    def is_plain(self) -> bool:
        """A regular uncompressed file: it can be split into byte ranges."""
        return self.name != STDIN and not self.compression and os.path.isfile(self.name)


def _matches(rel: str, glob: str) -> bool:
    import fnmatch
    return fnmatch.fnmatch(os.path.basename(rel), glob) or fnmatch.fnmatch(rel, glob)


def expand(names: Sequence[str | os.PathLike[str]], glob: str | None = None) -> list[Input]:
    """The inputs named: folders expand to their files (recursively, sorted, filtered by *glob*).

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()); (d / "a.txt").write_text("x"); (d / "b.log").write_text("y")
    1
    1
    >>> [os.path.basename(i.name) for i in expand([d], "*.txt")]
    ['a.txt']
    """
    if not names:
        raise CorpusError("no input given -- name at least one text file, folder, or - for standard input")
    out: list[Input] = []
    for raw in names:
        name = os.fspath(raw)
        if name == STDIN:
            out.append(Input(STDIN, 0))
        elif os.path.isdir(name):
            found = []
            for folder, dirs, files in os.walk(name):
                dirs.sort()
                for f in sorted(files):
                    path = os.path.join(folder, f)
                    if (glob is None or _matches(os.path.relpath(path, name), glob)) and os.path.isfile(path):
                        found.append(Input(path, os.path.getsize(path)))
            if not found:
                what = f"no file matching {glob!r}" if glob else "no files"
                raise CorpusError(f"{name}: the folder holds {what} -- check the folder or the --glob pattern")
            out.extend(found)
        elif os.path.exists(name):
            out.append(Input(name, check_regular(name, error=CorpusError, what="corpus file")))
        else:
            raise CorpusError(f"{name}: no such file or folder -- check the path")
    return out


def _cut(data: bytes) -> int:
    """Where a block ends: after its last newline; 0 to wait for more (a line longer than
    :data:`MAX_LINE_BYTES` is cut at a UTF-8 character boundary instead)."""
    cut = data.rfind(b"\n") + 1
    if cut or len(data) < MAX_LINE_BYTES:
        return cut
    cut = len(data)
    while cut > 0 and (data[cut - 1] & 0xC0) == 0x80:
        cut -= 1
    return max(cut - 1, 1) if data[cut - 1] >= 0xC0 else cut


class _Counting:
    """Reports how many bytes of the underlying (compressed) file have been read."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.pos = 0

    def read(self, n: int = -1) -> bytes:
        data = self.raw.read(n)
        self.pos += len(data)
        return data

    def readinto(self, b: bytearray) -> int:
        n = self.raw.readinto(b)  # type: ignore[attr-defined]
        self.pos += n or 0
        return n or 0

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        self.raw.close()


def _open_raw(name: str) -> IO[bytes]:
    """A regular file opened for reading (a FIFO, a device or a folder is refused, never opened blocking)."""
    return open_regular(name, error=CorpusError, what="corpus file")


def read_head(name: str, n: int) -> tuple[bytes, bool]:
    """The first *n* bytes of a file's text (decompressed for ``.gz``/``.bz2``/``.xz``), and whether there
    is more: what a preview shows of the text training reads."""
    item = Input(name, 0)
    opener = COMPRESSED.get(item.compression)
    with _open_raw(name) as raw:
        stream = opener(raw) if opener else raw  # type: ignore[operator]
        try:
            data = stream.read(n + 1)
        except (OSError, EOFError, lzma.LZMAError, zlib.error) as e:
            raise CorpusError(f"{name}: cannot {'decompress' if opener else 'read'} ({e}) -- is the file "
                              f"complete and really {item.compression or 'uncompressed'}?") from None
    return data[:n], len(data) > n


def iter_chunks(item: Input | str, *, chunk_bytes: int | None = None) -> Iterator[tuple[int, bytes]]:
    """Yield ``(position, data)``: blocks of whole lines, and how far into the input (on disk) we are.

    For a compressed file the position counts compressed bytes (what progress is measured in)."""
    name = item.name if isinstance(item, Input) else item
    item = item if isinstance(item, Input) else Input(name, 0)
    chunk_bytes = chunk_bytes or CHUNK_BYTES
    if name == STDIN:
        if sys.stdin is None or getattr(sys.stdin, "buffer", None) is None:
            raise CorpusError("standard input is closed -- pipe the text in (... | bpe-desktop ... -), or name "
                              "a file instead of -")
        counting = _Counting(sys.stdin.buffer)
        stream: IO[bytes] = counting  # type: ignore[assignment]
        owned = False
    else:
        counting = _Counting(_open_raw(name))
        opener = COMPRESSED.get(item.compression)
        stream = opener(counting) if opener else counting  # type: ignore[operator,assignment]
        owned = True
    try:
        parts: list[bytes] = []  # the start of a line longer than a block, joined once it ends
        pending = 0
        while True:
            try:
                block = stream.read(chunk_bytes)
            except (OSError, EOFError, lzma.LZMAError, zlib.error) as e:
                raise CorpusError(f"{name}: cannot decompress ({e}) -- is the file complete and really "
                                  f"{item.compression or 'uncompressed'}?") from None
            if not block:
                break
            if b"\n" not in block and pending + len(block) < MAX_LINE_BYTES:
                parts.append(block)  # no line ends here: keep it (joining every time was quadratic)
                pending += len(block)
                continue
            data = b"".join((*parts, block)) if parts else block
            cut = _cut(data)
            if cut == 0:
                parts, pending = [data], len(data)
                continue
            yield counting.pos, data[:cut]
            rest = data[cut:]
            parts, pending = ([rest], len(rest)) if rest else ([], 0)
        if parts:
            yield counting.pos, b"".join(parts)
    finally:
        if owned:
            stream.close()


def check_unchanged(item: Input, read: int) -> None:
    """Refuse a plain file whose size is not what it was when listed (*read* bytes were read, or its size
    now differs): it was truncated or appended to while it was read, and counts of it would be partial."""
    if item.name == STDIN or item.compression:
        return
    try:
        now = os.stat(item.name).st_size
    except OSError:
        now = -1
    if read != item.size or now != item.size:
        raise CorpusError(f"{item.name}: the file changed while it was read ({item.size:,} bytes when listed, "
                          f"{read:,} read, {max(now, 0):,} now) -- count it again once nothing writes to it")


def iter_range(name: str, start: int, end: int, *, chunk_bytes: int | None = None) -> Iterator[bytes]:
    """Blocks of whole lines of the byte range ``[start, end)`` of a plain file (starting on a line boundary)."""
    chunk_bytes = chunk_bytes or CHUNK_BYTES
    with _open_raw(name) as f:
        f.seek(start)
        left = end - start
        carry = b""
        while left > 0:
            block = f.read(min(chunk_bytes, left))
            if not block:
                raise CorpusError(f"{name}: the file shrank while it was read (it ends at byte {end - left:,}, "
                                  f"not {end:,}) -- count it again once nothing writes to it")
            left -= len(block)
            data = carry + block
            cut = _cut(data)
            if cut == 0:
                carry = data
                continue
            yield data[:cut]
            carry = data[cut:]
        if carry:
            yield carry


def next_line_start(name: str, offset: int) -> int:
    """The first position at or after *offset* where a line starts (the file size if none)."""
    if offset <= 0:
        return 0
    with _open_raw(name) as f:
        f.seek(offset - 1)
        pos = offset - 1
        while True:
            block = f.read(1 << 16)
            if not block:
                return pos
            i = block.find(b"\n")
            if i >= 0:
                return pos + i + 1
            pos += len(block)
