"""The per-merge statistics as CSV: the columns of ``train --steps`` (write only: it is a report, not a
tokenizer).  Rows come from training records, or from the stats a native file stores."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, cast

from ..errors import FormatError
from ..io.atomic import atomic_write
from ..io.csv_table import csv_text
from ..records import STEP_COLUMNS, MergeRecord
from ..tokenizers.model import BPEModel


def rows_from_stats(model: BPEModel, stats: Sequence[dict[str, Any]]) -> list[tuple[object, ...]]:
    """Rows of :data:`STEP_COLUMNS` from a native file's stored stats and its model's merge texts."""
    texts = model.merge_pairs_text()
    rows = []
    for k, s in enumerate(stats):
        if k >= len(texts):
            break
        left, right = texts[k]
        token = model.token_str(model.merge_token_ids[k])
        full = {**s, "left": left, "right": right, "token": token}
        rows.append(tuple(full.get(c, "") for c in STEP_COLUMNS))
    return rows


def steps_csv(records: Sequence[MergeRecord]) -> str:
    """The ``train --steps`` CSV text: header :data:`STEP_COLUMNS`, one row per merge (header only if none)."""
    return csv_text(STEP_COLUMNS, (r.row() for r in records))


def dumps(model: BPEModel, records: Sequence[MergeRecord] | Sequence[dict[str, Any]] | None) -> str:
    if not records:
        raise FormatError("the CSV format holds per-merge training statistics and this tokenizer has none "
                          "-- write it from 'train' or from a native file saved after training")
    rows = (
        [r.row() for r in cast(Sequence[MergeRecord], records)] if isinstance(records[0], MergeRecord)
        else rows_from_stats(model, cast(Sequence[dict[str, Any]], records))
    )
    return csv_text(STEP_COLUMNS, rows)


def save(path: str | os.PathLike[str], model: BPEModel,
         records: Sequence[MergeRecord] | Sequence[dict[str, Any]] | None) -> None:
    text = dumps(model, records)
    with atomic_write(path) as f:
        f.write(text)
