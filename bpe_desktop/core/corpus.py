"""Corpus input: turn files or text into a word-count table (distinct piece -> count, first-seen order).

Two kinds of input:

* raw text (files or a string): read in chunks of whole lines, split on special tokens, pre-tokenized
  line by line (a line keeps its ``\\n``, as HF tokenizers does when it trains on files) and counted;
* word-count tables as in the seeds: one ``word count`` or ``word<TAB>count`` per line.

Files are streamed: only one chunk of text and the distinct pieces are ever held, never one Python object
per running token.  Progress is reported as ``progress(stage, done, total)`` with ``done``/``total`` in
bytes, and ``cancel()`` is polled between chunks (it raises :class:`Cancelled` when true).

Text files must be UTF-8 in ``chars`` mode (an ``errors=`` policy can relax that); ``bytes`` mode takes any
bytes, carried through ``str`` with ``surrogateescape`` so that they come back unchanged.

This module does not know about merges; it stops at the table the trainer starts from.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import regex

from .config import TrainConfig
from .errors import Cancelled, CorpusError, EmptyCorpusError
from .inputs import Input, expand, iter_chunks
from .lines import split_lines
from .pretokenize import Pretokenizer
from .regex_budget import RegexBudget
from .word_first import WordsFirst

ProgressFn = Callable[[str, int, int], None]
CancelFn = Callable[[], bool]

CHUNK_BYTES = 1 << 20
ENCODING_ERRORS = ("strict", "replace", "ignore")


@dataclass
class WordCounts:
    """Distinct pieces with their counts, in the order they first appear in the corpus."""

    counts: dict[str, int]
    bytes_read: int = 0

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def __len__(self) -> int:
        return len(self.counts)


def parse_word_counts(text: str, source: str = "<text>") -> WordCounts:
    """Parse a word-count table: ``word count`` or ``word<TAB>count`` per line, blank lines ignored.

    A word listed twice has its counts added.

    >>> parse_word_counts("low 5\\nlower\\t2\\n").counts
    {'low': 5, 'lower': 2}
    """
    counts: dict[str, int] = {}
    for lineno, raw in enumerate(text.split("\n"), 1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        if "\t" in line:
            word, _, num = line.rpartition("\t")
        else:
            parts = line.rsplit(None, 1)
            if len(parts) != 2:
                raise CorpusError(
                    f"{source}, line {lineno}: expected 'word count' (or word<TAB>count), got {line!r} "
                    "-- add the count after the word, or load the file as plain text instead of a table"
                )
            word, num = parts
        word = word.strip(" ") if "\t" not in line else word
        try:
            n = int(num)
        except ValueError:
            raise CorpusError(
                f"{source}, line {lineno}: the count {num.strip()!r} is not a whole number "
                "-- write the count as digits, or load the file as plain text instead of a table"
            ) from None
        if n < 0 or not word:
            raise CorpusError(
                f"{source}, line {lineno}: {'negative count' if n < 0 else 'empty word'} in {line!r} "
                "-- each line needs a word and a count of 0 or more"
            )
        counts[word] = counts.get(word, 0) + n
    return WordCounts(counts, len(text.encode("utf-8", "surrogateescape")))


class PieceCounter:
    """Accumulates pre-tokenized piece counts line by line; shared by text and file input."""

    def __init__(self, config: TrainConfig, budget: RegexBudget | None = None) -> None:
        self.pretokenizer = Pretokenizer.from_spec(config.pretokenizer)
        self.budget = budget or RegexBudget(what="counting the corpus")  # one for the whole job
        self._counter: Counter[str] = Counter()
        specials = sorted(config.specials, key=len, reverse=True)
        self._special_re = regex.compile("|".join(regex.escape(s) for s in specials)) if specials else None
        self._words_first = WordsFirst(self.pretokenizer.split) if self.pretokenizer.name == "gpt2" else None

    @property
    def counter(self) -> Counter[str]:
        """The table so far (piece -> count, first-seen order)."""
        if self._words_first is not None:
            self._words_first.flush(self._counter)
        return self._counter

    @counter.setter
    def counter(self, table: Counter[str]) -> None:
        if self._words_first is not None:
            self._words_first.flush(self._counter)
        self._counter = table

    def add_text(self, text: str) -> None:
        """Count the pieces of *text* (whole lines; a trailing partial line is treated as a line)."""
        pre, budget = self.pretokenizer, self.budget
        split: Callable[[str], list[str]] = (
            pre.split if pre.name != "custom" else (lambda t: pre.split(t, budget))  # only custom is timed
        )
        if self.pretokenizer.line_independent:
            if self._special_re is None:
                self.counter.update(split(text))
            else:
                self.counter.update(p for seg in self._special_re.split(text) for p in split(seg))
            return
        if self._words_first is not None:  # gpt2: same table, a fifth of the time (see word_first)
            if self._special_re is None:
                self._words_first.add(text, self._counter)
            else:
                for seg in self._special_re.split(text):
                    self._words_first.add(seg, self._counter)
            return
        pieces: list[str] = []
        for line in split_lines(text):
            if self._special_re is not None:
                for segment in self._special_re.split(line):
                    pieces.extend(split(segment))
            else:
                pieces.extend(split(line))
        self.counter.update(pieces)

    def result(self, bytes_read: int) -> WordCounts:
        return WordCounts(dict(self.counter), bytes_read)


def count_text(text: str, config: TrainConfig, budget: RegexBudget | None = None) -> WordCounts:
    """Count the pieces of an in-memory text.

    >>> count_text("low low lower", TrainConfig()).counts
    {'low': 2, 'lower': 1}
    """
    n = len(text.encode("utf-8", "surrogateescape"))
    pc = PieceCounter(config, budget or RegexBudget.for_bytes(n, what="counting the corpus"))
    pc.add_text(text)
    return pc.result(n)


def decode_chunk(data: bytes, path: str, offset: int, mode: str, errors: str) -> str:
    """A chunk of *path* read at byte *offset* as text: bytes mode takes any bytes (surrogateescape); chars
    mode applies *errors*, and ``strict`` names the file, the byte and the fixes."""
    if mode == "bytes":
        return data.decode("utf-8", "surrogateescape")
    try:
        return data.decode("utf-8", errors)
    except UnicodeDecodeError as e:
        raise CorpusError(
            f"{path}: not valid UTF-8 at byte offset {offset + e.start} ({e.reason}) -- convert the file "
            "to UTF-8, pass --encoding-errors replace (or ignore), or train in bytes mode, which takes "
            "any bytes"
        ) from e


def iter_file_chunks(
    path: str, *, chunk_bytes: int | None = None
) -> Iterable[tuple[int, bytes]]:
    """Yield ``(offset, data)`` blocks of whole lines (the last block may lack a final newline)."""
    offset = 0
    for _pos, data in iter_chunks(Input(path, 0), chunk_bytes=chunk_bytes or CHUNK_BYTES):
        yield offset, data
        offset += len(data)


def _count_stream(item: Input, pc: PieceCounter, config: TrainConfig, errors: str, base: int,
                  progress: Callable[[int], None], cancel: CancelFn | None) -> int:
    offset = pos = 0
    for pos, data in iter_chunks(item, chunk_bytes=CHUNK_BYTES):
        if cancel is not None and cancel():
            raise Cancelled()
        pc.add_text(decode_chunk(data, item.name, offset, config.mode, errors))
        offset += len(data)
        progress(base + (pos if item.size else offset))
    return pos if item.size else offset


def _parallel_pays(inputs: Sequence[Input], jobs: int) -> bool:
    """Whether the plain files ahead are big enough for more than one process."""
    from .parallel_count import effective_jobs

    plain = 0
    for item in inputs:
        if not item.is_plain:
            break
        plain += item.size
    return effective_jobs(plain, jobs) > 1


def count_files(
    paths: Sequence[str | os.PathLike[str]],
    config: TrainConfig,
    *,
    word_counts: bool = False,
    errors: str = "strict",
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    budget: RegexBudget | None = None,
    jobs: int = 1,
    glob: str | None = None,
) -> WordCounts:
    """Read and count files, folders (recursively, filtered by *glob*), compressed files and ``-`` (stdin),
    streamed in chunks of lines, or parse them as word-count tables (``count`` tables included).

    With ``jobs > 1`` plain files are counted in that many processes (:mod:`.parallel_count`); the table
    is the same as with one.  A custom pre-tokenizer pattern runs in this process under *budget* for the
    whole job (default: sized for the input, see :meth:`RegexBudget.for_bytes`).
    ``progress("counting", done, total)`` is in bytes on disk (compressed bytes for compressed files;
    standard input has no total, so ``total`` grows with ``done``).
    """
    if errors not in ENCODING_ERRORS:
        raise CorpusError(f"unknown encoding error policy {errors!r} -- use strict, replace or ignore")
    if not paths:
        raise CorpusError("no input file given -- name at least one text file")
    inputs = expand(paths, glob)
    total = sum(i.size for i in inputs)
    if word_counts:
        from .count_table import read_tables

        return read_tables(inputs, config, errors=errors, progress=progress)
    from .count_table import is_table

    for item in inputs:
        if item.is_plain and is_table(item.name):
            raise CorpusError(f"{item.name} is a counts table (written by 'bpe-desktop count') -- add "
                              "--word-counts to train from it, or name the text it was counted from")
    what = f"counting {', '.join(os.fspath(p) for p in paths)}"
    if budget is not None and not budget.what:
        budget.what = what
    pc = PieceCounter(config, budget or RegexBudget.for_bytes(total, what=what))
    if pc.pretokenizer.name == "custom":
        jobs = 1  # one budget for the whole job: a user's pattern is timed in this process
    base = 0
    k = 0

    def report(done: int) -> None:
        if progress:
            progress("counting", done, max(total, done))

    while k < len(inputs):
        if jobs > 1 and inputs[k].is_plain and _parallel_pays(inputs[k:], jobs):
            group = []
            while k < len(inputs) and inputs[k].is_plain:
                group.append(inputs[k])
                k += 1
            from .parallel_count import count_parallel

            def report_from(done: int, start: int = base) -> None:
                report(start + done)

            table = count_parallel(group, config, jobs, errors=errors, chunk_bytes=CHUNK_BYTES,
                                   progress=report_from, cancel=cancel)
            if pc.counter:
                pc.counter.update(table)
            else:
                pc.counter = table  # no copy of a table that may hold millions of pieces
            base += sum(i.size for i in group)
        else:
            base += _count_stream(inputs[k], pc, config, errors, base, report, cancel)
            k += 1
    report(base)
    return pc.result(max(total, base))


def count_source(
    source: CorpusSource,
    config: TrainConfig,
    *,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    budget: RegexBudget | None = None,
) -> WordCounts:
    """Count whichever input a :class:`CorpusSource` names (*budget*: see :func:`count_files`)."""
    if source.paths:
        return count_files(
            source.paths, config, word_counts=source.word_counts, errors=source.errors,
            progress=progress, cancel=cancel, budget=budget, jobs=source.jobs, glob=source.glob,
        )
    text = source.text or ""
    if source.word_counts:
        return parse_word_counts(text, source.name)
    return count_text(text, config, budget)


@dataclass(frozen=True)
class CorpusSource:
    """Where a corpus comes from: files on disk, or text held in memory (the editor). Picklable."""

    paths: tuple[str, ...] = ()
    text: str | None = None
    word_counts: bool = False
    errors: str = "strict"
    name: str = "<editor>"
    jobs: int = 1  # processes counting plain files (the table is the same for any number)
    glob: str | None = None  # which files of a folder input to read

    @classmethod
    def from_text(cls, text: str, *, word_counts: bool = False, name: str = "<editor>") -> CorpusSource:
        return cls(text=text, word_counts=word_counts, name=name)

    @classmethod
    def from_files(
        cls, paths: Sequence[str | os.PathLike[str]], *, word_counts: bool = False, errors: str = "strict",
        jobs: int = 1, glob: str | None = None,
    ) -> CorpusSource:
        names = tuple(os.fspath(p) for p in paths)
        return cls(paths=names, word_counts=word_counts, errors=errors, name=", ".join(names), jobs=jobs,
                   glob=glob)


def require_pieces(words: WordCounts, config: TrainConfig, name: str) -> None:
    """Raise :class:`EmptyCorpusError` when *words* holds nothing to learn from (callers that prefer a
    warning catch it and show its message)."""
    if words.total > 0:
        return
    if words.bytes_read == 0:
        raise EmptyCorpusError(f"{name}: the corpus is empty -- give a file (or text) to learn from")
    if words.counts:
        raise EmptyCorpusError(f"{name}: every count in the word-count table is 0 -- give positive counts")
    raise EmptyCorpusError(
        f"{name}: the pre-tokenizer {config.pretokenizer!r} found no piece in {words.bytes_read} bytes of "
        "text -- the pattern must match the pieces themselves (e.g. \\w+|\\S), or use a named one (gpt2, whitespace)"
    )


def looks_like_word_counts(text: str) -> bool:
    """Heuristic for the GUI: every non-blank line of the first 50 is ``word count``."""
    lines = [ln for ln in text.split("\n")[:50] if ln.strip()]
    if not lines:
        return False
    for ln in lines:
        parts = ln.rsplit(None, 1)
        if len(parts) != 2 or not parts[1].isdigit() or len(parts[0].split()) != 1:
            return False
    return True
