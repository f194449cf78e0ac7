"""The token canvas's caches of encoded rows, and what a new model or new rows keep of them.

Segments per ``(row, step)`` and layouts per ``(row, step, width)`` (least-recently-used, a few thousand rows
each), labels per token id.  A retrain on the same rows with the same base symbols keeps step 0's
encodings: the Train press shows step 0 at once (encoding and laying out a screenful again
would lengthen the press).  Qt-free; it leaves out computing the entries (:mod:`.canvas`, :mod:`.layout`).
"""

from __future__ import annotations

from ...core.tokenizers.model import BPEModel
from ...core.views.segmentation import PackedSegments
from ..widgets.lru import LRU
from .layout import PackedLayout


class RowCaches:
    """``segs``, ``layouts`` and ``labels``, and the :meth:`~BPEModel.base_key` their step-0 entries were made with."""

    def __init__(self, limit: int, model: BPEModel) -> None:
        self.segs: LRU[tuple[int, int], PackedSegments] = LRU(limit)
        self.layouts: LRU[tuple[int, int, int], PackedLayout] = LRU(limit)
        self.labels: dict[int, str] = {}
        self.base_key: tuple[object, ...] = (*model.base_key(), None)

    def clear(self, keep_base_of: BPEModel | None = None) -> None:
        """Empty the caches; with *keep_base_of*, keep step 0's entries and the labels of its base ids."""
        if keep_base_of is None:
            self.segs.clear()
            self.layouts.clear()
            self.labels.clear()
            return
        self.segs.keep(lambda key: key[1] == 0)
        self.layouts.keep(lambda key: key[1] == 0)
        n_base = keep_base_of.n_base
        for i in [i for i in self.labels if i >= n_base]:
            del self.labels[i]

    def new_model(self, model: BPEModel, pipeline: object = None) -> bool:
        """Note *model* (encoded through a file's *pipeline*, if any) as the one entries are made with from
        now on; True if step 0 encodes as before (another pipeline object never does)."""
        key = (*model.base_key(), pipeline)
        same, self.base_key = key == self.base_key, key
        return same
