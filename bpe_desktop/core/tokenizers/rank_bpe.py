"""tiktoken's rank rule on one piece: split bytes into tokens by repeatedly merging the adjacent pair whose
concatenation has the lowest rank (leftmost on ties), or go on with that rule from a state of it.

:class:`~.ranks.RankTokenizer` encodes with it and recovers merge lists with it; :mod:`..training.extend`
continues it after a new rank.  It leaves out caching, pre-tokenization and the whole-piece shortcut (the
callers' business).

The rule is carried out two ways with the same result: a scan of every adjacent pair for the lowest rank
after each merge (:func:`_by_scan`, quadratic in the piece's length, the quicker below :data:`HEAP_FROM`
parts), and a linked list of parts with a heap of (rank, position) whose stale entries are skipped when
popped (:func:`_by_heap`, O(n log n): a megabyte word with no spaces, base64, DNA or minified code).  Both
merge the lowest rank, leftmost on ties (the lowest position: positions keep the parts' order), and after
a merge only the pairs with the two neighbours change -- tiktoken's choice.

:func:`piece_ids` runs the same rule compiled (``_rank_bpe.c``, the heap) when it was built, and this Python
otherwise; the tests hold the three equal and equal to tiktoken (tests/core/tokenizers/test_ranks.py,
test_rank_heap.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from heapq import heapify, heappop, heappush
from types import ModuleType


def _load() -> ModuleType | None:
    try:
        from . import _rank_bpe
    except ImportError:  # no compiler when the package was built: the Python below
        return None
    return _rank_bpe


_compiled = _load()

#: from this many parts on, :func:`byte_pair_continue` uses the heap (below it the scan is quicker;
#: benchmarks/RESULTS.md, "Long pieces")
HEAP_FROM = 32


def piece_ids(ranks: Mapping[bytes, int], piece: bytes, max_rank: int, *, pure: bool = False) -> list[int]:
    """The ids (ranks) of :func:`byte_pair_ranks`'s tokens -- compiled unless *pure* or not built.

    >>> piece_ids({b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"bc": 4, b"abc": 5}, b"abcab", 99)
    [5, 3]
    """
    if _compiled is not None and not pure and type(ranks) is dict:
        return _compiled.encode(ranks, piece, max_rank)
    return [ranks[p] for p in byte_pair_ranks(ranks, piece, max_rank)]


def byte_pair_ranks(ranks: Mapping[bytes, int], piece: bytes, max_rank: int) -> list[bytes]:
    """Split *piece* into tokens with tiktoken's rank rule, using only ranks below *max_rank*.

    >>> r = {b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"bc": 4, b"abc": 5}
    >>> byte_pair_ranks(r, b"abc", 5)
    [b'ab', b'c']
    >>> byte_pair_ranks(r, b"abcab", 99)
    [b'abc', b'ab']
    """
    return byte_pair_continue(ranks, [piece[i : i + 1] for i in range(len(piece))], max_rank)


def byte_pair_continue(ranks: Mapping[bytes, int], parts: list[bytes], max_rank: int) -> list[bytes]:
    """Go on with tiktoken's rank rule from *parts* (already a state of it), using only ranks below *max_rank*.

    When the ranks below *max_rank* extend a table whose encoding of a piece was *parts*, by ranks higher than
    all of that table's, this is the piece's encoding with the extended table: the rule takes every lower rank
    first, so it passes through *parts* (what :mod:`..training.extend` relies on).

    >>> byte_pair_continue({b"ab": 0, b"abc": 1}, [b"ab", b"c"], 2)
    [b'abc']
    """
    if len(parts) < HEAP_FROM:
        return _by_scan(ranks, list(parts), max_rank)
    return _by_heap(ranks, list(parts), max_rank)



def _by_scan(ranks: Mapping[bytes, int], parts: list[bytes], max_rank: int) -> list[bytes]:
    """The rule by scanning all pairs after each merge (O(n) a merge): *parts* is changed and returned."""
    get = ranks.get
    pair_ranks = []  # pair_ranks[i]: rank of parts[i] + parts[i + 1], or max_rank if not mergeable
    for i in range(len(parts) - 1):
        r = get(parts[i] + parts[i + 1])
        pair_ranks.append(max_rank if r is None or r > max_rank else r)
    while pair_ranks:
        best = min(pair_ranks)
        if best >= max_rank:
            break
        i = pair_ranks.index(best)  # the leftmost lowest rank, as tiktoken
        parts[i : i + 2] = [parts[i] + parts[i + 1]]
        del pair_ranks[i]
        if i < len(pair_ranks):
            r = get(parts[i] + parts[i + 1])
            pair_ranks[i] = max_rank if r is None or r > max_rank else r
        if i > 0:
            r = get(parts[i - 1] + parts[i])
            pair_ranks[i - 1] = max_rank if r is None or r > max_rank else r
    return parts


def _by_heap(ranks: Mapping[bytes, int], parts: list[bytes], max_rank: int) -> list[bytes]:
    """The rule with a heap (O(log n) a merge): *parts* is changed in place; the result is returned.

    Part ``i`` keeps its position ``i`` while it grows; ``nxt``/``prv`` link the live parts.  ``pair[i]`` is
    the rank of part ``i`` joined with the next one, or *max_rank* when they do not merge (or part ``i`` was
    merged into its left neighbour).  Each rank below *max_rank* a pair takes is pushed as ``(rank, i)``; a
    popped entry whose rank is no longer ``pair[i]`` is stale and skipped.  One that is ``pair[i]``
    describes the current pair at ``i``, and no current pair is lower (each has its entry), so merging it is
    the rule's step, on ties the leftmost.
    """
    get = ranks.get
    n = len(parts)
    nxt = list(range(1, n + 1))  # n: no next part
    prv = list(range(-1, n - 1))  # -1: no previous part
    pair = [max_rank] * n
    heap = []
    for i in range(n - 1):
        r = get(parts[i] + parts[i + 1])
        if r is not None and r < max_rank:
            pair[i] = r
            heap.append((r, i))
    heapify(heap)
    while heap:
        r, i = heappop(heap)
        if pair[i] != r:
            continue
        j = nxt[i]  # merge part j into part i
        joined = parts[i] = parts[i] + parts[j]
        pair[j] = max_rank
        k = nxt[i] = nxt[j]
        pair[i] = max_rank
        if k < n:
            prv[k] = i
            r = get(joined + parts[k])
            if r is not None and r < max_rank:
                pair[i] = r
                heappush(heap, (r, i))
        h = prv[i]
        if h >= 0:
            pair[h] = max_rank
            r = get(parts[h] + joined)
            if r is not None and r < max_rank:
                pair[h] = r
                heappush(heap, (r, h))
    out = []
    i = 0 if n else n
    while i < n:
        out.append(parts[i])
        i = nxt[i]
    return out
