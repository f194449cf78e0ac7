"""A token that sorts in reverse string order, for heap entries that must put the *largest* pair first.

The trainer's heap pops its smallest entry; the ``subword-nmt`` tie rule wants the largest ``(left,
right)`` among equal counts (learn_bpe's ``max(stats, key=lambda x: (stats[x], x))``), so its entries hold
the two tokens wrapped in :class:`_Desc`.  Equality is the token's own.  Nothing here trains.
"""

from __future__ import annotations

from typing import Any


class _DescStr(str):
    __slots__ = ()

    def __lt__(self, other: Any) -> bool:
        return str.__gt__(self, other)

    def __gt__(self, other: Any) -> bool:
        return str.__lt__(self, other)

    def __le__(self, other: Any) -> bool:
        return str.__ge__(self, other)

    def __ge__(self, other: Any) -> bool:
        return str.__le__(self, other)


class _DescBytes(bytes):
    def __lt__(self, other: Any) -> bool:
        return bytes.__gt__(self, other)

    def __gt__(self, other: Any) -> bool:
        return bytes.__lt__(self, other)

    def __le__(self, other: Any) -> bool:
        return bytes.__ge__(self, other)

    def __ge__(self, other: Any) -> bool:
        return bytes.__le__(self, other)


def descending(token: str | bytes) -> str | bytes:
    """*token*, ordered backwards against other wrapped tokens.

    >>> sorted(["ab", "b", "a"], key=descending)
    ['b', 'ab', 'a']
    >>> min((1, descending("e"), descending("s")), (1, descending("e"), descending("st"))) [2]
    'st'
    """
    return _DescBytes(token) if isinstance(token, bytes) else _DescStr(token)
