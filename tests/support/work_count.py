"""Counting an algorithm's work instead of timing it: ranks that count the comparisons made with them, and
the most growth from n to 8n an n log n algorithm may show."""

from __future__ import annotations

import math
from collections.abc import Callable


class Counted(int):
    """A rank that counts the comparisons made with it (a heap's sifts, a scan's min and index)."""

    n = 0
    __hash__ = int.__hash__


def _counting(op: str) -> Callable[[int, object], bool]:
    compare = getattr(int, op)

    def counted(self: int, other: object) -> bool:
        Counted.n += 1
        return compare(self, other)  # type: ignore[no-any-return]

    return counted


for _op in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"):
    setattr(Counted, _op, _counting(_op))


def near_linear(n: int) -> float:
    """The most work may grow from n to 8n: 8 times the log factor, and half that again for slack (a
    quadratic rule grows 64 times)."""
    return 8 * math.log2(8 * n) / math.log2(n) * 1.5
