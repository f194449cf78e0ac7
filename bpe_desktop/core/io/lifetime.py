"""How the program's processes end: SIGTERM is handled like SIGINT, and helper processes die with their
parent.

``docker stop``, systemd and ``kill`` send SIGTERM, whose default action ends the process at once: no
``finally`` runs, so helper processes (the counting workers) were left running, holding the parent's
stdout and stderr open (anything capturing the output then waited forever).  :func:`sigterm_as_interrupt`
turns SIGTERM into :class:`Terminated` (a ``KeyboardInterrupt``), so the same clean-up paths that Ctrl-C
takes run.  A parent killed outright (SIGKILL, a crash) runs nothing: :func:`die_with_parent`, called
first thing in a child, asks Linux to send the child SIGTERM when its parent dies (``PR_SET_PDEATHSIG``),
and elsewhere starts a watchdog thread that ends the child when its parent is gone.

This module starts no process and knows nothing of counting.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator

_PR_SET_PDEATHSIG = 1


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: unwind as for Ctrl-C (``finally`` blocks stop helper processes), then exit 143."""

    exit_code = 128 + signal.SIGTERM


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated()


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` in the main thread (elsewhere: no change)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGTERM"):
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def die_with_parent(parent_pid: int) -> None:
    """In a child process: end (SIGTERM, default action) when the process *parent_pid* is gone.

    Also resets SIGTERM to its default in the child (a forked child inherits the parent's handler)."""
    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform.startswith("linux") and _set_pdeathsig():
        if os.getppid() != parent_pid:  # the parent died before the request was made
            os.kill(os.getpid(), signal.SIGTERM)
        return
    threading.Thread(target=_watch, args=(parent_pid,), daemon=True, name="bpe-desktop-parent-watch").start()


def _set_pdeathsig() -> bool:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent_pid: int) -> None:
    import time

    while os.getppid() == parent_pid:
        time.sleep(0.5)
    os._exit(128 + 15)
