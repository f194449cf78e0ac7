"""A tokenizer read from a file, as a run of the window holds it, Qt-free: its merge records rebuilt from the model
(:func:`records_for`: the file's per-merge stats when it has them, else counts of 0 -- the file does not say why
each merge won), the settings it implies (:func:`tokenizer_config`), and an extension run's records -- the
original's, then the merges learned on top with the trainer's own (:func:`extension_records`).  It reads no file
(:mod:`.file_actions` does, behind dialogs; :mod:`.runs.persist` for a session) and shows nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from ..core.config import TrainConfig
from ..core.errors import BpeError
from ..core.records import MergeRecord
from ..core.tokenizers.model import BPEModel


def records_for(model: BPEModel, stats: list[dict[str, Any]] | None = None,
                progress: Callable[[int, int], None] | None = None) -> list[MergeRecord]:
    """Merge records rebuilt from a loaded model, with the native file's per-merge stats when it has them
    (otherwise counts are 0: the file does not say why each merge was chosen); *progress(done, total)* is
    called every few thousand merges."""
    out = []
    usable = stats if stats and len(stats) == len(model.merges) else None
    for k, ((a, b), c) in enumerate(zip(model.merges, model.merge_token_ids, strict=True), 1):
        if progress is not None and k % 4096 == 0:
            progress(k, len(model.merges))
        st = usable[k - 1] if usable else {}
        out.append(MergeRecord(
            rank=k, left=model.token_str(a), right=model.token_str(b), token=model.token_str(c),
            left_id=a, right_id=b, token_id=c, count=int(st.get("count", 0)), merged=int(st.get("merged", 0)),
            symbols_after=int(st.get("symbols_after", 0)), vocab_size=model.vocab_size_at(k),
            words_touched=int(st.get("words_touched", 0)),
            contenders=tuple((str(x), str(y), int(n)) for x, y, n in st.get("contenders", ())),
        ))
    return out


def tokenizer_config(model: BPEModel, base: TrainConfig) -> TrainConfig:
    """The settings that describe a loaded *model* (its mode, pre-tokenizer, markers, specials and length;
    the rest from *base*)."""
    try:
        return base.with_(mode=model.mode, pretokenizer=model.pretokenizer, end_of_word=model.end_of_word,
                          glue_marker=model.glue_marker, specials=model.specials,
                          tie_break=model.tie_break or "lexical", merges=len(model.merges), vocab_size=None)
    except BpeError:
        return base


def extension_records(model: BPEModel, start: int, added: Sequence[MergeRecord], initial_symbols: int,
                      progress: Callable[[int, int], None] | None = None) -> list[MergeRecord]:
    """An extension run's records: *model*'s first *start* merges (the original's, as :func:`records_for` rebuilds
    them; the last one holding the corpus's *initial_symbols* under the original, the timeline's step 0), then
    *added*, the new merges' own."""
    original = records_for(model.truncated(start), None, progress)
    if original:
        original[-1] = dataclasses.replace(original[-1], symbols_after=initial_symbols)
    return original + list(added)
