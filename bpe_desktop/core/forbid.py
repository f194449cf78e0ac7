"""Forbidden merges: the pairs the trainer must never merge, and how a user writes them.

A rule forbids (1) named pairs, given as the display text of their two symbols (``("e", "s")``, bytes mode
as the merge list shows them: ``("Ġ", "t")``), and (2) optionally every pair whose *merged token* matches a
regular expression, searched anywhere in the token's text: chars mode the token as shown (with its
end-of-word marker, ``est</w>``), bytes mode its bytes decoded as UTF-8 (an incomplete character as U+FFFD),
so ``\\d\\s\\d`` or ``\\d \\d`` means "digits across a space" in both modes.  Anchor with ``^…$`` to match
whole tokens.

On the command line a pair is one string ``"LEFT RIGHT"``: the two symbols separated by one unescaped
space; inside a symbol ``\\ `` is a space, ``\\\\`` a backslash and ``\\n``, ``\\t``, ``\\r`` what they are in
Python (:func:`parse_pair`, :func:`format_pair`).

This module only decides; the trainer (:mod:`.trainer`) asks it once per distinct pair and caches the
answer, and the settings live in :class:`~.config.TrainConfig` (``forbid``, ``forbid_regex``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .choices import Mode
from .errors import ConfigError, PatternError
from .text.byte_level import UNICODE_TO_BYTE, bytes_to_text
from .text.pretokenize import CUSTOM_TIMEOUT_S, validate_pattern

Pair = tuple[str, str]  # (left, right) as display text

_ESCAPES = {" ": " ", "\\": "\\", "n": "\n", "t": "\t", "r": "\r"}
_UNESCAPES = {v: "\\" + k for k, v in _ESCAPES.items()}


def parse_pair(text: str) -> Pair:
    r"""Read ``"LEFT RIGHT"`` (one unescaped space between the symbols; ``\ `` is a space inside one).

    >>> parse_pair("e s")
    ('e', 's')
    >>> parse_pair(r"\ the re")
    (' the', 're')
    >>> parse_pair(r"a\\ \n")
    ('a\\', '\n')
    """
    parts: list[str] = []
    cur: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            nxt = text[i + 1 : i + 2]
            if nxt not in _ESCAPES:
                shown = f"\\{nxt}" if nxt else "a lone \\ at the end"
                raise ConfigError(
                    f"forbidden pair {text!r}: unknown escape {shown} -- inside a symbol write \\  for a space, "
                    "\\\\ for a backslash, \\n \\t \\r for newline, tab, carriage return"
                )
            cur.append(_ESCAPES[nxt])
            i += 2
            continue
        if ch == " ":
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    parts.append("".join(cur))
    if len(parts) != 2 or not all(parts):
        raise ConfigError(
            f"forbidden pair {text!r} is not two symbols separated by one space -- write it as \"LEFT RIGHT\" "
            "(e.g. \"e s\"), with \\  for a space inside a symbol"
        )
    return parts[0], parts[1]


def format_pair(pair: Pair) -> str:
    r"""The inverse of :func:`parse_pair`.

    >>> format_pair((" the", "re"))
    '\\ the re'
    >>> parse_pair(format_pair(("a b\\", "\n"))) == ("a b\\", "\n")
    True
    """
    return " ".join("".join(_UNESCAPES.get(ch, ch) for ch in sym) for sym in pair)


def check_pairs(pairs: Iterable[Any], mode: Mode) -> None:
    """Raise :class:`ConfigError` unless every item is a pair of non-empty symbol texts valid in *mode*."""
    for p in pairs:
        if not (isinstance(p, tuple) and len(p) == 2 and all(isinstance(s, str) and s for s in p)):
            raise ConfigError(f"forbidden pair {p!r} must be two non-empty symbols (left, right)")
        if mode == Mode.BYTES:
            for sym in p:
                bad = next((ch for ch in sym if ch not in UNICODE_TO_BYTE), None)
                if bad is not None:
                    shown = bytes_to_text(sym.encode("utf-8", "surrogateescape"))
                    raise ConfigError(
                        f"forbidden pair {format_pair(p)!r}: in bytes mode symbols are written as the merge "
                        f"list shows them (GPT-2's byte characters, Ġ for a space), and {bad!r} is not one "
                        f"-- write {sym!r} as {shown!r}"
                    )


def compile_regex(pattern: str) -> Any:
    """Compile a forbid pattern; a bad one raises :class:`PatternError` with the position."""
    if pattern == "":
        raise PatternError("the forbid pattern is empty -- give a regular expression, or leave it out")
    problem = validate_pattern(pattern)
    if problem is not None:
        raise PatternError(f"forbid pattern does not compile: {problem}")
    import regex  # not at import time: most runs have no pattern, and the module costs start-up memory

    return regex.compile(pattern)


def token_match_text(token: str | bytes) -> str:
    """The text a forbid pattern is searched in: chars tokens as they are, bytes decoded as UTF-8.

    >>> token_match_text(b"1 2"), token_match_text(b"\\xe2\\x82")
    ('1 2', '\\ufffd')
    """
    return token.decode("utf-8", "replace") if isinstance(token, bytes) else token


class ForbidRule:
    """The compiled rule of one training run (build it with :meth:`from_settings`; ``None`` when empty).

    >>> rule = ForbidRule.from_settings([("e", "s")], r"\\d \\d")
    >>> rule.blocks("e", "s", "es"), rule.blocks("1", " 2", "1 2"), rule.blocks("e", "r", "er")
    (True, True, False)
    """

    def __init__(self, pairs: Iterable[Pair], pattern: str | None) -> None:
        self.pairs: frozenset[Pair] = frozenset(pairs)
        self.pattern = pattern
        self._regex = compile_regex(pattern) if pattern is not None else None

    @classmethod
    def from_settings(cls, pairs: Iterable[Pair], pattern: str | None) -> ForbidRule | None:
        pairs = tuple(pairs)
        if not pairs and pattern is None:
            return None
        return cls(pairs, pattern)

    def blocks(self, left: str, right: str, token: str | bytes) -> bool:
        """True when the pair (*left*, *right*) (display texts) making *token* must not be merged."""
        if (left, right) in self.pairs:
            return True
        if self._regex is None:
            return False
        try:
            return self._regex.search(token_match_text(token), timeout=CUSTOM_TIMEOUT_S) is not None
        except TimeoutError as e:
            raise PatternError(
                f"the forbid pattern «{self.pattern}» took more than {CUSTOM_TIMEOUT_S:g} s on one token "
                "(catastrophic backtracking) -- simplify nested quantifiers such as (a+)+"
            ) from e
