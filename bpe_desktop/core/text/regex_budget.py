"""One time budget per job for every user-supplied regular expression run on user text.

A custom pre-tokenizer pattern can backtrack catastrophically (``(a+)+$`` on a long run of ``a``).  A
timeout per call is not enough: a corpus of many lines that each take just under the limit runs for
minutes and then "succeeds".  A :class:`RegexBudget` is created once per job (counting a corpus, encoding a
text, computing statistics) and passed down to every call; each call gets ``timeout=remaining`` and its
time is charged to the budget, so the whole job spends at most the budget inside the pattern.  When it is
used up the job fails with :class:`~bpe_desktop.core.errors.RegexTimeout`, naming the pattern and the fix.

Only time spent *inside* the regex engine is charged (reading files or counting is not), so a slow disk
or a loaded machine does not eat a budget meant for the pattern.  A budget is not thread-safe: give each
thread or process its own (it pickles as a fresh budget of the same size).  Named patterns are linear and
are not run through a budget (see :mod:`bpe_desktop.core.text.pretokenize`).  This module knows nothing of
pre-tokenization itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import RegexTimeout

T = TypeVar("T")

#: seconds a job may spend inside a custom pattern, before per-size allowance
DEFAULT_BUDGET_S = 5.0
#: extra seconds allowed per MB of input when the budget is sized for a corpus (:meth:`RegexBudget.for_bytes`)
PER_MB_S = 2.0


class RegexBudget:
    """Seconds a job may spend inside user patterns, charged call by call.

    >>> import regex
    >>> b = RegexBudget(1.0)
    >>> b.run(regex.compile(r"\\w+").findall, "a bc", pattern=r"\\w+")
    ['a', 'bc']
    >>> 0 < b.remaining <= 1.0
    True
    """

    def __init__(self, seconds: float | None = None, *, what: str = "") -> None:
        if seconds is None:
            seconds = DEFAULT_BUDGET_S
        if not seconds > 0:
            raise ValueError("a regex budget must be a positive number of seconds")
        self.seconds = float(seconds)
        self.spent = 0.0
        self.what = what  # e.g. "counting corpus.txt": added to the error message

    @classmethod
    def for_bytes(cls, n_bytes: int, seconds: float | None = None, *, what: str = "") -> RegexBudget:
        """*seconds* if given, else :data:`DEFAULT_BUDGET_S` plus :data:`PER_MB_S` per MB of input, so a big
        corpus with a sound custom pattern is never refused while a catastrophic one still stops."""
        if seconds is None:
            seconds = DEFAULT_BUDGET_S + PER_MB_S * n_bytes / 1e6
        return cls(seconds, what=what)

    @property
    def remaining(self) -> float:
        return max(self.seconds - self.spent, 0.0)

    def _timeout(self, pattern: str) -> RegexTimeout:
        return RegexTimeout(pattern, self.seconds, self.what)

    def run(self, fn: Callable[..., T], *args: Any, pattern: str, **kwargs: Any) -> T:
        """Call ``fn(*args, timeout=remaining, **kwargs)`` (a compiled pattern's ``findall``, ``split``...),
        charge its time, and turn a timeout into :class:`RegexTimeout`."""
        left = self.remaining
        if left <= 0:
            raise self._timeout(pattern)
        t0 = time.monotonic()
        try:
            return fn(*args, timeout=left, **kwargs)
        except TimeoutError:
            self.spent = self.seconds
            raise self._timeout(pattern) from None
        finally:
            self.spent += time.monotonic() - t0

    def pieces(self, compiled: Any, text: str, pattern: str) -> list[tuple[int, str]]:
        """``(start, text)`` of every non-empty match of ``compiled`` in *text*, under the budget.  Matches
        are collected in one tight loop, so only the engine's time (and this loop's) is charged."""
        left = self.remaining
        if left <= 0:
            raise self._timeout(pattern)
        out: list[tuple[int, str]] = []
        append = out.append
        clock = time.monotonic
        t0 = clock()
        deadline = t0 + left
        try:
            for m in compiled.finditer(text, timeout=left):  # the engine's timeout bounds each search
                if m.end() > m.start():
                    append((m.start(), m.group()))
                if clock() > deadline:  # and this bounds their sum
                    raise TimeoutError
        except TimeoutError:
            self.spent = self.seconds
            raise self._timeout(pattern) from None
        self.spent += clock() - t0
        return out

    def __reduce__(self) -> tuple[Any, ...]:  # a worker process gets a fresh budget of the same size
        return (_fresh, (self.seconds, self.what))


def _fresh(seconds: float, what: str) -> RegexBudget:
    return RegexBudget(seconds, what=what)
