"""A session's corpus by reference, and whether the referenced files are still what they were.

:class:`CorpusFile` describes one file (absolute path, size, modification time, SHA-256) and
:class:`SessionCorpus` the whole corpus (files by reference, or the typed text itself);
:func:`check_corpus` compares the files with what was recorded, so a caller can report a changed or
vanished corpus instead of silently retraining on different text.  A path may hold any bytes the file
system allows (on Linux a name that is not UTF-8 is a ``str`` with surrogate escapes, as :func:`os.fsdecode`
gives); a path with a NUL byte is reported as missing, never an exception.

It does not read or write session files (:mod:`.session_file`) nor open the corpus (:mod:`..counting`).
"""

from __future__ import annotations

import enum
import hashlib
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ..errors import CorpusError, SessionError
from ..io.reading import open_regular

_HASH_BLOCK = 1 << 20


@dataclass(frozen=True)
class CorpusFile:
    """A corpus file by reference: where it was and what it was when the session was saved."""

    path: str
    size: int
    mtime_ns: int
    sha256: str

    @classmethod
    def of(cls, path: str | os.PathLike[str]) -> CorpusFile:
        """Describe the file at *path* as it is now (reads it once to hash it)."""
        path = os.path.abspath(os.fspath(path))
        try:
            st = os.stat(path)
            digest = _sha256(path)
        except OSError as e:
            raise SessionError(f"{path}: cannot read the corpus file ({e.strerror}) -- check the path") from None
        return cls(path, st.st_size, st.st_mtime_ns, digest)


@dataclass(frozen=True)
class SessionCorpus:
    """Files by reference, or the typed text itself (``text`` set, ``files`` empty) with the name the window
    gave it (``name``, e.g. a sample's; "" when none: written only when set)."""

    files: tuple[CorpusFile, ...] = ()
    text: str | None = None
    word_counts: bool = False
    encoding_errors: str = "strict"
    name: str = ""

    @classmethod
    def from_files(cls, paths: Sequence[str | os.PathLike[str]], *, word_counts: bool = False,
                   encoding_errors: str = "strict") -> SessionCorpus:
        return cls(tuple(CorpusFile.of(p) for p in paths), None, word_counts, encoding_errors)

    @classmethod
    def from_text(cls, text: str, *, word_counts: bool = False, name: str = "") -> SessionCorpus:
        return cls((), text, word_counts, name=name)


# -- the corpus then and now -------------------------------------------------------------------------------
class CorpusState(enum.Enum):
    UNCHANGED = "unchanged"
    TOUCHED = "touched"  # modification time changed, content identical
    CHANGED = "changed"
    MISSING = "missing"
    EMBEDDED = "embedded"  # typed text kept in the session: nothing to check


class CorpusCheck(NamedTuple):
    """The state of one referenced file (``path`` ``None`` for an embedded corpus) and a sentence."""

    state: CorpusState
    path: str | None
    message: str


def check_corpus(corpus: SessionCorpus, *, always_hash: bool = False) -> list[CorpusCheck]:
    """Compare each referenced file with what the session recorded.  Size and modification time equal
    means unchanged (unless *always_hash*); otherwise the content hash decides."""
    if not corpus.files:
        return [CorpusCheck(CorpusState.EMBEDDED, None, "the corpus text is stored in the session")]
    out = []
    for ref in corpus.files:
        try:
            st = os.stat(ref.path)
        except (OSError, ValueError):  # ValueError: a NUL byte in the path
            out.append(CorpusCheck(CorpusState.MISSING, ref.path,
                                   f"{ref.path}: the corpus file is gone -- locate it, or retrain on another file"))
            continue
        if not stat.S_ISREG(st.st_mode):  # a FIFO would block the hash, a device never ends
            out.append(CorpusCheck(CorpusState.MISSING, ref.path, f"{ref.path}: not a regular file -- locate the "
                                   "corpus file, or retrain on another file"))
            continue
        if st.st_size != ref.size:
            out.append(CorpusCheck(CorpusState.CHANGED, ref.path, f"{ref.path}: the corpus file changed since "
                                   f"the session was saved ({ref.size} -> {st.st_size} bytes)"))
            continue
        if st.st_mtime_ns == ref.mtime_ns and not always_hash:
            out.append(CorpusCheck(CorpusState.UNCHANGED, ref.path, f"{ref.path}: unchanged"))
            continue
        try:
            same = _sha256(ref.path) == ref.sha256
        except (OSError, CorpusError) as e:
            why = str(e) if isinstance(e, CorpusError) else f"{ref.path}: cannot read it ({e.strerror})"
            out.append(CorpusCheck(CorpusState.MISSING, ref.path, why))
            continue
        if same:
            state = CorpusState.UNCHANGED if st.st_mtime_ns == ref.mtime_ns else CorpusState.TOUCHED
            out.append(CorpusCheck(state, ref.path, f"{ref.path}: same content"))
        else:
            out.append(CorpusCheck(CorpusState.CHANGED, ref.path,
                                   f"{ref.path}: the corpus file changed since the session was saved (same size, "
                                   "different content)"))
    return out


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open_regular(path, error=CorpusError, what="corpus file") as f:
        while block := f.read(_HASH_BLOCK):
            h.update(block)
    return h.hexdigest()
