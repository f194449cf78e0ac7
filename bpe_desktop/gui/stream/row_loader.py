"""Reading the token stream's rows off the GUI thread when they come from a big corpus file.

:meth:`RowLoader.load` fills a :class:`~.rows.RowSource` for the session's text: at once when the text is in
memory (the editor's), the files are small or already read (a retrain of the same files shows the same rows
without a "reading…" blink), else on a worker thread (reading up to 4 MB, splitting lines
and cutting long ones into display rows), handing the canvas an empty "reading…" source meanwhile and
the real one when it is ready.  A newer request makes an older result stale (dropped).  Rows worked out
elsewhere for a source (opening a session splits or parses its typed text on the helper job) are handed over
with :meth:`RowLoader.offer` and used, at once, while they are the session's shown source.  While the stream
cannot be seen (``visible``: its dock behind another tab), a file's rows are not read: the read waits for
:meth:`RowLoader.resume` (the stream shown), so it does not share the interpreter with the GUI thread while the
window sets up the panes it does show (a 20 MB log shown as a run's corpus).  A read starts
:data:`READ_AFTER_MS` after it is due, not inside the turn that asked for it: its decoding and line splitting are
long calls that hold the interpreter, and the Train press (a new mode re-reads the rows) would wait for them
before its own repaint.  It does not paint or tokenize.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable

from PySide6 import QtCore

from ...core.config import TrainConfig
from ...core.counting.sources import CorpusSource
from .. import helper_threads
from ..session import Session
from ..widgets.timers import one_shot
from .rows import RowSource

#: corpus files larger than this (in all) are read for display on a worker thread
THREAD_BYTES = 1 << 20
READING_NOTE = "reading the corpus for display…"
READ_AFTER_MS = 100  # a read due starts this much later, after the turn that asked for it and its repaint


def _size(paths: tuple[str, ...]) -> int:
    total = 0
    for p in paths:
        try:
            total += os.path.getsize(p)
        except OSError:
            pass
    return total


class RowLoader(QtCore.QObject):
    """Calls ``ready(rows, keep_scroll)`` (on the GUI thread) with each loaded :class:`RowSource`."""

    _done = QtCore.Signal(object, bool, int)

    def __init__(self, ready: Callable[[RowSource, bool], None], parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._ready = ready
        self.visible: Callable[[], bool] = lambda: True  # whether the rows can be seen (the view sets it)
        self._held: Callable[[], None] | None = None  # a read waiting for the stream to be shown
        self._generation = 0
        self._pending = False
        self.threaded = 0  # loads done on a worker thread (tests)
        self._offered: tuple[CorpusSource, TrainConfig, RowSource] | None = None
        self._due: Callable[[], None] | None = None  # a read resumed, waiting READ_AFTER_MS to start
        self._start = one_shot(self, READ_AFTER_MS, self._submit)
        self._done.connect(self._deliver)

    def offer(self, source: CorpusSource | None, config: TrainConfig | None = None,
              rows: RowSource | None = None) -> None:
        """Until the next offer, show *rows* (loaded elsewhere from *source* with *config*) whenever the session's
        shown source is that very object with that config and no edited text; ``offer(None)`` withdraws it."""
        self._offered = None if source is None or config is None or rows is None else (source, config, rows)

    @property
    def busy(self) -> bool:
        """True while a worker thread reads rows the canvas does not show yet (or the read waits: hidden)."""
        return self._pending

    def resume(self) -> None:
        """The stream is shown: start the read that waited for it, if any."""
        work, self._held = self._held, None
        if work is not None:
            self.threaded += 1
            self._due = work
            self._start.start()

    def _submit(self) -> None:
        work, self._due = self._due, None
        if work is not None:
            helper_threads.pool("rows").submit(work)

    def load(self, current: RowSource, session: Session, trained: bool, keep_scroll: bool) -> None:
        s = session
        self._generation += 1
        self._held = self._due = None
        args = (s.source, s.config)
        kw = dict(display_text=s.display_text, display_word_counts=s.display_word_counts,
                  word_counts=s.word_counts, trained=trained)
        offered = self._offered
        if (offered is not None and s.display_text is None and offered[0] is s.source
                and offered[1] == s.config):
            self._pending = False
            self._ready(copy.copy(offered[2]), keep_scroll)
            return
        rows = copy.copy(current)  # keeps its record of what it split last (a retrain re-reads nothing)
        if (s.display_text is not None or not s.source.paths or _size(s.source.paths) <= THREAD_BYTES
                or rows.has_rows_for(s.source, s.config, s.display_text)):  # (a retrain: the same rows, at once)
            self._pending = False
            rows.load(*args, **kw)  # type: ignore[arg-type]
            self._ready(rows, keep_scroll)
            return
        waiting = RowSource()
        waiting.note = READING_NOTE
        self._pending = True
        self._ready(waiting, keep_scroll)
        gen = self._generation

        def work() -> None:
            rows.load(*args, **kw)  # type: ignore[arg-type]
            self._done.emit(rows, keep_scroll, gen)

        self._held = work
        if self.visible():
            self.resume()  # (a kept thread: starting one waits for the GIL)

    def _deliver(self, rows: RowSource, keep_scroll: bool, gen: int) -> None:
        if gen == self._generation:
            self._pending = False
            self._ready(rows, keep_scroll)
