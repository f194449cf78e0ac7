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


class FormatError(BpeError):
    """A tokenizer file is malformed, or a format cannot express the tokenizer being written."""


class ConfigError(BpeError):
    """Training or encoding options that contradict each other or are out of range."""


class SpecialTokenError(BpeError):
    """Text contains a special token that the caller did not allow."""


class Cancelled(Exception):
    """Raised inside long operations when the caller's cancel check returns true.

    Not a :class:`BpeError`: cancelling is not a mistake, and callers catch it separately.
    """
