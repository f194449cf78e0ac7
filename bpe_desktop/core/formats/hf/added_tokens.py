"""HF added tokens: cut out of the text before the model sees it, as ``AddedVocabulary`` does.

Added tokens whose ``normalized`` is false are found in the original text first; the rest of the text is
normalized, and then the added tokens whose ``normalized`` is true are found there, by their normalized
form.  Matching is leftmost-longest; ``single_word`` skips a match touching a word character, ``lstrip`` and
``rstrip`` take the whitespace beside a match into the token.  Special or not makes no difference here
(only to decoding with ``skip_special_tokens``).  It does not pre-tokenize or encode the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import regex

from ...errors import FormatError
from .aligned import Aligned, Span, rust_space

Normalizer = Callable[[Aligned], Aligned]


@dataclass(frozen=True)
class AddedToken:
    content: str
    id: int  # the file's id
    special: bool = False
    normalized: bool = False
    single_word: bool = False
    lstrip: bool = False
    rstrip: bool = False


def read_added(items: object, source: str) -> list[AddedToken]:
    """The ``added_tokens`` list of a ``tokenizer.json``."""
    if items is None:
        return []
    if not isinstance(items, list):
        raise FormatError(f"{source}: added_tokens must be a list")
    out = []
    for n, a in enumerate(items, 1):
        if not (isinstance(a, dict) and isinstance(a.get("content"), str) and a["content"]
                and type(a.get("id")) is int):
            raise FormatError(f"{source}: added token {n} needs a non-empty \"content\" and an integer \"id\"")
        flags = {}
        for key in ("special", "normalized", "single_word", "lstrip", "rstrip"):
            v = a.get(key, key == "normalized" and not a.get("special", False))
            if not isinstance(v, bool):
                raise FormatError(f"{source}: added token {a['content']!r:.40}: \"{key}\" must be true or false")
            flags[key] = v
        out.append(AddedToken(a["content"], a["id"], **flags))
    return out


def _word_char(c: str) -> bool:
    return c.isalnum() or c == "_"


class Matcher:
    """Finds a set of added tokens in a text (by *forms*: their content, or its normalized form)."""

    def __init__(self, tokens: Sequence[AddedToken], forms: Sequence[str]) -> None:
        self.by_form: dict[str, AddedToken] = {}
        for t, f in zip(tokens, forms, strict=True):
            if f:
                self.by_form.setdefault(f, t)
        alts = sorted(self.by_form, key=len, reverse=True)
        self.pattern = regex.compile("|".join(regex.escape(f) for f in alts)) if alts else None

    def split(self, a: Aligned) -> list[Aligned | tuple[AddedToken, Span]]:
        """*a* cut into text pieces and ``(added token, original span)`` parts (empty pieces dropped)."""
        text = a.text
        if self.pattern is None or not text:
            return [a] if text else []
        out: list[Aligned | tuple[AddedToken, Span]] = []
        done = 0
        for m in self.pattern.finditer(text):
            start, stop = m.span()
            if start < done:
                continue  # inside what an rstrip already took
            tok = self.by_form[m.group()]
            if tok.single_word and ((start > 0 and _word_char(text[start - 1]))
                                    or (stop < len(text) and _word_char(text[stop]))):
                continue
            if tok.lstrip:
                while start > done and rust_space(text[start - 1]):
                    start -= 1
            if tok.rstrip:
                while stop < len(text) and rust_space(text[stop]):
                    stop += 1
            if done < start:
                out.append(a.slice(done, start))
            out.append((tok, a.span(start, stop)))
            done = stop
        if done < len(text):
            out.append(a.slice(done, len(text)))
        return out


class AddedTokens:
    """The added tokens of a file and the normalizer their ``normalized`` forms go through."""

    def __init__(self, tokens: Sequence[AddedToken], normalizer: Normalizer | None) -> None:
        self.tokens = list(tokens)
        self.normalizer = normalizer
        raw = [t for t in tokens if not t.normalized]
        norm = [t for t in tokens if t.normalized]
        self.raw = Matcher(raw, [t.content for t in raw])
        forms = [self._normalize(Aligned.original(t.content)).text for t in norm]
        self.norm = Matcher(norm, forms)
        #: the file's id -> the token's text as HF gives it back (``id_to_token``, decoding): a normalized
        #: added token is known by its normalized form
        self.text_of = {t.id: t.content for t in raw} | {t.id: f for t, f in zip(norm, forms, strict=True)}

    def _normalize(self, a: Aligned) -> Aligned:
        return self.normalizer(a) if self.normalizer is not None else a

    def extract(self, text: str) -> list[Aligned | tuple[AddedToken, Span]]:
        """The text as normalized pieces and added tokens, in order."""
        out: list[Aligned | tuple[AddedToken, Span]] = []
        for part in self.raw.split(Aligned.original(text)):
            if isinstance(part, Aligned):
                out.extend(self.norm.split(self._normalize(part)))
            else:
                out.append(part)
        return out
