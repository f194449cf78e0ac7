"""Where the plots' numbers come from: a :class:`~bpe_desktop.core.stats.SegmentationHistory` kept in step
with the session's growing merge list, in time-boxed slices so the GUI thread never stalls for long.

Word counts come from ``session.word_counts`` (the controller fills them after counting).  Without them,
an idle in-memory corpus of at most :data:`SELF_COUNT_LIMIT` characters is counted here; anything else
waits for the controller.  The compression and trade-off curves come from the session's records when it has
them (cheap, exact), else from the history.  This module draws nothing and connects no signals: the
plots pane (:mod:`.plots`) calls it from its throttled refresh.
"""

from __future__ import annotations

import time

from ..core.corpus import WordCounts, count_source
from ..core.errors import BpeError
from ..core.stats import (
    CompressionCurve,
    SegmentationHistory,
    TradeOff,
    ZipfData,
    compression_from_records,
    tradeoff_from,
)
from .session import Session

SELF_COUNT_LIMIT = 500_000  # characters of in-memory text the pane may count itself (≈0.1 s)


class PlotFeed:
    """Statistics for the session's current corpus and model, computed lazily."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.history: SegmentationHistory | None = None
        self.note = ""  # why there is no history yet, for the plot titles
        self._words: WordCounts | None = None
        self._zipf: ZipfData | None = None
        self.last_zipf_ms = 0.0

    def reset(self) -> None:
        """Forget everything (new corpus or model)."""
        self.history = None
        self._words = None
        self._zipf = None
        self.note = ""

    # -- history ----------------------------------------------------------------------------------------
    def _word_counts(self) -> WordCounts | None:
        s = self.session
        if s.word_counts is not None:
            return s.word_counts
        if self._words is not None:
            return self._words
        src = s.source
        if s.state in ("counting", "training") or src.paths or src.text is None:  # the controller counts
            self.note = "pair counts appear once the corpus is counted"
            return None
        if len(src.text) > SELF_COUNT_LIMIT:
            self.note = "pair counts appear once the corpus is counted"
            return None
        try:
            self._words = count_source(src, s.config)
        except BpeError as e:
            self.note = f"cannot count the corpus: {e}"
            return None
        return self._words

    def advance(self, budget_s: float = 0.025) -> bool:
        """Build or extend the history for at most about *budget_s* seconds; True if work remains."""
        s = self.session
        if self.history is None:
            words = self._word_counts()
            if words is None:
                return False
            if not words.counts:
                self.note = "the corpus is empty"
                return False
            self.history = SegmentationHistory(words, s.model.truncated(0))
            self.note = ""
        h = self.history
        h.model = s.model
        t0 = time.perf_counter()
        while h.pending and time.perf_counter() - t0 < budget_s:
            h.extend(limit=64)
        return h.pending > 0

    def ready_for(self, step: int) -> bool:
        return self.history is not None and self.history.n_merges >= step

    # -- numbers ----------------------------------------------------------------------------------------
    def zipf(self, step: int) -> ZipfData | None:
        """The pair frequencies at *step*, or ``None`` if the history has not got there yet."""
        if not self.ready_for(step):
            return None
        z = self._zipf
        if z is not None and z.step == step:
            return z
        t0 = time.perf_counter()
        assert self.history is not None
        z = self._zipf = self.history.zipf(step)
        self.last_zipf_ms = (time.perf_counter() - t0) * 1000
        return z

    def next_pair(self, step: int) -> tuple[int, int] | None:
        merges = self.session.model.merges
        return merges[step] if 0 <= step < len(merges) else None

    def compression(self) -> CompressionCurve | None:
        s = self.session
        if s.records:
            first = s.initial_symbols or s.records[0].symbols_before
            return compression_from_records(first, s.records)
        if self.history is not None:
            return self.history.compression()
        return None

    def tradeoff(self) -> TradeOff | None:
        s, h = self.session, self.history
        if h is None:
            return None
        if s.records:
            curve = self.compression()
            assert curve is not None
            vocab = [s.model.vocab_size_at(0)] + [r.vocab_size for r in s.records]
            return tradeoff_from(curve, vocab, h.n_words, h.n_bytes)
        return h.tradeoff()
