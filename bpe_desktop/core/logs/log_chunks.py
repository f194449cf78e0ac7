"""Cut a log into bounded chunks that can be tokenized and classified one by one with the result of the whole.

A cut is exact for a tokenizer when its pieces of the whole text are its pieces of the two sides, and for
the classifier (:mod:`.logclass`) when one of its spans ends there.  Four kinds of place (*atoms*) are
proven for the named pre-tokenizers, with ``x`` and ``z`` characters that are not whitespace (neither
``regex``'s ``\\s`` nor ``str.isspace``, which adds U+001C..U+001F):

* ``line``       -- after the ``\\n`` of ``x\\nz``, ``z`` not ``/``;
* ``blank-line`` -- after a ``\\n`` that follows whitespace and precedes ``z`` (``\\r\\nz``, ``\\n\\nz``);
* ``indent``     -- after a ``\\n`` that precedes whitespace;
* ``space``      -- before the single space of ``x z``, ``x`` not a digit.

Why they hold: the named patterns (gpt2, cl100k, o200k, the log presets) have no look-behind, so what
follows a cut is split as a text of its own; before the cut, every alternative that can take ``x`` stops
at a space and at the end of the text alike (a space only ever starts their pieces, and a contraction
needs a ``'``); after ``x\\n`` the newline is a piece of its own or ends ``x``'s punctuation run, except
that o200k's run takes a ``/`` after it (``:\\n/\\n`` is one piece: the hypothesis test found it), and
gpt2's ``\\s+(?!\\S)`` splits `` \\n0`` as `` `` + ``\\n`` but a chunk ending in `` \\n`` as one piece,
so ``blank-line`` is not theirs.  ``none``'s
pieces are lines (so only the ``\\n`` atoms); ``whitespace`` and ``subword-nmt`` split on spaces and line
ends, and ``x z`` leaves no space for subword-nmt's strip of a line's ends to take.  The classifier's
spans end at all but ``indent`` (a run of whitespace goes on); ``x`` is no digit because an ISO
timestamp (``2024-04-05 12:00:00``) holds a space after a digit.  A custom pattern, a SentencePiece
model and a ``tokenizer.json`` pipeline that is more than one of those patterns (a normalizer, an added
prefix) are exact only on the whole text: :func:`cut_rule` then allows no cut.

:func:`iter_chunks` cuts a string and :func:`iter_file_chunks` a UTF-8 file read piece by piece, at the
last allowed place at most ``chunk_chars`` characters in (the first one after, when there is none) --
a chunk longer than :data:`MAX_CHUNK_CHARS` is refused with :class:`~.errors.CorpusError` (a line with no
such place, or a text to be held whole), so memory stays bounded.  This module does not tokenize; the
hypothesis tests in ``tests/core/logs`` check every atom against the whole-text pieces of every pattern.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import regex

from ..errors import CorpusError
from ..io.reading import open_regular
from ..tokenizers.any_tokenizer import AnyTokenizer

#: the characters inspected at once when a cut allows (about 70 bytes of memory each; fewer, larger chunks
#: cost less per MB in numpy's and the caches' per-chunk work)
CHUNK_CHARS = 1 << 18
#: the longest chunk inspected at once (about 70 bytes of memory each): longer ones are refused
MAX_CHUNK_CHARS = 1 << 22

_WS = r"\s\x1c-\x1f"
#: atom name -> a zero-width pattern matching at each such cut
ATOMS: dict[str, str] = {
    "line": rf"(?<=[^{_WS}]\n)(?=[^{_WS}/])",
    "blank-line": rf"(?<=[{_WS}]\n)(?=[^{_WS}])",
    "indent": rf"(?<=\n)(?=[{_WS}])",
    "space": rf"(?<=[^{_WS}\d])(?= [^{_WS}])",
}
_LOOKAHEAD = _LOOKBEHIND = 2  # characters an atom reads after and before its cut
_ALL = frozenset(ATOMS)
_NAMED = frozenset({"line", "space"})
#: pre-tokenizer name -> the atoms where its pieces provably end
PIECE_ATOMS: dict[str, frozenset[str]] = {
    "none": frozenset({"line", "blank-line", "indent"}),
    "whitespace": _ALL,
    "subword-nmt": _ALL,
    **{name: _NAMED for name in ("gpt2", "cl100k", "o200k", "log-digits", "log-digits3", "log-numbers",
                                 "log-stamps", "log-stamps3", "log-punct")},
}
#: where :mod:`.logclass`'s spans provably end (its look-arounds read at most a few characters across)
CLASSIFIER_ATOMS = frozenset({"line", "blank-line", "space"})


@dataclass(frozen=True)
class CutRule:
    """The atoms allowed for every tokenizer at once, and what keeps the others out (for refusals)."""

    atoms: frozenset[str]
    why: str = ""


#: the cuts exact for every named pre-tokenizer and the classifier (what a caller gets without tokenizers)
LINES = CutRule(frozenset({"line"}), "only line ends between two characters that are not whitespace are cut")


def cut_rule(tokenizers: Sequence[tuple[str, AnyTokenizer]]) -> CutRule:
    """The places where every ``(name, tokenizer)`` and the classifier may be cut (see the module text)."""
    atoms = set(CLASSIFIER_ATOMS)
    why: list[str] = []
    for name, tok in tokenizers:
        pre = tok.pretokenizer
        mine = PIECE_ATOMS.get(pre.name, frozenset()) if getattr(tok, "piecewise", False) else frozenset()
        if not mine:
            what = ("a custom pre-tokenizer pattern" if pre.name == "custom" and getattr(tok, "piecewise", False)
                    else "a normalizer or pipeline that reads the text whole")
            why.append(f"{name} has {what}, so it is inspected whole")
        elif "space" not in mine:
            why.append(f"{name}'s pre-tokenizer `{pre.name}` makes each line one piece")
        atoms &= mine
    return CutRule(frozenset(atoms), "; ".join(why))


@lru_cache(maxsize=32)
def _finders(atoms: frozenset[str]) -> tuple[Any, Any]:
    """(forward, reverse) compiled searches for any of *atoms*, or (None, None) for no atom."""
    if not atoms:
        return None, None
    pattern = "|".join(ATOMS[a] for a in sorted(atoms))
    return regex.compile(pattern), regex.compile(pattern, regex.REVERSE)


def _last_cut(fwd: Any, rev: Any, buf: str, lo: int, hi: int) -> int:
    """The last cut *c* with ``lo < c <= hi`` in *buf* (which holds at least two characters past *hi*, or
    ends the text), or -1."""
    for c in range(hi, max(hi - _LOOKAHEAD, lo), -1):  # what a search ending at hi cannot see past
        if fwd.match(buf, c):
            return c
    # a reverse search's look-behind sees nothing before its start: start it the look-behind earlier
    m = rev.search(buf, max(lo + 1 - _LOOKBEHIND, 0), hi) if hi > lo + 1 else None
    return int(m.start()) if m is not None and m.start() > lo else -1


def _cut(pieces: Iterable[str], chunk_chars: int, rule: CutRule, what: str) -> Iterator[str]:
    """The chunks of the text given as consecutive *pieces*."""
    size = max(chunk_chars, 1)
    fwd, rev = _finders(rule.atoms)
    buf, base = "", 0  # text read and not yet yielded is buf[base:]
    scanned = 0  # buf[base:] holds no cut up to this offset (after a failed forward search)
    before = line = 0  # characters and newlines yielded
    it = iter(pieces)
    eof = False
    want = size + _LOOKAHEAD
    while True:
        if not eof and len(buf) - base < want:
            keep = min(base, _LOOKBEHIND)  # the characters an atom reads before its cut
            parts, n = [buf[base - keep:]], len(buf) - base
            for piece in it:
                parts.append(piece)
                n += len(piece)
                if n >= want:
                    break
            else:
                eof = True
            buf, base = "".join(parts), keep
        left = len(buf) - base
        if eof and left <= size:
            if left:
                yield buf[base:]
            return
        c = _last_cut(fwd, rev, buf, base, base + size) - base if rev is not None else -1
        if c < 0 and fwd is not None:
            m = fwd.search(buf, base + max(size, scanned) + 1)
            c = m.start() - base if m is not None else -1
        if c < 0 and eof:
            c = left
        if c > MAX_CHUNK_CHARS or (c < 0 and left > MAX_CHUNK_CHARS):
            raise CorpusError(
                f"{what}: more than {MAX_CHUNK_CHARS:,} characters from line {line + 1:,} (character "
                f"{before + 1:,}) with no place where every tokenizer's pieces provably end ({rule.why}) -- "
                f"inspect holds at most {MAX_CHUNK_CHARS:,} characters at once: inspect a part of the text "
                "(e.g. split -C 4M FILE) or choose tokenizers whose pre-tokenizer splits lines (gpt2, cl100k, o200k, "
                "the log presets, whitespace)")
        if c < 0:  # no cut yet: read on (twice as much each time, so reading stays linear)
            scanned = max(size, left - _LOOKAHEAD)
            want = 2 * left
            continue
        chunk = buf[base:base + c]
        yield chunk
        base += c
        before += c
        line += chunk.count("\n")
        scanned, want = 0, size + _LOOKAHEAD


def iter_chunks(text: str, chunk_chars: int = CHUNK_CHARS, rule: CutRule = LINES) -> Iterator[str]:
    """Cut *text* into chunks of at most *chunk_chars* characters where *rule* allows (a longer stretch
    without such a place is one chunk, refused beyond :data:`MAX_CHUNK_CHARS`).

    >>> list(iter_chunks("a\\nb\\n\\nc\\n d\\ne \\nf", 1))
    ['a\\n', 'b\\n\\nc\\n d\\n', 'e \\nf']
    >>> list(iter_chunks("ab cd\\r\\nef", 1, CutRule(frozenset({"space", "blank-line"}))))
    ['ab', ' cd\\r\\n', 'ef']
    """
    step = max(chunk_chars, CHUNK_CHARS)
    return _cut((text[i:i + step] for i in range(0, len(text), step)), chunk_chars, rule, "the text")


def iter_file_chunks(path: str, chunk_chars: int = CHUNK_CHARS, rule: CutRule = LINES) -> Iterator[str]:
    """The chunks :func:`iter_chunks` would cut from the file's text, read piece by piece.

    Raises :class:`~.errors.CorpusError` for a missing, unreadable or non-UTF-8 file.
    """
    read_chars = 0

    def pieces() -> Iterator[str]:
        nonlocal read_chars
        with io.TextIOWrapper(open_regular(path, error=CorpusError, what="log file"), encoding="utf-8",
                              newline="") as f:
            while piece := f.read(max(chunk_chars, CHUNK_CHARS)):
                read_chars += len(piece)
                yield piece

    try:
        yield from _cut(pieces(), chunk_chars, rule, path)
    except UnicodeDecodeError:
        raise CorpusError(f"{path}: not valid UTF-8 (after character {read_chars:,}) -- convert it to UTF-8") from None
