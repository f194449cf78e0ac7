"""Text with an alignment to the original: HF's ``NormalizedString``, in the few operations readers need.

``Aligned.text`` is the transformed text; ``Aligned.align[k] = (start, end)`` is the span of *original*
characters that character ``k`` came from.  A character the transformation changed or inserted points at
the original characters it replaced (an inserted prefix points at the first character, as in HF), so a
token's span in the original text is the union of its characters' spans: exact where the text is
unchanged, widened to whole original characters where it was normalized.  It does not encode anything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

Span = tuple[int, int]

#: Rust's ``char::is_whitespace`` (Unicode White_Space): Python's ``str.isspace`` minus U+001C..U+001F
_NOT_RUST_SPACE = frozenset("\x1c\x1d\x1e\x1f")


def rust_space(c: str) -> bool:
    """``char::is_whitespace`` of Rust, which HF uses to strip and split.

    >>> rust_space(" "), rust_space("\\x1c"), rust_space("\\u3000")
    (True, False, True)
    """
    return c.isspace() and c not in _NOT_RUST_SPACE


@dataclass(slots=True)
class Aligned:
    """A text and, per character, the original span it stands for.

    ``align`` is ``None`` while the text is the original's characters from ``offset`` on, after ``lead``
    inserted characters (aligned with the first one): the common case costs no list.

    >>> a = Aligned.original("hello", 3).prepend(" ")
    >>> a.text, a.span(0, 1), a.span(1, 3), a.slice(2, 4).span(0, 2)
    (' hello', (3, 4), (3, 5), (4, 6))
    """

    text: str
    align: list[Span] | None = None
    offset: int = 0
    lead: int = 0

    @classmethod
    def original(cls, text: str, start: int = 0) -> Aligned:
        """*text* unchanged, its first character being character *start* of the original."""
        return cls(text, None, start)

    def char_span(self, k: int) -> Span:
        """The original span of character *k*."""
        if self.align is not None:
            return self.align[k]
        o = self.offset + max(0, k - self.lead)
        return o, o + 1

    def spans(self) -> list[Span]:
        """Every character's original span."""
        if self.align is not None:
            return self.align
        return [self.char_span(k) for k in range(len(self.text))]

    def start(self) -> int:
        """The original position where this text begins (HF's ``offsets_original().0``)."""
        return self.char_span(0)[0] if self.text else -1

    def slice(self, i: int, j: int) -> Aligned:
        if self.align is None:
            return Aligned(self.text[i:j], None, self.offset + max(0, i - self.lead), max(0, min(j, self.lead) - i))
        return Aligned(self.text[i:j], self.align[i:j])

    def span(self, i: int, j: int) -> Span:
        """The original span of characters ``i..j`` (``i < j``)."""
        if self.align is None:
            return self.char_span(i)[0], self.char_span(j - 1)[1]
        a = self.align[i:j]
        return min(s for s, _ in a), max(e for _, e in a)

    def map_chars(self, f: Callable[[str], str]) -> Aligned:
        """Replace each character by ``f(c)`` (any length, the same original span)."""
        text: list[str] = []
        align: list[Span] = []
        for c, sp in zip(self.text, self.spans(), strict=True):
            out = f(c)
            text.append(out)
            align.extend([sp] * len(out))
        return Aligned("".join(text), align)

    def replace_spans(self, spans: Iterable[Span], content: str) -> Aligned:
        """Replace each (sorted, disjoint) character range by *content* (which takes the range's span; an
        empty range gets the span of the character after it)."""
        spans = list(spans)
        if not spans:
            return self
        old = self.spans()
        text: list[str] = []
        align: list[Span] = []
        pos = 0
        n = len(self.text)
        for i, j in spans:
            text.append(self.text[pos:i])
            align.extend(old[pos:i])
            if content:
                if i < j:
                    sp = self.span(i, j)
                elif i < n:
                    sp = (old[i][0], old[i][0])
                else:
                    sp = (old[-1][1], old[-1][1]) if n else (0, 0)
                text.append(content)
                align.extend([sp] * len(content))
            pos = j
        text.append(self.text[pos:])
        align.extend(old[pos:])
        return Aligned("".join(text), align)

    def prepend(self, s: str) -> Aligned:
        """*s* before the text, aligned with its first character (HF's ``prepend``)."""
        if not self.text:
            return self
        if self.align is None:
            return Aligned(s + self.text, None, self.offset, self.lead + len(s))
        return Aligned(s + self.text, [self.align[0]] * len(s) + self.align)

    def segments(self, cuts: Iterable[Span], mapped: Iterable[str]) -> Aligned:
        """The text rebuilt from ranges that cover it end to end, range ``k`` becoming ``mapped[k]``
        (every character of it with the whole range's span; a range left as it was keeps its characters')."""
        text: list[str] = []
        align: list[Span] = []
        for (i, j), out in zip(cuts, mapped, strict=True):
            text.append(out)
            if out == self.text[i:j]:
                align.extend(self.char_span(k) for k in range(i, j))
            else:
                align.extend([self.span(i, j)] * len(out))
        return Aligned("".join(text), align)
