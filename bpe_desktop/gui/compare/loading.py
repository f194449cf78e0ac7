"""Reading the Compare pane's reference tokenizers, never on the GUI thread: while the window waits (an added
file, which may need a pattern asked for in a dialog: on the ``jobs`` helper thread behind the modal progress
dialog) or on the ``references`` helper thread, polled until done (a ticked bundled reference, the references
an opened session names).

:class:`BackgroundLoads` holds the reads under way by reference name (:mod:`..polled_jobs`: the collector
paused while any runs) and calls back every :data:`LOAD_POLL_MS` so the pane can take in the ones that
ended.  It decides nothing about rows, ticks or the session (the pane's business).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Future

from PySide6 import QtCore, QtWidgets

from ...core import formats
from ...core.errors import BpeError, PretokenizerNeeded
from ...core.tokenizers.any_tokenizer import AnyTokenizer
from .. import file_actions
from ..modal_job import Cancelled, Progress, run_modal
from ..polled_jobs import POLL_MS, PolledJobs
from .rows import Reference
from .sources import keep_unknowns

LOAD_POLL_MS = POLL_MS  # how often the pane looks whether a reference read on the helper thread has ended
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
    """Read *ref* while the window waits: on the ``jobs`` helper thread behind a modal progress dialog with
    Cancel (:mod:`..modal_job`; an o200k-sized file is a stall the user sees), asking here for a pattern if its file
    needs one (never guessed) and reading again with it; False if it failed (*error* shown) or the user
    cancelled (nothing shown)."""
    if ref.tokenizer is not None:
        return True
    title = f"Loading {ref.name}"

    def job(pre: str | None, spec: str = ref.spec) -> Callable[[Progress], AnyTokenizer]:
        def run(p: Progress) -> AnyTokenizer:
            tokenizer = read(spec, pre)
            p.check()  # cancelled meanwhile (the read itself cannot be stopped): nothing is added
            return tokenizer
        return run

    try:
        try:
            ref.tokenizer = run_modal(parent, title, job(ref.pretokenizer))
        except PretokenizerNeeded as need:  # a rank file that is no known encoding: ask, never guess
            again = file_actions.patternless(parent, ref.spec, need)
            if again is None:
                return False
            spec, pre = again
            ref.tokenizer = run_modal(parent, title, job(pre, spec))
            ref.spec, ref.pretokenizer = spec, pre
    except Cancelled:
        return False
    except LOAD_ERRORS as e:
        error(*failure(ref, e))
        return False
    return True


class BackgroundLoads:
    """Reads on the ``references`` helper thread, by name (:class:`..polled_jobs.PolledJobs`); *poll* is called
    every :data:`LOAD_POLL_MS` while any is under way."""

    def __init__(self, owner: QtCore.QObject, poll: Callable[[], None]) -> None:
        self._jobs: PolledJobs[str, AnyTokenizer] = PolledJobs(owner, poll, "references")

    def start(self, name: str, spec: str, pretokenizer: str | None) -> bool:
        """Start reading *spec* for *name* unless a read of it is under way; whether one was started."""
        return self._jobs.start(name, lambda: read(spec, pretokenizer))

    def names(self) -> list[str]:
        """The names being read now."""
        return self._jobs.keys()

    def take_done(self) -> Iterator[tuple[str, Future[AnyTokenizer]]]:
        """The reads that ended, each once (then forgotten); stops polling once none is left."""
        return self._jobs.take_done()
