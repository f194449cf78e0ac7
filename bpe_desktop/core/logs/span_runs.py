"""Classify a long log text fast: the spans of each run of non-whitespace (and the whitespace after it), cached.

:func:`~.logclass.classify` runs one regular expression of many alternatives per span, which costs more
than tokenizing the text.  But a log repeats its words: this module cuts the text into runs (``\\S+\\s*``,
and ``\\s+`` at the start), classifies each distinct run once and keeps its spans (categories, ends, group
keys) in flat arrays, so a chunk's spans are gathered with numpy from the run ids of the chunk.  Digits
``1``-``9`` are written as ``1`` in the cache's key (no rule tells them apart; ``0`` stays, for ``0x``), so
numbers and timestamps of the same shape share an entry -- except a run whose group keys hold such a digit
(a name like ``nav2_controller``), which is keyed by its own text.

Why a run is classified alone as in its text: spans never cross whitespace except an ISO timestamp's space
(``2024-04-05 12:00:00``), whitespace is a single span of its own, and every look-around at a run's edge
sees whitespace or the end of the text alike -- except a CAN frame's hex bytes (``0A 1B FF``), which look
across the spaces.  So the runs around a space that may take part in those two (after ``-99``, between two
standalone two-digit hex bytes) and the first and last run of a chunk are classified in their text, from
the start of the run on until a span ends at a run's end.  The cache is dropped when it grows past
:data:`MAX_RUNS` entries (memory stays bounded).  On ASCII text the runs are cut and classified by the
standard library's twins of the patterns (:mod:`..text.ascii_twins`, :data:`.logclass.ASCII_PATTERN`).
This module knows nothing about tokenizers; the group keys are those of :mod:`.log_inspect` (category, shape).
"""

from __future__ import annotations

import bisect
import itertools
import re
from typing import Any

import numpy as np
import regex

from ..text.ascii_twins import RUNS_PATTERN, ascii_splitter
from .logclass import ASCII_PATTERN, CATEGORY_OF_GROUP, PATTERN, Category

#: distinct runs kept before the cache starts over
MAX_RUNS = 1 << 17
_RUNS = ascii_splitter(RUNS_PATTERN)  # (a run takes the whitespace after it)
#: where a run may need its neighbours, found at the space between: the date of an ISO timestamp before
#: its time, and two hex bytes (a CAN frame's).  With ``re``, faster here; its ASCII classes take in more
#: than ``regex``'s ``\w`` and ``\d``, so it finds them all
_NEEDS_CONTEXT = re.compile(
    r" (?:(?<=-[^ ]{2} )|[0-9A-Fa-f]{2}(?![0-9A-Za-z_.])(?<=(?<![0-9A-Za-z_.])[0-9A-Fa-f]{2} [0-9A-Fa-f]{2}))")
_DIGIT_SHAPE = str.maketrans("0123456789", "9999999999")
_HEX_SHAPE = str.maketrans("0123456789abcdefABCDEF", "h" * 22)
_ONE = str.maketrans("123456789", "111111111")
_DIGIT_1_9 = regex.compile("[1-9]")
_NUMERIC = (Category.TIMESTAMP, Category.FLOAT, Category.INTEGER)
_CATEGORY_OF_INDEX = (None, *(CATEGORY_OF_GROUP[g] for g in sorted(PATTERN.groupindex, key=PATTERN.groupindex.get)))


def shape_key(category: Category, text: str) -> tuple[int, str]:
    """The group of a span: its category and its text, with digits as 9 (numbers) or hex digits as h."""
    if category in _NUMERIC:
        return category, text.translate(_DIGIT_SHAPE)
    if category == Category.HEX:
        return category, text.translate(_HEX_SHAPE)
    return category, text


class SpanRuns:
    """The classifier over consecutive chunks, with the cache of runs; group keys (``(category, shape)``)
    are numbered in the order this object first meets them (not the order of the text)."""

    def __init__(self, max_runs: int = MAX_RUNS) -> None:
        self.max_runs = max_runs
        self.keys: dict[tuple[int, str], int] = {}  # group key -> its id (the order they were met in)
        self.key_list: list[tuple[int, str]] = []  # id -> group key
        self._pattern: Any = PATTERN  # the classifier's (regex), or its twin for ASCII text (re)
        self._clear()

    def _clear(self) -> None:
        self.ids: dict[str, int] = {}  # run with digits 1-9 as 1 -> entry; -1: see the run's own text
        self.texts: dict[str, int] = {}  # run -> entry, for runs whose groups hold digits 1-9
        self.start = np.zeros(0, dtype=np.int64)  # entry -> its first span in the flat arrays
        self.count = np.zeros(0, dtype=np.int64)  # entry -> its spans
        self.cat = np.zeros(0, dtype=np.int64)  # flat: span category
        self.end = np.zeros(0, dtype=np.int64)  # flat: span end, in characters from the run's start
        self.key = np.zeros(0, dtype=np.int64)  # flat: span group key id

    def _key_id(self, category: Category, text: str) -> int:
        k = shape_key(category, text)
        g = self.keys.get(k)
        if g is None:
            g = self.keys[k] = len(self.key_list)
            self.key_list.append(k)
        return g

    def _scan(self, text: str, pos: int, until: int, out: list[tuple[int, int, int]]) -> int:
        """Classify *text* from *pos* (a span starts there) until a span ends at or after *until*; add
        ``(category, end, key id)`` to *out*; the end reached."""
        by = _CATEGORY_OF_INDEX
        end = pos
        for m in self._pattern.finditer(text, pos):
            c = by[m.lastindex]
            end = m.end()
            out.append((c, end, self._key_id(c, m.group())))
            if end >= until:
                break
        return end

    def _add(self, runs: list[str], norm: list[str]) -> None:
        """Classify each distinct run alone and add its entry (keyed by *norm*, or by its text)."""
        cats: list[int] = []
        ends: list[int] = []
        kids: list[int] = []
        starts: list[int] = []
        counts: list[int] = []
        base = len(self.cat)
        by = _CATEGORY_OF_INDEX
        for run, key in zip(runs, norm, strict=True):
            known = self.ids.get(key, -2)
            if known >= 0 or (known == -1 and run in self.texts):
                continue
            n0 = len(cats)
            by_text = False
            for m in self._pattern.finditer(run):
                c = by[m.lastindex]
                t = m.group()
                if c not in _NUMERIC and c != Category.HEX and _DIGIT_1_9.search(t):
                    by_text = True  # its group is its own text, digits and all
                cats.append(c)
                ends.append(m.end())
                kids.append(self._key_id(c, t))
            entry = len(self.start) + len(starts)
            if by_text:
                self.ids[key] = -1
                self.texts[run] = entry
            else:
                self.ids[key] = entry
            starts.append(base + n0)
            counts.append(len(cats) - n0)
        if starts:
            self.start = np.concatenate([self.start, np.array(starts, dtype=np.int64)])
            self.count = np.concatenate([self.count, np.array(counts, dtype=np.int64)])
            self.cat = np.concatenate([self.cat, np.array(cats, dtype=np.int64)])
            self.end = np.concatenate([self.end, np.array(ends, dtype=np.int64)])
            self.key = np.concatenate([self.key, np.array(kids, dtype=np.int64)])

    def classify(self, text: str, at: int, stop: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The spans of ``text[at:stop]`` (a chunk, a span ends at *stop*; the rest of *text* is context):
        categories, ends (characters from *at*) and group key ids, as arrays."""
        if stop <= at:
            e = np.zeros(0, dtype=np.int64)
            return e, e, e
        if len(self.ids) + len(self.texts) > self.max_runs:
            self._clear()
        self._pattern = ASCII_PATTERN if text.isascii() else PATTERN  # (the runs of an ASCII text are ASCII)
        chunk = text[at:stop]
        norm = _RUNS(chunk.translate(_ONE))  # the runs of the chunk: the table keeps \s and \S
        run_len = np.fromiter(map(len, norm), dtype=np.int64, count=len(norm))
        run_end = np.cumsum(run_len)
        run_start = run_end - run_len
        # runs that need their text: those _NEEDS_CONTEXT finds, the first and the last
        # (with the three characters around the chunk, where the neighbour of its first or last byte is)
        spaces = [m.start() - at for m in _NEEDS_CONTEXT.finditer(text, max(at - 3, 0), stop + 3)]
        hits = [h - 1 for h in spaces] + [h + 1 for h in spaces]  # the runs before and after the space
        context = np.zeros(len(norm), dtype=bool)
        where = np.searchsorted(run_end, np.array(hits, dtype=np.int64), side="right")
        context[np.clip(where, 0, len(norm) - 1)] = True
        context[0] = context[-1] = True
        ids = self._lookup(chunk, run_start, norm)
        missing = np.flatnonzero((ids < 0) & ~context)  # (-2: not cached)
        if len(missing):
            pick = missing.tolist()
            self._add([chunk[run_start[i]:run_end[i]] for i in pick], [norm[i] for i in pick])
            ids = self._lookup(chunk, run_start, norm)
        # classify the runs that need their text, each from its start (or where a span crossing into it ended)
        exact: list[tuple[int, int, int]] = []
        ends = (run_end + at).tolist()
        covered = np.zeros(len(norm), dtype=bool)
        reached = at
        flagged = np.flatnonzero(context).tolist()
        k = 0
        while k < len(flagged):
            i = j = flagged[k]
            while k + 1 < len(flagged) and flagged[k + 1] == j + 1:  # a block of them (a CAN frame): one scan
                k += 1
                j += 1
            k += 1
            e = ends[j]
            if reached >= e:
                continue
            pos = max(ends[i] - int(run_len[i]), reached)
            while True:
                reached = self._scan(text, pos, e, exact)
                j = bisect.bisect_left(ends, reached)
                if reached >= stop or ends[j] == reached:
                    break
                pos, e = reached, ends[j]  # a span ended inside a run: go on to that run's end
            covered[i:bisect.bisect_left(ends, reached) + 1] = True
        use = np.flatnonzero(~covered)
        rid = ids[use]
        cnt = self.count[rid]
        offset = np.cumsum(cnt) - cnt
        flat = np.repeat(self.start[rid] - offset, cnt) + np.arange(int(cnt.sum()), dtype=np.int64)
        cat = self.cat[flat]
        end = np.repeat(run_start[use], cnt) + self.end[flat]
        key = self.key[flat]
        if exact:
            ex = np.array(exact, dtype=np.int64).reshape(-1, 3)
            cat = np.concatenate([cat, ex[:, 0]])
            end = np.concatenate([end, ex[:, 1] - at])
            key = np.concatenate([key, ex[:, 2]])
            order = np.argsort(end, kind="stable")
            cat, end, key = cat[order], end[order], key[order]
        return cat, end, key

    def _lookup(self, chunk: str, run_start: np.ndarray, norm: list[str]) -> np.ndarray:
        """Entry of each run (*norm* as keyed, starting at *run_start* in *chunk*), -2 when not cached."""
        ids = np.fromiter(map(self.ids.get, norm, itertools.repeat(-2)), dtype=np.int64, count=len(norm))
        by_text = np.flatnonzero(ids == -1).tolist()
        if by_text:
            texts = [chunk[s:s + len(norm[i])] for i, s in zip(by_text, run_start[by_text].tolist(), strict=True)]
            ids[by_text] = np.fromiter(map(self.texts.get, texts, itertools.repeat(-2)), dtype=np.int64,
                                       count=len(texts))
        return ids
