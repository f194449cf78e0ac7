"""What every text-based format reader shares: reading a file as UTF-8, and turning a token written in
GPT-2's byte alphabet back into bytes, both with a :class:`FormatError` that names the file.  Gzipped files
are read unzipped.

It parses no format itself.
"""

from __future__ import annotations

import gzip
import os
import zlib
from collections.abc import Callable

from ..errors import FormatError
from ..text.byte_level import text_to_bytes

GZIP_MAGIC = b"\x1f\x8b"


def read_text(path: str | os.PathLike[str]) -> str:
    """The whole file as UTF-8 text (unzipped first when it is gzip data, e.g. ``merges.txt.gz``; newlines
    read as ``open`` reads them)."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise FormatError(f"{path}: cannot read ({e.strerror}) -- check the path") from None
    if data[:2] == GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as e:
            raise FormatError(f"{path}: a damaged gzip file ({e}) -- download or unzip it again") from None
    try:
        return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as e:
        raise FormatError(f"{path}: not UTF-8 text at byte {e.start} -- is this a tokenizer file?") from None


def token_bytes(t: str, source: str) -> bytes:
    """A token written in GPT-2's printable byte alphabet, as bytes.

    >>> token_bytes("Ġhi", "f")
    b' hi'
    """
    try:
        return text_to_bytes(t)
    except KeyError:
        raise FormatError(f"{source}: token {t!r} is not written in GPT-2's byte alphabet") from None


def token_reader(byte_level: bool, source: str) -> Callable[[str], str | bytes]:
    """``str`` for chars-mode files, :func:`token_bytes` for byte-level ones."""
    if not byte_level:
        return str
    return lambda t: token_bytes(t, source)
