"""Inspect how a log tokenizes: where each tokenizer's tokens go, per category and per line.

:func:`inspect_text` encodes a text with one or more tokenizers (byte offsets from
``encode_with_offsets``, special-token strings treated as ordinary text, as ``encode_ordinary`` does) and
reports per tokenizer (:class:`TokenizerReport`): tokens, characters and bytes per token, tokens per line
(every count, mean, p95), tokens per :class:`~.logclass.Category`, and the most expensive span groups
("timestamps shaped 9999999999.999999999: 31% of all tokens").  With two or more tokenizers it adds the
regions they cut differently (:mod:`.boundaries`) and, per category, which tokenizer needs fewest tokens.

**Attribution rule** (one rule for categories, span groups and lines, so each adds up to the total): a
token belongs to the category that covers most of its bytes (ties: the category listed first in
:class:`~.logclass.Category`, where whitespace comes last), and within it to the span and the line of its
first byte of that category (a line owns its ``\\n``).  So ``[INFO`` counts as a level, `` poses`` as a
word and ``"]\\n"`` as punctuation of its line.  A token that covers no text (a chars-mode end-of-word
marker on its own) counts as the byte before it.

The text is processed in bounded chunks (:mod:`.log_chunks` says where the given tokenizers and the
classifier may be cut without changing a piece or a span, whatever the line ends; a line may span
chunks and is still counted as one), with the same result as the whole text at once, and with
``progress(stage, done, total)`` in bytes and ``cancel()`` polled between chunks and tokenizers (raising
:class:`~.errors.Cancelled`), so a GUI can run it off its thread; :func:`inspect_file` reads a file chunk
by chunk.  The spans come from :mod:`.span_runs` (each distinct run of the text classified once, the
chunk's spans gathered as arrays), the same as the classifier's one by one; the token offsets from
:mod:`.token_offsets` (each distinct piece encoded once), the same as ``encode_with_offsets``'.
This module does not load tokenizers (:mod:`.formats`) nor draw anything.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..errors import Cancelled
from ..tokenizers.any_tokenizer import AnyTokenizer
from .boundaries import DiffCollector, Differences, differing_regions
from .log_chunks import CHUNK_CHARS, cut_rule, iter_chunks, iter_file_chunks
from .logclass import Category
from .span_runs import SpanRuns
from .token_offsets import TokenOffsets

ProgressFn = Callable[[str, int, int], None]
CancelFn = Callable[[], bool]
_N_CAT = len(Category)
#: characters of the text on each side of a chunk the classifier sees: its look-arounds read at most
#: nine across a cut that :mod:`.log_chunks` allows (a CAN frame's ``(?<={_B} {_B} ..)``)
CONTEXT_CHARS = 64


class NamedTokenizer(NamedTuple):
    """A tokenizer as the reports name it; *upto* limits it to its first merges (the timeline's step)."""

    name: str
    tokenizer: AnyTokenizer
    upto: int | None = None


@dataclass(frozen=True)
class ExpensiveSpan:
    """A group of spans with the same category and shape, and the tokens attributed to them."""

    category: Category
    shape: str  # digits as 9 and hex digits as h for numbers and hex; the text itself otherwise
    example: str
    occurrences: int
    tokens: int

    def describe(self, total: int) -> str:
        share = 100.0 * self.tokens / total if total else 0.0
        each = self.tokens / self.occurrences if self.occurrences else 0.0
        return (f"{self.category.label} {self.shape!r} (e.g. {self.example!r}): {share:.1f}% of all tokens, "
                f"{each:.2f} per occurrence, x{self.occurrences}")


@dataclass(frozen=True)
class TokenizerReport:
    """Where one tokenizer's tokens go in the text."""

    name: str
    tokens: int
    chars: int
    n_bytes: int
    per_line: np.ndarray  # tokens of each line (sums to ``tokens``)
    categories: dict[Category, int]  # tokens per category (sums to ``tokens``)
    expensive: tuple[ExpensiveSpan, ...]  # most tokens first

    @property
    def chars_per_token(self) -> float:
        return self.chars / self.tokens if self.tokens else 0.0

    @property
    def bytes_per_token(self) -> float:
        return self.n_bytes / self.tokens if self.tokens else 0.0

    @property
    def tokens_per_line_mean(self) -> float:
        return float(self.per_line.mean()) if len(self.per_line) else 0.0

    @property
    def tokens_per_line_p95(self) -> int:
        """The nearest-rank 95th percentile: the smallest count that at least 95% of lines do not exceed."""
        if not len(self.per_line):
            return 0
        return int(np.percentile(self.per_line, 95, method="inverted_cdf"))

    def share(self, category: Category) -> float:
        return self.categories[category] / self.tokens if self.tokens else 0.0

    def to_dict(self, top: int = 10) -> dict[str, object]:
        return {
            "name": self.name, "tokens": self.tokens, "chars_per_token": round(self.chars_per_token, 4),
            "bytes_per_token": round(self.bytes_per_token, 4), "lines": len(self.per_line),
            "tokens_per_line_mean": round(self.tokens_per_line_mean, 4),
            "tokens_per_line_p95": self.tokens_per_line_p95,
            "categories": {c.label: self.categories[c] for c in Category},
            "expensive": [{"category": e.category.label, "shape": e.shape, "example": e.example,
                           "occurrences": e.occurrences, "tokens": e.tokens} for e in self.expensive[:top]],
        }


class CategoryVerdict(NamedTuple):
    """Tokens of one category under each tokenizer, and which needs fewest (several on a tie)."""

    category: Category
    tokens: tuple[int, ...]
    best: tuple[str, ...]


@dataclass(frozen=True)
class Inspection:
    """The result of :func:`inspect_text`."""

    chars: int
    n_bytes: int
    category_bytes: dict[Category, int]  # bytes of the text per category
    reports: tuple[TokenizerReport, ...]
    differences: Differences | None  # None with fewer than two tokenizers

    @property
    def verdicts(self) -> list[CategoryVerdict]:
        out = []
        for c in Category:
            counts = tuple(r.categories[c] for r in self.reports)
            low = min(counts) if counts else 0
            out.append(CategoryVerdict(c, counts, tuple(r.name for r, n in zip(self.reports, counts, strict=True)
                                                        if n == low)))
        return out

    def to_dict(self, top: int = 10) -> dict[str, object]:
        return {
            "chars": self.chars, "bytes": self.n_bytes,
            "category_bytes": {c.label: self.category_bytes[c] for c in Category},
            "tokenizers": [r.to_dict(top) for r in self.reports],
            "differences": self.differences.to_dict(top) if self.differences is not None else None,
            "verdicts": [{"category": v.category.label, "tokens": list(v.tokens), "best": list(v.best)}
                         for v in self.verdicts] if len(self.reports) > 1 else [],
        }


class _Groups:
    """The span groups met so far, numbered in the order of the text, with the first text of each (its
    example) and its spans."""

    def __init__(self) -> None:
        self.runs = SpanRuns()
        self.keys: list[tuple[int, str]] = []  # group -> (category, shape)
        self.examples: list[str] = []
        self.occurrences = np.zeros(0, dtype=np.int64)  # spans per group
        self._group_of_key = np.zeros(0, dtype=np.int64)  # SpanRuns' key id -> group, -1 = not met yet

    def number(self, kids: np.ndarray, ends: np.ndarray, chunk: str) -> np.ndarray:
        """The group of each span of *chunk* (key ids and character ends from :meth:`SpanRuns.classify`)."""
        n_keys = len(self.runs.key_list)
        if len(self._group_of_key) < n_keys:
            self._group_of_key = np.concatenate(
                [self._group_of_key, np.full(n_keys - len(self._group_of_key), -1, dtype=np.int64)])
        group = self._group_of_key[kids]
        new = np.flatnonzero(group < 0)
        if len(new):
            _, first = np.unique(kids[new], return_index=True)
            for i in np.sort(new[first]).tolist():  # first spans of new groups, in the order of the text
                self._group_of_key[kids[i]] = len(self.keys)
                self.keys.append(self.runs.key_list[kids[i]])
                self.examples.append(chunk[int(ends[i - 1]) if i else 0:int(ends[i])])
            group = self._group_of_key[kids]
        self.occurrences = np.concatenate(
            [self.occurrences, np.zeros(len(self.keys) - len(self.occurrences), dtype=np.int64)])
        self.occurrences += np.bincount(group, minlength=len(self.keys))
        return group


class _Classified:
    """One chunk's classified spans as arrays (byte offsets), shared by every tokenizer."""

    def __init__(self, chunk: str, data: bytes, groups: _Groups, left: str = "", right: str = "") -> None:
        """Classify *chunk*, seen between the *left* and *right* text around it."""
        at, stop = len(left), len(left) + len(chunk)
        full = left + chunk + right if left or right else chunk
        cats, ends_arr, kids = groups.runs.classify(full, at, stop)
        if len(ends_arr) and ends_arr[-1] != len(chunk):
            raise AssertionError(f"a span crosses the end of a chunk ({ends_arr[-1]} of {len(chunk)}): a bad cut")
        self.span_group = groups.number(kids, ends_arr, chunk)
        if not chunk.isascii():  # character ends -> byte ends
            cp = np.frombuffer(chunk.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
            width = (1 + (cp >= 0x80) + (cp >= 0x800) + (cp >= 0x10000)).astype(np.int64)
            width[(cp >= 0xDC80) & (cp < 0xDD00)] = 1  # surrogate-escaped bytes
            ends_arr = np.concatenate([[0], np.cumsum(width)])[ends_arr]
        self.n = len(data)
        self.span_ends = ends_arr
        self.span_starts = np.concatenate([[0], ends_arr[:-1]]).astype(np.int64)
        self.span_cat = cats
        self.category_bytes = np.bincount(self.span_cat, weights=ends_arr - self.span_starts,
                                          minlength=_N_CAT).astype(np.int64)
        # byte -> its span, and byte -> the newlines before it (its line in the chunk): one look-up per token
        self.span_of_byte = np.repeat(np.arange(len(ends_arr), dtype=np.int64), ends_arr - self.span_starts)
        newline = np.frombuffer(data, dtype=np.uint8) == 10
        self.line_of_byte = np.cumsum(newline) - newline
        self.n_lines = int(self.line_of_byte[-1]) + 1 if self.n else 0

    def attribute(self, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per token: its category (the most bytes, ties to the earlier one) and the span that owns it (the
        first span of that category inside the token)."""
        first = self.span_of_byte[starts]
        last = self.span_of_byte[ends - 1]
        owner = first.copy()
        winner = self.span_cat[first]
        multi = np.flatnonzero(last > first)  # tokens over several spans: count bytes per category
        if len(multi):
            k = last[multi] - first[multi] + 1
            row_start = np.concatenate([[0], np.cumsum(k)[:-1]])
            row = np.repeat(np.arange(len(multi)), k)
            span = first[multi][row] + (np.arange(len(row)) - row_start[row])
            tok = multi[row]
            overlap = np.minimum(self.span_ends[span], ends[tok]) - np.maximum(self.span_starts[span], starts[tok])
            cat = self.span_cat[span]
            per_cat = np.bincount(row * _N_CAT + cat, weights=overlap, minlength=len(multi) * _N_CAT)
            win = np.argmax(per_cat.reshape(len(multi), _N_CAT), axis=1)
            candidate = np.where(cat == win[row], span, np.iinfo(np.int64).max)
            owner[multi] = np.minimum.reduceat(candidate, row_start)
            winner[multi] = win
        return winner, owner


class _Tally:
    """Running totals of one tokenizer."""

    def __init__(self) -> None:
        self.tokens = 0
        self.categories = np.zeros(_N_CAT, dtype=np.int64)
        self.per_line: list[np.ndarray] = []
        self.groups = np.zeros(0, dtype=np.int64)

    def add(self, starts: np.ndarray, ends: np.ndarray, cl: _Classified, n_groups: int, continues: bool) -> None:
        """Add a chunk's tokens; *continues*: its first line is the last line of the chunk before."""
        self.tokens += len(starts)
        if len(self.groups) < n_groups:
            self.groups = np.concatenate([self.groups, np.zeros(n_groups - len(self.groups), dtype=np.int64)])
        if not len(starts) or not cl.n:
            self._lines(np.zeros(cl.n_lines, dtype=np.int64), continues)
            return
        empty = ends <= starts  # an end-of-word marker alone covers no text: it counts as the byte before it
        if empty.any():
            starts = np.where(empty, np.maximum(starts - 1, 0), starts)
            ends = np.where(empty, np.minimum(starts + 1, cl.n), ends)
        winner, owner = cl.attribute(starts, ends)
        self.categories += np.bincount(winner, minlength=_N_CAT)
        self.groups += np.bincount(cl.span_group[owner], minlength=n_groups)
        owner_byte = np.maximum(cl.span_starts[owner], starts)
        line = cl.line_of_byte[owner_byte]
        self._lines(np.bincount(line, minlength=cl.n_lines), continues)

    def _lines(self, counts: np.ndarray, continues: bool) -> None:
        if continues and self.per_line and len(counts):
            self.per_line[-1][-1] += counts[0]
            counts = counts[1:]
        if len(counts):  # (a chunk inside one line adds to that line only)
            self.per_line.append(counts)


def inspect_text(
    text: str,
    tokenizers: Sequence[NamedTokenizer],
    *,
    chunk_chars: int = CHUNK_CHARS,
    top: int = 20,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
) -> Inspection:
    """Encode *text* with every tokenizer and report where the tokens go (see the module docstring).

    >>> from bpe_desktop.core import TrainConfig, train
    >>> from bpe_desktop.core.tokenizers.tokenizer import Tokenizer
    >>> model, _ = train({"[INFO]": 9}, TrainConfig(mode="bytes", pretokenizer="gpt2", merges=1))
    >>> r = inspect_text("[INFO] 42\\n", [NamedTokenizer("t", Tokenizer(model))]).reports[0]
    >>> r.tokens, {c.label: n for c, n in r.categories.items() if n}, r.per_line.tolist()
    (9, {'level': 3, 'integer': 2, 'punct': 2, 'space': 2}, [9])
    """
    total = len(text.encode("utf-8", "surrogateescape"))
    rule = cut_rule([(t.name, t.tokenizer) for t in tokenizers])
    return inspect_chunks(iter_chunks(text, chunk_chars, rule), tokenizers, total=total, top=top,
                          progress=progress, cancel=cancel)


def inspect_file(
    path: str,
    tokenizers: Sequence[NamedTokenizer],
    *,
    chunk_chars: int = CHUNK_CHARS,
    top: int = 20,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
) -> Inspection:
    """:func:`inspect_text` of a UTF-8 file, read chunk by chunk (the text is never held whole)."""
    total = os.path.getsize(path) if os.path.isfile(path) else 0
    rule = cut_rule([(t.name, t.tokenizer) for t in tokenizers])
    return inspect_chunks(iter_file_chunks(path, chunk_chars, rule), tokenizers, total=total, top=top,
                          progress=progress, cancel=cancel)


def inspect_chunks(
    chunks: Iterable[str],
    tokenizers: Sequence[NamedTokenizer],
    *,
    total: int = 0,
    top: int = 20,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
) -> Inspection:
    """:func:`inspect_text` over a text given as consecutive chunks cut where :func:`iter_chunks` cuts by
    :func:`~.log_chunks.cut_rule` of these *tokenizers*; *total* (bytes, for progress only) may be an
    estimate."""
    names = [t.name for t in tokenizers]
    tallies = [_Tally() for _ in tokenizers]
    encoders = [TokenOffsets(nt.tokenizer, nt.upto) for nt in tokenizers]
    diffs = DiffCollector(names) if len(tokenizers) > 1 else None
    groups = _Groups()
    category_bytes = np.zeros(_N_CAT, dtype=np.int64)
    done = chars = 0
    continues = False  # the chunk before ended inside a line
    for left, chunk, right in _in_context(chunks, CONTEXT_CHARS):
        if cancel is not None and cancel():
            raise Cancelled()
        data = chunk.encode("utf-8", "surrogateescape")
        cl = _Classified(chunk, data, groups, left, right)
        category_bytes += cl.category_bytes
        offsets = []
        for tally, encode in zip(tallies, encoders, strict=True):
            starts, ends = encode(chunk, len(data))
            tally.add(starts, ends, cl, len(groups.keys), continues)
            offsets.append((starts, ends))
            if cancel is not None and cancel():
                raise Cancelled()
        if diffs is not None:
            diffs.add(differing_regions(offsets, len(data)), data, done)
        done += len(data)
        chars += len(chunk)
        continues = not chunk.endswith("\n") if chunk else continues
        if progress is not None:
            progress("inspect", done, max(total, done))
    keys, examples, occurrences = groups.keys, groups.examples, groups.occurrences.tolist()
    reports = []
    for tally, name in zip(tallies, names, strict=True):
        order: list[int] = np.argsort(-tally.groups, kind="stable")[:top].tolist()
        expensive = tuple(
            ExpensiveSpan(Category(keys[g][0]), keys[g][1], examples[g], occurrences[g], int(tally.groups[g]))
            for g in order if tally.groups[g] > 0
        )
        per_line = np.concatenate(tally.per_line) if tally.per_line else np.zeros(0, dtype=np.int64)
        reports.append(TokenizerReport(name, tally.tokens, chars, done, per_line,
                                       {c: int(tally.categories[c]) for c in Category}, expensive))
    return Inspection(chars, done, {c: int(category_bytes[c]) for c in Category}, tuple(reports),
                      diffs.result() if diffs is not None else None)



def _in_context(chunks: Iterable[str], n: int) -> Iterator[tuple[str, str, str]]:
    """Each chunk with the *n* characters of the text before it and after it (fewer at the ends)."""
    pending: list[str] = []  # pending[0] is the next to give; the rest is its right-hand text
    ahead = 0  # characters in pending[1:]
    left = ""
    for chunk in chunks:
        pending.append(chunk)
        if len(pending) > 1:
            ahead += len(chunk)
        while len(pending) > 1 and ahead >= n:
            cur = pending.pop(0)
            ahead -= len(pending[0])
            yield left, cur, _head(pending, n)
            left = (left + cur[-n:])[-n:]
    while pending:
        cur = pending.pop(0)
        yield left, cur, _head(pending, n)
        left = (left + cur[-n:])[-n:]


def _head(parts: list[str], n: int) -> str:
    """The first *n* characters of the parts joined."""
    out = ""
    for p in parts:
        out += p[: n - len(out)]
        if len(out) >= n:
            break
    return out
