"""Replaying a merge list on one piece's symbols: the lowest-ranked pair present is merged everywhere (left to
right, no overlaps), then the next rank above it, and so on -- never a rank at or below one already taken.

:meth:`.tokenizer.Tokenizer._bpe` (and through it HF's BPE, :mod:`..formats.hf.bpe_model`) encodes with it.
It leaves out where the symbols come from and caching (the tokenizer's business).

Two ways, one result: :func:`_by_scan` looks at every pair for the lowest rank after each rank's pass
(O(n) a pass, and a long piece takes up to one pass per merge of the model: quadratic), the quicker below
:data:`HEAP_FROM` symbols; :func:`_by_heap` keeps a linked list of the parts, the positions each rank was
seen at and a heap of those ranks, O(n log n).  Taking a rank's positions in order, skipping the stale ones,
is that rank's left-to-right pass: a pair it creates is only recorded if its rank is above the one being
taken (the scan would not merge it in this pass, nor in a later one).  Ranks are merge indices: one pair per
rank.  :func:`replay` scans short pieces; on long ones the scan's passes go on while they have looked at no
more than 4n symbols (a run of one letter halves each pass: the scan finishes it), then the heap goes on
from there.  The tests hold the ways equal
(tests/core/tokenizers/test_replay.py).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from heapq import heappop, heappush

#: from this many symbols on, :func:`replay` uses the heap (below it the scan is quicker;
#: benchmarks/RESULTS.md, "Long pieces")
HEAP_FROM = 16


def replay(ranks: Mapping[tuple[int, int], tuple[int, int]], ids: list[int], limit: int, last: int = -1) -> list[int]:
    """Replay the merges ranked ``last + 1 .. limit - 1`` on *ids* (which the merges up to *last* have
    already been replayed on); *ranks* maps (left id, right id) to (rank, new id).

    >>> ranks = {(0, 0): (0, 2), (2, 0): (1, 3), (2, 2): (2, 4)}
    >>> replay(ranks, [0, 0, 0, 0, 0], 3)  # (0, 0) twice, left to right; then (2, 0); no (2, 2) is left
    [2, 3]
    >>> replay(ranks, [0, 0, 0, 0, 0], 1)
    [2, 2, 0]
    >>> replay(ranks, [0, 0, 0, 0], 3)
    [4]
    """
    if len(ids) < HEAP_FROM:
        return _by_scan(ranks, ids, limit, last)
    # passes of the scan that shrink the piece fast are quicker than the heap (a run of one letter: n, n/2,
    # n/4...); once they have looked at 4n symbols the heap goes on from the scan's state: O(n log n) still
    ids, last, done = _scan(ranks, ids, limit, last, 4 * len(ids))
    return ids if done else _by_heap(ranks, list(ids), limit, last)


def _by_scan(ranks: Mapping[tuple[int, int], tuple[int, int]], ids: list[int], limit: int, last: int) -> list[int]:
    """The replay by a scan of every pair for the next rank, then one left-to-right pass merging it."""
    return _scan(ranks, ids, limit, last, -1)[0]


def _scan(ranks: Mapping[tuple[int, int], tuple[int, int]], ids: list[int], limit: int, last: int, budget: int
          ) -> tuple[list[int], int, bool]:
    """The scan's passes while they look at no more than *budget* symbols in all (no limit when negative):
    the symbols, the last rank taken, and whether the replay is finished."""
    get = ranks.get
    while len(ids) > 1:
        if budget >= 0:
            budget -= len(ids)
            if budget < 0:
                return ids, last, False
        best_r = limit
        best = None
        for pair in itertools.pairwise(ids):
            v = get(pair)
            if v is not None and last < v[0] < best_r:
                best_r = v[0]
                best = pair
        if best is None:
            break
        a, b = best
        new = ranks[best][1]
        out: list[int] = []
        i, n = 0, len(ids)
        while i < n:
            if i + 1 < n and ids[i] == a and ids[i + 1] == b:
                out.append(new)
                i += 2
            else:
                out.append(ids[i])
                i += 1
        ids = out
        last = best_r
    return ids, last, True


def _by_heap(ranks: Mapping[tuple[int, int], tuple[int, int]], ids: list[int], limit: int, last: int) -> list[int]:
    """The replay with a heap of the ranks present: *ids* is changed in place; the result is returned.

    Symbol ``i`` keeps its position while it grows; ``nxt``/``prv`` link the live ones; ``pair[i]`` is the
    rank of symbol ``i`` with the next one, or -1 when they do not merge (or ``i`` was merged away), and
    ``made[i]`` the id that merge makes.  ``at[r]`` lists the positions a pair of rank ``r`` was seen at
    (repeats and stale ones allowed); taking the lowest rank sorts its list (runs appended in order: timsort
    is near linear on them) and merges, left to right, the positions whose pair is still ``r``.
    """
    get = ranks.get
    n = len(ids)
    nxt = list(range(1, n + 1))  # n: no next symbol
    prv = list(range(-1, n - 1))  # -1: no previous symbol
    pair = [-1] * n
    made = [0] * n
    at: dict[int, list[int]] = {}
    order: list[int] = []  # a heap of at's ranks

    def seen(i: int, v: tuple[int, int]) -> None:
        pair[i], made[i] = v
        where = at.get(v[0])
        if where is None:
            at[v[0]] = [i]
            heappush(order, v[0])
        else:
            where.append(i)

    for i in range(n - 1):
        v = get((ids[i], ids[i + 1]))
        if v is not None and last < v[0] < limit:
            seen(i, v)
    while order:
        r = heappop(order)
        where = at.pop(r)
        where.sort()
        for i in where:
            if pair[i] != r:
                continue
            j = nxt[i]  # merge symbol j into symbol i
            new = ids[i] = made[i]
            pair[j] = pair[i] = -1
            k = nxt[i] = nxt[j]
            if k < n:
                prv[k] = i
                v = get((new, ids[k]))
                if v is not None and r < v[0] < limit:
                    seen(i, v)
            h = prv[i]
            if h >= 0:
                pair[h] = -1
                v = get((ids[h], new))
                if v is not None and r < v[0] < limit:
                    seen(h, v)
    out = []
    i = 0
    while i < n:
        out.append(ids[i])
        i = nxt[i]
    return out
