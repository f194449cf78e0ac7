r"""Log-aware pre-tokenizer patterns for training on logs: how numbers, timestamps, hex and punctuation split.

Trained on robot logs with the usual patterns, BPE spends merges on digit pairs of random numbers
("87 + 2 -> 872").  These named patterns (registered in :data:`.pretokenize.NAMED_PATTERNS`) decide what a
piece may contain; merges never cross pieces:

* ``log-digits``   -- every digit is a piece of its own: no merge can make a multi-digit token;
* ``log-digits3``  -- digits in groups of up to three (left to right, as cl100k does);
* ``log-numbers``  -- numbers kept whole, decimals included (``12.60``, ``1712345678.123456789``);
* ``log-stamps``   -- timestamps (``1712345678.123456789``, 19-digit nanoseconds) and ``0x`` hex kept whole,
  every other digit alone;
* ``log-stamps3``  -- timestamps and ``0x`` hex kept whole, other digits in groups of three;
* ``log-punct``    -- log punctuation (``[ ] ( ) { } < > : ; = , / | " ' @ #``) always a piece of its own
  character by character, words and digit groups of three may take one leading space.

Except ``log-punct``, they follow cl100k's shape for everything but numbers: a word may take one leading
non-letter (`` poses``, ``_controller``), other punctuation runs together with a leading space and
trailing newlines.  Every pattern matches every character of any text (no character is dropped), and
all are linear (no nested quantifiers).  This module holds only the strings; nothing here compiles them.
"""

from __future__ import annotations

_WORD = r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?\p{L}+"
_REST = r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s"
_STAMP = r"\p{N}{10}\.\p{N}{9}|\p{N}{19}|0[xX][0-9A-Fa-f]+"
_LOG_PUNCT = r"""\[\](){}<>:;=,/|"'@#"""


def _cl100k_like(numbers: str) -> str:
    return f"{_WORD}|{numbers}|{_REST}"


#: name -> (pattern, one-line description), in the shape of :data:`.pretokenize.NAMED_PATTERNS`
LOG_PATTERNS: dict[str, tuple[str | None, str]] = {
    "log-digits": (_cl100k_like(r"\p{N}"), "logs: every digit alone (no multi-digit tokens)"),
    "log-digits3": (_cl100k_like(r"\p{N}{1,3}"), "logs: digits in groups of three"),
    "log-numbers": (_cl100k_like(r"\p{N}+(?:\.\p{N}+)*"), "logs: numbers kept whole, decimals included"),
    "log-stamps": (_cl100k_like(rf"{_STAMP}|\p{{N}}"), "logs: timestamps and 0x hex whole, other digits alone"),
    "log-stamps3": (_cl100k_like(rf"{_STAMP}|\p{{N}}{{1,3}}"),
                    "logs: timestamps and 0x hex whole, other digits in threes"),
    "log-punct": (
        rf"[{_LOG_PUNCT}]| ?\p{{L}}+| ?\p{{N}}{{1,3}}| ?[^\s\p{{L}}\p{{N}}{_LOG_PUNCT}]+|\s+(?!\S)|\s",
        "logs: each log punctuation character alone ([ ] : = , ...), digits in threes",
    ),
}
