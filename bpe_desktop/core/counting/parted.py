"""A word-count table kept as the small dicts it was cut into: a read-only, corpus-ordered ``Mapping[str, int]``.

A corpus of millions of distinct pieces crosses the window's pipe in parts of a few thousand pieces
(:mod:`bpe_desktop.gui.training.counts_parts`).  Joining them into one dict costs the dict's own resizes as it
grows, each one C call holding the GIL for tens to hundreds of milliseconds on millions of entries, which stalls
the GUI thread whatever else it does.  :class:`PartedCounts` keeps the parts as they are instead and behaves as
the dict built from them: the same order, length, items, lookups and equality.  Iterating it (``items()``,
``keys()``, ``values()``, ``iter``, ``reversed``) chains the parts' own views at C speed; ``len`` is kept.

A lookup (``[]``, ``get``) tries first the part the last one found, then the next, then every part in turn: keys
looked up in the table's order (as ``dict(table)`` does, through ``keys()`` and ``[]``) cost one or two dict
lookups each, but a random one up to one per part -- fine for the occasional one, wrong for a loop over every key
in another order (iterate ``items()`` instead; nothing here looks a key up again while iterating).  ``in`` tries
every part.  The parts must have no key in common (the cuts of one table, as :meth:`PartedCounts.cut`
makes them): checking that would need the big set this type exists to avoid, so the constructor trusts it.

It leaves out where the parts come from and how they travel (pickled one by one, they cross a pipe as bytes:
:mod:`bpe_desktop.gui.training.counts_parts`), and any change to the table: it has none.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterable, Iterator, KeysView, Mapping, ValuesView
from itertools import chain, islice
from typing import Any


class PartedCounts(Mapping[str, int]):
    """Piece -> count over parts with disjoint keys, in the parts' order then each part's own.

    >>> c = PartedCounts([{"low": 5, "lower": 2}, {"newest": 6}])
    >>> list(c.items()), len(c), c["newest"], c.get("x", 0)
    ([('low', 5), ('lower', 2), ('newest', 6)], 3, 6, 0)
    >>> c == {"newest": 6, "low": 5, "lower": 2}, c.n_parts
    (True, 2)
    """

    __slots__ = ("_hint", "_len", "_parts")

    def __init__(self, parts: Iterable[dict[str, int]] = ()) -> None:
        self._parts: tuple[dict[str, int], ...] = tuple(p for p in parts if p)
        self._len = sum(map(len, self._parts))
        self._hint = 0  # the part the last lookup found its key in (a hint only: any index of a part is right)

    @classmethod
    def cut(cls, counts: Mapping[str, int], size: int) -> PartedCounts:
        """*counts* cut into dicts of *size* pieces, in order (copies: a later change to *counts* is not seen).

        >>> PartedCounts.cut({"a": 1, "b": 2, "c": 3}, 2).n_parts
        2
        """
        if size < 1:
            raise ValueError(f"a part holds at least one piece, not {size}")
        items = iter(counts.items())
        return cls(iter(lambda: dict(islice(items, size)), {}))

    @property
    def parts(self) -> tuple[dict[str, int], ...]:
        """The parts, in order (none empty); do not change them."""
        return self._parts

    @property
    def n_parts(self) -> int:
        return len(self._parts)

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, key: str) -> int:
        parts, h = self._parts, self._hint
        for i in (h, h + 1):  # (keys in the table's order: this part or the next)
            if i < len(parts) and key in parts[i]:
                self._hint = i
                return parts[i][key]
        for i, part in enumerate(parts):
            if key in part:
                self._hint = i
                return part[key]
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        return any(key in part for part in self._parts)

    def __iter__(self) -> Iterator[str]:
        return chain.from_iterable(self._parts)

    def __reversed__(self) -> Iterator[str]:
        return chain.from_iterable(reversed(part.keys()) for part in reversed(self._parts))

    def keys(self) -> KeysView[str]:
        return KeysView(self)  # (its iteration is __iter__; its `in` is __contains__)

    def items(self) -> ItemsView[str, int]:
        return _Items(self)

    def values(self) -> ValuesView[int]:
        return _Values(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mapping):
            return NotImplemented
        if len(other) != self._len:
            return False
        if (isinstance(other, PartedCounts) and list(map(len, other.parts)) == list(map(len, self._parts))
                and all(a == b for a, b in zip(self._parts, other.parts, strict=True))):
            return True  # (cut alike and equal part by part; else, as any mapping, a lookup in *other* per piece)
        missing = object()
        return all(other.get(k, missing) == v for k, v in self.items())

    __hash__ = None  # type: ignore[assignment]  # (as a dict: equal to one, so not hashable)

    def __repr__(self) -> str:
        return f"PartedCounts({self._len:,} pieces in {len(self._parts)} parts)"

    def __reduce__(self) -> tuple[Any, ...]:
        return (PartedCounts, (self._parts,))


class _Items(ItemsView[str, int]):
    _mapping: PartedCounts

    def __iter__(self) -> Iterator[tuple[str, int]]:
        return chain.from_iterable(part.items() for part in self._mapping.parts)

    def __reversed__(self) -> Iterator[tuple[str, int]]:
        return chain.from_iterable(reversed(part.items()) for part in reversed(self._mapping.parts))


class _Values(ValuesView[int]):
    _mapping: PartedCounts

    def __iter__(self) -> Iterator[int]:
        return chain.from_iterable(part.values() for part in self._mapping.parts)

    def __reversed__(self) -> Iterator[int]:
        return chain.from_iterable(reversed(part.values()) for part in reversed(self._mapping.parts))
