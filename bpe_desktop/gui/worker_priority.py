"""The priority every worker process of the window runs at: below the window's GUI thread and the X server.

On two cores a worker (training, the statistics, a log inspection, an extension, the inspector's variants) competes
with the window and the X server; at the same priority a busy worker takes the core the GUI thread wants, and a
paint or a timer waits for it.  :func:`lower_priority` is called first thing in each worker (and by the training
launch helper for the child it starts).  It leaves out which processes are workers (their modules).
"""

from __future__ import annotations

import os
import sys
import threading

#: the worker's Unix niceness: it yields the CPU to the window's GUI thread and the X server whenever they
#: want it (on two cores the trainer, the window and the X server compete; the Train press's repaint took
#: longer while a worker at niceness 0 started), and loses nothing when the CPU
#: is otherwise idle
NICENESS = 10


def lower_priority(niceness: int = NICENESS, *, thread: bool = False) -> None:
    """Raise the niceness of this process (*thread*: of the calling thread only, Linux) to *niceness*; never
    lowers it, and does nothing where priorities cannot be set.

    On Linux niceness belongs to a thread and a child inherits its forking thread's, so the GUI's launch
    helper calls this with ``thread=True`` and the worker starts at that niceness, its interpreter start-up
    included; the worker calls it too, first thing (other systems)."""
    if thread and not sys.platform.startswith("linux"):
        return  # elsewhere the call would lower the whole GUI process
    get, set_ = getattr(os, "getpriority", None), getattr(os, "setpriority", None)
    if get is None or set_ is None:
        return
    who = threading.get_native_id() if thread else 0
    try:
        if get(os.PRIO_PROCESS, who) < niceness:
            set_(os.PRIO_PROCESS, who, niceness)
    except OSError:
        pass
