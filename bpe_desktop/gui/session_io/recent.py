"""File → Recent: the last corpora, sessions and tokenizers opened, kept in ``QSettings``.

Each kind keeps at most :data:`MAX_ENTRIES` absolute paths, newest first.  An entry whose file has gone
is removed when it is picked (the caller says so in a message).  It opens nothing itself.
"""

from __future__ import annotations

import enum
import os

from PySide6 import QtCore

MAX_ENTRIES = 8


class RecentKind(enum.Enum):
    CORPUS = "corpora"
    SESSION = "sessions"
    TOKENIZER = "tokenizers"

    @property
    def title(self) -> str:
        return {"corpora": "Corpora", "sessions": "Sessions", "tokenizers": "Tokenizers"}[self.value]


def _key(kind: RecentKind) -> str:
    return f"recent/{kind.value}"


def entries(kind: RecentKind) -> list[str]:
    value: object = QtCore.QSettings().value(_key(kind), [])
    if isinstance(value, str):  # QSettings gives a lone string for a one-item list on some back-ends
        value = [value]
    if not isinstance(value, (list, tuple)):
        return []
    return [v for v in value if isinstance(v, str) and v]


def add(kind: RecentKind, path: str) -> None:
    """Put *path* first in its list (a ``PRESET:PATH`` tokenizer spec is kept as given)."""
    path = path if ":" in path and not os.path.exists(path) else os.path.abspath(path)
    items = [path, *(p for p in entries(kind) if p != path)][:MAX_ENTRIES]
    QtCore.QSettings().setValue(_key(kind), items)


def remove(kind: RecentKind, path: str) -> None:
    QtCore.QSettings().setValue(_key(kind), [p for p in entries(kind) if p != path])


def exists(path: str) -> bool:
    """True if the file (or the file of a ``PRESET:PATH`` spec) is still there."""
    if os.path.exists(path):
        return True
    _, _, rest = path.partition(":")
    return bool(rest) and os.path.exists(rest)
