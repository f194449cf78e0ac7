"""The corpus's word counts crossing the pipe in parts, so that no wake-up of the GUI thread unpickles them whole.

Qt-free (the worker imports it).  A big corpus has millions of distinct pieces (2.9 M on the 297 MB robot log):
one :class:`~.protocol.Started` carrying them all is one ``recv`` that unpickles a dict of that size in the GUI
thread, seconds in one call.  Above :data:`INLINE_PIECES` the worker sends them first as :class:`CountsPart`
messages of at most :data:`PART_PIECES` pieces each, every part's dict pickled on its own into bytes (receiving a
part copies bytes, so the pipe is read at its usual pace and the worker is not held up), and then
:class:`~.protocol.Started` with the number of parts and no counts.  The window's :class:`Assembly` unpickles
the parts a few at a time, within a deadline per wake-up, and the ``Started`` is handed on only once the counts
are whole: to the session nothing changes but when the counts arrive.  The parts stay the small dicts they were
sent as (:class:`~bpe_desktop.core.counting.parted.PartedCounts`): joined into one dict of millions of pieces,
that dict's own resizes as it grows would each hold the GUI thread for one long C call.  The parts go before the
worker builds its trainer, which may then empty the table it takes (the worker does not hold the counts twice).

It leaves out when the pipe is read and what the counts are for (:mod:`.controller`).
"""

from __future__ import annotations

import pickle
import time
from collections.abc import Callable, Iterator
from itertools import islice
from typing import NamedTuple

from ...core.counting.parted import PartedCounts
from ...core.counting.pieces import WordCounts

INLINE_PIECES = 20_000  # at most this many distinct pieces travel inside Started itself
PART_PIECES = 2048  # distinct pieces per part (unpickling one is a fraction of a millisecond)


class CountsPart(NamedTuple):
    """Some of the word counts, in the corpus's order: a ``dict[str, int]`` pickled on its own."""

    blob: bytes


def split(words: WordCounts, inline: int = INLINE_PIECES, size: int = PART_PIECES) -> Iterator[CountsPart]:
    """The parts of *words* (none when it has at most *inline* pieces: it travels inside ``Started``), in order,
    *size* pieces each."""
    counts = words.counts
    if len(counts) <= inline:
        return
    items = iter(counts.items())
    while chunk := dict(islice(items, size)):
        yield CountsPart(pickle.dumps(chunk, protocol=pickle.HIGHEST_PROTOCOL))


class Assembly:
    """The parts received so far, unpickled a part at a time (kept as the parts: no dict of them all is made)."""

    def __init__(self) -> None:
        self._blobs: list[bytes] = []
        self._next = 0  # the first part not yet unpickled
        self._parts: list[dict[str, int]] = []

    def clear(self) -> None:
        self._blobs, self._next, self._parts = [], 0, []

    def __len__(self) -> int:
        """Parts received (unpickled or not)."""
        return len(self._blobs)

    def add(self, part: CountsPart) -> None:
        self._blobs.append(part.blob)

    def decode(self, deadline: float, clock: Callable[[], float] = time.monotonic) -> bool:
        """Unpickle parts until every one is or *deadline* (of *clock*) passes (at least one part runs);
        True when all received parts are unpickled."""
        blobs, parts = self._blobs, self._parts
        while self._next < len(blobs):
            parts.append(pickle.loads(blobs[self._next]))
            blobs[self._next] = b""  # (its bytes are not needed twice)
            self._next += 1
            if clock() > deadline:
                break
        return self._next == len(blobs)

    def take(self, bytes_read: int) -> WordCounts:
        """The whole counts (call once :meth:`decode` returned True); the assembly starts empty again."""
        if self._next != len(self._blobs):
            raise RuntimeError("the word counts are not all unpickled yet")
        words = WordCounts(PartedCounts(self._parts), bytes_read)
        self.clear()
        return words
