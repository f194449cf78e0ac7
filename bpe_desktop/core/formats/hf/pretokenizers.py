"""HF pre-tokenizers, read from their ``tokenizer.json`` objects into functions from pieces to pieces.

Read: ``ByteLevel`` (``add_prefix_space``, ``use_regex``; the byte mapping itself is the model's bytes
mode), ``Split`` (a string or a regex, every behavior -- ``Removed``, ``Isolated``, ``MergedWithPrevious``,
``MergedWithNext``, ``Contiguous`` -- and ``invert``), ``Metaspace`` (``replacement``, ``prepend_scheme``
``always``/``first``/``never`` or the older ``add_prefix_space``, ``split``), ``Whitespace``,
``WhitespaceSplit``, ``BertPreTokenizer``, ``Punctuation``, ``Digits`` (``individual_digits``),
``CharDelimiterSplit`` and ``Sequence``, each splitting as ``tokenizers`` does (its
``NormalizedString::split``).  Others (``UnicodeScripts``, ``FixedLength``...) are refused with their
name.  Pieces are :class:`~.aligned.Aligned`; empty pieces are dropped, as HF drops them.  It does not
encode pieces.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Any

import regex

from ...errors import FormatError
from ...text.pretokenize import GPT2_PATTERN
from . import unicode_tables
from .aligned import Aligned, Span, rust_space
from .normalizers import pattern_of

PreTokenizer = Callable[[list[Aligned]], list[Aligned]]
Finder = Callable[[str], list[Span]]  # the matches in a text, as (start, end) character ranges
BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")

_GPT2 = regex.compile(GPT2_PATTERN)
_WORDS = regex.compile(r"\w+|[^\w\s]+")


def regex_finder(pattern: regex.Pattern[str]) -> Finder:
    return lambda text: [m.span() for m in pattern.finditer(text)]


def char_finder(pred: Callable[[str], bool]) -> Finder:
    """Each character for which *pred* holds is a match of its own (HF's ``Fn(char) -> bool`` pattern)."""
    return lambda text: [(k, k + 1) for k, c in enumerate(text) if pred(c)]


def split_ranges(n: int, matches: list[Span], behavior: str, invert: bool) -> list[Span]:
    """The pieces (character ranges, empty ones included) ``NormalizedString::split`` keeps.

    >>> split_ranges(5, [(1, 2), (3, 4)], "Isolated", False)
    [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]
    >>> split_ranges(5, [(1, 2), (3, 4)], "MergedWithNext", False)
    [(0, 1), (1, 3), (3, 5)]
    """
    if n == 0:
        parts: list[tuple[Span, bool]] = [((0, 0), False)]
    else:
        parts = []
        prev = 0
        for s, e in matches:
            if prev != s:
                parts.append(((prev, s), False))
            parts.append(((s, e), True))
            prev = e
        if prev != n:
            parts.append(((prev, n), False))
    if invert:
        parts = [(r, not m) for r, m in parts]
    out: list[list[int]] = []
    if behavior == "Removed":
        return [r for r, m in parts if not m]
    if behavior == "Isolated":
        return [r for r, _ in parts]
    previous = False
    if behavior == "MergedWithNext":
        for (s, e), m in reversed(parts):
            if m and not previous and out:
                out[-1][0] = s
            else:
                out.append([s, e])
            previous = m
        out.reverse()
    else:
        for (s, e), m in parts:
            joins = (m == previous) if behavior == "Contiguous" else (m and not previous)
            if joins and out:
                out[-1][1] = e
            else:
                out.append([s, e])
            previous = m
    return [(s, e) for s, e in out]


def splitter(find: Finder, behavior: str, invert: bool = False) -> PreTokenizer:
    def run(pieces: list[Aligned]) -> list[Aligned]:
        out: list[Aligned] = []
        for p in pieces:
            for i, j in split_ranges(len(p.text), find(p.text), behavior, invert):
                if i < j:
                    out.append(p.slice(i, j))
        return out

    return run


def byte_level(add_prefix_space: bool, use_regex: bool) -> PreTokenizer:
    split = splitter(regex_finder(_GPT2), "Isolated")

    def run(pieces: list[Aligned]) -> list[Aligned]:
        if add_prefix_space:
            pieces = [p if p.text.startswith(" ") else p.prepend(" ") for p in pieces]
        return split(pieces) if use_regex else pieces

    return run


def metaspace(replacement: str, scheme: str, split: bool) -> PreTokenizer:
    cut = splitter(lambda t: [m.span() for m in regex.finditer(regex.escape(replacement), t)], "MergedWithNext")

    def run(pieces: list[Aligned]) -> list[Aligned]:
        out: list[Aligned] = []
        for p in pieces:
            p = p.replace_spans([(k, k + 1) for k, c in enumerate(p.text) if c == " "], replacement)
            if not p.text.startswith(replacement) and (scheme == "always" or (scheme == "first" and p.start() == 0)):
                p = p.prepend(replacement)
            out.append(p)
        return cut(out) if split else [p for p in out if p.text]

    return run


def sequence(parts: list[PreTokenizer]) -> PreTokenizer:
    def run(pieces: list[Aligned]) -> list[Aligned]:
        for p in parts:
            pieces = p(pieces)
        return pieces

    return run


def _punctuation(c: str) -> bool:  # HF's tables (unicode_tables.punctuation) or ASCII punctuation
    return unicode_tables.punctuation(c) or (c.isascii() and not c.isalnum() and c.isprintable()
                                                       and not c.isspace())


def _numeric(c: str) -> bool:  # Rust's char::is_numeric: Nd, Nl, No
    return unicodedata.category(c) in ("Nd", "Nl", "No")


def _flag(obj: dict[str, Any], key: str, default: bool, what: str, source: str) -> bool:
    v = obj.get(key, default)
    if not isinstance(v, bool):
        raise FormatError(f"{source}: {what}: \"{key}\" must be true or false, not {v!r:.40}")
    return v


def _behavior(obj: dict[str, Any], default: str, what: str, source: str) -> str:
    b = obj.get("behavior", default)
    if b not in BEHAVIORS:
        raise FormatError(f"{source}: {what}: behavior {b!r:.40} is not one of {', '.join(BEHAVIORS)}")
    return str(b)


def read_pretokenizer(obj: Any, source: str) -> tuple[PreTokenizer | None, bool]:
    """(the pre-tokenizer, whether it includes ``ByteLevel``) for an HF ``pre_tokenizer`` object."""
    if obj is None:
        return None, False
    if not isinstance(obj, dict):
        raise FormatError(f"{source}: pre_tokenizer must be an object or null, not {obj!r:.40}")
    kind = obj.get("type")
    what = f'pre-tokenizer "{kind}"'
    if kind == "ByteLevel":
        return byte_level(_flag(obj, "add_prefix_space", True, what, source),
                          _flag(obj, "use_regex", True, what, source)), True
    if kind == "Split":
        find = regex_finder(pattern_of(obj.get("pattern"), what, source))
        return splitter(find, _behavior(obj, "", what, source), _flag(obj, "invert", False, what, source)), False
    if kind == "Metaspace":
        rep = obj.get("replacement", "\u2581")
        if not isinstance(rep, str) or len(rep) != 1:
            raise FormatError(f"{source}: {what}: the replacement must be one character, not {rep!r:.40}")
        scheme = obj.get("prepend_scheme")
        if scheme is None:
            scheme = "always" if _flag(obj, "add_prefix_space", True, what, source) else "never"
        if scheme not in ("always", "first", "never"):
            raise FormatError(f"{source}: {what}: prepend_scheme {scheme!r:.40} is not always, first or never")
        return metaspace(rep, scheme, _flag(obj, "split", True, what, source)), False
    if kind == "Whitespace":
        return splitter(regex_finder(_WORDS), "Removed", invert=True), False
    if kind == "WhitespaceSplit":
        return splitter(char_finder(rust_space), "Removed"), False
    if kind == "BertPreTokenizer":
        return sequence([splitter(char_finder(rust_space), "Removed"),
                         splitter(char_finder(_punctuation), "Isolated")]), False
    if kind == "Punctuation":
        return splitter(char_finder(_punctuation), _behavior(obj, "Isolated", what, source)), False
    if kind == "Digits":
        individual = _flag(obj, "individual_digits", False, what, source)
        return splitter(char_finder(_numeric), "Isolated" if individual else "Contiguous"), False
    if kind == "CharDelimiterSplit":
        d = obj.get("delimiter")
        if not isinstance(d, str) or len(d) != 1:
            raise FormatError(f"{source}: {what}: the delimiter must be one character, not {d!r:.40}")
        return splitter(char_finder(lambda c: c == d), "Removed"), False
    if kind == "Sequence":
        items = obj.get("pretokenizers")
        if not isinstance(items, list):
            raise FormatError(f"{source}: {what} needs a list \"pretokenizers\"")
        read = [read_pretokenizer(o, source) for o in items]
        return sequence([p for p, _ in read if p is not None]), any(b for _, b in read)
    raise FormatError(f"{source}: {what} is not supported -- this program reads the pre-tokenizers ByteLevel, "
                      "Split, Metaspace, Whitespace, WhitespaceSplit, BertPreTokenizer, Punctuation, Digits, "
                      "CharDelimiterSplit and Sequence")
