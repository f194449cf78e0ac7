"""The start screen: on a start without a corpus named, a card over the token stream offers the three ways
in -- the seeds' worked example (already loaded: one click, or F5, trains it), a bundled sample (robot logs,
English prose, Python source; each trains with the preset made for it), or the user's own file -- and the
tour.  It disappears for good once a corpus is chosen: training starts, a file or sample is opened, the
corpus is edited, or its close button is pressed.

It leaves out loading and training (the main window's ``load_sample``, ``open_corpus``, ``train``).
"""

from __future__ import annotations

from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from ..presets import CODE_SAMPLE, PRESETS, PROSE_SAMPLE, ROBOT_SAMPLE
from ..training.protocol import TrainingState

#: the samples offered, with the label of their button and the preset they train with
SAMPLE_CHOICES: tuple[tuple[str, str, str], ...] = (
    ("Robot logs", ROBOT_SAMPLE, "Robot logs"),
    ("English prose", PROSE_SAMPLE, "GPT-2 style"),
    ("Python source", CODE_SAMPLE, "GPT-2 style"),
)


class StartScreen(QtWidgets.QFrame):
    """The card (see the module docstring).  ``chosen`` is emitted once, when it goes away."""

    chosen = QtCore.Signal()

    def __init__(self, window: Any, host: QtWidgets.QWidget) -> None:
        super().__init__(host)
        self.setObjectName("startScreen")
        self.main = window
        self.host = host
        self.setAutoFillBackground(True)
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        pal = self.palette()
        base = pal.color(QtGui.QPalette.ColorRole.Base)
        pal.setColor(QtGui.QPalette.ColorRole.Window, base)
        self.setPalette(pal)
        title = QtWidgets.QLabel("<h3>Watch BPE learn a tokenizer</h3>", self)
        title.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.train_btn = QtWidgets.QPushButton("Train the seed example (F5)", self)
        self.train_btn.setObjectName("startTrain")
        self.train_btn.setDefault(True)
        self.train_btn.setStyleSheet("QPushButton { background: palette(highlight); color: palette(highlighted-text);"
                                     " font-weight: 600; padding: 5px 14px; border-radius: 4px; }")
        seed = QtWidgets.QLabel("The seeds' worked example is loaded: <b>low 5, lower 2, newest 6, widest 3</b>, "
                                "seven merges. One click trains it.", self)
        samples = QtWidgets.QLabel("Or a bundled sample, trained with the settings made for it:", self)
        self.sample_btns: dict[str, QtWidgets.QPushButton] = {}
        row = QtWidgets.QHBoxLayout()
        for label, sample, _preset in SAMPLE_CHOICES:
            b = QtWidgets.QPushButton(label, self)
            b.setToolTip(sample)
            b.clicked.connect(lambda _=False, s=sample: self.choose_sample(s))
            self.sample_btns[label] = b
            row.addWidget(b)
        row.addStretch(1)
        own = QtWidgets.QLabel("Or your own text:", self)
        self.open_btn = QtWidgets.QPushButton("Open a file…", self)
        self.open_btn.clicked.connect(self.choose_file)
        own_row = QtWidgets.QHBoxLayout()
        own_row.addWidget(self.open_btn)
        hint = QtWidgets.QLabel("(or type or drop it into the Corpus pane)", self)
        hint.setProperty("faint", True)  # the theme's caption colour (style.qss)
        own_row.addWidget(hint)
        own_row.addStretch(1)
        self.tour_btn = QtWidgets.QPushButton("Take the tour (F1)", self)
        self.tour_btn.setFlat(True)
        self.tour_btn.clicked.connect(self.choose_tour)
        self.close_btn = QtWidgets.QToolButton(self)
        self.close_btn.setText("×")
        self.close_btn.setToolTip("Close the start screen (the seed example stays loaded)")
        self.close_btn.setAutoRaise(True)
        self.close_btn.clicked.connect(self.dismiss)
        for lab in (seed, samples, own):
            lab.setWordWrap(True)
        card = QtWidgets.QVBoxLayout()
        head = QtWidgets.QHBoxLayout()
        head.addWidget(title, 1)
        head.addWidget(self.tour_btn)
        head.addWidget(self.close_btn)
        card.addLayout(head)
        card.addWidget(seed)
        card.addWidget(self.train_btn, 0, QtCore.Qt.AlignmentFlag.AlignLeft)
        card.addSpacing(4)
        card.addWidget(samples)
        card.addLayout(row)
        card.addSpacing(4)
        card.addWidget(own)
        card.addLayout(own_row)
        outer = QtWidgets.QVBoxLayout(self)
        outer.setContentsMargins(24, 8, 24, 10)
        outer.addLayout(card)
        self.train_btn.clicked.connect(self.choose_seed)
        host.installEventFilter(self)
        window.session.trainingStateChanged.connect(self._state)
        window.session.modelReset.connect(self._model)
        window.corpus.edited.connect(self.dismiss)
        self._place()
        self.show()
        self.raise_()

    @property
    def active(self) -> bool:
        return not self.isHidden() and self.parent() is not None

    # -- the ways in --------------------------------------------------------------------------------
    def choose_seed(self) -> None:
        self.dismiss()
        self.main.train()

    def choose_sample(self, sample: str) -> None:
        preset = next(p for _l, s, p in SAMPLE_CHOICES if s == sample)
        self.dismiss()
        self.main.load_sample(sample)
        self.main.settings.set_config(PRESETS[preset])
        self.main.train()

    def choose_file(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(self.main, "Open corpus", "",
                                                        "Text files (*.txt *.log *.md *.csv);;All files (*)")
        if path:
            self.dismiss()
            self.main.open_corpus(path)

    def choose_tour(self) -> None:
        self.dismiss()
        self.main.help.show_tour()

    def dismiss(self, *_: object) -> None:
        if self.isHidden():
            return
        self.hide()
        self.host.removeEventFilter(self)
        self.chosen.emit()

    # -- staying in place ---------------------------------------------------------------------------
    def _state(self, state: TrainingState) -> None:
        if state is not TrainingState.IDLE:
            self.dismiss()

    def _model(self) -> None:
        if self.main.session.records:
            self.dismiss()  # a tokenizer was opened

    def _place(self) -> None:
        # over the lower part of the token view's rows: the first rows (step 0, base symbols) stay visible
        area = getattr(self.host, "splitter", None)
        r = area.geometry() if area is not None else self.host.rect()
        h = min(r.height(), self.sizeHint().height())
        self.setGeometry(QtCore.QRect(r.left(), r.bottom() - h + 1, r.width(), h))

    def eventFilter(self, obj: QtCore.QObject, e: QtCore.QEvent) -> bool:
        if obj is self.host and e.type() in (QtCore.QEvent.Type.Resize, QtCore.QEvent.Type.LayoutRequest):
            self._place()
        return False

    def keyPressEvent(self, e: QtGui.QKeyEvent) -> None:
        if e.key() == QtCore.Qt.Key.Key_Escape:
            self.dismiss()
        else:
            super().keyPressEvent(e)
