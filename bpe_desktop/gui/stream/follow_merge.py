"""Play follows the merge: when the timeline moves one merge forward and that merge has occurrences in the
corpus but none among the rows on screen, the token view scrolls to the next row (after the screen,
wrapping round) that holds the new token, so playing through a big corpus shows each merge happen.

:class:`MergeFollower` is switched by its checkable :attr:`action` ("Follow merges", on by default).
Rows are pre-filtered by the token's text before being encoded, and at most :data:`ROW_LIMIT` rows are
encoded per step, so a merge whose token is rare costs a bounded amount of work.  It leaves out jumps of
more than one step (scrubbing) and the newest merge while training streams (the view would never rest).
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui

from ...core.errors import BpeError
from ..session import Session
from ..training.protocol import TrainingState
from .canvas import TokenCanvas

ROW_LIMIT = 1_000  # rows encoded per step, at most, looking for the next occurrence (bounds the work)


class MergeFollower(QtCore.QObject):
    """Scrolls *canvas* to the newest merge's next occurrence (see the module docstring)."""

    followed = QtCore.Signal(int)  # the row scrolled to

    def __init__(self, session: Session, canvas: TokenCanvas, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.canvas = canvas
        self.action = QtGui.QAction("Follow merges", self)
        self.action.setCheckable(True)
        self.action.setChecked(True)
        self.action.setToolTip("While playing or stepping forward, scroll the token stream to the next place "
                               "the new merge happens when none is on screen")
        self._prev = session.step
        session.stepChanged.connect(self._step_changed)
        session.modelReset.connect(self._reset)

    @property
    def enabled(self) -> bool:
        return self.action.isChecked()

    def _reset(self) -> None:
        self._prev = self.session.step

    def _step_changed(self, k: int) -> None:
        prev, self._prev = self._prev, k
        s = self.session
        if (k != prev + 1 or not self.enabled or s.state is TrainingState.TRAINING
                or not self.canvas.isVisible() or not 0 < k <= len(s.records)):
            return
        self.follow(k)

    def on_screen(self, token_id: int) -> bool:
        return any(token_id in row for row in self.canvas.screen_rows.ids())

    def follow(self, k: int) -> int | None:
        """Scroll to the next row holding merge *k*'s token when none is on screen; the row, or None."""
        s = self.session
        record = s.records[k - 1]
        if record.count <= 0 and record.merged <= 0:
            return None  # no occurrence in the corpus (or a file without counts): nothing to look for
        tid = s.model.merge_token_ids[k - 1]
        if self.on_screen(tid):
            return None
        canvas = self.canvas
        n = canvas.n_rows
        if n == 0:
            return None
        raw = s.tokenizer.token_bytes(tid).decode("utf-8", "ignore").strip()
        first = canvas.first_row()
        shown = max(1, len(canvas.screen_rows.ids()))
        encoded = 0
        for off in range(shown, n + shown):
            row = (first + off) % n
            if raw and raw not in canvas.row_text(row):
                continue
            encoded += 1
            if encoded > ROW_LIMIT:
                return None
            try:
                ids = canvas.row_ids(row, k)
            except BpeError:  # a runaway custom pattern: the view already says so; nothing to follow
                return None
            if tid in ids:
                canvas.scroll_to_row(row)
                self.followed.emit(row)
                return row
        return None
