"""Word-count tables as files: ``piece<TAB>count`` per line under a header naming how they were counted.

``bpe-desktop count`` writes one, ``train TABLE --word-counts`` (and the window) read it back, so counting
and training can run at different times or on different machines.  The file is UTF-8; a piece is
written as text with four escapes, so any piece survives the round trip, including byte-level pieces
that are not valid UTF-8 (held in ``str`` with ``surrogateescape``)::

    \\\\  backslash     \\t  tab     \\n  newline     \\r  carriage return     \\xHH  a byte that is not UTF-8

The first line is ``#bpe-desktop-counts 1`` and a JSON object with the settings that decide the pieces
(``mode``, ``pretokenizer``, ``specials``); reading a table for training with other settings is an error
that names both.  Files without that header are read as the seeds' ``word count`` tables
(:func:`~bpe_desktop.core.counting.pieces.parse_word_counts`).  A byte-order mark at the start is skipped;
an unknown escape, a backslash ending a piece, ``\\xHH`` in a chars-mode table, an empty piece and a count
past 2**63 - 1 (:func:`~bpe_desktop.core.counting.pieces.parse_count`) are refused with the line.  This
module does not count text.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..choices import Mode
from ..config import MODES, TrainConfig
from ..errors import BpeError, ConfigError, CorpusError
from ..io.atomic import atomic_write
from ..io.reading import read_head
from ..text.inputs import Input, iter_chunks
from .pieces import MAX_COUNT, WordCounts, check_total, decode_chunk, parse_count, parse_word_counts

MAGIC = "#bpe-desktop-counts"
BOM = "\ufeff"  # skipped at the start (an editor may add one)
TABLE_VERSION = 1

_ESCAPES = {ord("\\"): "\\\\", ord("\t"): "\\t", ord("\n"): "\\n", ord("\r"): "\\r"}
_ESCAPES.update({c: f"\\x{c - 0xDC00:02x}" for c in range(0xDC80, 0xDD00)})
_NEEDS = re.compile("[\\\\\t\n\r\udc80-\udcff]")
_UNESCAPE = re.compile(r"\\(?:x([0-9a-f]{2})|(.)|\Z)", re.S)  # \Z: a backslash that ends the piece
_SIMPLE = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}


def escape(piece: str) -> str:
    """A piece as table text.

    >>> escape("a\\tb\\n"), escape(b"\\xff".decode("utf-8", "surrogateescape"))
    ('a\\\\tb\\\\n', '\\\\xff')
    """
    return piece.translate(_ESCAPES) if _NEEDS.search(piece) else piece


def _unescape_one(m: re.Match[str], mode: str) -> str:
    if m.group(1) is not None:
        byte = int(m.group(1), 16)
        if mode != Mode.BYTES or byte < 0x80:  # escape() writes \xHH only for bytes that are not UTF-8
            raise ValueError(f"\\x{m.group(1)}")
        return chr(0xDC00 + byte)
    c = m.group(2)
    if c not in _SIMPLE:
        raise ValueError("\\" + (c or ""))
    return _SIMPLE[c]


def unescape(text: str, mode: str = "bytes") -> str:
    """A piece from table text: the inverse of :func:`escape`; ``ValueError`` names a bad escape (an
    unknown one, a backslash at the end, ``\\xHH`` in a chars-mode table or for an ASCII byte).

    >>> unescape("a\\\\tb"), unescape("\\\\xff") == b"\\xff".decode("utf-8", "surrogateescape")
    ('a\\tb', True)
    """
    return _UNESCAPE.sub(lambda m: _unescape_one(m, mode), text) if "\\" in text else text


@dataclass(frozen=True)
class TableHeader:
    """How a table was counted: the settings that decide its pieces."""

    mode: Mode
    pretokenizer: str
    specials: tuple[str, ...] = ()

    @classmethod
    def of(cls, config: TrainConfig) -> TableHeader:
        return cls(config.mode, config.pretokenizer, tuple(config.specials))

    def line(self) -> str:
        settings = {"mode": self.mode, "pretokenizer": self.pretokenizer, "specials": list(self.specials)}
        return f"{MAGIC} {TABLE_VERSION} {json.dumps(settings, ensure_ascii=False)}\n"

    def describe(self) -> str:
        sp = f" --special {' '.join(self.specials)}" if self.specials else ""
        return f"--mode {self.mode} --pretokenizer {self.pretokenizer!r}{sp}"


def write_table(path: str | os.PathLike[str], counts: Mapping[str, int], config: TrainConfig) -> None:
    """Write a counts table atomically, pieces in first-seen order."""
    try:
        with atomic_write(path) as f:
            f.write(TableHeader.of(config).line())
            batch: list[str] = []
            for piece, n in counts.items():
                batch.append(f"{escape(piece)}\t{n}\n")
                if len(batch) >= 65536:
                    f.write("".join(batch))
                    batch.clear()
            f.write("".join(batch))
    except OSError as e:
        raise CorpusError(f"{os.fspath(path)}: cannot write the table ({e.strerror}) -- choose another path, "
                          "or free some space") from None


def is_table(path: str) -> bool:
    """Whether a plain file starts with the counts-table header."""
    try:
        head = read_head(path, len(BOM.encode()) + len(MAGIC))
        return head.removeprefix(BOM.encode()).startswith(MAGIC.encode())
    except BpeError:  # not a regular readable file: its reader says why
        return False


def parse_header(line: str, source: str) -> TableHeader:
    rest = line[len(MAGIC):].strip()
    version, _, settings = rest.partition(" ")
    if version != str(TABLE_VERSION):
        raise CorpusError(f"{source}: counts table version {version!r} is not supported (this program reads "
                          f"version {TABLE_VERSION}) -- update bpe-desktop or count the corpus again")
    try:
        s = json.loads(settings)
        header = TableHeader(s["mode"], s["pretokenizer"], tuple(s.get("specials", ())))
        ok = (header.mode in MODES and isinstance(header.pretokenizer, str)
              and all(isinstance(x, str) for x in header.specials))
    except (ValueError, KeyError, TypeError):
        ok = False
    if not ok:
        raise CorpusError(f"{source}: line 1: the counts table header is malformed -- count the corpus again "
                          "with 'bpe-desktop count'")
    return header


def check_header(header: TableHeader, config: TrainConfig, source: str) -> None:
    """A table counted with other settings would train something else: refuse, naming both."""
    want = TableHeader.of(config)
    if header != want:
        raise ConfigError(f"{source} was counted with {header.describe()}, but training asks for "
                          f"{want.describe()} -- train with the table's settings, or count again with yours")


def _parse_lines(lines: Iterable[str], source: str, first_lineno: int, into: dict[str, int], mode: str) -> None:
    for lineno, line in enumerate(lines, first_lineno):
        if not line:
            continue
        where = f"{source}, line {lineno}"
        piece, tab, num = line.rpartition("\t")
        if not tab:
            raise CorpusError(f"{where}: expected piece<TAB>count, got {line[:60]!r} -- the table is damaged: "
                              "count the corpus again")
        n = parse_count(num, where)
        try:
            key = unescape(piece, mode)
        except ValueError as e:
            bad = str(e)
            why = ("a \\xHH escape (a byte that is not UTF-8) in a chars-mode table"
                   if bad.startswith("\\x") and mode != Mode.BYTES else "a backslash at the end of the piece"
                   if bad == "\\" else f"the escape {bad} (only \\\\ \\t \\n \\r and \\x80-\\xff exist)")
            raise CorpusError(f"{where}: {why} in {piece[:60]!r} -- the table is damaged: count the corpus "
                              "again") from None
        if not key:
            raise CorpusError(f"{where}: an empty piece -- the table is damaged: count the corpus again")
        total = into.get(key, 0) + n
        if total > MAX_COUNT:
            raise CorpusError(f"{where}: the counts of {key[:20]!r} add up to more than {MAX_COUNT} -- divide "
                              "the counts, or count less text")
        into[key] = total


def read_table(path: str | os.PathLike[str], config: TrainConfig | None = None) -> tuple[TableHeader, dict[str, int]]:
    """Read a counts table written by :func:`write_table` (the window's one call to open one).

    With *config*, its header must match the config's mode, pre-tokenizer and special tokens.
    """
    name = os.fspath(path)
    counts: dict[str, int] = {}
    header = _read_into(Input(name, 0), counts, config)
    if header is None:
        raise CorpusError(f"{name}: not a counts table (no '{MAGIC}' header line) -- write one with "
                          "'bpe-desktop count INPUT --out TABLE'")
    check_total(counts, name)
    return header, counts


def _read_into(item: Input, counts: dict[str, int], config: TrainConfig | None,
               progress: Callable[[int], None] | None = None) -> TableHeader | None:
    """Stream a table into *counts*; ``None`` (and nothing read into *counts*) if it has no header."""
    header: TableHeader | None = None
    lineno = 1
    for pos, data in iter_chunks(item):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise CorpusError(f"{item.name}: not UTF-8 at byte {e.start} of a chunk -- a counts table is "
                              "UTF-8: count the corpus again") from None
        if lineno == 1:
            text = text.removeprefix(BOM)
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()
        if header is None:
            if lineno > 1 or not lines[0].startswith(MAGIC):
                return None
            header = parse_header(lines[0], item.name)
            if config is not None:
                check_header(header, config, item.name)
            lines = lines[1:]
            lineno = 2
        _parse_lines((ln[:-1] if ln.endswith("\r") else ln for ln in lines), item.name, lineno, counts,
                     header.mode)
        lineno += len(lines)
        if progress:
            progress(pos)
    return header


def read_tables(inputs: Sequence[Input], config: TrainConfig, *, errors: str = "strict",
                progress: Callable[[str, int, int], None] | None = None) -> WordCounts:
    """Word counts from tables: counts tables (header checked against *config*) or the seeds' tables."""

    total = sum(i.size for i in inputs)
    merged: dict[str, int] = {}
    base = 0
    for item in inputs:
        if item.is_plain and is_table(item.name):  # only plain files can be peeked at twice
            def report(done: int, start: int = base) -> None:
                if progress:
                    progress("reading", start + done, total)

            _read_into(item, merged, config, report)
        else:
            chunks = [decode_chunk(data, item.name, 0, config.mode, errors) for _, data in iter_chunks(item)]
            for w, c in parse_word_counts("".join(chunks), item.name).counts.items():
                merged[w] = merged.get(w, 0) + c
        base += item.size
    check_total(merged, ", ".join(i.name for i in inputs))
    if progress:
        progress("reading", total, total)
    return WordCounts(merged, total)
