"""Counting plain files in several local processes, with the same table as one process gives.

The plain files are cut into ``jobs`` contiguous stretches of about equal size, each starting on a line
boundary (:func:`~bpe_desktop.core.text.inputs.next_line_start`); process *k* counts stretch *k* alone and sends
back its table; the tables are added in stretch order.  Because a line is pre-tokenized the same way
wherever its chunk starts, and adding tables in corpus order keeps each piece's first appearance, the
result is identical to a single-process count, order included (which the ``first-seen`` rule depends on).
Few large stretches keep the merging cheap: each process sends one table, not one per chunk.

Progress (bytes) comes from a shared array the workers update after each chunk; ``cancel()`` is polled
every 50 ms and stops the workers, as does any exception here (Ctrl-C, SIGTERM through
:func:`~bpe_desktop.core.io.lifetime.sigterm_as_interrupt`); a worker whose parent dies ends too.
Worker processes are forked where the platform allows it (no start-up imports).  This module does not
read compressed files or standard input (they are streamed by :mod:`.corpus` in one process) and does not
merge anything beyond tables.
"""

from __future__ import annotations

import os
import queue
from collections.abc import Callable, Sequence
from typing import Any

from ..config import TrainConfig
from ..errors import BpeError, Cancelled, ConfigError, CorpusError
from ..io.lifetime import die_with_parent
from ..text.inputs import Input, check_unchanged, iter_range, next_line_start

Segment = tuple[str, int, int]  # path, start, end

#: below this many bytes per process, forking costs more than it saves: starting a process, sending its table
#: back and adding it cost about what counting 2 MB of text costs (kjv, 4 MB, is faster in one process)
MIN_BYTES_PER_JOB = 8 << 20


def default_jobs() -> int:
    """The number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def max_jobs() -> int:
    """The most processes ``--jobs`` may ask for: four per core, at least 64 (each process holds pipes and
    files open; thousands run out of file descriptors before they count anything)."""
    return max(64, 4 * default_jobs())


def check_jobs(jobs: int, what: str = "--jobs") -> int:
    """*jobs* if it is between 1 and :func:`max_jobs`, else a :class:`ConfigError` saying the range."""
    if jobs < 1:
        raise ConfigError(f"{what} must be 1 or more, not {jobs}")
    if jobs > max_jobs():
        raise ConfigError(f"{what} {jobs} is outside 1..{max_jobs()} -- use about the number of cores "
                          f"({default_jobs()} here)")
    return jobs


def effective_jobs(total_bytes: int, jobs: int) -> int:
    """How many processes are worth starting for *total_bytes* of plain text (at least 1)."""
    return max(1, min(jobs, total_bytes // MIN_BYTES_PER_JOB))


def stretches(inputs: Sequence[Input], jobs: int) -> list[list[Segment]]:
    """Cut plain files into at most *jobs* contiguous stretches of about equal size, on line boundaries.

    >>> import tempfile
    >>> p = tempfile.mktemp(); _ = open(p, "w").write("aa\\nbb\\ncc\\ndd\\n")
    >>> [[seg[1:] for seg in s] for s in stretches([Input(p, 12)], 2)]
    [[(0, 6)], [(6, 12)]]
    >>> [[seg[1:] for seg in s] for s in stretches([Input(p, 12), Input(p, 12)], 2)]
    [[(0, 12)], [(0, 12)]]
    """
    total = sum(i.size for i in inputs)
    per = max(1, -(-total // max(1, jobs)))
    out: list[list[Segment]] = [[]]
    filled = 0
    for item in inputs:
        start = 0
        while start < item.size:
            room = per - filled if len(out) < jobs else item.size
            if item.size - start <= room:
                out[-1].append((item.name, start, item.size))
                filled += item.size - start
                break
            cut = min(next_line_start(item.name, start + room), item.size)
            if cut > start:
                out[-1].append((item.name, start, cut))
            out.append([])
            filled = 0
            start = cut
        if filled >= per and len(out) < jobs:
            out.append([])
            filled = 0
    return [s for s in out if s]


def _count_stretch(
    k: int, segments: list[Segment], config: TrainConfig, errors: str, chunk_bytes: int,
    done: Any, results: Any,
) -> None:
    from .pieces import PieceCounter, decode_chunk  # in the worker: the same code the single process runs

    try:
        pc = PieceCounter(config)
        for name, start, end in segments:
            offset = start
            for data in iter_range(name, start, end, chunk_bytes=chunk_bytes):
                pc.add_text(decode_chunk(data, name, offset, config.mode, errors))
                offset += len(data)
                done[k] += len(data)
        results.put((k, None, pc.counter))
    except BpeError as e:
        results.put((k, e, None))
    except BaseException as e:  # reported to the parent, which re-raises
        results.put((k, RuntimeError(f"counting process {k} failed: {type(e).__name__}: {e}"), None))


def _child(parent: int, *args: Any) -> None:
    die_with_parent(parent)  # a parent killed outright takes its workers with it
    _count_stretch(*args)


def count_parallel(
    inputs: Sequence[Input],
    config: TrainConfig,
    jobs: int,
    *,
    errors: str = "strict",
    chunk_bytes: int,
    progress: Callable[[int], None] | None = None,
    cancel: Callable[[], bool] | None = None,
) -> dict[str, int]:
    """Count plain files in up to *jobs* processes; ``progress(bytes_done)`` is called as they go."""
    import multiprocessing as mp  # here: a plain count does not pay for the import

    jobs = effective_jobs(sum(i.size for i in inputs), jobs)
    parts = stretches(inputs, jobs)
    ctx: Any = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    done = ctx.Array("q", len(parts), lock=False)
    results = ctx.Queue()
    procs = [
        ctx.Process(target=_child, args=(os.getpid(), k, seg, config, errors, chunk_bytes, done, results),
                    daemon=True)
        for k, seg in enumerate(parts)
    ]
    for p in procs:
        p.start()
    tables: dict[int, dict[str, int]] = {}
    try:
        while len(tables) < len(parts):
            if cancel is not None and cancel():
                raise Cancelled()
            try:
                k, err, table = results.get(timeout=0.05)
            except queue.Empty:
                if progress:
                    progress(sum(done))
                dead = [p for p in procs if p.exitcode not in (None, 0)]
                if dead:
                    raise CorpusError(f"a counting process died (exit code {dead[0].exitcode}) -- the machine "
                                      "may be out of memory: try fewer --jobs") from None
                continue
            if err is not None:
                raise err
            tables[k] = table
            if progress:
                progress(sum(done))
    finally:
        for p in procs:
            if p.is_alive():
                p.terminate()
        for p in procs:
            p.join(timeout=5)
        results.close()
    for item in inputs:  # a file truncated or appended to while counted would give a partial table
        check_unchanged(item, item.size)
    from .pieces import add_counts

    out = tables[0]
    for k in range(1, len(parts)):
        add_counts(out, tables.pop(k))  # in corpus order: first appearances stay first
    return out
