"""Special tokens in text: split text into ordinary parts and special tokens, by tiktoken's rules.

``allowed_special`` specials are cut out and given their ids; any ``disallowed_special`` found in the text
is refused with a :class:`SpecialTokenError` that names the argument to pass.  Shared by every tokenizer
class; it does not encode the ordinary parts.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Literal

import regex

from ..errors import DisallowedSpecialError, SpecialTokenError
from .regex_budget import RegexBudget


def split_specials(
    text: str,
    specials: Mapping[str, int],
    allowed_special: Literal["all"] | Collection[str],
    disallowed_special: Literal["all"] | Collection[str],
) -> list[tuple[str, int | None]]:
    """Split *text* into ``(ordinary text, None)`` and ``(special, id)`` parts, tiktoken's rules."""
    allowed = set(specials) if allowed_special == "all" else set(allowed_special)
    unknown = allowed - set(specials)
    if unknown:
        raise SpecialTokenError(
            f"{sorted(unknown)} are not special tokens of this tokenizer -- it has {sorted(specials) or 'none'}"
        )
    disallowed = set(specials) - allowed if disallowed_special == "all" else set(disallowed_special)
    if disallowed and any(s in text for s in disallowed):  # str.find first: far faster than a regex
        m = regex.search("|".join(regex.escape(s) for s in sorted(disallowed, key=len, reverse=True)), text)
        if m:
            raise DisallowedSpecialError(
                f"the text contains the special token {m.group()!r} at character {m.start()} -- pass "
                f"allowed_special={{{m.group()!r}}} (CLI: --allow-special) to encode it as a special "
                "token, or disallowed_special=() (CLI: --no-special) to encode it as ordinary text",
                m.group(), m.start(),
            )
    if not allowed or not any(s in text for s in allowed):
        return [(text, None)]
    pat = regex.compile("|".join(regex.escape(s) for s in sorted(allowed, key=len, reverse=True)))
    parts: list[tuple[str, int | None]] = []
    pos = 0
    for m in pat.finditer(text):
        if m.start() > pos:
            parts.append((text[pos : m.start()], None))
        parts.append((m.group(), specials[m.group()]))
        pos = m.end()
    if pos < len(text):
        parts.append((text[pos:], None))
    return parts


class EncodesSpecials:
    """Mixin giving a tokenizer tiktoken's ``encode``: specials cut out by :func:`split_specials`, the text
    between them passed to the class's own ``encode_ordinary``."""

    _specials: dict[str, int]

    def encode_ordinary(self, text: str, upto: int | None = None, *, budget: RegexBudget | None = None) -> list[int]:
        raise NotImplementedError

    def encode(
        self,
        text: str,
        *,
        upto: int | None = None,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
        budget: RegexBudget | None = None,
    ) -> list[int]:
        """Encode *text*; special tokens in it are refused unless allowed (tiktoken's rule).  A custom
        pattern runs under *budget*, one for the whole call when ``None``."""
        if budget is None:
            budget = RegexBudget(what="encoding")
        if not self._specials:
            return self.encode_ordinary(text, upto, budget=budget)
        out: list[int] = []
        for segment, sid in split_specials(text, self._specials, allowed_special, disallowed_special):
            if sid is None:
                out.extend(self.encode_ordinary(segment, upto, budget=budget))
            else:
                out.append(sid)
        return out
