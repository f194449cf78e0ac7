"""What every text-based format reader shares: reading a file as UTF-8 (a regular file below a size limit),
and turning a token written in GPT-2's byte alphabet back into bytes, both with a :class:`FormatError` that
names the file.

It parses no format itself.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from ..errors import FormatError
from ..io.reading import read_regular
from ..text.byte_level import text_to_bytes

#: the most a tokenizer file read whole may weigh (the largest real ones are tens of MB)
TOKENIZER_LIMIT = 512 << 20


def read_text(path: str | os.PathLike[str]) -> str:
    """The whole file as UTF-8 text (a regular file of at most :data:`TOKENIZER_LIMIT` bytes)."""
    path = os.fspath(path)
    data = read_regular(path, error=FormatError, what="tokenizer file", limit=TOKENIZER_LIMIT)
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
