"""Reading a corpus source into counts: files, folders, compressed files, stdin or an in-memory text,
streamed in chunks of whole lines through the piece counter (:mod:`.pieces`), in one process or several
(:mod:`.parallel_count`), or read as word-count tables (:mod:`.count_table`).

Only one chunk of text and the distinct pieces are ever held, never one Python object per running token.
Progress is reported as ``progress(stage, done, total)`` with ``done``/``total`` in bytes, and ``cancel()``
is polled between chunks (it raises :class:`Cancelled` when true).

This module does not pre-tokenize or count by itself, and knows nothing of merges.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..config import TrainConfig
from ..errors import Cancelled, CorpusError, EmptyCorpusError
from ..text.inputs import Input, check_unchanged, expand, iter_chunks
from ..text.regex_budget import RegexBudget
from .pieces import (
    CHUNK_BYTES,
    ENCODING_ERRORS,
    STREAM_CHUNK_BYTES,
    CancelFn,
    PieceCounter,
    ProgressFn,
    WordCounts,
    count_text,
    decode_chunk,
    parse_word_counts,
)


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
    for pos, data in iter_chunks(item, chunk_bytes=STREAM_CHUNK_BYTES):
        if cancel is not None and cancel():
            raise Cancelled()
        pc.add_text(decode_chunk(data, item.name, offset, config.mode, errors))
        offset += len(data)
        progress(base + (pos if item.size else offset))
    check_unchanged(item, offset)
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
            pc.add_table(table)
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


