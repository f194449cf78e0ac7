"""Counting GPT-2 pieces words first: split text into coarse words, count them, split each distinct word once.

The GPT-2 pattern (``'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+``)
never makes a piece across the boundaries of a coarser split: a non-space run with its optional leading
space (`` ?\\S+``), or a whitespace run split as that pattern splits it -- because every non-space character
is a letter, a number or "other", whose three alternatives take one leading space exactly as `` ?\\S+``
does, and the whitespace alternatives are the same in both.  The pattern has no look-behind, and its one
look-ahead only sees whitespace at a coarse boundary, so a coarse word's pieces do not depend on its
context.  Hence ``pieces(text) = concat(gpt2(w) for w in coarse(text))``, and counting the coarse words
first (one fast ``re`` pass and a ``Counter``) then splitting each *distinct* word with the real pattern
gives the same table -- in the same first-seen order, since a piece first appears inside the first
occurrence of some word.

Lines: the trainer splits text into lines (each keeps its ``\\n``) before the pattern runs, so the coarse
pattern here treats ``\\n`` as the end of a whitespace run (``[W']*\\n``), which makes one pass over a
chunk of lines equal to line-by-line splitting.  ``\\s`` is spelt out as the exact set the ``regex``
module's ``\\s`` matches, so the fast ``re`` engine agrees with the pattern's engine.

Faster still, without a regex pass (:meth:`WordsFirst.add`): in ordinary text -- words separated by single
spaces, lines ended by ``\\n`` -- a coarse word is a space-separated field with its leading space, so
``str.split(" ")`` and a ``Counter`` find them, once each ``\\n`` is made a field of its own and a field
that starts a line is marked (no leading space).  A line where that does not hold (two spaces in a row, a
space before ``\\n``, any other whitespace character) has its spaces and newlines masked so it stays in one
field, which the coarse pattern then splits; a chunk with many such lines, or holding the mask
characters ``\\x00``-``\\x03``, is counted with the regex pass.  Every field ends on a coarse boundary, so
the table and its order are the same either way (tests/core/counting/test_inputs_and_engines.py compares
both with the per-line split).

The loop that adds each distinct unit's pieces to the table, and the count of the fields of the fast split
(``Counter.update(text.split(" "))``, without a str per field), run compiled when ``_accumulate.c`` was built
(the same loops; the Python ones are the fallback).

Only the ``gpt2`` pattern is handled (cl100k and o200k glue newlines to punctuation, which this split would
cut); :mod:`.corpus` uses this for it and the plain per-line split for every other pattern.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from types import ModuleType

_accumulate: ModuleType | None
try:  # the loop of WordsFirst._count in C, built with the package where a compiler exists
    from . import _accumulate
except ImportError:  # pure Python: the loop below
    _accumulate = None

#: exactly what the ``regex`` module's ``\s`` matches (tests/core/counting/test_inputs_and_engines.py checks
#: every code point)
_WS = ("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
       "\u2028\u2029\u202f\u205f\u3000")
_W = re.escape(_WS)
_WN = re.escape(_WS.replace("\n", ""))
COARSE = re.compile(f" ?[^{_W}]+|[{_WN}]*\\n|[{_WN}]+(?![^{_W}])|[{_WN}]+")

_A = re.escape(_WS[:6])  # \t \n \x0b \x0c \r and space: the ASCII part of \s
#: the GPT-2 pattern for ASCII text, run by ``re`` (twice as fast per call as ``regex``): within ASCII,
#: ``\p{L}`` is ``[A-Za-z]`` and ``\p{N}`` is ``[0-9]`` (tests/core/counting/test_inputs_and_engines.py
#: compares the two)
ASCII_GPT2 = re.compile(f"'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^{_A}A-Za-z0-9]+|[{_A}]+(?![^{_A}])|[{_A}]+")

#: the marks of the fast split: a field starting a line, a masked space, a masked newline, a masked line
LINE, SPACE, NEWLINE, MASKED = "\x00", "\x01", "\x02", "\x03"
#: what makes a line need masking: whitespace the fast split would cut wrongly
_ODD = ("  ", " \n", *(c for c in _WS if c not in " \n"))
#: more odd places than this in one chunk, or more characters in odd lines: count it with the regex pass
MAX_ODD = 256
MAX_MASKED = 1 << 16
#: how many fields (with their pieces) a :class:`WordsFirst` remembers across chunks
CACHE_FIELDS = 100_000
#: how many distinct fields a :class:`WordsFirst` counts before it adds their pieces to the table
PENDING_FIELDS = 200_000


def _marked(text: str) -> str | None:
    """*text* with each ``\\n`` a field of its own, line starts marked and odd lines masked; ``None`` when
    the regex pass should count it (many odd places, or a mark character already in the text)."""
    if LINE in text or SPACE in text or NEWLINE in text or MASKED in text:
        return None
    spots: list[int] = []
    for odd in _ODD:
        i = text.find(odd)
        while i >= 0:
            spots.append(i)
            if len(spots) > MAX_ODD:
                return None
            i = text.find(odd, i + 1)
    lines = " \n " + LINE  # "a\nb" -> "a \n \x00b": fields "a", "\n", "\x00b"
    if not spots:
        return LINE + text.replace("\n", lines)
    parts: list[str] = []
    done = masked = 0
    for i in sorted(spots):
        start = max(text.rfind("\n", 0, i) + 1, done)
        if i < done:
            continue  # in the line masked last
        end = text.find("\n", i)
        end = len(text) if end < 0 else end + 1
        masked += end - start
        if masked > MAX_MASKED:
            return None  # long odd lines: split word by word, they would lose the Counter's dedupe
        parts.append(text[done:start].replace("\n", lines))
        parts.append(MASKED + text[start:end].replace(" ", SPACE).replace("\n", NEWLINE))
        done = end
    parts.append(text[done:].replace("\n", lines))
    return LINE + "".join(parts)


class WordsFirst:
    """Counts the GPT-2 pieces of chunks of text into a table.

    Fields of the fast split are counted in C across chunks and turned into pieces in batches of up to
    :data:`PENDING_FIELDS` distinct fields (and by :meth:`flush`, which the caller runs before reading the
    table); the pieces of fields and words already met are remembered (up to :data:`CACHE_FIELDS`)."""

    def __init__(self, split: Callable[[str], list[str]]) -> None:
        self.split = split
        self._pending: Counter[str] = Counter()  # fields counted but not yet in the table
        self._fields: dict[str, list[str]] = {}  # field of the fast split -> its pieces
        self._words: dict[str, list[str]] = {}  # coarse word of the regex pass -> its pieces

    def add(self, text: str, into: dict[str, int]) -> None:
        """Count the pieces of *text* (whole lines, or any text standing alone) for *into* (first-seen
        order); they are in *into* after :meth:`flush`."""
        marked = _marked(text)
        if marked is None:
            self.flush(into)  # the table keeps first-seen order: earlier chunks first
            self._count(Counter(COARSE.findall(text)), self._words, self._pieces, into)
            return
        if _accumulate is not None:  # the same counts in the same order, a str only per distinct field
            _accumulate.count_fields(marked, self._pending)
        else:
            self._pending.update(marked.split(" "))
        if len(self._pending) > PENDING_FIELDS:
            self.flush(into)

    def flush(self, into: dict[str, int], *, last: bool = False) -> None:
        """Add the pieces of the fields counted so far to *into*.  *last*: no text follows, so the fields
        are not remembered (the cache would only add its size to the peak) and the caches are dropped."""
        if self._pending:
            pending, self._pending = self._pending, Counter()
            self._count(pending, self._fields, self._field_pieces, into, remember=not last)
            del pending
        if last:
            self._fields, self._words = {}, {}

    def _count(self, counted: dict[str, int], known: dict[str, list[str]],
               pieces_of: Callable[[str], list[str]], into: dict[str, int], *, remember: bool = True) -> None:
        room = CACHE_FIELDS - len(known) if remember else 0
        if _accumulate is not None:  # the same loop, compiled (_accumulate.c)
            _accumulate.accumulate(counted, known, pieces_of, into, room)
            return
        get = into.get
        for unit, n in counted.items():
            pieces = known.get(unit)
            if pieces is None:
                pieces = pieces_of(unit)
                if room > 0:
                    known[unit] = pieces
                    room -= 1
            for piece in pieces:
                into[piece] = get(piece, 0) + n

    def _field_pieces(self, field: str) -> list[str]:
        """The pieces of one field of :func:`_marked`: ``\\n``, or a coarse word (a space before it unless it
        starts a line), or masked lines split by the coarse pattern."""
        if field == "\n":
            return ["\n"]
        body = field[1:] if field[:1] == LINE else field
        text = body if body is not field else " " + field
        if body.isascii() and (body.isalpha() or body.isdigit()):
            return [text]  # `` ?\p{L}+`` or `` ?\p{N}+`` takes it whole: one piece, no regex needed
        if MASKED in text:
            text = text.replace(MASKED, "").replace(SPACE, " ").replace(NEWLINE, "\n")
            return [p for w in COARSE.findall(text) for p in self._pieces(w)]
        return self._pieces(text)

    def _pieces(self, word: str) -> list[str]:
        """The GPT-2 pieces of a coarse word."""
        return ASCII_GPT2.findall(word) if word.isascii() else self.split(word)


def count_words_first(text: str, split: Callable[[str], list[str]], into: dict[str, int]) -> None:
    """Add the GPT-2 pieces of *text* (whole lines) to *into*, in first-seen order.

    >>> from bpe_desktop.core.text.pretokenize import Pretokenizer
    >>> out: dict[str, int] = {}
    >>> count_words_first("Hello world, hello  world!\\n\\n", Pretokenizer.from_spec("gpt2").split, out)
    >>> out
    {'Hello': 1, ' world': 2, ',': 1, ' hello': 1, ' ': 1, '!': 1, '\\n': 2}
    """
    counter = WordsFirst(split)
    counter.add(text, into)
    counter.flush(into)
