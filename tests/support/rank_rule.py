"""The test oracle of tiktoken's rank rule: tiktoken's educational version, every pair recomputed each round."""

from __future__ import annotations


def naive_byte_pair(ranks: dict[bytes, int], piece: bytes, max_rank: int) -> list[bytes]:
    """tiktoken's _educational bpe: recompute every pair each round, merge the lowest rank."""
    parts = [bytes([b]) for b in piece]
    while True:
        best = None
        for i in range(len(parts) - 1):
            r = ranks.get(parts[i] + parts[i + 1])
            if r is not None and r < max_rank and (best is None or r < best[0]):
                best = (r, i)
        if best is None:
            return parts
        i = best[1]
        parts = [*parts[:i], parts[i] + parts[i + 1], *parts[i + 2 :]]
