"""The piece counter and its table: pre-tokenized pieces of text counted into a :class:`WordCounts`
(distinct piece -> count, first-seen order), and the seeds' word-count tables parsed into one.

A text is split on special tokens and pre-tokenized line by line (a line keeps its ``\\n``, as HF
tokenizers does when it trains on files).  Word-count tables are one ``word count`` or ``word<TAB>count``
per line.  Text must be UTF-8 in ``chars`` mode (an ``errors=`` policy can relax that); ``bytes`` mode takes
any bytes, carried through ``str`` with ``surrogateescape`` so that they come back unchanged.

This module reads no file and knows nothing of merges: :mod:`.sources` feeds it chunks of files, and it
stops at the table the trainer starts from.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import regex

from ..choices import Mode
from ..config import TrainConfig
from ..errors import CorpusError
from ..text.lines import split_lines
from ..text.pretokenize import Pretokenizer
from ..text.regex_budget import RegexBudget
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


def decode_chunk(data: bytes, path: str, offset: int, mode: Mode, errors: str) -> str:
    """A chunk of *path* read at byte *offset* as text: bytes mode takes any bytes (surrogateescape); chars
    mode applies *errors*, and ``strict`` names the file, the byte and the fixes."""
    if mode == Mode.BYTES:
        return data.decode("utf-8", "surrogateescape")
    try:
        return data.decode("utf-8", errors)
    except UnicodeDecodeError as e:
        raise CorpusError(
            f"{path}: not valid UTF-8 at byte offset {offset + e.start} ({e.reason}) -- convert the file "
            "to UTF-8, pass --encoding-errors replace (or ignore), or train in bytes mode, which takes "
            "any bytes"
        ) from e



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
