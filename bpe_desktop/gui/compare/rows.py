"""One row of the compare pane: a tokenizer's name, its figures on the text, and its token strip.

:class:`TokenizerRow` shows ``name | tokens | chars/token | bytes/token`` in aligned columns above a
:class:`~.compare_strip.TokenStrip`; in a narrow dock the columns shrink alike and say ``c/tok``, ``B/tok``
so a row never gets wider than the pane (the strip would be cut on the right).  A reference row owns a
check box (:attr:`TokenizerRow.check`; the pane puts it in its reference bar at the top -- unticked: nothing
is loaded or encoded, the row is hidden) and an added reference has a remove button.  A strip longer than a
few lines is collapsed with a "show all" button under it.
:class:`Reference` is what the pane knows about a reference tokenizer: its spec for
:func:`bpe_desktop.core.formats.load_tokenizer`, the tokenizer once loaded, and the last result per text.

It does not load files or tokenize (the pane does, through :mod:`.sources`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6 import QtCore, QtGui, QtWidgets

from ...core.tokenizers.any_tokenizer import AnyTokenizer
from ..widgets.lru import LRU
from .sources import Tokenized
from .strip import TokenStrip

FIG_W = 92  # the figures line up across rows
FIG_MIN = 48  # ... and shrink alike down to this in a narrow dock (short texts then)
CACHE_SIZE = 32


@dataclass
class Reference:
    """A reference tokenizer: loaded lazily from *spec* the first time its row is ticked."""

    name: str
    spec: str
    tokenizer: AnyTokenizer | None = None
    enabled: bool = False
    removable: bool = True
    cache: LRU[str, Tokenized] = field(default_factory=lambda: LRU(CACHE_SIZE))
    pretokenizer: str | None = None  # for a bare .tiktoken file (o200k_base): its pattern
    specials: tuple[str, ...] = ()


class Figure(QtWidgets.QLabel):
    """A figure column: the same size hints in every row (so columns line up) and a short text when narrow."""

    def __init__(self) -> None:
        super().__init__("")
        self.setObjectName("compareFigure")
        self.setAlignment(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
        self.setMaximumWidth(FIG_W)
        self._full = self._short = ""

    def set_texts(self, full: str, short: str | None = None) -> None:
        """Show *full* (rich text allowed) when it fits, else *short*."""
        self._full, self._short = full, full if short is None else short
        self._choose()

    def _choose(self) -> None:
        doc = QtGui.QTextDocument()
        doc.setDocumentMargin(0)
        doc.setDefaultFont(self.font())
        doc.setHtml(self._full)
        fits = doc.idealWidth() <= self.contentsRect().width()
        text = self._full if fits or self._full == self._short else self._short
        if text != self.text():
            self.setText(text)

    def sizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(FIG_W, super().sizeHint().height())

    def minimumSizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(FIG_MIN, super().minimumSizeHint().height())

    def resizeEvent(self, e: QtGui.QResizeEvent) -> None:
        super().resizeEvent(e)
        self._choose()


class TokenizerRow(QtWidgets.QFrame):
    """Header with the figures, then the token strip.  ``toggled(bool)`` / ``removeRequested()`` for references."""

    toggled = QtCore.Signal(bool)
    removeRequested = QtCore.Signal()

    def __init__(self, name: str, *, checkable: bool = False, checked: bool = True, removable: bool = False,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compareRow")
        self.name = name
        self.result: Tokenized | None = None
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        outer = QtWidgets.QVBoxLayout(self)
        outer.setContentsMargins(8, 6, 8, 6)
        outer.setSpacing(4)
        head = QtWidgets.QHBoxLayout()
        head.setSpacing(10)
        self.check: QtWidgets.QCheckBox | None = None
        if checkable:  # the pane shows the box in its reference bar, above the strips
            self.check = QtWidgets.QCheckBox(name)
            self.check.setChecked(checked)
            self.check.toggled.connect(self.toggled)
            self.check.setToolTip(f"Compare with {name}")
        title = QtWidgets.QLabel(name)
        title.setObjectName("compareName")
        title.setToolTip(name)
        title.setMinimumWidth(60)
        title.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        head.addWidget(title, 1)
        self.count_label = self._figure(head)
        self.cpt_label = self._figure(head)
        self.bpt_label = self._figure(head)
        self.count_label.setToolTip("How many tokens this tokenizer makes of the text")
        self.cpt_label.setToolTip("Characters of the text per token (higher: more compression)")
        self.bpt_label.setToolTip("UTF-8 bytes of the text per token (higher: more compression)")
        if removable:
            rm = QtWidgets.QToolButton()
            rm.setText("✕")
            rm.setAutoRaise(True)
            rm.setToolTip(f"Remove {name}")
            rm.clicked.connect(self.removeRequested)
            head.addWidget(rm)
        outer.addLayout(head)
        self.detail = QtWidgets.QLabel("")
        self.detail.setObjectName("compareDetail")
        self.detail.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        outer.addWidget(self.detail)
        self.strip = TokenStrip()
        outer.addWidget(self.strip)
        self.more = QtWidgets.QToolButton()
        self.more.setObjectName("showAll")
        self.more.setAutoRaise(True)
        self.more.hide()
        self.more.clicked.connect(lambda: self.set_expanded(not self.strip.expanded))
        self.strip.overflowChanged.connect(self._overflow)
        outer.addWidget(self.more, 0, QtCore.Qt.AlignmentFlag.AlignLeft)
        self.clear("")

    def set_expanded(self, on: bool) -> None:
        """Show the whole strip, or only its first lines."""
        self.strip.set_expanded(on)
        self._overflow(self.strip.hidden_lines)

    def _overflow(self, hidden: int) -> None:
        self.more.setVisible(hidden > 0)
        if hidden:
            lines = "line" if hidden == 1 else "lines"
            self.more.setText("show fewer" if self.strip.expanded else f"show all (+{hidden:,} {lines})")

    @staticmethod
    def _figure(layout: QtWidgets.QHBoxLayout) -> Figure:
        lab = Figure()
        layout.addWidget(lab)
        return lab

    @property
    def checked(self) -> bool:
        return self.check is None or self.check.isChecked()

    @property
    def count(self) -> int | None:
        """The token count shown (None when the row shows no result)."""
        return self.result.n_tokens if self.result is not None else None

    def show_result(self, result: Tokenized, detail: str = "", n_base: int = 256) -> None:
        if result is self.result:  # a cached result already shown: only the detail can differ
            self.detail.setText(self._detail(detail, result))
            return
        self.result = result
        self.count_label.set_texts(f"<b>{result.n_tokens:,}</b> tokens", f"<b>{result.n_tokens:,}</b>")
        self.cpt_label.set_texts(f"{result.chars_per_token:.2f} chars/tok", f"{result.chars_per_token:.2f} c/tok")
        self.bpt_label.set_texts(f"{result.bytes_per_token:.2f} bytes/tok", f"{result.bytes_per_token:.2f} B/tok")
        self.detail.setText(self._detail(detail, result))
        self.strip.set_segments(result.segments, n_base)

    @staticmethod
    def _detail(detail: str, result: Tokenized) -> str:
        if result.n_unknown:
            detail = (detail + " · " if detail else "") + f"{result.n_unknown:,} unknown characters (id -1)"
        return detail

    def clear(self, message: str, detail: str = "") -> None:
        """No result: show *message* in place of the strip."""
        self.result = None
        for lab in (self.count_label, self.cpt_label, self.bpt_label):
            lab.set_texts("—")
        self.detail.setText(detail)
        self.strip.set_placeholder(message)
