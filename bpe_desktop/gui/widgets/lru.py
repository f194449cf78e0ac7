"""A bounded cache that forgets its least recently used entries: the one the token stream's row caches, its
box pictures and the compare pane's results share.  Qt-free; it leaves out what is cached and when a
cache must be emptied (its owner decides)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LRU(OrderedDict[K, V], Generic[K, V]):
    """An ordered dict of at most *limit* entries; :meth:`hit` and :meth:`put` mark an entry as just used.

    >>> c = LRU[str, int](2)
    >>> c.put("a", 1); c.put("b", 2); c.hit("a"); c.put("c", 3)
    1
    >>> list(c)
    ['a', 'c']
    """

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def hit(self, key: K) -> V | None:
        """The value for *key* (marked as just used), or ``None``."""
        value = self.get(key)
        if value is not None:
            self.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        """Store *value* as the most recently used entry, dropping the least recently used beyond the limit."""
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.limit:
            self.popitem(last=False)

    def keep(self, wanted: Callable[[K], bool]) -> None:
        """Drop every entry whose key is not *wanted* (the others keep their order)."""
        for key in [k for k in self if not wanted(k)]:
            del self[key]
