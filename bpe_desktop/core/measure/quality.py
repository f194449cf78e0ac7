"""How good a tokenization is, as numbers: the metrics of one token sequence over one text.

* tokens, bytes per token (UTF-8 bytes of the text per token) and fertility (tokens per
  whitespace-separated word of the text, ``len(text.split())``);
* vocabulary utilization: the share of the vocabulary used at least once;
* Shannon efficiency ``H / log2 |V|`` and Rényi efficiency ``(1/(1-α)) · log2 Σ p_i^α / log2 |V|``
  (Zouhar et al. 2023; α = 2.5 by default; α = 1 is Shannon's) over the token distribution ``p``.  They
  equal the reference implementation, ``tokenization-scorer``, given ``power=α`` and ``vocab=|V|``.

Everything is computed from three sums over the frequency table -- ``N = Σ c``, ``Σ c·log2 c`` and
``Σ c^α`` -- (:class:`Sums`), because ``H = log2 N - Σ c·log2 c / N`` and ``Σ p^α = Σ c^α / N^α``: a
curve over merges can then update the sums for the few tokens a merge changes instead of recounting
(:mod:`.quality_curves`).  Undefined values (an empty text, a vocabulary of one) are ``nan``.

This module neither tokenizes nor reads files: it takes counts and totals.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from ..errors import ConfigError

#: the Rényi order used unless the user picks another (Zouhar et al.'s recommendation)
DEFAULT_ALPHA = 2.5


def check_alpha(alpha: float) -> float:
    """The Rényi order as a float, or :class:`ConfigError` if it is not a finite number above 0.

    >>> check_alpha(2.5)
    2.5
    """
    a = float(alpha)
    if not math.isfinite(a) or a <= 0:
        raise ConfigError(f"the Rényi order alpha must be a number above 0, not {alpha!r} -- e.g. 2.5 (the default)")
    return a


class TextTotals(NamedTuple):
    """What a text holds independently of how it is tokenized: UTF-8 bytes and whitespace-separated words."""

    n_bytes: int
    n_words: int

    @classmethod
    def of_text(cls, text: str) -> TextTotals:
        """The totals of a text.

        >>> TextTotals.of_text("héllo  wörld\\n")
        TextTotals(n_bytes=15, n_words=2)
        """
        return cls(len(text.encode("utf-8", "surrogateescape")), len(text.split()))

    @classmethod
    def of_word_counts(cls, counts: Mapping[str, int]) -> TextTotals:
        """A word-count table has no text: its bytes are the words' (times their counts), each entry a word.

        >>> TextTotals.of_word_counts({"low": 5, "é": 2})
        TextTotals(n_bytes=19, n_words=7)
        """
        n_bytes = sum(len(w.encode("utf-8", "surrogateescape")) * c for w, c in counts.items() if c > 0)
        return cls(n_bytes, sum(c for c in counts.values() if c > 0))

    def __add__(self, other: object) -> TextTotals:
        if not isinstance(other, TextTotals):
            return NotImplemented
        return TextTotals(self.n_bytes + other.n_bytes, self.n_words + other.n_words)


def _xlogx(c: int) -> float:
    return c * math.log2(c) if c > 0 else 0.0


def _pow(c: int, alpha: float) -> float:
    return float(c) ** alpha if c > 0 else 0.0


class Sums(NamedTuple):
    """The sufficient statistics of a frequency table for every metric here (see the module docstring).

    ``used`` counts the distinct ids of the vocabulary seen (ids >= 0; an unknown character, id < 0,
    is a token of the text but no entry of the vocabulary).
    """

    n: int  # Σ c
    used: int  # distinct vocabulary ids with c > 0
    xlogx: float  # Σ c·log2 c
    power: float  # Σ c^α
    alpha: float

    @classmethod
    def of(cls, counts: Mapping[int, int], alpha: float) -> Sums:
        """Exact sums of a table *id -> count* (``math.fsum``).

        >>> Sums.of({1: 2, 2: 2}, 2.0)
        Sums(n=4, used=2, xlogx=4.0, power=8.0, alpha=2.0)
        """
        values = [c for c in counts.values() if c > 0]
        return cls(
            sum(values), sum(1 for i, c in counts.items() if c > 0 and i >= 0),
            math.fsum(map(_xlogx, values)), math.fsum(_pow(c, alpha) for c in values), alpha,
        )

    def changed(self, token_id: int, old: int, new: int) -> Sums:
        """The sums after one token's count went from *old* to *new* (O(1)).

        >>> Sums.of({1: 2, 2: 2}, 2.0).changed(1, 2, 3) == Sums.of({1: 3, 2: 2}, 2.0)
        True
        """
        used = self.used + ((new > 0) - (old > 0) if token_id >= 0 else 0)
        return Sums(
            self.n + new - old, used, self.xlogx + _xlogx(new) - _xlogx(old),
            self.power + _pow(new, self.alpha) - _pow(old, self.alpha), self.alpha,
        )

    def shannon_efficiency(self, vocab_size: int) -> float:
        """Shannon entropy of the distribution (bits) over ``log2 vocab_size``."""
        if self.n <= 0 or vocab_size <= 1:
            return math.nan
        h = math.log2(self.n) - self.xlogx / self.n
        return max(h, 0.0) / math.log2(vocab_size)

    def renyi_efficiency(self, vocab_size: int) -> float:
        """Rényi entropy of order α (bits) over ``log2 vocab_size``; α = 1 gives Shannon's."""
        if self.alpha == 1.0:
            return self.shannon_efficiency(vocab_size)
        if self.n <= 0 or vocab_size <= 1 or self.power <= 0:
            return math.nan
        h = (math.log2(self.power) - self.alpha * math.log2(self.n)) / (1.0 - self.alpha)
        return max(h, 0.0) / math.log2(vocab_size)


class QualityMetrics(NamedTuple):
    """The metrics of one tokenization (``nan`` where undefined: no token, no word, a vocabulary of one)."""

    tokens: int
    bytes_per_token: float
    fertility: float  # tokens per whitespace-separated word
    utilization: float  # share of the vocabulary used at least once
    shannon_efficiency: float
    renyi_efficiency: float
    alpha: float
    vocab_size: int
    used: int  # vocabulary entries used at least once


def metrics_from_sums(sums: Sums, totals: TextTotals, vocab_size: int) -> QualityMetrics:
    """The metrics from the sums of a frequency table, the text's totals and the vocabulary size |V|."""
    n = sums.n
    return QualityMetrics(
        tokens=n,
        bytes_per_token=totals.n_bytes / n if n else math.nan,
        fertility=n / totals.n_words if totals.n_words else math.nan,
        utilization=sums.used / vocab_size if vocab_size > 0 else math.nan,
        shannon_efficiency=sums.shannon_efficiency(vocab_size),
        renyi_efficiency=sums.renyi_efficiency(vocab_size),
        alpha=sums.alpha,
        vocab_size=vocab_size,
        used=sums.used,
    )


def measure(
    tokens: Mapping[int, int] | Iterable[int], totals: TextTotals, vocab_size: int, alpha: float = DEFAULT_ALPHA
) -> QualityMetrics:
    """The metrics of a token sequence (or of its frequency table *id -> count*).

    >>> m = measure([5, 5, 6, 7], TextTotals(n_bytes=8, n_words=2), vocab_size=8, alpha=2.0)
    >>> m.tokens, m.bytes_per_token, m.fertility, m.utilization, round(m.shannon_efficiency, 4)
    (4, 2.0, 2.0, 0.375, 0.5)
    """
    alpha = check_alpha(alpha)
    counts = tokens if isinstance(tokens, Mapping) else Counter(tokens)
    return metrics_from_sums(Sums.of(counts, alpha), totals, vocab_size)
