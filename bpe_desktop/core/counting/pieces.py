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
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..choices import Mode
from ..config import TrainConfig
from ..errors import CorpusError
from ..text.in_pieces import split_newlines, utf8_size
from ..text.lines import split_lines
from ..text.pretokenize import Pretokenizer
from ..text.regex_budget import RegexBudget
from .word_first import WordsFirst

ProgressFn = Callable[[str, int, int], None]
CancelFn = Callable[[], bool]

CHUNK_BYTES = 1 << 20
#: the chunk one process counts at a time: its text is held three or four times over while it is counted
#: (the bytes, the str, the marked copy of the fast split, the regex pass's words), so this bounds the peak;
#: a quarter of CHUNK_BYTES costs no time and lowers a small corpus's peak by a few MB (benchmarks/RESULTS.md)
STREAM_CHUNK_BYTES = 1 << 18
ENCODING_ERRORS = ("strict", "replace", "ignore")


@dataclass
class WordCounts:
    """Distinct pieces with their counts, in the order they first appear in the corpus (a dict, or the parts a
    big table crossed a pipe in, read only: :class:`~.parted.PartedCounts`)."""

    counts: Mapping[str, int]
    bytes_read: int = 0

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def __len__(self) -> int:
        return len(self.counts)


#: the largest count a table may hold: the trainer's pair counts and the window's numbers are 64-bit
MAX_COUNT = (1 << 63) - 1
_MAX_DIGITS = len(str(MAX_COUNT))


def parse_count(num: str, where: str, fix: str = "the table is damaged: count the corpus again") -> int:
    """A table's count: ASCII digits, at most :data:`MAX_COUNT` (*where* names the file and line).

    >>> parse_count("12", "t, line 1")
    12
    >>> parse_count("9" * 30, "t, line 1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    bpe_desktop.core.errors.CorpusError: t, line 1: the count 999999999999999999… is larger than ...
    """
    num = num.strip(" ")
    if not (num.isascii() and num.isdigit()):
        raise CorpusError(f"{where}: the count {num[:40]!r} is not a whole number of 0 or more -- {fix}")
    if len(num.lstrip("0")) > _MAX_DIGITS or int(num) > MAX_COUNT:  # int() of 5,000 digits is a ValueError
        raise CorpusError(f"{where}: the count {num[:18]}{'…' if len(num) > 18 else ''} is larger than "
                          f"{MAX_COUNT}, the most a count may be -- {fix}")
    return int(num)


def check_total(counts: dict[str, int], source: str) -> None:
    """Refuse a table whose symbols could add up past :data:`MAX_COUNT` (a bound on every pair's count,
    which the trainer keeps in 64 bits): the sum of count x (4 x length + 1) over its pieces."""
    bound = 0
    for piece, c in counts.items():
        bound += c * (4 * len(piece) + 1)
        if bound > MAX_COUNT:
            raise CorpusError(f"{source}: the counts add up to more than {MAX_COUNT} symbols (at {piece[:20]!r}), "
                              "more than the trainer's 64-bit counters hold -- divide the counts, or count less text")


def parse_word_counts(text: str, source: str = "<text>") -> WordCounts:
    """Parse a word-count table: ``word count`` or ``word<TAB>count`` per line, blank lines ignored.

    A word listed twice has its counts added; a UTF-8 byte-order mark at the start is skipped; counts
    are checked by :func:`parse_count` and :func:`check_total`.

    >>> parse_word_counts("low 5\\nlower\\t2\\n").counts
    {'low': 5, 'lower': 2}
    """
    n_bytes = utf8_size(text)  # (this and the split a piece at a time: see ..text.in_pieces)
    text = text.removeprefix("\ufeff")
    fix = "write the count as digits, or load the file as plain text instead of a table"
    counts: dict[str, int] = {}
    for lineno, raw in enumerate(split_newlines(text), 1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        if "\t" in line:
            word, _, num = line.rpartition("\t")
        else:
            parts = line.rsplit(None, 1)
            if len(parts) != 2:
                raise CorpusError(
                    f"{source}, line {lineno}: expected 'word count' (or word<TAB>count), got {line[:60]!r} "
                    "-- add the count after the word, or load the file as plain text instead of a table"
                )
            word, num = parts
        word = word.strip(" ") if "\t" not in line else word
        if num.strip().startswith("-"):
            raise CorpusError(f"{source}, line {lineno}: negative count in {line[:60]!r} -- each line needs a "
                              "word and a count of 0 or more")
        n = parse_count(num.strip(), f"{source}, line {lineno}", fix)
        if not word:
            raise CorpusError(f"{source}, line {lineno}: empty word in {line[:60]!r} -- each line needs a word "
                              "and a count of 0 or more")
        counts[word] = counts.get(word, 0) + n
    check_total(counts, source)
    return WordCounts(counts, n_bytes)


def add_counts(into: dict[str, int], table: dict[str, int]) -> None:
    """Add *table*'s counts to *into* (``Counter.update`` for plain dicts; new pieces go last, in their order)."""
    get = into.get
    for piece, n in table.items():
        into[piece] = get(piece, 0) + n


class PieceCounter:
    """Accumulates pre-tokenized piece counts line by line; shared by text and file input."""

    def __init__(self, config: TrainConfig, budget: RegexBudget | None = None) -> None:
        self.pretokenizer = Pretokenizer.from_spec(config.pretokenizer)
        self.budget = budget or RegexBudget(what="counting the corpus")  # one for the whole job
        self._words_first = WordsFirst(self.pretokenizer.split) if self.pretokenizer.name == "gpt2" else None
        # gpt2's table is filled by WordsFirst alone, so a plain dict, which result() hands over without a copy
        self._counter: dict[str, int] = {} if self._words_first is not None else Counter()
        specials = sorted(config.specials, key=len, reverse=True)
        self._special_re = None
        if specials:
            import regex  # only with specials: ASCII text under gpt2 is counted without the module (start-up memory)

            self._special_re = regex.compile("|".join(regex.escape(s) for s in specials))

    @property
    def counter(self) -> dict[str, int]:
        """The table so far (piece -> count, first-seen order)."""
        if self._words_first is not None:
            self._words_first.flush(self._counter)
        return self._counter

    @counter.setter
    def counter(self, table: dict[str, int]) -> None:
        if self._words_first is not None:
            self._words_first.flush(self._counter)
        self._counter = table

    def add_table(self, table: dict[str, int]) -> None:
        """Add the counts of *table* (pieces counted elsewhere, a later part of the corpus) to the table."""
        counts = self.counter
        if not counts:
            self._counter = table  # no copy of a table that may hold millions of pieces
            return
        add_counts(counts, table)

    def add_text(self, text: str) -> None:
        """Count the pieces of *text* (whole lines; a trailing partial line is treated as a line)."""
        pre, budget = self.pretokenizer, self.budget
        split: Callable[[str], list[str]] = (
            pre.split if pre.name != "custom" else (lambda t: pre.split(t, budget))  # only custom is timed
        )
        if self.pretokenizer.line_independent:
            counter = self.counter
            assert isinstance(counter, Counter)
            if self._special_re is None:
                counter.update(split(text))
            else:
                counter.update(p for seg in self._special_re.split(text) for p in split(seg))
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
        counter = self.counter
        assert isinstance(counter, Counter)
        counter.update(pieces)

    def result(self, bytes_read: int) -> WordCounts:
        """The table, once all the text is added (the counter's own dict under gpt2: not a copy)."""
        return WordCounts(self.table(), bytes_read)

    def table(self) -> dict[str, int]:
        """:meth:`result`'s counts, as the dict they are."""
        if self._words_first is not None:
            self._words_first.flush(self._counter, last=True)
        counts = self._counter
        return counts if type(counts) is dict else dict(counts)


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
