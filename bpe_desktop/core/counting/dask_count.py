"""Counting on a Dask cluster: a Dask bag over the input files' blocks, one table per block, added in order.

What runs where: this process (the client) lists the inputs and builds the task graph; each worker reads
its block of lines straight from the file (so the files must be at the same path, or URL, on every
worker: a shared folder, or ``s3://...``/``gs://...`` through fsspec), pre-tokenizes it with the same code
as a local count and sends back only the block's table of distinct pieces; the client adds the tables in
block order, so the result equals a local count, first-seen order included.  bpe-desktop must be
installed on the workers.  Without a scheduler address a :class:`dask.distributed.LocalCluster` of worker
processes is started on this machine and closed afterwards.

``dask[distributed]`` is an optional dependency (``pip install 'bpe-desktop[dask]'``); without it this
module raises a :class:`~bpe_desktop.core.errors.ConfigError` saying so.  Compressed files are read whole
by one task each (they cannot be split); standard input is refused.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..choices import Mode
from ..config import TrainConfig
from ..errors import ConfigError, CorpusError
from ..text.inputs import STDIN, Input, expand
from .parallel_count import check_jobs
from .pieces import PieceCounter, WordCounts
from .sources import CorpusSource

CONNECT_TIMEOUT_S = 10.0  # how long the client waits for a named scheduler to answer (--scheduler-timeout)


def _count_block(lines: Iterable[str], config: TrainConfig) -> list[dict[str, int]]:
    """Runs on a worker: the table of one block (its lines keep their ``\\n``)."""
    pc = PieceCounter(config)
    batch: list[str] = []
    size = 0
    for line in lines:
        batch.append(line)
        size += len(line)
        if size >= 1 << 20:
            pc.add_text("".join(batch))
            batch.clear()
            size = 0
    if batch:
        pc.add_text("".join(batch))
    return [pc.table()]


def _import_dask() -> tuple[Any, Any]:
    try:
        import dask.bag as db
        import distributed
    except ImportError:
        raise ConfigError("--engine dask needs Dask -- pip install 'bpe-desktop[dask]' (or "
                          "'dask[distributed]'), or count with --engine local") from None
    return db, distributed


def _blocksize(value: str | int) -> int:
    """Bytes per task from ``64MiB``, ``1e6``, ``4096``...: a positive size, else a :class:`ConfigError`."""
    from dask.utils import parse_bytes

    try:
        n = int(value) if not isinstance(value, str) else parse_bytes(value) if value.strip() else 0
    except (ValueError, TypeError, OverflowError):
        n = 0
    if n <= 0:
        raise ConfigError(f"--blocksize {value!r} is not a positive size -- give bytes per task, e.g. 64MiB, "
                          "512KB or 1000000")
    return int(n)


@contextlib.contextmanager
def _quiet_dask() -> Iterator[None]:
    """Keep Dask's own log records (connection retries, worker tracebacks) off stderr: a failure is
    reported once, as a one-line error."""
    loggers = [logging.getLogger(n) for n in ("distributed", "dask", "tornado", "asyncio")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)


def count_with_dask(
    source: CorpusSource,
    config: TrainConfig,
    *,
    scheduler: str | None = None,
    workers: int = 2,
    blocksize: str | int = "64MiB",
    progress: Callable[[str, int, int], None] | None = None,
    connect_timeout: float = CONNECT_TIMEOUT_S,
) -> WordCounts:
    """Count *source*'s files as a Dask bag; connect to *scheduler* (waiting at most *connect_timeout*
    seconds for it), or start a LocalCluster of *workers*."""
    if not 0 < connect_timeout <= 3600:  # also refuses nan
        raise ConfigError(f"--scheduler-timeout {connect_timeout!r} is out of range -- give seconds between 0 "
                          "and 3600, e.g. 10")
    db, distributed = _import_dask()
    check_jobs(workers, "--jobs (Dask workers)")
    blocksize = _blocksize(blocksize)
    if source.word_counts:
        raise ConfigError("--engine dask counts text, not tables -- drop --word-counts")
    inputs: list[Input] = []
    for name in source.paths:  # URLs (s3://...) go to the workers as they are; local names are expanded
        inputs.extend([Input(name, 0)] if "://" in name else expand([name], source.glob))
    if any(i.name == STDIN for i in inputs):
        raise ConfigError("--engine dask reads files, not standard input -- save the text to a file the "
                          "workers can read, or use --engine local")
    errors = "surrogateescape" if config.mode == Mode.BYTES else source.errors
    with _quiet_dask():
        return _count(db, distributed, inputs, config, errors, scheduler, workers, blocksize, progress,
                      connect_timeout)


def _count(db: Any, distributed: Any, inputs: list[Input], config: TrainConfig, errors: str, scheduler: str | None,
           workers: int, blocksize: int, progress: Callable[[str, int, int], None] | None,
           connect_timeout: float) -> WordCounts:
    total = sum(i.size for i in inputs)
    if scheduler:
        try:
            client = distributed.Client(scheduler, timeout=connect_timeout)
        except (OSError, TimeoutError, ValueError) as e:
            raise ConfigError(f"cannot reach the Dask scheduler at {scheduler} ({e}) -- check the address "
                              "(tcp://host:8786) and that the scheduler is running") from None
        cluster = None
    else:
        cluster = distributed.LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True,
                                           dashboard_address=":0", silence_logs=logging.CRITICAL)
        client = distributed.Client(cluster)
    try:
        tables: list[dict[str, int]] = []
        # one bag per run of inputs of one kind, in the order given (compressed files are not split)
        groups: list[tuple[list[str], Any]] = []
        for item in inputs:
            bs = None if item.compression else blocksize
            if groups and groups[-1][1] == bs:
                groups[-1][0].append(item.name)
            else:
                groups.append(([item.name], bs))
        done = 0
        for names, bs in groups:
            bag = db.read_text(names, blocksize=bs, encoding="utf-8", errors=errors, linedelimiter="\n")
            futures = client.compute(bag.map_partitions(_count_block, config).to_delayed())
            size = sum(i.size for i in inputs if i.name in names)
            while True:
                finished = sum(f.done() for f in futures)
                if progress:
                    progress("counting", done + size * finished // max(1, len(futures)), total)
                if finished == len(futures):
                    break
                time.sleep(0.1)
            for f in futures:
                if f.status == "error":
                    exc = f.exception()
                    if isinstance(exc, UnicodeDecodeError):
                        raise CorpusError(f"{', '.join(names)}: not valid UTF-8 ({exc.reason}) -- convert the "
                                          "file, pass --encoding-errors replace, or count in bytes mode") from None
                    raise CorpusError(f"a Dask task failed: {type(exc).__name__}: {exc}") from None
                if f.status != "finished":  # cancelled or lost: the scheduler or its workers went away
                    raise ConfigError(f"a Dask task was {f.status} -- the scheduler or its workers went away; "
                                      "check the cluster and count again")
                tables.extend(f.result())
            done += size
    except (OSError, TimeoutError) as e:  # the connection to the scheduler broke
        raise ConfigError(f"lost the Dask scheduler ({type(e).__name__}: {str(e)[:80]}) -- check the cluster and "
                          "count again") from None
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    out: Counter[str] = Counter()
    for t in tables:
        out.update(t)  # in block order: first appearances stay first
    if progress:
        progress("counting", total, total)
    return WordCounts(dict(out), total)

