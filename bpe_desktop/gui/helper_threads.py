"""Helper threads kept for the program's life, started before they are first needed.

``Thread.start()`` waits until the new thread runs, and the new thread first needs the GIL: the first Train
press of a session waited for the launch helper to start (another new thread was reading the corpus for
display), and so did every read of a big corpus file for the token stream.  So each kind
of background job has a named pool whose threads stay, and :func:`warm_up` starts them while the window is
idle after its first paint.  Qt-free; it leaves out what the jobs do (the worker launch and reaping are in
:mod:`.training.process`, reading rows in :mod:`.stream.row_loader`).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

#: the pools and their sizes: launching a worker, reaping old ones, reading a corpus for display, a job the
#: window waits for behind a progress dialog (:mod:`.modal_job`), a reference the compare pane reads, a
#: measure a Compare runs tab computes (rediscovery), what the plots send their statistics process (one
#: thread: the messages keep their order)
POOL_SIZES = {"launch": 1, "reap": 4, "rows": 1, "jobs": 1, "references": 1, "measure": 1, "stats": 1}

_POOLS: dict[str, ThreadPoolExecutor] = {}


def pool(name: str) -> ThreadPoolExecutor:
    """The pool *name* (one of :data:`POOL_SIZES`); its threads are named ``bpe-desktop-<name>_<i>``."""
    got = _POOLS.get(name)
    if got is None:
        got = _POOLS[name] = ThreadPoolExecutor(max_workers=POOL_SIZES[name],
                                                thread_name_prefix=f"bpe-desktop-{name}")
    return got


def warm_up() -> None:
    """Start one thread of each pool now (each pool starts a thread per job until it has its size)."""
    for name in POOL_SIZES:
        pool(name).submit(_nothing)


def _nothing() -> None:
    pass
