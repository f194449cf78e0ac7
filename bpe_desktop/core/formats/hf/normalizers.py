"""HF normalizers, read from their ``tokenizer.json`` objects into functions on :class:`~.aligned.Aligned`.

Read: ``NFC``, ``NFD``, ``NFKC``, ``NFKD``, ``Lowercase`` (per character, as Rust's ``char::to_lowercase``:
no final-sigma rule), ``Strip`` (Rust's whitespace), ``StripAccents`` (drops every combining mark, Mn, Mc and Me,
that HF's Unicode 9 tables know: :mod:`.unicode_tables`),
``Replace`` (a string or a regex), ``Prepend`` and ``Sequence``.  Any other normalizer (``Precompiled``,
``BertNormalizer``, ``NMT``, ``ByteLevel``...) is refused with its name.  Unicode normalization is done
cluster by cluster (a cluster starts at a character that composes with nothing before it), so each
normalized character knows the original characters it came from; when that cutting would not give the
same text as normalizing the whole (it always should), the whole text is one cluster.  Regexes use Python's
``regex`` module, which agrees with HF's Oniguruma on the patterns files use; it does not check that for a
custom pattern.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Any

import regex

from ...errors import FormatError
from .aligned import Aligned, Span, rust_space
from .unicode_tables import STRIPPED_LETTERS, unknown

Normalizer = Callable[[Aligned], Aligned]


def _normalize(form: str, text: str) -> str:
    """*text* in Unicode normalization *form* as HF's tables (Unicode 9) give it: a character they do not know
    (:mod:`.unicode_tables`) stays as it is and nothing composes or reorders across it."""
    if text.isascii() or not any(unknown(c) for c in text if c >= "\u0300"):
        return unicodedata.normalize(form, text)  # type: ignore[arg-type]
    out: list[str] = []
    start = 0
    for i, c in enumerate(text):
        if c >= "\u0300" and unknown(c):
            out += [unicodedata.normalize(form, text[start:i]), c]  # type: ignore[arg-type]
            start = i + 1
    out.append(unicodedata.normalize(form, text[start:]))  # type: ignore[arg-type]
    return "".join(out)


def _combining(c: str) -> int:
    """*c*'s canonical combining class as HF's tables give it (0 for a character they do not know)."""
    return 0 if unknown(c) else unicodedata.combining(c)


def unicode_form(form: str) -> Normalizer:
    """Unicode normalization *form* (``NFC``...), keeping each cluster's original span.

    >>> a = unicode_form("NFC")(Aligned.original("e\\u0301t"))
    >>> a.text, a.align
    ('ét', [(0, 2), (2, 3)])
    """

    def run(a: Aligned) -> Aligned:
        text = a.text
        out = _normalize(form, text)
        if out == text:
            return a
        cuts: list[Span] = []
        mapped: list[str] = []
        start = 0
        n = len(text)
        i = 1
        while i <= n:
            if i < n:
                c = text[i]
                if c >= "\x80":  # (an ASCII character composes with nothing before it: always a cut)
                    if _combining(c):
                        i += 1
                        continue
                    seg = _normalize(form, text[start:i])
                    if _normalize(form, text[start : i + 1]) != seg + _normalize(form, c):
                        i += 1
                        continue
                elif text[start:i].isascii():  # an ASCII run stays one unchanged range
                    j = i
                    while j < n and text[j] < "\x80" and (j + 1 == n or text[j + 1] < "\x80"):
                        j += 1
                    if j > i:
                        i = j
                        continue
            cuts.append((start, i))
            mapped.append(_normalize(form, text[start:i]))
            start = i
            i += 1
        if "".join(mapped) != out:
            cuts, mapped = [(0, len(text))], [out]
        return a.segments(cuts, mapped)

    return run


def _lowercase(a: Aligned) -> Aligned:
    return a.map_chars(str.lower)


def _strip_accents(a: Aligned) -> Aligned:
    return a.map_chars(lambda c: "" if (unicodedata.category(c).startswith("M") and not unknown(c))
                       or c in STRIPPED_LETTERS else c)


def strip(left: bool, right: bool) -> Normalizer:
    """Strip Rust-whitespace at the start and/or the end."""

    def run(a: Aligned) -> Aligned:
        i, j = 0, len(a.text)
        while left and i < j and rust_space(a.text[i]):
            i += 1
        while right and j > i and rust_space(a.text[j - 1]):
            j -= 1
        return a.slice(i, j)

    return run


def pattern_of(obj: Any, what: str, source: str) -> regex.Pattern[str]:
    """An HF pattern object ``{"String": s}`` or ``{"Regex": r}`` as a compiled regex."""
    if isinstance(obj, dict) and isinstance(obj.get("String"), str):
        return regex.compile(regex.escape(obj["String"]))
    if isinstance(obj, dict) and isinstance(obj.get("Regex"), str):
        try:
            return regex.compile(obj["Regex"])
        except regex.error as e:
            raise FormatError(f"{source}: {what}: the regex {obj['Regex']!r:.60} does not compile ({e})") from None
    raise FormatError(f"{source}: {what} needs a pattern {{\"String\": ...}} or {{\"Regex\": ...}}, "
                      f"not {obj!r:.60}")


def replace(pattern: regex.Pattern[str], content: str) -> Normalizer:
    """Replace every match of *pattern* by *content*."""

    def run(a: Aligned) -> Aligned:
        spans = [m.span() for m in pattern.finditer(a.text)]
        return a.replace_spans(spans, content) if spans else a

    return run


def prepend(s: str) -> Normalizer:
    return lambda a: a.prepend(s)


def sequence(parts: list[Normalizer]) -> Normalizer:
    def run(a: Aligned) -> Aligned:
        for p in parts:
            a = p(a)
        return a

    return run


def _text(obj: dict[str, Any], key: str, what: str, source: str) -> str:
    v = obj.get(key)
    if not isinstance(v, str):
        raise FormatError(f"{source}: {what} needs a text \"{key}\", not {v!r:.40}")
    return v


def read_normalizer(obj: Any, source: str) -> Normalizer | None:
    """The normalizer an HF ``normalizer`` object describes (``None`` for none)."""
    if obj is None:
        return None
    if not isinstance(obj, dict):
        raise FormatError(f"{source}: normalizer must be an object or null, not {obj!r:.40}")
    kind = obj.get("type")
    what = f'normalizer "{kind}"'
    if kind in ("NFC", "NFD", "NFKC", "NFKD"):
        return unicode_form(kind)
    if kind == "Lowercase":
        return _lowercase
    if kind == "StripAccents":
        return _strip_accents
    if kind == "Strip":
        return strip(bool(obj.get("strip_left", True)), bool(obj.get("strip_right", True)))
    if kind == "Replace":
        return replace(pattern_of(obj.get("pattern"), what, source), _text(obj, "content", what, source))
    if kind == "Prepend":
        return prepend(_text(obj, "prepend", what, source))
    if kind == "Sequence":
        items = obj.get("normalizers")
        if not isinstance(items, list):
            raise FormatError(f"{source}: {what} needs a list \"normalizers\"")
        parts = [read_normalizer(o, source) for o in items]
        return sequence([p for p in parts if p is not None])
    raise FormatError(f"{source}: {what} is not supported -- this program reads the normalizers NFC, NFD, "
                      "NFKC, NFKD, Lowercase, Strip, StripAccents, Replace, Prepend and Sequence")
