"""What the token stream shows, row by row: the lines of a text, or the distinct words of a word-count table.

Qt-free.  :class:`RowSource` reads the rows from the session's edited text or its corpus source (the head
of large files only), keeps the rows of an unchanged text across retrains, and says in :attr:`note` what it
left out or why it shows nothing.  A line longer than :data:`MAX_ROW_CHARS` (one 50 MB line) becomes
several display rows (:func:`split_long_line`), cut once when the text is loaded, so encoding and laying
out a row costs the same on any line length; :attr:`RowSource.line_of` maps a row back to its line.
It leaves out tokenizing the rows (the canvas asks the tokenizer per row) and everything about pixels.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from ...core.choices import Mode
from ...core.config import TrainConfig
from ...core.counting.count_table import is_table, read_table
from ...core.counting.pieces import WordCounts, parse_word_counts
from ...core.counting.sources import CorpusSource
from ...core.errors import BpeError
from ...core.text.display_text import read_display_text
from ...core.text.lines import split_lines

#: a display row holds at most this many characters: longer lines are cut (see :func:`split_long_line`)
MAX_ROW_CHARS = 1_000


def split_long_line(line: str, limit: int = MAX_ROW_CHARS) -> list[str]:
    """Cut *line* into pieces of at most *limit* characters whose concatenation is *line*.

    Each cut is made, where the last half of a piece allows, before a single space that has a
    non-space character on both sides: the named pre-tokenizers (whitespace, gpt2, cl100k, o200k) always
    start a new piece there, so no token crosses such a cut and each row tokenizes exactly as inside the
    whole line.  A stretch without such a space is cut at *limit* (a token crossing it is shown cut).

    >>> split_long_line("aaa bbb ccc", 8)
    ['aaa bbb', ' ccc']
    >>> split_long_line("abcdefghij", 4)
    ['abcd', 'efgh', 'ij']
    """
    if len(line) <= limit:
        return [line]
    out: list[str] = []
    start, n = 0, len(line)
    while n - start > limit:
        end = start + limit
        cut = end
        lo = start + limit // 2
        k = line.rfind(" ", lo, end)
        while k > lo:
            if not line[k - 1].isspace() and not line[k + 1].isspace():
                cut = k
                break
            k = line.rfind(" ", lo, k)
        out.append(line[start:cut])
        start = cut
    out.append(line[start:])
    return out


def split_rows(lines: list[str], limit: int = MAX_ROW_CHARS) -> tuple[list[str], list[int] | None]:
    """Display rows of *lines* and, when some line was cut, the line index of each row (else None).

    >>> split_rows(["ab\\n", "cdefg"], 3)
    (['ab\\n', 'cde', 'fg'], [0, 1, 1])
    """
    if all(len(line) <= limit for line in lines):
        return lines, None
    rows: list[str] = []
    line_of: list[int] = []
    for i, line in enumerate(lines):
        parts = split_long_line(line, limit)
        rows.extend(parts)
        line_of.extend([i] * len(parts))
    return rows, line_of


def _text_key(text: str | None, paths: tuple[str, ...], mode: Mode) -> tuple[object, ...] | None:
    """Identifies a text: the text itself (the same object compares in no time), or the files by path, size
    and modification time."""
    if text is not None:
        return ("text", text)
    try:
        return ("files", mode, *((p, os.stat(p).st_size, os.stat(p).st_mtime_ns) for p in paths))
    except OSError:
        return None


class RowSource:
    """The rows of the token stream: :attr:`kind` ``"text"`` (:attr:`lines`) or ``"words"`` (:attr:`words`)."""

    def __init__(self) -> None:
        self.kind = "text"  # "text" | "words"
        self.lines: list[str] = []
        self.words: list[tuple[str, int]] = []
        self.note = ""  # e.g. "showing the first 4 MB of the corpus files"
        self.line_of: list[int] | None = None  # row -> line index when long lines were cut (None: the same)
        # what the lines were split from, so a retrain on the same corpus neither re-reads nor re-splits it
        self._lines_key: tuple[object, ...] | None = None
        self._lines_note = ""

    @property
    def n_rows(self) -> int:
        return len(self.words) if self.kind == "words" else len(self.lines)

    def row_text(self, row: int) -> str:
        return self.words[row][0] if self.kind == "words" else self.lines[row]

    def line_number(self, row: int) -> int:
        """The 1-based line a text row belongs to (rows of a long line share it)."""
        return (row if self.line_of is None else self.line_of[row]) + 1

    def continues_line(self, row: int) -> bool:
        """True when *row* is not the first row of its line (a long line cut into rows)."""
        return self.line_of is not None and row > 0 and self.line_of[row - 1] == self.line_of[row]

    def _table_counts(self, paths: tuple[str, ...]) -> dict[str, int]:
        """The pieces of counts tables, read as training reads them (an error becomes the note)."""
        counts: dict[str, int] = {}
        try:
            for path in paths:
                for piece, n in read_table(path)[1].items():
                    counts[piece] = counts.get(piece, 0) + n
        except BpeError as e:
            self.note = str(e)
        return counts

    def has_rows_for(self, source: CorpusSource, config: TrainConfig, display_text: str | None) -> bool:
        """Whether :meth:`load` of *source* would keep the rows it has (the same files, unchanged, or the same
        text): then loading is instant and needs no worker thread."""
        if display_text is not None or source.word_counts or self.kind != "text":
            return False
        key = _text_key(source.text, source.paths, config.mode)
        return key is not None and key == self._lines_key

    def load(self, source: CorpusSource, config: TrainConfig, *, display_text: str | None = None,
             display_word_counts: bool = False, word_counts: WordCounts | None = None,
             trained: bool = True) -> None:
        """Read the rows: *display_text* (the editor's, not trained on) if given, else *source*.

        *word_counts* are the counted source (used as the table's rows when the source is a table);
        without a *trained* model an edited text shows no rows but a note saying to train.
        """
        self.note = ""
        old_lines, old_words, old_kind, old_line_of = self.lines, self.words, self.kind, self.line_of
        self.line_of = None
        self.lines, self.words = [], []
        edited = display_text is not None
        table = display_word_counts if edited else source.word_counts
        if edited and not trained:
            self.kind = "words" if table else "text"
            self.note = "press Train (F5) to cut this text into tokens"
        elif table:
            self.kind = "words"
            counts: Mapping[str, int] = {}
            if not edited and word_counts is not None:
                counts = word_counts.counts
            else:
                text = display_text if edited else source.text
                if text is None and source.paths and is_table(source.paths[0]):
                    counts = self._table_counts(source.paths)  # a counts table ('bpe-desktop count')
                else:
                    if text is None and source.paths:
                        text, cut = read_display_text(source.paths, config.mode)
                        if cut:
                            self.note = "showing the words in the first 4 MB of the table"
                    try:
                        counts = parse_word_counts(text or "", "<editor>" if edited else source.name).counts
                    except BpeError as e:
                        self.note = str(e)
                        if edited and old_kind == "words":  # mid-edit: keep showing the last table that parsed
                            counts = dict(old_words)
            self.words = list(counts.items())
        else:
            self.kind = "text"
            text = display_text if edited else source.text
            key = _text_key(text, source.paths, config.mode)
            if key is not None and key == self._lines_key:
                self.lines, self.note = old_lines, self._lines_note  # same text as shown: keep its rows
                self.line_of = old_line_of
            else:
                if text is None and source.paths:
                    text, cut = read_display_text(source.paths, config.mode)
                    if cut:
                        self.note = "showing the first 4 MB of the corpus files"
                self.lines, self.line_of = split_rows(split_lines(text or ""))
                if self.line_of is not None:
                    several = f"lines longer than {MAX_ROW_CHARS:,} characters are shown in several rows"
                    self.note = f"{self.note}; {several}" if self.note else several
                self._lines_key, self._lines_note = key, self.note
        if self.kind != "text":
            self._lines_key = None
