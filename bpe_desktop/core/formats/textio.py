"""What every text-based format reader shares: reading a file as UTF-8 (a regular file below a size limit,
unzipped first when it is gzip data), and turning a token written in GPT-2's byte alphabet back into bytes,
both with a :class:`FormatError` that names the file.

It parses no format itself.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable

from ..errors import FormatError
from ..io.reading import read_regular
from ..text.byte_level import text_to_bytes

#: the most a tokenizer file read whole may weigh, zipped or unzipped (the largest real ones are tens of MB)
TOKENIZER_LIMIT = 512 << 20
GZIP_MAGIC = b"\x1f\x8b"


def read_text(path: str | os.PathLike[str]) -> str:
    """The whole file as UTF-8 text: a regular file of at most :data:`TOKENIZER_LIMIT` bytes, unzipped first
    when it is gzip data (e.g. ``merges.txt.gz``; at most as many bytes unzipped); newlines read as ``open``
    reads them."""
    path = os.fspath(path)
    data = read_regular(path, error=FormatError, what="tokenizer file", limit=TOKENIZER_LIMIT)
    try:
        if data[:2] == GZIP_MAGIC:
            data = _gunzip(data, path)
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


def _gunzip(data: bytes, path: str) -> bytes:
    """Gzip *data* unzipped, refused past :data:`TOKENIZER_LIMIT` bytes (a small file can unzip to gigabytes)."""
    d = zlib.decompressobj(wbits=31)
    try:
        out = d.decompress(data, TOKENIZER_LIMIT + 1)
    except zlib.error as e:
        raise FormatError(f"{path}: a damaged gzip file ({e}) -- download or unzip it again") from None
    if len(out) > TOKENIZER_LIMIT:
        raise FormatError(f"{path}: unzips to more than {TOKENIZER_LIMIT >> 20} MiB -- not a tokenizer file")
    if not d.eof:
        raise FormatError(f"{path}: a gzip file cut short -- download or unzip it again")
    return out

