"""Tokenizer files: one module per format, and the functions that pick the right one.

So far: ``native`` (the app's own versioned JSON).  Every writer is atomic; every reader raises
:class:`~bpe_desktop.core.errors.FormatError` naming the file and what was expected.
"""

from __future__ import annotations

import os

from ..errors import FormatError
from ..model import BPEModel
from ..records import MergeRecord
from ..tokenizer import Tokenizer
from . import native

WRITE_FORMATS = ("native",)


def save_model(
    model: BPEModel, path: str | os.PathLike[str], fmt: str = "native", records: list[MergeRecord] | None = None
) -> None:
    """Write *model* to *path* in format *fmt*."""
    if fmt == "native":
        native.save(path, model, records)
        return
    raise FormatError(f"unknown output format {fmt!r} -- use one of {', '.join(WRITE_FORMATS)}")


def load_model(spec: str) -> BPEModel:
    """Read a tokenizer file, detecting its format from its content."""
    return native.load(spec)[0]


def load_tokenizer(spec: str) -> Tokenizer:
    """A ready tokenizer from a file (any readable format)."""
    return Tokenizer(load_model(spec))
