"""Statistics of a merge list over a corpus: pair frequencies at any step, compression, vocabulary trade-off.

* :mod:`.results` -- the result types (Zipf data and what a plot draws of it, compression curve, trade-off),
  their CSV columns, and the curves computed from training records alone;
* :mod:`.history` -- :class:`SegmentationHistory`, which gives the pair counts at any step of a growing
  merge list; :mod:`.rewritten` -- the same from a segmentation given at each step (an extension's);
  :mod:`.replayed` -- the Zipf data of a big corpus from the compiled trainer replayed over its counts;
* :mod:`.slicing` -- running that work a time-boxed slice at a time for an event loop.

CSV text for any of them: :func:`~bpe_desktop.core.io.csv_table.csv_text` with the ``*_COLUMNS`` and
``rows()``.  Pure Python (:mod:`.replayed` drives the compiled trainer); it does not train, draw or read files.
"""

from ...io.csv_table import csv_text
from .history import SegmentationHistory, recount_pairs
from .results import (
    CURVE_COLUMNS,
    TRADEOFF_COLUMNS,
    ZIPF_COLUMNS,
    CompressionCurve,
    Pair,
    TradeOff,
    ZipfData,
    ZipfView,
    compression_from_records,
    drawn_ranks,
    fit_zipf,
    tradeoff_from,
)
from .rewritten import RewriteHistory, Rewrites
from .slicing import Job, Sliced, finish

__all__ = [
    "CURVE_COLUMNS", "TRADEOFF_COLUMNS", "ZIPF_COLUMNS", "CompressionCurve", "Job", "Pair", "RewriteHistory",
    "Rewrites", "SegmentationHistory", "Sliced", "TradeOff", "ZipfData", "ZipfView", "compression_from_records",
    "csv_text", "drawn_ranks", "finish", "fit_zipf", "recount_pairs", "tradeoff_from",
]
