"""Keep the last lines of a corpus out of training, to measure the tokenizer on text it never saw.

:func:`count_with_holdout` reads a :class:`~.corpus.CorpusSource` once (files streamed in whole lines,
as :func:`~.corpus.count_files` does) and counts its first lines into the training table and the last
*fraction* of its lines (10 % by default) into a held-out table, with each part's
:class:`~.quality.TextTotals`; :func:`count_with_totals` counts a whole source with its totals (a held-out
*file*), :func:`counting_with_totals` does the same in small units for an event loop.  A word-count table
holds out its last entries the same way.

This module only splits and counts; the curves are :mod:`.quality_curves`'.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NamedTuple

from ..choices import Mode
from ..config import TrainConfig
from ..counting.pieces import PieceCounter, WordCounts, decode_chunk, parse_word_counts
from ..counting.sources import CorpusSource, iter_file_chunks
from ..errors import ConfigError
from ..text.lines import split_lines
from .quality import TextTotals
from .stats import Job

DEFAULT_HOLDOUT = 0.1
#: characters per unit of :func:`counting_with_totals` (whole lines: the counts do not depend on it)
COUNTING_UNIT_CHARS = 1 << 12


class HeldOutSplit(NamedTuple):
    train: WordCounts
    held_out: WordCounts
    train_totals: TextTotals
    held_out_totals: TextTotals
    held_out_lines: int


def held_outsplit_lines(n_lines: int, fraction: float) -> int:
    """How many of *n_lines* lines to keep out: ``round(n * fraction)``, at least one when there are two
    lines or more, never all of them.

    >>> held_outsplit_lines(100, 0.1), held_outsplit_lines(3, 0.1), held_outsplit_lines(1, 0.5)
    (10, 1, 0)
    """
    if not 0 < fraction < 1:
        raise ConfigError(f"the held-out share must be between 0 and 1, not {fraction} -- e.g. 0.1 for 10 %")
    if n_lines < 2:
        return 0
    return min(n_lines - 1, max(1, round(n_lines * fraction)))


def split_text(text: str, fraction: float = DEFAULT_HOLDOUT) -> tuple[str, str]:
    """``(training text, held-out text)``: the last *fraction* of the lines held out (lines keep ``\\n``).

    >>> split_text("a\\nb\\nc\\nd\\n", 0.25)
    ('a\\nb\\nc\\n', 'd\\n')
    """
    lines = split_lines(text)
    n = held_outsplit_lines(len(lines), fraction)
    cut = len(lines) - n
    return "".join(lines[:cut]), "".join(lines[cut:])



def count_with_holdout(
    source: CorpusSource, config: TrainConfig, fraction: float = DEFAULT_HOLDOUT
) -> HeldOutSplit:
    """Count *source* into a training table and a held-out table of its last *fraction* of lines.

    >>> s = count_with_holdout(CorpusSource.from_text("low low\\nlower\\nnewest\\n"), TrainConfig(), 0.34)
    >>> s.train.counts, s.held_out.counts, s.held_out_totals
    ({'low': 2, 'lower': 1}, {'newest': 1}, TextTotals(n_bytes=7, n_words=1))
    """
    if source.word_counts:
        text = source.text if source.text is not None else "".join(_read_all(source, config.mode))
        items = list(parse_word_counts(text, source.name).counts.items())
        n = held_outsplit_lines(len(items), fraction)
        train, held = dict(items[: len(items) - n]), dict(items[len(items) - n :])
        return HeldOutSplit(WordCounts(train), WordCounts(held), TextTotals.of_word_counts(train),
                            TextTotals.of_word_counts(held), n)
    if source.text is not None:
        head, tail = split_text(source.text, fraction)
        parts: Iterable[tuple[str, bool]] = [(head, True), (tail, False)]
        n_held = len(split_lines(tail))
    else:
        total = 0
        for name in source.paths:
            last = b"\n"
            for _off, data in iter_file_chunks(name):
                total += data.count(b"\n")
                last = data[-1:]
            total += last != b"\n"  # a last line without its newline
        n_held = held_outsplit_lines(total, fraction)
        parts = _file_parts(source, config.mode, total - n_held)
    counters = (PieceCounter(config), PieceCounter(config))
    totals = [TextTotals(0, 0), TextTotals(0, 0)]
    for text, is_train in parts:
        j = 0 if is_train else 1
        counters[j].add_text(text)
        totals[j] = totals[j] + TextTotals.of_text(text)
    return HeldOutSplit(counters[0].result(totals[0].n_bytes), counters[1].result(totals[1].n_bytes),
                        totals[0], totals[1], n_held)


def count_with_totals(source: CorpusSource, config: TrainConfig) -> tuple[WordCounts, TextTotals]:
    """Count *source* (files streamed) and measure its :class:`~.quality.TextTotals` on the way.

    >>> count_with_totals(CorpusSource.from_text("low low\\nlower\\n"), TrainConfig())
    (WordCounts(counts={'low': 2, 'lower': 1}, bytes_read=14), TextTotals(n_bytes=14, n_words=3))
    """
    if source.word_counts:
        text = source.text if source.text is not None else "".join(_read_all(source, config.mode))
        table = parse_word_counts(text, source.name)
        return table, TextTotals.of_word_counts(table.counts)
    counter = PieceCounter(config)
    totals = TextTotals(0, 0)
    chunks = [source.text or ""] if source.text is not None else _chunks(source, config.mode)
    for text in chunks:
        counter.add_text(text)
        totals = totals + TextTotals.of_text(text)
    return counter.result(totals.n_bytes), totals


def counting_with_totals(
    source: CorpusSource, config: TrainConfig, chunk_chars: int = COUNTING_UNIT_CHARS
) -> Job[tuple[WordCounts, TextTotals]]:
    """:func:`count_with_totals` in small units: yields after every block of about *chunk_chars* characters
    (whole lines; files are read that many bytes at a time), returns the same table and totals.  The window
    runs these units on its GUI thread between repaints (the plots' quality curves and the Vocabulary pane of
    an opened tokenizer count the corpus so), so a unit must stay well inside a frame: its cost is pre-tokenizing
    its characters (benchmarks/RESULTS.md, "The Log inspector's Extend flow on a 20 MB log").

    >>> from .stats import finish
    >>> finish(counting_with_totals(CorpusSource.from_text("low low\\nlower\\n"), TrainConfig(), 4))
    (WordCounts(counts={'low': 2, 'lower': 1}, bytes_read=14), TextTotals(n_bytes=14, n_words=3))
    """
    if source.word_counts:
        yield
        return count_with_totals(source, config)
    counter = PieceCounter(config)
    totals = TextTotals(0, 0)
    if source.text is not None:
        blocks: Iterable[str] = _line_blocks(source.text, chunk_chars)
    else:
        blocks = (decode_chunk(data, name, off, config.mode, source.errors)
                  for name in source.paths for off, data in iter_file_chunks(name, chunk_bytes=chunk_chars))
    for text in blocks:
        counter.add_text(text)
        totals = totals + TextTotals.of_text(text)
        yield
    return counter.result(totals.n_bytes), totals


def totaling(source: CorpusSource, mode: Mode, chunk_chars: int = 1 << 16) -> Job[TextTotals]:
    """The :class:`~.quality.TextTotals` of a source (a word-count table: its entries), in small units.

    >>> from .stats import finish
    >>> finish(totaling(CorpusSource.from_text("héllo  wörld\\nbye\\n"), "chars", 4))
    TextTotals(n_bytes=19, n_words=3)
    >>> finish(totaling(CorpusSource.from_text("a long line of words cut into slices"), "chars", 4))
    TextTotals(n_bytes=36, n_words=8)
    """
    if source.word_counts:
        yield
        text = source.text if source.text is not None else "".join(_read_all(source, mode))
        return TextTotals.of_word_counts(parse_word_counts(text, source.name).counts)
    totals = TextTotals(0, 0)
    if source.text is not None:
        blocks: Iterable[str] = _line_blocks(source.text, chunk_chars)
    else:
        blocks = (decode_chunk(data, name, off, mode, source.errors)
                  for name in source.paths for off, data in iter_file_chunks(name, chunk_bytes=chunk_chars))
    word_open = False  # the last slice ended inside a word (a long line is cut into slices)
    for block in blocks:
        for i in range(0, len(block), chunk_chars):
            text = block[i : i + chunk_chars]
            t = TextTotals.of_text(text)
            if word_open and not text[0].isspace():
                t = t._replace(n_words=t.n_words - 1)  # the word the cut split was counted already
            word_open = not text[-1].isspace()
            totals = totals + t
            yield
    return totals


def _line_blocks(text: str, size: int) -> Iterator[str]:
    """*text* cut after a newline every *size* characters or so (a longer line stays whole)."""
    i, n = 0, len(text)
    while i < n:
        j = text.find("\n", i + max(1, size) - 1)
        j = n if j < 0 else j + 1
        yield text[i:j]
        i = j


def _chunks(source: CorpusSource, mode: Mode) -> Iterator[str]:
    for name in source.paths:
        for off, data in iter_file_chunks(name):
            yield decode_chunk(data, name, off, mode, source.errors)


def _read_all(source: CorpusSource, mode: Mode) -> list[str]:
    return list(_chunks(source, mode))


def _file_parts(source: CorpusSource, mode: Mode, n_train: int) -> Iterator[tuple[str, bool]]:
    """The files' text in whole-line blocks (streamed), each marked training or held out (lines before
    *n_train* are training)."""
    seen = 0
    for name in source.paths:
        for off, data in iter_file_chunks(name):
            text = decode_chunk(data, name, off, mode, source.errors)
            lines = split_lines(text)
            take = max(0, min(len(lines), n_train - seen))
            if take:
                yield "".join(lines[:take]), True
            if take < len(lines):
                yield "".join(lines[take:]), False
            seen += len(lines)
