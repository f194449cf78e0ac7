"""The per-merge record the trainer emits: a small, plain, picklable value streamed to the GUI.

It holds what one merge did (pair, counts, corpus size after it) and which pairs competed with it, so a
view can explain the choice.  It carries display text, not model data: the merge list itself lives in
:class:`bpe_desktop.core.tokenizers.model.BPEModel`.  A :class:`RecordLog` holds a whole run's records
compactly (columns of int64s), for a command that keeps every record until it writes them.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, overload

from .choices import TIE_RULES, TieBreak

#: how many runner-up pairs each record carries (for the "why this merge" explanation)
CONTENDERS = 6

#: the columns of ``--steps`` CSV files, in order
STEP_COLUMNS = (
    "rank", "left", "right", "token", "count", "merged", "symbols_after", "vocab_size", "words_touched",
)


@dataclass(frozen=True, slots=True)
class MergeRecord:
    """One merge. ``rank`` is 1-based: after this merge the timeline is at step ``rank``.

    ``count`` is the pair's weighted count with overlaps (the seeds' formula, what the rule ranks by);
    ``merged`` the occurrences actually replaced left to right, so ``symbols_after`` is exactly
    ``symbols_before - merged``.  ``contenders`` are the next pairs the rule would have picked, best first,
    as ``(left, right, count)``.
    """

    rank: int
    left: str
    right: str
    token: str
    left_id: int
    right_id: int
    token_id: int
    count: int
    merged: int
    symbols_after: int
    vocab_size: int
    words_touched: int
    contenders: tuple[tuple[str, str, int], ...] = ()

    @property
    def symbols_before(self) -> int:
        return self.symbols_after + self.merged

    @property
    def ties(self) -> tuple[tuple[str, str], ...]:
        """The other pairs that had the winning count (as far as ``contenders`` reaches)."""
        return tuple((a, b) for a, b, c in self.contenders if c == self.count)

    def row(self) -> tuple[object, ...]:
        """The values of :data:`STEP_COLUMNS`."""
        return tuple(getattr(self, name) for name in STEP_COLUMNS)


def explain(record: MergeRecord, tie_break: TieBreak | str) -> str:
    """One sentence saying why this pair won, the way the seeds do (a tie names the rule's
    :attr:`~.choices.TieRule.phrase`; a name that is no rule, as an old file may hold, says "the rule takes").

    >>> r = MergeRecord(1, "e", "s", "es", 0, 0, 0, 9, 9, 86, 1, 2, (("s", "t", 9), ("t", "</w>", 9)))
    >>> explain(r, "lexical")
    'e+s, s+t and t+</w> tie at 9; the lexical rule takes e+s.'
    """
    win = f"{record.left}+{record.right}"
    ties = [f"{a}+{b}" for a, b in record.ties]
    rule = next((r.phrase for r in TIE_RULES.values() if r.name == tie_break), "the rule takes")
    if ties:
        names = [win, *ties]
        listed = ", ".join(names[:-1]) + " and " + names[-1]
        more = " (and maybe more)" if len(ties) == len(record.contenders) >= CONTENDERS else ""
        return f"{listed} tie at {record.count}{more}; {rule} {win}."
    if record.contenders:
        a, b, c = record.contenders[0]
        return f"{win} has the highest count, {record.count}; the runner-up is {a}+{b} with {c}."
    return f"{win} is the only pair left, with count {record.count}."


#: a :class:`RecordLog` row: the fields that are numbers of texts (the names), ids and sizes, as int32s ...
_SMALL = ("rank", "left", "right", "token", "left_id", "right_id", "token_id", "vocab_size")
#: ... and the counts as int64s, then where the record's contenders start
_BIG = ("count", "merged", "symbols_after", "words_touched")
_NS, _NB = len(_SMALL), len(_BIG) + 1
_TEXTS = frozenset(("left", "right", "token"))
_IDS = attrgetter("left_id", "right_id", "token_id", "vocab_size")
_COUNTS = attrgetter(*_BIG)


class RecordLog(Sequence[MergeRecord]):
    """A run's records held as columns of machine integers, not one object each: what a long run keeps.

    A :class:`MergeRecord` with its contenders is about a kilobyte of Python objects; a row here is 8 int32s
    (rank, the texts' numbers, the ids, the vocabulary size) and 5 int64s (the counts, where its contenders
    start), and a contender 2 int32s and an int64, with each distinct text stored once.  Indexing rebuilds
    records equal to the ones appended, field for field.  A record with a number beyond those (an id or a
    rank past int32, a count past int64: not what a trainer makes) is kept as it is.

    *texts*: a trainer's display texts by token id (a list that only grows, shared, not copied).  The log
    then numbers each text by its id, so the compiled kernel can write whole rows itself
    (:meth:`extend_rows`), and it holds no texts of its own; every text of a record appended must then be
    one of *texts* (a :class:`ValueError` otherwise).

    >>> r = MergeRecord(1, "e", "s", "es", 0, 0, 0, 9, 9, 86, 1, 2, (("s", "t", 9),))
    >>> log = RecordLog([r]); log[0] == r, len(log)
    (True, 1)
    """

    def __init__(self, records: Iterable[MergeRecord] = (), *, texts: list[str] | None = None) -> None:
        self._small, self._big = array("i"), array("q")  # the rows' two parts (_SMALL, _BIG)
        self._names_of, self._counts_of = array("i"), array("q")  # the contenders': (left, right) names, counts
        self._names: dict[str, int] = {}  # each text -> its number, in the order met (by id: see _number)
        self._texts: list[str] = [] if texts is None else texts  # the texts by number (see _text_list)
        self._by_id = texts is not None
        self._named = 0  # by id: the ids whose texts _names holds so far
        self._whole: dict[int, MergeRecord] = {}  # the records that do not fit in the arrays
        self._n = 0
        for rec in records:
            self.append(rec)

    def numbered_by(self, texts: list[str]) -> bool:
        """Whether this log numbers texts by their ids in *texts* (it was made with ``texts=`` that list)."""
        return self._by_id and self._texts is texts

    @property
    def n_contenders(self) -> int:
        """How many contenders the log holds (where the next record's contenders start)."""
        return len(self._counts_of)

    def extend_rows(self, small: bytes, big: bytes, names: bytes, counts: bytes) -> None:
        """Append whole records written as this log's arrays (native ints): per row the :data:`_SMALL` fields
        as int32s, the texts' numbers being token ids, and the :data:`_BIG` fields and where the row's
        contenders start as int64s; per contender its two texts' ids (int32) and its count (int64)."""
        if not self._by_id:
            raise ValueError("rows name texts by token id: only a log made with texts= takes them")
        n = len(small) // (_NS * self._small.itemsize)
        if len(big) != n * _NB * self._big.itemsize or len(names) != len(counts):
            raise ValueError("the rows' parts do not fit together")
        self._small.frombytes(small)
        self._big.frombytes(big)
        self._names_of.frombytes(names)
        self._counts_of.frombytes(counts)
        self._n += n

    def _number(self, text: str, _: int = 0) -> int:
        """A text's number when numbered by id: its first id in the shared list (looked up as it grows)."""
        names = self._names
        got = names.get(text)
        if got is None:
            texts = self._texts
            for i in range(self._named, len(texts)):
                names.setdefault(texts[i], i)
            self._named = len(texts)
            got = names.get(text)
            if got is None:
                raise ValueError(f"the text {text!r} is not one of the trainer's tokens this log is numbered by")
        return got

    def append(self, rec: MergeRecord) -> None:
        names = self._names
        # name(text, len(names)): its number, a new one if it is new (by id: the text's id)
        name = self._number if self._by_id else names.setdefault
        names_of: list[int] = []
        counts_of: list[int] = []
        for a, b, c in rec.contenders:
            names_of += (name(a, len(names)), name(b, len(names)))
            counts_of.append(c)
        small = (rec.rank, name(rec.left, len(names)), name(rec.right, len(names)), name(rec.token, len(names)),
                 *_IDS(rec))
        parts = (self._small, self._big, self._names_of, self._counts_of)
        sizes = [len(p) for p in parts]
        n_contenders = sizes[3]
        try:
            for part, values in zip(parts, (small, (*_COUNTS(rec), n_contenders), names_of, counts_of), strict=True):
                part.extend(values)
        except OverflowError:  # kept whole; what was written of it is taken back
            for part, size in zip(parts, sizes, strict=True):
                del part[size:]
            self._whole[self._n] = rec
            self._small.extend([0] * _NS)
            self._big.extend([0] * len(_BIG) + [n_contenders])
        self._n += 1

    def _text_list(self) -> list[str]:
        if not self._by_id and len(self._texts) != len(self._names):
            self._texts = list(self._names)
        return self._texts

    def __len__(self) -> int:
        return self._n

    def _contenders_of(self, i: int) -> tuple[tuple[str, str, int], ...]:
        t, big = self._text_list(), self._big
        start = big[i * _NB + _NB - 1]
        end = big[(i + 1) * _NB + _NB - 1] if i + 1 < self._n else len(self._counts_of)
        names = self._names_of[2 * start:2 * end]
        return tuple((t[names[2 * j]], t[names[2 * j + 1]], c) for j, c in enumerate(self._counts_of[start:end]))

    def _one(self, i: int) -> MergeRecord:
        whole = self._whole.get(i)
        if whole is not None:
            return whole
        t, s, b = self._text_list(), self._small[i * _NS:(i + 1) * _NS], self._big[i * _NB:(i + 1) * _NB]
        return MergeRecord(s[0], t[s[1]], t[s[2]], t[s[3]], s[4], s[5], s[6], b[0], b[1], b[2], s[7], b[3],
                           self._contenders_of(i))

    @overload
    def __getitem__(self, i: int) -> MergeRecord: ...
    @overload
    def __getitem__(self, i: slice) -> list[MergeRecord]: ...
    def __getitem__(self, i: int | slice) -> MergeRecord | list[MergeRecord]:
        if isinstance(i, slice):
            return [self._one(j) for j in range(*i.indices(self._n))]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("record index out of range")
        return self._one(i)

    def column(self, name: str, start: int, stop: int) -> list[Any]:
        """Field *name* of records ``start:stop`` (contenders as tuples), without building the records."""
        stop = min(stop, self._n)
        if self._whole:
            return [getattr(r, name) for r in self[start:stop]]
        if name == "contenders":
            return [self._contenders_of(i) for i in range(start, stop)]
        if name in _SMALL:
            k = _SMALL.index(name)
            values = self._small[start * _NS + k:stop * _NS:_NS].tolist()
        else:
            k = _BIG.index(name)
            values = self._big[start * _NB + k:stop * _NB:_NB].tolist()
        return [self._text_list()[v] for v in values] if name in _TEXTS else values
