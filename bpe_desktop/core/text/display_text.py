"""Reading corpus files for display: at most the first few megabytes of their text (decompressed), cut at a
line end.

It leaves out reading files for training (:mod:`.corpus` reads them whole, in chunks) and splitting the
text into rows (:func:`.lines.split_lines`).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..choices import Mode
from ..errors import CorpusError
from .inputs import read_head

#: the display limit for corpora given as files (the view reads only this much of them)
DISPLAY_LIMIT_BYTES = 4 << 20


def read_display_text(
    paths: Sequence[str], mode: Mode, limit: int = DISPLAY_LIMIT_BYTES
) -> tuple[str, bool]:
    """Read at most *limit* bytes from the head of *paths* (cut at a line end); returns (text, truncated).

    Bytes mode keeps undecodable bytes (``surrogateescape``); chars mode shows them as U+FFFD.
    """
    chunks: list[bytes] = []
    left = limit
    truncated = False
    for p in paths:
        if left <= 0:
            truncated = True
            break
        try:
            data, more = read_head(p, left)  # decompressed, as training reads it
        except CorpusError:
            continue
        if more:
            truncated = True
            cut = data.rfind(b"\n") + 1
            if cut > 0:
                data = data[:cut]
        chunks.append(data)
        left -= len(data)
    raw = b"".join(chunks)
    errors = "surrogateescape" if mode == Mode.BYTES else "replace"
    return raw.decode("utf-8", errors), truncated
