"""The timeline pane: a slider over merges 0…M labelled with the vocabulary size at each step.

Buttons (and keys, installed by the main window through :meth:`TimelinePane.shortcuts`) step back and
forward or jump to either end; play/pause advances the step at a chosen speed (changing it at most once a
frame, :data:`FRAME_MS`: faster speeds move several steps a tick, by the time elapsed); a spin box jumps to any
step.  One training run serves every smaller vocabulary size: moving the slider only sets
``session.step``.  An extension run's timeline starts at the original (``session.origin``): the slider runs over
the new merges only and steps are counted from there ("step 0 = cl100k").

It does not train or draw tokens; it only moves the session's step.
"""

from __future__ import annotations

import time

from PySide6 import QtCore, QtGui, QtWidgets

from ..session import Session
from ..widgets.elided_label import ElidedLabel, Part
from ..wording import plural

SPEEDS = (1, 2, 5, 10, 25, 50, 100, 500)  # steps per second while playing
FRAME_MS = 16  # playback changes the step at most this often (faster speeds skip steps)


def _button(parent: QtWidgets.QWidget, icon: QtWidgets.QStyle.StandardPixmap, tip: str) -> QtWidgets.QToolButton:
    b = QtWidgets.QToolButton(parent)
    b.setIcon(parent.style().standardIcon(icon))
    b.setToolTip(tip)
    b.setAutoRaise(True)
    return b


class TimelinePane(QtWidgets.QWidget):
    """Signals: ``speedChanged(float)`` -- the playback speed (steps per second) the user chose."""

    speedChanged = QtCore.Signal(float)

    def __init__(self, session: Session, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        sp = QtWidgets.QStyle.StandardPixmap
        self.first_btn = _button(self, sp.SP_MediaSkipBackward, "First step (Ctrl+Home)")
        self.back_btn = _button(self, sp.SP_MediaSeekBackward, "Step back (Ctrl+Left)")
        self.play_btn = _button(self, sp.SP_MediaPlay, "Play / pause (Ctrl+Space)")
        self.play_btn.setCheckable(True)
        self.fwd_btn = _button(self, sp.SP_MediaSeekForward, "Step forward (Ctrl+Right)")
        self.last_btn = _button(self, sp.SP_MediaSkipForward, "Last step (Ctrl+End)")

        self.slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal, self)
        self.slider.setRange(0, 0)
        self.slider.setTracking(True)
        self.slider.setPageStep(10)
        self.low_label = QtWidgets.QLabel(self)  # vocabulary size at step 0 ...
        self.high_label = QtWidgets.QLabel(self)  # ... and at the last step, at the slider's ends
        for lab in (self.low_label, self.high_label):
            lab.setProperty("faint", True)  # the theme's caption colour (style.qss)
        self.label = ElidedLabel("", self, hint="step 00,000 / 00,000 · vocabulary 000,000")  # shrinks when short
        self.label.setObjectName("stepLabel")

        self.speed = QtWidgets.QComboBox(self)
        for s in SPEEDS:
            self.speed.addItem(f"{s} step/s" if s == 1 else f"{s} steps/s", s)
        self.speed.setCurrentIndex(SPEEDS.index(5))
        self.speed.setToolTip("Playback speed")
        self.jump = QtWidgets.QSpinBox(self)
        self.jump.setRange(0, 0)
        self.jump.setPrefix("step ")
        self.jump.setToolTip("Jump to a step (Enter)")
        self.jump.setKeyboardTracking(False)

        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 4)
        for w in (self.first_btn, self.back_btn, self.play_btn, self.fwd_btn, self.last_btn):
            lay.addWidget(w)
        lay.addWidget(self.low_label)
        lay.addWidget(self.slider, 1)
        lay.addWidget(self.high_label)
        lay.addWidget(self.label)
        lay.addWidget(self.speed)
        lay.addWidget(self.jump)

        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Fixed)
        # fixed sizes (grown only when a text no longer fits): a widget whose size hint may change relayouts the
        # main window each time its text or range changes, i.e. on every batch of records while training
        self.jump.setRange(0, 999_999)
        self.jump.setFixedSize(self.jump.sizeHint())
        self.jump.setRange(0, 0)
        for lab in (self.low_label, self.high_label):
            _fit(lab, "000,000")
            lab.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self._played_from = (0.0, 0)  # (when, step) playback last started at, for steps due by elapsed time
        self._last_played = 0  # the step the last tick went to
        self._timer = QtCore.QTimer(self)
        self._timer.timeout.connect(self._tick)
        self.first_btn.clicked.connect(lambda: session.set_step(0))
        self.back_btn.clicked.connect(self.step_back)
        self.fwd_btn.clicked.connect(self.step_forward)
        self.last_btn.clicked.connect(lambda: session.set_step(session.n_steps))
        self.play_btn.toggled.connect(self.set_playing)
        self.speed.currentIndexChanged.connect(self._apply_speed)
        self.speed.currentIndexChanged.connect(lambda _i: self.speedChanged.emit(self.steps_per_second()))
        self.slider.valueChanged.connect(session.set_step)
        self.jump.valueChanged.connect(lambda v: session.set_step(session.origin + v))

        session.stepChanged.connect(self._show_step)
        session.countChanged.connect(self._grow)
        session.modelReset.connect(self._grow)
        self._grow()

    # -- actions -----------------------------------------------------------------------------------
    def step_back(self) -> None:
        self.session.set_step(self.session.step - 1)

    def step_forward(self) -> None:
        self.session.set_step(self.session.step + 1)

    def set_playing(self, on: bool) -> None:
        if on and self.session.step >= self.session.n_steps:
            self.session.set_step(0)  # play from the start when at the end
        self.play_btn.setChecked(on)
        self.play_btn.setIcon(self.style().standardIcon(
            QtWidgets.QStyle.StandardPixmap.SP_MediaPause if on else QtWidgets.QStyle.StandardPixmap.SP_MediaPlay))
        if on:
            self._apply_speed()
            self._timer.start()
        else:
            self._timer.stop()
        self.session.set_playback_rate(self.steps_per_second() if on else 0.0)

    def steps_per_second(self) -> float:
        """The playback speed chosen in the speed box."""
        return float(self.speed.currentData())

    @property
    def playing(self) -> bool:
        return self._timer.isActive()

    def shortcuts(self, window: QtWidgets.QWidget) -> list[QtGui.QShortcut]:
        """Window-wide keys for the timeline (so they work whichever pane has the focus)."""
        keys = {
            "Ctrl+Left": self.step_back, "Ctrl+Right": self.step_forward,
            "Ctrl+Home": lambda: self.session.set_step(0),
            "Ctrl+End": lambda: self.session.set_step(self.session.n_steps),
            "Ctrl+Space": lambda: self.set_playing(not self.playing),
        }
        out = []
        for seq, fn in keys.items():
            sc = QtGui.QShortcut(QtGui.QKeySequence(seq), window)
            sc.setContext(QtCore.Qt.ShortcutContext.WindowShortcut)
            sc.activated.connect(fn)
            out.append(sc)
        return out

    # -- session -> widgets -------------------------------------------------------------------------
    def _apply_speed(self) -> None:
        # at most one step change per frame: faster speeds advance several steps a tick (by the time that
        # passed, so the speed is what the box says), slower ones one step per 1/speed seconds
        self._timer.setInterval(max(FRAME_MS, int(1000 / self.steps_per_second())))
        self._played_from = (time.perf_counter(), self.session.step)
        self._last_played = self.session.step
        if self.playing:
            self.session.set_playback_rate(self.steps_per_second())

    def _tick(self) -> None:
        s = self.session
        if s.step >= s.n_steps:
            self.set_playing(False)
            return
        if s.step != self._last_played:  # moved by the user while playing: go on from there
            self._played_from = (time.perf_counter(), s.step)
        t0, k0 = self._played_from
        due = k0 + int((time.perf_counter() - t0) * self.steps_per_second())
        self._last_played = min(s.n_steps, max(s.step + 1, due))
        s.set_step(self._last_played)

    def _grow(self, *_: object) -> None:
        s = self.session
        n, o = s.n_steps, s.origin
        for w, lo, hi, value in ((self.slider, o, n, s.step), (self.jump, 0, n - o, s.shown_step(s.step))):
            w.blockSignals(True)
            w.setRange(lo, hi)
            w.setValue(value)
            w.blockSignals(False)
        trained = bool(s.initial_symbols or s.records)
        _fit(self.low_label, f"{s.model.vocab_size_at(o):,}" if trained else "")
        _fit(self.high_label, f"{s.model.vocab_size_at(n):,}" if trained else "")
        ext = s.work.extension
        self.low_label.setToolTip(f"vocabulary size at step 0 ({ext.label})" if ext else "vocabulary size at step 0")
        self.high_label.setToolTip(f"vocabulary size after all {plural(n - o, 'merge')}"
                                   + (f" added to {ext.label}" if ext else ""))
        self.slider.setTickInterval(max(1, (n - o) // 20))
        ticks = QtWidgets.QSlider.TickPosition.TicksBelow if n > o else QtWidgets.QSlider.TickPosition.NoTicks
        if self.slider.tickPosition() != ticks:  # setting it relayouts, even to the same value
            self.slider.setTickPosition(ticks)
        self._show_step(self.session.step)

    def _show_step(self, k: int) -> None:
        s = self.session
        for w, value in ((self.slider, k), (self.jump, s.shown_step(k))):
            if w.value() != value:
                w.blockSignals(True)
                w.setValue(value)
                w.blockSignals(False)
        trained = bool(s.initial_symbols or s.records)
        vocab = f"{s.model.vocab_size_at(k):,}" if trained else "–"
        ext, shown = s.work.extension, s.shown_step(k)
        named = f" = {ext.label}" if ext is not None and shown == 0 else ""
        self.label.set_parts([Part(f"step {shown:,}{named} / {s.shown_step(s.n_steps):,}"),
                              Part(f" · vocabulary {vocab}", drop=1)])
        self.slider.setToolTip(f"step {shown:,}{named}: vocabulary {vocab}")
        self.back_btn.setEnabled(k > s.origin)
        self.first_btn.setEnabled(k > s.origin)
        self.fwd_btn.setEnabled(k < s.n_steps)
        self.last_btn.setEnabled(k < s.n_steps)


def _fit(label: QtWidgets.QLabel, text: str) -> None:
    """Show *text* in *label*, whose size stays fixed unless the text no longer fits (then it grows once)."""
    if label.text() != text:
        label.setText(text)
    width = label.fontMetrics().horizontalAdvance(text) + 8
    if width > label.maximumWidth() or label.minimumSize() != label.maximumSize():
        label.setFixedSize(max(width, label.minimumWidth()), label.sizeHint().height())
