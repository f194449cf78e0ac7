"""Reading the Compare pane's reference tokenizers: now, on the GUI thread (an added file, which may need a
pattern asked for in a dialog), or on the ``references`` helper thread (the bundled references), polled until done.

:class:`BackgroundLoads` holds the reads under way by reference name, pauses the cyclic collector while any runs
(as behind :mod:`..modal_job`: a full collection over the new objects would hold the lock for long) and calls
back every :data:`LOAD_POLL_MS` so the pane can take in the ones that ended.  It decides nothing about rows,
ticks or the session (the pane's business).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Future

from PySide6 import QtCore, QtWidgets

from ...core import formats
from ...core.errors import BpeError, PretokenizerNeeded
from ...core.tokenizers.any_tokenizer import AnyTokenizer
from .. import file_actions, helper_threads
from ..modal_job import GC_FREEZE_EVERY_S
from ..widgets.gc_policy import GcPolicy
from .rows import Reference
from .sources import keep_unknowns

LOAD_POLL_MS = 30  # how often the pane looks whether a reference read on the helper thread has ended
#: what a reference's read may raise that is the file's fault (a dialog, the row unticked)
LOAD_ERRORS = (BpeError, OSError, ValueError, KeyError, UnicodeError)


def read(spec: str, pretokenizer: str | None) -> AnyTokenizer:
    """A reference's tokenizer (run on the helper thread or, for an added file, on the GUI thread)."""
    return keep_unknowns(formats.load_tokenizer(spec, pretokenizer=pretokenizer))


def failure(ref: Reference, e: Exception) -> tuple[str, str]:
    """The dialog's title and text for a read of *ref* that raised *e* (one of :data:`LOAD_ERRORS`)."""
    if isinstance(e, BpeError):
        return f"Cannot load {ref.name}", str(e)
    return f"Cannot load {ref.name}", f"{ref.spec}: not a tokenizer our formats read ({e})"  # none expected it


def load_now(parent: QtWidgets.QWidget, ref: Reference, error: Callable[[str, str], None]) -> bool:
    """Read *ref* on this thread, asking for a pattern if its file needs one (never guessed); False if it
    failed (*error* shown) or the user cancelled."""
    if ref.tokenizer is not None:
        return True
    QtWidgets.QApplication.setOverrideCursor(QtCore.Qt.CursorShape.WaitCursor)
    try:
        try:
            ref.tokenizer = read(ref.spec, ref.pretokenizer)
        except PretokenizerNeeded as need:  # a rank file that is no known encoding: ask, never guess
            QtWidgets.QApplication.restoreOverrideCursor()
            pre = file_actions.ask_pretokenizer(parent, str(need))
            QtWidgets.QApplication.setOverrideCursor(QtCore.Qt.CursorShape.WaitCursor)
            if pre is None:
                return False
            ref.tokenizer = read(ref.spec, pre)
            ref.pretokenizer = pre
    except LOAD_ERRORS as e:
        error(*failure(ref, e))
        return False
    finally:
        QtWidgets.QApplication.restoreOverrideCursor()
    return True


class BackgroundLoads:
    """Reads on the ``references`` helper thread, by name; *poll* is called every :data:`LOAD_POLL_MS` while
    any is under way."""

    def __init__(self, owner: QtCore.QObject, poll: Callable[[], None]) -> None:
        self._futures: dict[str, Future[AnyTokenizer]] = {}
        self._timer = QtCore.QTimer(owner)
        self._timer.setInterval(LOAD_POLL_MS)
        self._gc = GcPolicy(GC_FREEZE_EVERY_S)  # paused while a read runs, as behind the modal dialog
        self._timer.timeout.connect(self._gc.tick)
        owner.destroyed.connect(self._gc.resume)  # closed while a read runs: the collector back on
        self._timer.timeout.connect(poll)

    def start(self, name: str, spec: str, pretokenizer: str | None) -> bool:
        """Start reading *spec* for *name* unless a read of it is under way; whether one was started."""
        if name in self._futures:
            return False
        self._futures[name] = helper_threads.pool("references").submit(read, spec, pretokenizer)
        if not self._timer.isActive():
            self._gc.pause()
            self._timer.start()
        return True

    def names(self) -> list[str]:
        """The names being read now."""
        return list(self._futures)

    def take_done(self) -> Iterator[tuple[str, Future[AnyTokenizer]]]:
        """The reads that ended, each once (then forgotten); stops polling once none is left."""
        for name, future in list(self._futures.items()):
            if future.done():
                del self._futures[name]
                yield name, future
        if not self._futures:
            self._timer.stop()
            self._gc.resume()
