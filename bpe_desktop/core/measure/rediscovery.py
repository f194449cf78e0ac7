"""Rediscovery: does a trained run relearn a reference tokenizer's tokens (cl100k's, say), and where does it depart?

Tokens are compared by the bytes they stand for in a text (``token_bytes``), so a run and a reference of any
format, ids or marker compare.  Only *merged* tokens count: the reference's tokens that no merge makes (its
base bytes or characters, its specials) are left out of the share, and so are the run's base symbols.

- :attr:`Rediscovery.found` -- after each merge k of the run, how many of the reference's merged tokens the run
  has made so far; :meth:`Rediscovery.share_at` divides by the reference's count.
- :attr:`Rediscovery.shared` -- each token both make: its merge number here and there (1-based: a rank table's
  rank 256 is merge 1).
- :attr:`Rediscovery.lacking` -- the run's tokens the reference lacks, ranked by how much of the corpus they
  cover when the run's tokenizer encodes it (occurrences x bytes), when the corpus's piece counts are given;
  otherwise in the run's order, with no coverage.

A run that extends another tokenizer (cl100k + merges learned here) holds the original's merges first; with its
``start`` (how many they are) the steps and the "merge here" numbers count from the original, as the window's
timeline does: step 0 is the original, a token the original already makes is made "at 0".  The coverage is what
the given tokenizer's ``encode_piece`` makes of each piece: pass the run's own encoder (tiktoken's rank rule for
an extended rank table), not a replay of its merges.

This module only compares: it does not read files, and the plot and the CLI (``diff RUN --reference``) draw it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

from ..text.byte_level import bytes_to_text
from ..tokenizers.any_tokenizer import AnyTokenizer
from ..tokenizers.ranks import RankTokenizer
from ..tokenizers.tokenizer import Tokenizer

#: CSV columns of :meth:`Rediscovery.curve_rows`, :meth:`Rediscovery.shared_rows` and :meth:`Rediscovery.lacking_rows`
CURVE_COLUMNS = ("step", "found", "share")
SHARED_COLUMNS = ("token", "rank_here", "rank_there")
LACKING_COLUMNS = ("token", "rank_here", "occurrences", "bytes_covered", "corpus_share")


class SharedToken(NamedTuple):
    token: str  # display text (bytes through GPT-2's mapping)
    rank_here: int  # the run's merge that first made it (1-based; counted from ``start``, 0: the original made it)
    rank_there: int  # the reference's merge number (1-based)


class LackingToken(NamedTuple):
    token: str
    rank_here: int
    occurrences: int  # in the corpus as the run's final tokenizer encodes it (0 without a corpus)
    bytes_covered: int  # occurrences x its bytes
    corpus_share: float  # bytes_covered / the corpus's bytes (0.0 without a corpus)


@dataclass(frozen=True)
class Rediscovery:
    n_reference: int  #: the reference's merged tokens
    found: tuple[int, ...]  #: found[k - 1]: reference tokens made by the run's first k merges
    shared: tuple[SharedToken, ...]  #: in the run's order
    lacking: tuple[LackingToken, ...]  #: by coverage (most first), then the run's order
    corpus_bytes: int = 0  #: the corpus's bytes (0: no corpus given)
    start: int = 0  #: the run's merges that are its step 0 (an extension's original's; 0 for a run trained here)

    @property
    def n_steps(self) -> int:
        """The run's steps after its step 0 (an extension's added merges)."""
        return max(0, len(self.found) - self.start)

    def found_at(self, k: int) -> int:
        """The reference's merged tokens the run has made at step *k* (counted from :attr:`start`)."""
        i = min(self.start + max(k, 0), len(self.found))
        return self.found[i - 1] if i > 0 else 0

    def share_at(self, k: int) -> float:
        """The share of the reference's merged tokens the run has made by step *k* (0 at step 0 of a run trained
        here; an extension's step 0 is its original's share)."""
        return self.found_at(k) / self.n_reference if self.n_reference else 0.0

    def curve_rows(self) -> list[tuple[object, ...]]:
        """(step, found, share) at steps 1.. (from 0, the original, when the run extends one)."""
        first = 0 if self.start else 1
        return [(k, self.found_at(k), self.share_at(k)) for k in range(first, self.n_steps + 1)]

    def shared_rows(self) -> list[tuple[object, ...]]:
        return [tuple(s) for s in self.shared]

    def lacking_rows(self) -> list[tuple[object, ...]]:
        return [tuple(t) for t in self.lacking]


def made_tokens(tok: AnyTokenizer) -> list[bytes | None]:
    """The token each merge of *tok* makes, in merge order: a rank table's by rank (rank 256 is merge 1; a rank
    that is no merged token -- a gap, a special's id -- is None: it counts as a step, as ``upto`` counts it); a
    merge list's through its model's ``token_bytes`` (its own ids; an end-of-word marker stripped as encoding
    does)."""
    if isinstance(tok, RankTokenizer):
        by_rank: dict[int, bytes] = {r: b for b, r in tok.ranks.items() if r >= 256 and len(b) > 1}
        return [by_rank.get(r) for r in range(256, max(by_rank, default=255) + 1)]
    model = tok.model
    inner = Tokenizer(model)
    return [inner.token_bytes(i) for i in model.merge_token_ids]


def merge_numbers(tok: AnyTokenizer) -> dict[bytes, int]:
    """Token bytes -> the (1-based) merge that first makes it, for every merged token of *tok*
    (:func:`made_tokens`: a rank table's order is its ranks -- tiktoken's ranks are merge order --, a merge
    list's its merge list)."""
    out: dict[bytes, int] = {}
    for k, b in enumerate(made_tokens(tok), 1):
        if b is not None:
            out.setdefault(b, k)
    return out


def rediscover(run: Tokenizer | RankTokenizer, reference: AnyTokenizer, words: Mapping[str, int] | None = None, *,
               start: int = 0) -> Rediscovery:
    """Compare the run *run* (its merge list, or a rank table's ranks, every step) with *reference*; *words*
    (piece -> count, the run's corpus as its pre-tokenizer counted it) ranks the run's own tokens by coverage, as
    *run* encodes each piece; *start*: the run's first merges that are its step 0 (an extension's original's), from
    which steps count.

    >>> from bpe_desktop.core import TrainConfig, train
    >>> ref, _ = train({"abc": 5, "ab": 2}, TrainConfig(mode="bytes", pretokenizer="gpt2", merges=2))  # ab, abc
    >>> mine, _ = train({"abd": 3, "ab": 1}, TrainConfig(mode="bytes", pretokenizer="gpt2", merges=2))  # ab, abd
    >>> r = rediscover(Tokenizer(mine), Tokenizer(ref), {"abd": 3, "ab": 1})
    >>> r.n_reference, r.found, r.shared, [(t.token, t.occurrences, t.bytes_covered) for t in r.lacking]
    (2, (1, 1), (SharedToken(token='ab', rank_here=1, rank_there=1),), [('abd', 3, 9)])
    """
    theirs = merge_numbers(reference)
    made = made_tokens(run)
    mine: dict[bytes, int] = {}
    found: list[int] = []
    n = 0
    for k, b in enumerate(made, 1):
        if b is not None and b not in mine:
            mine[b] = max(k - start, 0)
            n += b in theirs
        found.append(n)
    order = list(mine)  # (merge order: an original's tokens, all "made at 0", keep theirs)
    shared = tuple(SharedToken(bytes_to_text(b), mine[b], theirs[b]) for b in order if b in theirs)
    occurrences: Counter[bytes] = Counter()
    total = 0
    if words is not None:
        for piece, c in words.items():
            for i in run.encode_piece(piece):
                occurrences[run.token_bytes(i)] += c
            total += len(piece.encode("utf-8", "surrogateescape")) * c
    lacking = [LackingToken(bytes_to_text(b), mine[b], occurrences[b], occurrences[b] * len(b),
                            occurrences[b] * len(b) / total if total else 0.0) for b in order if b not in theirs]
    lacking.sort(key=lambda t: (-t.bytes_covered, t.rank_here))
    return Rediscovery(len(theirs), tuple(found), shared, tuple(lacking), total, start)

