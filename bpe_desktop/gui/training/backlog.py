"""Messages received from the worker but not yet handed to the session, and the per-wake-up budget.

Qt-free.  A backlog (after a stall, say) waits in order; each wake-up reads the pipe for a bounded time and
hands on a bounded number of records, with the other messages in their places between them.  It leaves
out what the messages mean (:mod:`.controller`) and when the next wake-up comes (the controller's timers).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection

from ...core.records import MergeRecord
from .protocol import Message, Records, Row


class Backlog:
    """Rows (plain tuples) and other messages in arrival order."""

    def __init__(self) -> None:
        self._items: deque[Row | Message] = deque()

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        self._items.clear()

    def put_back(self, msg: Message) -> None:
        """Return a message just taken to the front (it is handed on by a later wake-up)."""
        self._items.appendleft(msg)

    def read(self, conn: Connection, deadline: float, limit: int,
             clock: Callable[[], float] = time.monotonic) -> bool:
        """Receive until *limit* items wait, *deadline* (of *clock*) passes or the pipe is empty; return
        True if the pipe closed."""
        items = self._items
        try:
            while len(items) < limit and clock() <= deadline and conn.poll(0):
                msg = conn.recv()
                if isinstance(msg, Records):
                    items.extend(msg.rows)
                else:
                    items.append(msg)
        except (EOFError, OSError):
            return True
        return False

    def take(self, limit: int) -> Iterator[list[MergeRecord] | Message]:
        """Yield runs of records and the messages between them, in order, at most *limit* records in all.
        A caller may stop iterating after a message; what it did not take stays in the backlog."""
        items = self._items
        records: list[MergeRecord] = []
        handed = 0
        while items and handed + len(records) < limit:
            item = items.popleft()
            if type(item) is tuple:  # a row (the messages are NamedTuples: subclasses)
                records.append(MergeRecord(*item))
            else:
                if records:
                    handed += len(records)
                    yield records
                    records = []
                yield item  # type: ignore[misc]
        if records:
            yield records
