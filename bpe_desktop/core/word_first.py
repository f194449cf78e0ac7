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

Only the ``gpt2`` pattern is handled (cl100k and o200k glue newlines to punctuation, which this split would
cut); :mod:`.corpus` uses this for it and the plain per-line split for every other pattern.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

#: exactly what the ``regex`` module's ``\s`` matches (tests/test_counting.py checks every code point)
_WS = ("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
       "\u2028\u2029\u202f\u205f\u3000")
_W = re.escape(_WS)
_WN = re.escape(_WS.replace("\n", ""))
COARSE = re.compile(f" ?[^{_W}]+|[{_WN}]*\\n|[{_WN}]+(?![^{_W}])|[{_WN}]+")


def count_words_first(text: str, split: Callable[[str], list[str]], into: dict[str, int]) -> None:
    """Add the GPT-2 pieces of *text* (whole lines) to *into*, in first-seen order.

    >>> from bpe_desktop.core.pretokenize import Pretokenizer
    >>> out: dict[str, int] = {}
    >>> count_words_first("Hello world, hello  world!\\n\\n", Pretokenizer.from_spec("gpt2").split, out)
    >>> out
    {'Hello': 1, ' world': 2, ',': 1, ' hello': 1, ' ': 1, '!': 1, '\\n': 2}
    """
    get = into.get
    for word, n in Counter(COARSE.findall(text)).items():
        for piece in split(word):
            into[piece] = get(piece, 0) + n
