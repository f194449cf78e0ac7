""":class:`PipelineRef`: a ``tokenizer.json`` kept by reference (its path and the SHA-256 of its text), so that a
saved session can show a run through that file's own pipeline again, exactly or not at all.

:meth:`PipelineRef.read` reads the file back and refuses, with the fix in the message, a file that is gone,
that changed since it was referenced, or whose merge list is not the run's.  It does not store the pipeline
itself (the document holds the merges; the normalizer and pre-tokenizer are the file's).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from ...errors import SessionError
from ...tokenizers.model import BPEModel
from ..textio import read_text
from .pipeline import HFTokenizer


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


@dataclass(frozen=True)
class PipelineRef:
    """Where the file was (an absolute path) and the SHA-256 of its text when it was opened."""

    path: str
    sha256: str

    @classmethod
    def reading(cls, path: str | os.PathLike[str]) -> tuple[PipelineRef, HFTokenizer]:
        """Read the file at *path*: its reference and its pipeline."""
        from ..hf_json import loads_tokenizer

        path = os.path.abspath(os.fspath(path))
        text = read_text(path)
        return cls(path, _digest(text)), loads_tokenizer(text, path)

    def read(self, model: BPEModel, run: str = "a run") -> HFTokenizer:
        """The file's pipeline again, over the same merges as *model* (what *run* names in a message)."""
        from ..hf_json import loads_tokenizer

        if not os.path.exists(self.path):
            raise SessionError(f"{run} is shown through the pipeline of {self.path}, which is gone -- put the "
                               "file back there and open the session again (its merges alone would be "
                               "segmented differently)")
        text = read_text(self.path)
        if _digest(text) != self.sha256:
            raise SessionError(f"{run} is shown through the pipeline of {self.path}, which changed since the "
                               "session was saved -- put the original file back and open the session again")
        tok = loads_tokenizer(text, self.path)
        if list(tok.model.merges) != list(model.merges) or tok.model.base_key() != model.base_key():
            raise SessionError(f"{run}: the merges of {self.path} are not the run's -- the session file is "
                               "damaged")
        return tok
