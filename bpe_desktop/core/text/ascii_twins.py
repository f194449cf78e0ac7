"""Split ASCII text with the standard library's ``re``: the same pieces as a named pattern, in less time.

The named patterns (cl100k's, gpt2's; and the log classifier's runs) need the ``regex`` module for
``\\p{L}`` and ``\\p{N}``.  On ASCII text those classes are ``[A-Za-z]`` and ``[0-9]``, and ``\\s`` is
``[\\t\\n\\v\\f\\r ]`` (the ``regex`` module's ``\\s`` is Unicode's White_Space, which leaves out
``\\x1c``-``\\x1f``; ``re``'s own ``\\s`` takes those in, so the twins spell the class out).  With those classes
a pattern matches exactly as its original does on ASCII text, and ``re`` runs it faster (benchmarks/RESULTS.md,
"Inspecting as fast as counting").  :func:`ascii_splitter` gives a split function that uses the twin when the
text is ASCII (one check of the whole text, done in C) and the original otherwise.  The twins are checked
against the originals by the tests (tests/core/text/test_ascii_twins.py).  This module knows only the patterns
listed in :data:`TWINS`; it does not pre-tokenize anything else and does not encode.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import regex

from .pretokenize import CL100K_PATTERN, GPT2_PATTERN

_S = r"\t\n\x0b\x0c\r "  # regex's \s on ASCII text
#: runs of non-whitespace, each with the whitespace after it, and whitespace at the start (the log
#: classifier's unit, :mod:`..logs.span_runs`)
RUNS_PATTERN = r"\S+\s*|\s+"

#: original pattern -> its twin for ASCII text (the ``re`` module's syntax)
TWINS: dict[str, str] = {
    CL100K_PATTERN: (
        rf"""'(?i:[sdmt]|ll|ve|re)|[^\r\nA-Za-z0-9]?[A-Za-z]+|[0-9]{{1,3}}| ?[^{_S}A-Za-z0-9]+[\r\n]*"""
        rf"""|[{_S}]+$|[{_S}]*[\r\n]|[{_S}]+(?![^{_S}])|[{_S}]"""
    ),
    GPT2_PATTERN: (
        rf"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^{_S}A-Za-z0-9]+|[{_S}]+(?![^{_S}])|[{_S}]+"""
    ),
    RUNS_PATTERN: rf"[^{_S}]+[{_S}]*|[{_S}]+",
}


def ascii_splitter(pattern: str, fallback: Callable[[str], list[str]] | None = None) -> Callable[[str], list[str]]:
    """``findall`` of *pattern* (or *fallback*, when given, for text that is not ASCII), through the twin on ASCII
    text when *pattern* has one.

    >>> split = ascii_splitter(GPT2_PATTERN)
    >>> split("It's 42 cats"), split("né 42")
    (['It', "'s", ' 42', ' cats'], ['né', ' 42'])
    """
    other = fallback or regex.compile(pattern).findall
    twin = TWINS.get(pattern)
    if twin is None:
        return other
    fast = re.compile(twin).findall

    def split(text: str) -> list[str]:
        return fast(text) if text.isascii() else other(text)

    return split
