"""Which formats can hold a tokenizer: the writer's own refusal, asked before anything is written.

:func:`refusal` runs the format's serialiser in memory -- the very code that writes the file -- and returns
its :class:`~..errors.FormatError` message, so a window can grey a format with the reason before the user
names a file, and the answer is exactly the one writing would give (never a copy of the rules that could
drift).  It leaves out where the file goes (:func:`~..io.atomic.check_writable`) and the writing itself
(:func:`~.save_model`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import FormatError
from ..records import MergeRecord
from ..tokenizers.model import BPEModel
from . import csv_stats, gpt2, hf_json, native, subword_nmt, tiktoken_file


def refusal(model: BPEModel, fmt: str,
            records: Sequence[MergeRecord] | Sequence[dict[str, Any]] | None = None) -> str | None:
    """Why format *fmt* cannot hold *model* (with *records*, its per-merge statistics), or ``None``.

    >>> from bpe_desktop.core import TrainConfig, train
    >>> model, recs = train({"low": 5, "lower": 2}, TrainConfig(mode="bytes", pretokenizer="gpt2", merges=2))
    >>> refusal(model, "hf") is None, refusal(model, "csv", recs) is None
    (True, True)
    >>> refusal(model, "subword-nmt")[:47]
    'subword-nmt codes are character-level and canno'
    >>> refusal(model, "csv")[:40]
    'the CSV format holds per-merge training '
    """
    try:
        if fmt == "native":
            native.dumps(model, records)
        elif fmt == "hf":
            hf_json.to_dict(model)
        elif fmt in ("gpt2", "vocab-merges"):
            gpt2.dumps(model)
        elif fmt == "subword-nmt":
            subword_nmt.dumps(model)
        elif fmt == "tiktoken":
            tiktoken_file.dumps(model)
        elif fmt == "csv":
            csv_stats.dumps(model, records)
        else:
            raise FormatError(f"unknown output format {fmt!r}")
    except FormatError as e:
        return str(e)
    return None
