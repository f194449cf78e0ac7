"""Classify the spans of a log text: timestamps, numbers, hex/ids, levels, names, words, punctuation, space.

:func:`classify` splits a text into typed :class:`LogSpan` s that cover every character exactly once, in
order.  The rules are one regular expression of ordered alternatives; at each position the first rule
that matches wins (so a rule listed earlier beats a longer match of a later one):

1. ``TIMESTAMP`` -- epoch seconds with a fraction (``1712345678.123456789``: 10 digits, a dot, 3 to 9
   digits), a bare 19-digit nanosecond count, or an ISO date-time (``2024-04-05T12:34:56.789``);
2. ``LEVEL``     -- ``DEBUG INFO WARN WARNING ERROR FATAL`` as whole words (upper case);
3. ``HEX``       -- ``0x`` numbers with an optional one-letter code prefix (``E0x2A``), UUIDs, runs of
   two-digit hex bytes separated by spaces or colons (a CAN frame ``0A 1B FF``: each byte is a span),
   and 8+ character hex ids with at least one letter and one digit (``3f9a2c1e``);
4. ``FLOAT``     -- digits, a dot, digits, optional exponent; a leading ``-``/``+`` belongs to the number
   when no letter, digit or dot stands before it (``x=-0.75``: ``-0.75``; ``5-2``: three spans);
5. ``INTEGER``   -- digits, with the same sign rule;
6. ``NAME``      -- node and topic names and identifiers: slash paths (``/robot/motors/left``), and
   words joined by ``_`` or mixing letters and digits (``nav2_controller``, ``CAN_TIMEOUT``, ``tf2``),
   optionally joined by ``::`` or ``.`` into qualified names (``rclcpp::Executor``);
7. ``WORD``      -- runs of letters (any script, with combining marks);
8. ``SPACE``     -- runs of whitespace, newlines included;
9. ``PUNCT``     -- any other single character (brackets, colons, ``=``, ``%``, symbols, emoji).

Spans carry character offsets; :func:`classify_bytes` gives the same spans in UTF-8 byte offsets (what
token offsets use).  This module knows nothing about tokenizers.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

import regex


class Category(enum.IntEnum):
    """What a span of a log is (values are stable: arrays of categories store them as bytes)."""

    TIMESTAMP = 0
    LEVEL = 1
    HEX = 2
    FLOAT = 3
    INTEGER = 4
    NAME = 5
    WORD = 6
    PUNCT = 7
    SPACE = 8  # last: on ties between categories, the earlier one wins (log_inspect's attribution rule)

    @property
    def label(self) -> str:
        """Lower-case name for reports and JSON (``timestamp``, ``float``...)."""
        return self.name.lower()


_B = r"(?<![\w.])[0-9A-Fa-f]{2}(?![\w.])"  # a standalone two-digit hex byte
#: a byte of a run of three or more space-separated hex bytes (a CAN frame's data): first, middle or last
_HEX_BYTE = rf"{_B}(?:(?= {_B} {_B})|(?<={_B} ..)(?= {_B})|(?<={_B} {_B} ..))"

#: the rules in priority order: (category, regular expression); see the module docstring
RULES: tuple[tuple[Category, str], ...] = (
    (
        Category.TIMESTAMP,
        r"(?<![\w.])(?:\d{10}\.\d{3,9}|\d{19}|\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?Z?)(?!\w)",
    ),
    (Category.LEVEL, r"\b(?:DEBUG|INFO|WARN|WARNING|ERROR|FATAL)\b"),
    (
        Category.HEX,
        r"(?<!\w)(?:[A-Za-z]?0[xX][0-9A-Fa-f]+"
        r"|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
        r"|(?=[0-9a-fA-F]*[a-fA-F])(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{8,})(?!\w)"
        rf"|{_HEX_BYTE}",
    ),
    (Category.FLOAT, r"(?:(?<![\w.])[-+])?\d+\.\d+(?:[eE][-+]?\d+)?"),
    (Category.INTEGER, r"(?:(?<![\w.])[-+])?\d+"),
    (
        Category.NAME,
        r"(?:/[\p{L}_~]\w*)+/?"
        r"|(?:[\p{L}_]\w*(?:_|\d)\w*|[\p{L}_]\w*(?=::[\p{L}_]|\.[\p{L}_]))(?:(?:::|\.)[\p{L}_]\w*)*",
    ),
    (Category.WORD, r"[\p{L}\p{M}]+"),
    (Category.SPACE, r"\s+"),
    (Category.PUNCT, r"(?s:.)"),
)

#: the whole rule set as one pattern: the name of the group that matched (``lastgroup``) is the category's
PATTERN = regex.compile("|".join(f"(?P<{c.name}>{p})" for c, p in RULES))
CATEGORY_OF_GROUP = {c.name: c for c, _ in RULES}


def _ascii_twin(rule: str) -> str:
    """*rule* for ASCII text in the standard library's syntax: ``\\p{L}`` is ``[A-Za-z]``, no mark is ASCII, and
    ``\\s`` is spelled out (``regex``'s leaves out ``\\x1c``-``\\x1f``, ``re``'s takes them in); ``\\w``,
    ``\\d`` and ``\\b`` already mean the same on ASCII text."""
    out = (rule.replace(r"[\p{L}_~]", "[A-Za-z_~]").replace(r"[\p{L}_]", "[A-Za-z_]")
           .replace(r"[\p{L}\p{M}]+", "[A-Za-z]+").replace(r"\s+", "[\t\n\x0b\x0c\r ]+"))
    if r"\p" in out or r"\s" in out:
        raise AssertionError(f"a rule with a class the ASCII twin does not spell out: {rule}")
    return out


#: the same rules as :data:`PATTERN`, for ASCII text only, run by the standard library's ``re`` (faster; the
#: same matches and ``lastindex`` on ASCII text, as tests/core/logs/test_classify.py checks)
ASCII_PATTERN = re.compile("|".join(f"(?P<{c.name}>{_ascii_twin(p)})" for c, p in RULES))
_PATTERN, _BY_GROUP = PATTERN, CATEGORY_OF_GROUP


@dataclass(frozen=True, slots=True)
class LogSpan:
    """One classified span: ``text[start:end]`` (character offsets, or bytes from :func:`classify_bytes`)."""

    category: Category
    start: int
    end: int


def classify(text: str) -> list[LogSpan]:
    """Split *text* into classified spans covering every character once.

    >>> line = "[1712345678.123456789] [nav2_controller]: x=-0.75 id=0x1A3"
    >>> [(s.category.label, line[s.start:s.end]) for s in classify(line) if s.category != Category.SPACE][:5]
    [('punct', '['), ('timestamp', '1712345678.123456789'), ('punct', ']'), ('punct', '['), ('name', 'nav2_controller')]
    """
    by = _BY_GROUP
    return [LogSpan(by[m.lastgroup], m.start(), m.end()) for m in _PATTERN.finditer(text)]


def classify_runs(text: str) -> tuple[list[int], list[int]]:
    """The classification as two parallel lists: category values and character end offsets (fast path)."""
    cats: list[int] = []
    ends: list[int] = []
    by = _BY_GROUP
    for m in _PATTERN.finditer(text):
        cats.append(by[m.lastgroup])
        ends.append(m.end())
    return cats, ends


def byte_offsets(text: str) -> list[int] | None:
    """``prefix[c]`` = UTF-8 byte offset of character *c* (length ``len(text) + 1``); ``None`` for ASCII text,
    where characters and bytes coincide."""
    if text.isascii():
        return None
    prefix = [0]
    n = 0
    for ch in text:
        n += len(ch.encode("utf-8", "surrogateescape"))
        prefix.append(n)
    return prefix


def classify_bytes(text: str) -> list[LogSpan]:
    """:func:`classify` with offsets in ``text.encode("utf-8")`` instead of characters.

    >>> [(s.start, s.end) for s in classify_bytes("é 7")]
    [(0, 2), (2, 3), (3, 4)]
    """
    spans = classify(text)
    prefix = byte_offsets(text)
    if prefix is None:
        return spans
    return [LogSpan(s.category, prefix[s.start], prefix[s.end]) for s in spans]
