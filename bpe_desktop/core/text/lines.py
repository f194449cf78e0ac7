"""Lines that keep their ``\\n``: the unit the ``none`` pre-tokenizer makes one piece of, the trainer counts
and the token view shows a row of.  Only ``\\n`` ends a line (not ``\\r``, ``\\v`` or ``\\x1c``, which
``str.splitlines`` also breaks on).  It leaves out reading files and decoding bytes.
"""

from __future__ import annotations

from .in_pieces import split_newlines


def split_lines(text: str) -> list[str]:
    """The lines of *text*, each with its ``\\n`` (the last one without, if the text does not end in one).

    >>> split_lines("a\\nb\\n"), split_lines("a\\nb"), split_lines("a\\rb\\nc"), split_lines("")
    (['a\\n', 'b\\n'], ['a\\n', 'b'], ['a\\rb\\n', 'c'], [])
    """
    parts = split_newlines(text)  # (a piece at a time: a huge text never holds the interpreter long)
    last = parts.pop()
    lines = [p + "\n" for p in parts]
    if last:
        lines.append(last)
    return lines
