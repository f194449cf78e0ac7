"""tiktoken's rank rule on one piece: split bytes into tokens by repeatedly merging the adjacent pair whose
concatenation has the lowest rank (leftmost on ties), or go on with that rule from a state of it.

:class:`~.ranks.RankTokenizer` encodes with it and recovers merge lists with it; :mod:`..training.extend`
continues it after a new rank.  It leaves out caching, pre-tokenization and the whole-piece shortcut (the
callers' business).

:func:`piece_ids` runs the same rule compiled (``_rank_bpe.c``) when it was built, and this Python otherwise;
the tests hold the two equal (tests/core/tokenizers/test_ranks.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType


def _load() -> ModuleType | None:
    try:
        from . import _rank_bpe
    except ImportError:  # no compiler when the package was built: the Python below
        return None
    return _rank_bpe


_compiled = _load()


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
    parts = list(parts)
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
