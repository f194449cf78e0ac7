"""Cut a log into chunks of whole lines that can be tokenized one by one with the same result as the whole.

A cut goes only after a ``\\n`` with a character that is not whitespace on both sides (``x\\ny``): no
named pre-tokenizer (gpt2, cl100k, o200k, the log presets, whitespace, none) makes a piece that crosses
such a point or looks past it (gpt2's ``\\s+(?!\\S)`` would split `` \\n0`` as `` `` + ``\\n`` but a chunk
ending in `` \\n`` as one piece, so a newline after a space, a ``\\r`` or another newline is never cut),
so encoding chunk by chunk gives the tokens of the whole text (tested for every named pattern).  A text
without such a point (CRLF line ends) is one chunk.  A custom pattern whose pieces cross lines would be
split at the cuts.  :func:`iter_chunks` cuts a string, :func:`iter_file_chunks` reads a
UTF-8 file piece by piece and yields the same kind of chunks.  This module does not tokenize.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

from ..errors import CorpusError
from ..io.reading import open_regular

CHUNK_CHARS = 1 << 16


def iter_chunks(text: str, chunk_chars: int = CHUNK_CHARS) -> Iterator[str]:
    """Cut *text* into pieces of about *chunk_chars* characters, only after a ``\\n`` between two
    characters that are not whitespace (a line longer than that stays whole).

    >>> list(iter_chunks("a\\nb\\n\\nc\\n d\\ne \\nf", 1))
    ['a\\n', 'b\\n\\nc\\n d\\n', 'e \\nf']
    """
    n = len(text)
    pos = 0
    while pos < n:
        cut = pos + max(chunk_chars, 1) - 1
        while True:
            cut = text.find("\n", cut)
            if cut < 0 or cut + 1 >= n:
                cut = n
                break
            if _can_cut_after(text, cut):
                cut += 1
                break
            cut += 1
        yield text[pos:cut]
        pos = cut


def iter_file_chunks(path: str, chunk_chars: int = CHUNK_CHARS) -> Iterator[str]:
    """The chunks :func:`iter_chunks` would cut from the file's text, read piece by piece.

    Raises :class:`~.errors.CorpusError` for a missing, unreadable or non-UTF-8 file.
    """
    parts: list[str] = []  # text read since the last cut (joined only at a cut: appending was quadratic)
    held = 0
    tail = ""  # the last two characters held: a cut needs the character on each side of its newline
    read_chars = 0
    try:
        with io.TextIOWrapper(open_regular(path, error=CorpusError, what="log file"), encoding="utf-8",
                              newline="") as f:
            while piece := f.read(max(chunk_chars, 1)):
                read_chars += len(piece)
                window = tail + piece
                cut = _last_cut(window, len(tail) - 1)
                if cut > 0:
                    at = held - len(tail) + cut  # the cut's place in the held text
                    text = "".join((*parts, piece))
                    yield from iter_chunks(text[:at], chunk_chars)
                    parts, held = [text[at:]], len(text) - at
                else:
                    parts.append(piece)
                    held += len(piece)
                tail = window[-2:]
    except UnicodeDecodeError:
        raise CorpusError(f"{path}: not valid UTF-8 (after character {read_chars:,}) -- convert it to UTF-8") from None
    if held:
        yield from iter_chunks("".join(parts), chunk_chars)


def _last_cut(text: str, since: int) -> int:
    """The last offset where :func:`iter_chunks` may cut *text*, with the newline at or after *since*, or 0."""
    i = len(text) - 1
    while (i := text.rfind("\n", max(since, 0), i)) >= 0:
        if _can_cut_after(text, i):
            return i + 1
    return 0


def _can_cut_after(text: str, i: int) -> bool:
    """True if ``text[i]`` is a newline between two characters that are not whitespace."""
    return 0 < i < len(text) - 1 and not text[i - 1].isspace() and not text[i + 1].isspace()
