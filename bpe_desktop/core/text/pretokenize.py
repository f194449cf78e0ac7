"""Pre-tokenization: split text into the pieces inside which BPE merges (merges never cross pieces).

Named patterns (``regex`` module syntax):

* ``none``       -- no split, the whole text (a line, when training on files) is one piece;
* ``whitespace`` -- runs of non-space characters, spaces dropped (the seeds' word tables, ``str.split``);
* ``gpt2``       -- GPT-2 / r50k, also HF ``ByteLevel(use_regex=True)``;
* ``cl100k``     -- tiktoken's cl100k_base;
* ``o200k``      -- tiktoken's o200k_base;
* ``subword-nmt`` -- words as subword-nmt splits a line (``line.strip('\r\n ').split(' ')``): on spaces and
  line ends only, so a tab or a no-break space stays inside its word;

and any custom regular expression.  A custom pattern is compiled with a clear error (with the position of
the problem) and always run under a :class:`~bpe_desktop.core.text.regex_budget.RegexBudget`: one budget per job
when the caller passes it (counting a corpus, encoding a text), else one per call, so a catastrophic pattern
cannot hang the program.  Named patterns run without the timeout: it costs a factor of three in speed and
they are known to be linear.

This module does not deal with special tokens (see :mod:`bpe_desktop.core.text.specials`) nor with bytes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import PatternError
from .lines import split_lines
from .log_patterns import LOG_PATTERNS
from .regex_budget import RegexBudget

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
# exactly what str.split() splits on: regex's \s plus the four information separators U+001C..U+001F
WHITESPACE_PATTERN = r"[^\s\x1c-\x1f]+"
# subword-nmt's words: runs without ' ' or '\n'; a '\r' counts only away from a line's ends
SUBWORD_NMT_PATTERN = r"(?:[^ \r\n]|(?<!(?:^|\n)[\r ]*)\r(?![\r ]*(?:\n|$)))+"

#: name -> (pattern or None for "no split", one-line description)
NAMED_PATTERNS: dict[str, tuple[str | None, str]] = {
    "none": (None, "no pre-tokenization: each line (with its newline) is one piece"),
    "whitespace": (WHITESPACE_PATTERN, "split on whitespace, drop it (the seeds' word tables)"),
    "subword-nmt": (SUBWORD_NMT_PATTERN, "split on spaces and newlines only, as subword-nmt does"),
    "gpt2": (GPT2_PATTERN, "GPT-2 / r50k: leading space attached to the next word"),
    "cl100k": (CL100K_PATTERN, "tiktoken cl100k_base (GPT-3.5/4)"),
    "o200k": (O200K_PATTERN, "tiktoken o200k_base (GPT-4o)"),
    **LOG_PATTERNS,  # log-digits, log-digits3, log-numbers, log-stamps, log-stamps3, log-punct
}

#: seconds a custom pattern may spend on one call when the caller gives no job budget
CUSTOM_TIMEOUT_S = 2.0


def validate_pattern(pattern: str) -> str | None:
    r"""Return ``None`` if *pattern* compiles, else a one-line error message with the position.

    Meant for as-you-type validation in the GUI.

    >>> validate_pattern(r"\w+") is None
    True
    >>> print(validate_pattern(r"(\w+"))
    missing ) at position 4 of «(\w+» -- close the group or escape the parenthesis as \(
    """
    import regex  # on first use: a run that needs no pattern (ASCII text under gpt2) never loads the module

    try:
        regex.compile(pattern)
    except regex.error as e:
        pos = getattr(e, "pos", None)
        where = f" at position {pos}" if pos is not None else ""
        hint = _hint(str(getattr(e, "msg", e)))
        return f"{getattr(e, 'msg', e)}{where} of {_quoted(pattern)}{hint}"
    return None


def _quoted(pattern: str) -> str:
    """The pattern as the user typed it (no repr doubling of backslashes)."""
    return f"«{pattern}»"


def _hint(msg: str) -> str:
    if "missing )" in msg:
        return " -- close the group or escape the parenthesis as \\("
    if "unbalanced parenthesis" in msg:
        return " -- remove the extra ')' or escape it as \\)"
    if "nothing to repeat" in msg or "multiple repeat" in msg:
        return " -- put a character or group before the quantifier, or escape it"
    if "unterminated character set" in msg:
        return " -- close the set with ] or escape the bracket as \\["
    return " -- fix the regular expression (regex module syntax)"


@dataclass(frozen=True)
class Pretokenizer:
    """A named or custom splitting rule.

    >>> Pretokenizer.from_spec("gpt2").split("Hello world!")
    ['Hello', ' world', '!']
    >>> Pretokenizer.from_spec("whitespace").split("low  lower")
    ['low', 'lower']
    """

    name: str  # a key of NAMED_PATTERNS, or "custom"
    pattern: str | None  # None means "no split"
    _compiled: Any = field(default=None, compare=False, repr=False)  # a named pattern's is made on first use

    @classmethod
    def from_spec(cls, spec: str) -> Pretokenizer:
        """Build from a pattern name (``gpt2``...) or from a custom regular expression."""
        if not isinstance(spec, str):
            raise PatternError(f"the pre-tokenizer must be a pattern name or a regular expression (text), not "
                               f"{type(spec).__name__} {spec!r:.40} -- use one of {', '.join(NAMED_PATTERNS)}")
        if spec in NAMED_PATTERNS:  # compiled on first use (the counting of ASCII text may never need it)
            return cls(spec, NAMED_PATTERNS[spec][0])
        if spec == "":
            raise PatternError(
                "the pre-tokenizer pattern is empty -- choose one of "
                f"{', '.join(NAMED_PATTERNS)} or type a regular expression"
            )
        problem = validate_pattern(spec)
        if problem is not None:
            raise PatternError(f"custom pre-tokenizer pattern does not compile: {problem}")
        import regex

        return cls("custom", spec, regex.compile(spec))

    @classmethod
    def from_pattern(cls, pattern: str | None) -> Pretokenizer:
        """Build from a raw pattern, giving it its name back when it is one of the named ones."""
        for name, (pat, _) in NAMED_PATTERNS.items():
            if pat == pattern:
                return cls.from_spec(name)
        if pattern is None:
            return cls.from_spec("none")
        return cls.from_spec(pattern)

    @property
    def compiled(self) -> Any:
        """The compiled pattern (``regex`` module); ``None`` for ``none``."""
        if self._compiled is None and self.pattern is not None:
            import regex

            object.__setattr__(self, "_compiled", regex.compile(self.pattern))  # a cache, not a change of value
        return self._compiled

    @property
    def spec(self) -> str:
        """What :meth:`from_spec` takes to rebuild this pre-tokenizer."""
        return self.name if self.name != "custom" else (self.pattern or "")

    @property
    def line_independent(self) -> bool:
        """True when splitting a text at its newlines first cannot change the pieces (no piece spans a
        newline), so a whole chunk of lines can be split at once."""
        return self.name == "whitespace"

    @property
    def drops_whitespace(self) -> bool:
        """True when the pieces do not cover spaces (``whitespace``), so decoding must re-insert them."""
        return self.name in ("whitespace", "subword-nmt")

    def split(self, text: str, budget: RegexBudget | None = None) -> list[str]:
        """Split *text* into pieces; empty matches are dropped.  A custom pattern runs under *budget*
        (the job's; a fresh :data:`CUSTOM_TIMEOUT_S` one when ``None``) and raises
        :class:`~bpe_desktop.core.errors.RegexTimeout` when it is used up."""
        if self.pattern is None:
            return split_lines(text)  # what ``none`` means: a line is one piece
        if self.name == "whitespace":
            return text.split()  # same pieces as WHITESPACE_PATTERN, three times faster
        if self.name == "subword-nmt":  # subword-nmt's own definition (the pattern gives the same, for spans)
            return [w for line in text.split("\n") for w in line.strip("\r\n ").split(" ") if w]
        if self.name != "custom":
            return self.compiled.findall(text)
        if budget is None:
            budget = RegexBudget(CUSTOM_TIMEOUT_S)
        pieces = budget.run(self.compiled.findall, text, pattern=self.pattern or "")
        if pieces and not isinstance(pieces[0], str):
            raise PatternError(
                f"the custom pattern {_quoted(self.pattern or '')} has several capturing groups -- use "
                "non-capturing groups (?:...) so each match is one piece"
            )
        return [p for p in pieces if p]

    def spans(self, text: str, budget: RegexBudget | None = None) -> Iterator[tuple[int, str]]:
        """Each non-empty piece of *text* with its start (in characters), whole matches (for offsets).
        Custom patterns run under *budget* as in :meth:`split`."""
        if self.pattern is None:
            pos = 0
            for line in split_lines(text):
                yield pos, line
                pos += len(line)
            return
        if self.name == "custom":
            yield from (budget or RegexBudget(CUSTOM_TIMEOUT_S)).pieces(self.compiled, text, self.pattern or "")
            return
        for m in self.compiled.finditer(text):
            if m.end() > m.start():
                yield m.start(), m.group()

    def __reduce__(self) -> tuple[Any, ...]:  # picklable for the worker process
        return (Pretokenizer.from_spec, (self.spec,))
