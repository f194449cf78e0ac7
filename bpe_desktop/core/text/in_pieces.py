"""Whole-text operations on very large strings done a piece at a time, with the same results as the plain call.

One ``str.split`` or ``str.encode`` over a typed text of hundreds of megabytes is one C call that holds the
interpreter lock throughout (see benchmarks/RESULTS.md): a helper thread doing it stalls the GUI thread
for that long.  Here the text is taken :data:`PIECE_CHARS` characters at a time, so the lock is handed over
between pieces.  :func:`split_newlines` equals ``text.split("\\n")``; :func:`utf8_size` equals
``len(text.encode("utf-8", "surrogateescape"))`` (raising alike on a lone surrogate it cannot write);
:func:`count_newlines` equals ``text.count("\\n")``.  It leaves out deciding what a line or a size means.
"""

from __future__ import annotations

from collections.abc import Iterator

PIECE_CHARS = 1 << 20


def _pieces(text: str) -> Iterator[str] | None:
    """*text* cut every :data:`PIECE_CHARS` characters (one piece alive at a time), or None when it is short
    enough to take whole."""
    if len(text) <= PIECE_CHARS:
        return None
    return (text[i:i + PIECE_CHARS] for i in range(0, len(text), PIECE_CHARS))


def split_newlines(text: str) -> list[str]:
    """``text.split("\\n")``, a piece at a time (a line across pieces joined once, never re-copied)."""
    pieces = _pieces(text)
    if pieces is None:
        return text.split("\n")
    out: list[str] = []
    open_line: list[str] = []  # the fragments of the line running on into the next piece
    for piece in pieces:
        parts = piece.split("\n")
        open_line.append(parts[0])
        if len(parts) > 1:
            out.append("".join(open_line))
            out.extend(parts[1:-1])
            open_line = [parts[-1]]
    out.append("".join(open_line))
    return out


def utf8_size(text: str) -> int:
    """``len(text.encode("utf-8", "surrogateescape"))``, a piece at a time."""
    pieces = _pieces(text)
    if pieces is None:
        return len(text.encode("utf-8", "surrogateescape"))
    return sum(len(p.encode("utf-8", "surrogateescape")) for p in pieces)


def count_newlines(text: str) -> int:
    """``text.count("\\n")``, a piece at a time."""
    pieces = _pieces(text)
    return text.count("\n") if pieces is None else sum(p.count("\n") for p in pieces)
