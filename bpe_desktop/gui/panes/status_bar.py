"""The status bar: training state, step, vocabulary size, total tokens, compression, merges/s, progress + ETA.

A temporary message (``showMessage``) too wide for the room beside the permanent widgets is drawn elided
with "…", the whole of it in the tooltip.  It only observes the session (its ``progress`` fields are filled
by the controller) and leaves all other
state to it, except the start time of the current stage, used for the ETA.
"""

from __future__ import annotations

import time

from PySide6 import QtCore, QtGui, QtWidgets

from ..session import Session
from ..training.protocol import Stage, TrainingState
from ..widgets import theme
from ..widgets.elided_label import ElidedLabel
from ..wording import rate_text

STATE_TEXT = {
    TrainingState.IDLE: "Ready", TrainingState.COUNTING: "Counting…", TrainingState.TRAINING: "Training…",
    TrainingState.PAUSED: "Paused", TrainingState.FINISHED: "Finished", TrainingState.ERROR: "Error",
}


def eta_text(seconds: float) -> str:
    """'ETA 42 s', 'ETA 3 min 5 s'."""
    if seconds < 60:
        return f"ETA {max(0, round(seconds))} s"
    m, s = divmod(round(seconds), 60)
    return f"ETA {m} min {s} s"


class ProgressStrip(QtWidgets.QWidget):
    """A progress bar that only schedules repaints.

    ``QProgressBar.setValue`` repaints synchronously on every update; this strip calls ``update()`` and paints
    with the next frame.  ``fraction`` None = busy.
    """

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.fraction: float | None = None
        self.text = ""
        self.setFixedSize(260, 16)

    def set_progress(self, fraction: float | None, text: str) -> None:
        if (fraction, text) != (self.fraction, self.text):
            self.fraction, self.text = fraction, text
            self.update()

    def paintEvent(self, _e: QtGui.QPaintEvent) -> None:
        p = QtGui.QPainter(self)
        r = self.rect().adjusted(0, 0, -1, -1)
        t = theme.current()
        p.setPen(QtGui.QColor(t.progress_border))
        p.setBrush(QtGui.QColor(t.progress_bg))
        p.drawRoundedRect(r, 3, 3)
        done = r.width() if self.fraction is None else int(r.width() * max(0.0, min(1.0, self.fraction)))
        if done > 0:
            p.setPen(QtCore.Qt.PenStyle.NoPen)
            p.setBrush(QtGui.QColor(t.progress_busy if self.fraction is None else t.progress_fill))
            p.drawRoundedRect(QtCore.QRectF(r.x() + 1, r.y() + 1, max(0, done - 1), r.height() - 1), 2, 2)
        p.setPen(QtGui.QColor(t.text))
        p.drawText(self.rect(), QtCore.Qt.AlignmentFlag.AlignCenter, self.text)
        p.end()


class StatusBar(QtWidgets.QStatusBar):
    def __init__(self, session: Session, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.state_label = ElidedLabel("", self)  # long errors are elided (full text in the tooltip)
        self.state_label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored,
                                       QtWidgets.QSizePolicy.Policy.Preferred)  # long errors must not widen
        self.step_label = QtWidgets.QLabel(self)
        self.vocab_label = QtWidgets.QLabel(self)
        self.tokens_label = QtWidgets.QLabel(self)
        self.ratio_label = QtWidgets.QLabel(self)
        self.rate_label = QtWidgets.QLabel(self)
        self.progress = ProgressStrip(self)
        policy = self.progress.sizePolicy()
        policy.setRetainSizeWhenHidden(True)  # showing it must not relayout the window
        self.progress.setSizePolicy(policy)
        self.progress.setVisible(False)
        self.addWidget(self.state_label, 1)
        # fixed sizes: a label whose text changes would otherwise relayout the whole window on every update
        # (the status bar's, then the main window's layout)
        fm = self.fontMetrics()
        for w, template in ((self.step_label, "step 000,000/000,000"), (self.vocab_label, "vocab 0,000,000"),
                            (self.tokens_label, "tokens 000,000,000"), (self.ratio_label, "compression 00.00×"),
                            (self.rate_label, "000,000 merges/s")):
            w.setFixedSize(fm.horizontalAdvance(template) + 14, w.sizeHint().height())  # width AND height:
            # Qt skips the layout only for a widget whose size is fixed in both directions
            w.setAlignment(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
            self.addPermanentWidget(w)
        self.addPermanentWidget(self.progress)
        self._stage = ("", 0.0, 0)  # stage, start time, done at start
        self.messageChanged.connect(lambda m: self.setToolTip(m))  # the whole message, however it is elided
        session.stepChanged.connect(self.refresh)
        session.modelReset.connect(self.refresh)
        session.countChanged.connect(self.refresh)
        session.trainingStateChanged.connect(self.refresh)
        session.progressChanged.connect(self._progress)
        self.refresh()

    # -- the temporary message, elided ----------------------------------------------------------------
    def _message_rect(self) -> QtCore.QRect:
        """Where Qt draws a message: from the left edge to the first permanent widget shown beside it."""
        lefts = [c.geometry().left() for c in self.findChildren(
            QtWidgets.QWidget, options=QtCore.Qt.FindChildOption.FindDirectChildrenOnly)
            if c.isVisible() and not isinstance(c, QtWidgets.QSizeGrip)]
        right = (min(lefts) if lefts else self.width()) - 8
        return QtCore.QRect(4, 0, max(0, right - 4), self.height())

    def shown_message(self) -> str:
        """The message as painted: elided with "…" when it is wider than its room (whole in the tooltip)."""
        return self.fontMetrics().elidedText(self.currentMessage(), QtCore.Qt.TextElideMode.ElideRight,
                                             self._message_rect().width())

    def paintEvent(self, e: QtGui.QPaintEvent) -> None:
        """QStatusBar's painting (panel, frames of the widgets shown) with the message elided, not cut."""
        if not self.currentMessage():
            super().paintEvent(e)
            return
        p = QtGui.QPainter(self)
        opt = QtWidgets.QStyleOption()
        opt.initFrom(self)
        style = self.style()
        style.drawPrimitive(QtWidgets.QStyle.PrimitiveElement.PE_PanelStatusBar, opt, p, self)
        for c in self.findChildren(QtWidgets.QWidget, options=QtCore.Qt.FindChildOption.FindDirectChildrenOnly):
            if c.isVisible() and not isinstance(c, QtWidgets.QSizeGrip):
                item = QtWidgets.QStyleOption()
                item.rect = c.geometry().adjusted(-2, -1, 2, 1)
                item.palette = self.palette()
                style.drawPrimitive(QtWidgets.QStyle.PrimitiveElement.PE_FrameStatusBarItem, item, p, c)
        p.setPen(self.palette().windowText().color())
        p.drawText(self._message_rect(), QtCore.Qt.AlignmentFlag.AlignLeading | QtCore.Qt.AlignmentFlag.AlignVCenter
                   | QtCore.Qt.TextFlag.TextSingleLine, self.shown_message())
        p.end()

    def refresh(self, *_: object) -> None:
        s = self.session
        k = s.step
        state = STATE_TEXT[s.state]
        if s.state is TrainingState.FINISHED and s.stop_text:
            state = f"Finished: {s.stop_text}"
        elif s.state is TrainingState.ERROR:
            first = s.error.splitlines()[0] if s.error else "training failed"
            state = "Error: " + first.split(". ")[0].split(" -- ")[0].rstrip(".")
        self.state_label.setText(state)
        self.state_label.setToolTip(s.error if s.state is TrainingState.ERROR else state)
        self.step_label.setText(f"step {s.shown_step(k):,}/{s.shown_step(s.n_steps):,}")
        trained = bool(s.initial_symbols or s.records)
        self.vocab_label.setText(f"vocab {s.model.vocab_size_at(k):,}" if trained else "vocab –")
        tokens = s.work.symbols_at(k)
        self.tokens_label.setText(f"tokens {tokens:,}" if s.initial_symbols else "tokens –")
        ratio = s.initial_symbols / tokens if tokens else 0.0
        self.ratio_label.setText(f"compression {ratio:.2f}×" if ratio else "compression –")
        self.ratio_label.setToolTip("symbols at step 0 / tokens at this step")
        self.rate_label.setText(rate_text(s.merges_per_s) if s.state is TrainingState.TRAINING else "")
        if not s.state.active:
            self.progress.setVisible(False)

    def _progress(self, stage: str, done: int, total: int) -> None:
        if not self.session.state.active or stage == Stage.DONE:
            self.progress.setVisible(False)
            self._stage = ("", 0.0, 0)  # a continued run ("Train further") times its ETA afresh
            return
        now = time.monotonic()
        if stage != self._stage[0]:
            self._stage = (stage, now, done)
        self.progress.setVisible(True)
        if total <= 0:
            self.progress.set_progress(None, stage)  # unknown total: busy
            self.rate_label.setText(self._rate() if stage == Stage.MERGING else "")
            return
        _, t0, d0 = self._stage
        eta = ""
        if done > d0 and now - t0 > 0.5:
            eta = " · " + eta_text((total - done) * (now - t0) / (done - d0))
        self.progress.set_progress(min(done, total) / total, f"{stage} {100 * done / total:.0f}%{eta}")
        if stage == Stage.MERGING:
            self.rate_label.setText(self._rate())

    def _rate(self) -> str:
        s = self.session
        return rate_text(s.merges_per_s) if s.state is TrainingState.TRAINING else ""
