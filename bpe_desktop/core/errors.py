"""User-facing errors of bpe-desktop.

Every error a user can cause (a bad file, a bad regex, a wrong format, a bad option) is raised as a
subclass of :class:`BpeError` whose message says what went wrong *and how to fix it*.  The CLI prints the
message on one line and exits with status 2; the GUI shows it in a dialog.  Programming errors are not
wrapped: they stay ordinary Python exceptions with tracebacks.

This module holds no logic beyond the exception types.
"""

from __future__ import annotations


class BpeError(Exception):
    """Base class of every error a user can cause; ``str(err)`` is a complete, actionable sentence."""


class CorpusError(BpeError):
    """A corpus file could not be read (missing, not UTF-8, malformed word-count table...)."""


class PatternError(BpeError):
    """A pre-tokenization pattern does not compile or took too long on the input."""


class RegexTimeout(PatternError):
    """A custom pattern used up its job's time budget (see :mod:`bpe_desktop.core.text.regex_budget`)."""

    def __init__(self, pattern: str, seconds: float, what: str = "") -> None:
        self.pattern = pattern
        self.seconds = seconds
        where = f" while {what}" if what else ""
        super().__init__(
            f"the custom pre-tokenizer pattern «{pattern}» used up its {seconds:.3g} s time budget{where} "
            "(catastrophic backtracking: the work grows exponentially with the input) -- simplify nested "
            "quantifiers such as (a+)+ to a+, use a named pattern (gpt2, cl100k, whitespace...), or give "
            "it more time (CLI: --regex-budget SECONDS)"
        )


class WriteError(BpeError):
    """A file could not be written (full disk, permission denied, read-only file system, bad target).

    Whatever was at the path before is left as it was."""


class FormatError(BpeError):
    """A tokenizer file is malformed, or a format cannot express the tokenizer being written."""


class PretokenizerNeeded(FormatError):
    """A rank file that holds no pattern and is no known encoding: the caller must name its pre-tokenizer
    (CLI: ``--pretokenizer``; the window asks).  *extends*: the short name of the known encoding whose ranks the
    file extends ("cl100k"; "" when none) -- then the one exact choice is that encoding's pattern and specials
    (``cl100k:FILE``), which the caller offers, never takes silently."""

    def __init__(self, message: str, path: str, extends: str = "") -> None:
        super().__init__(message)
        self.path = path
        self.extends = extends

    def __reduce__(self) -> tuple[type, tuple[str, str, str]]:  # (sent back from a worker process whole)
        return type(self), (str(self), self.path, self.extends)


class EmptyCorpusError(CorpusError):
    """The corpus holds no piece to learn from (empty input, or the pre-tokenizer matched nothing)."""


class SessionError(FormatError):
    """A session file is unreadable, malformed, or from a newer version (see :mod:`.session_file`)."""


class ConfigError(BpeError):
    """Training or encoding options that contradict each other or are out of range."""


class SpecialTokenError(BpeError):
    """Text contains a special token that the caller did not allow."""


class DisallowedSpecialError(SpecialTokenError):
    """The text contains the special token ``token`` at character ``position`` and it was not allowed."""

    def __init__(self, message: str, token: str, position: int) -> None:
        super().__init__(message)
        self.token = token
        self.position = position


class Cancelled(Exception):
    """Raised inside long operations when the caller's cancel check returns true.

    Not a :class:`BpeError`: cancelling is not a mistake, and callers catch it separately.
    """
