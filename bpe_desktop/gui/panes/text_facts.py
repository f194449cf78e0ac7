"""The size and line count the corpus editor shows for a large text, computed once per text object.

A typed text of hundreds of megabytes costs a UTF-8 encoding and a pass over its newlines to describe: done on
the GUI thread while a session is applied, that was a stall.  :func:`remember` works them out anywhere (the
helper job that opens a session, before the window applies it) and keeps them for that very object (compared
by identity: a text equal but not the same is measured again); :func:`facts` returns the kept ones or measures
now.  Qt-free and thread-safe (one slot, replaced whole); it leaves out how the editor words them.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.text.in_pieces import count_newlines, utf8_size


@dataclass(frozen=True)
class TextFacts:
    """What the editor says about a text: its UTF-8 size (surrogates kept as the bytes they stand for) and
    its number of lines (newlines + 1)."""

    n_bytes: int
    n_lines: int


_kept: tuple[str, TextFacts] | None = None


def measure(text: str) -> TextFacts:
    """*text*'s facts, worked out now."""
    return TextFacts(utf8_size(text), count_newlines(text) + 1)


def remember(text: str) -> TextFacts:
    """Measure *text* and keep its facts for :func:`facts` (in place of the text kept before)."""
    global _kept
    got = measure(text)
    _kept = (text, got)
    return got


def facts(text: str) -> TextFacts:
    """*text*'s facts: those kept by :func:`remember` for this same object, else measured now."""
    kept = _kept
    if kept is not None and kept[0] is text:
        return kept[1]
    return measure(text)


def forget() -> None:
    """Drop the kept text (its memory with it)."""
    global _kept
    _kept = None
