"""bpe_desktop.core: pure-Python BPE (no Qt, ever).

Pre-tokenization, corpus reading and counting, the incremental trainer, the tokenizer, file formats and
statistics.  The GUI and the CLI are thin layers over this package.
"""

from .config import TIE_BREAKS, TrainConfig
from .counting.pieces import WordCounts, count_text, parse_word_counts
from .counting.sources import CorpusSource, count_source
from .errors import BpeError, Cancelled, ConfigError, CorpusError, FormatError, PatternError
from .records import MergeRecord
from .text.pretokenize import NAMED_PATTERNS, Pretokenizer
from .tokenizers.model import BPEModel
from .training.trainer import Trainer, train

__all__ = [
    "NAMED_PATTERNS", "TIE_BREAKS", "BPEModel", "BpeError", "Cancelled", "ConfigError", "CorpusError",
    "CorpusSource", "FormatError", "MergeRecord", "PatternError", "Pretokenizer", "TrainConfig", "Trainer",
    "WordCounts", "count_source", "count_text", "parse_word_counts", "train",
]
