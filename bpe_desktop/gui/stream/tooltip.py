"""What hovering a token in the token stream says: its text, id and bytes, and the merge that made it with
the pair's count then.  Qt-free; it leaves out where the tooltip shows (the canvas)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...core.choices import Mode
from ...core.records import MergeRecord
from ...core.tokenizers.model import BPEModel
from ...core.tokenizers.tokenizer import UNKNOWN_ID
from ...core.views.segmentation import Segment


def token_tooltip(model: BPEModel, records: Sequence[MergeRecord], seg: Segment,
                  label_of: Callable[[int], str]) -> str:
    """The tooltip of *seg* ("" for a gap between tokens); *label_of* gives a token id's display label."""
    i = seg.id
    if i is None:
        return ""
    if i == UNKNOWN_ID:
        return f"{seg.label}\nnot in this chars-mode alphabet (unknown)"
    lines = [f"{seg.label}", f"id {i}"]
    if model.mode == Mode.BYTES and i < len(model.tokens):
        lines[0] += "   bytes " + " ".join(f"{b:02x}" for b in model.tokens[i])
    r = model.merge_rank_of(i)
    if r is None:
        lines.append("special token" if i >= len(model.tokens) else "base symbol")
    else:
        a, b = model.merges[r]
        lines.append(f"made by merge {r + 1}: {label_of(a)} + {label_of(b)}")
        if r < len(records):
            lines.append(f"count when created: {records[r].count:,}")
    return "\n".join(lines)
