"""One row of the compare pane: a tokenizer's name, its figures on the text, and its token strip.

:class:`TokenizerRow` shows ``name | tokens | chars/token | bytes/token`` in aligned columns above a
:class:`~.compare_strip.TokenStrip`.  A reference row's name is a check box (unticked: nothing is loaded
or encoded) and an added reference has a remove button.  :class:`Reference` is what the pane knows about
a reference tokenizer: its spec for :func:`bpe_desktop.core.formats.load_tokenizer`, the tokenizer once
loaded, and the last result per text.

It does not load files or tokenize (the pane does, through :mod:`.compare_sources`).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from PySide6 import QtCore, QtWidgets

from .compare_sources import Tokenized
from .compare_strip import TokenStrip

FIG_W = 92  # the figures line up across rows
CACHE_SIZE = 32


@dataclass
class Reference:
    """A reference tokenizer: loaded lazily from *spec* the first time its row is ticked."""

    name: str
    spec: str
    tokenizer: object | None = None
    enabled: bool = False
    removable: bool = True
    cache: OrderedDict[str, Tokenized] = field(default_factory=OrderedDict)


def remember(cache: OrderedDict, key: object, value: Tokenized) -> None:  # type: ignore[type-arg]
    """Store *value* in a small LRU *cache* (at most :data:`CACHE_SIZE` entries)."""
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > CACHE_SIZE:
        cache.popitem(last=False)


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
        if checkable:
            self.check: QtWidgets.QCheckBox | None = QtWidgets.QCheckBox(name)
            self.check.setChecked(checked)
            self.check.toggled.connect(self.toggled)
            self.check.setObjectName("compareName")
            title: QtWidgets.QWidget = self.check
        else:
            self.check = None
            title = QtWidgets.QLabel(name)
            title.setObjectName("compareName")
        title.setToolTip(name)
        title.setMinimumWidth(80)
        title.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        head.addWidget(title, 1)
        self.count_label = self._figure(head, FIG_W)
        self.cpt_label = self._figure(head, FIG_W)
        self.bpt_label = self._figure(head, FIG_W)
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
        self.clear("")

    @staticmethod
    def _figure(layout: QtWidgets.QHBoxLayout, width: int) -> QtWidgets.QLabel:
        lab = QtWidgets.QLabel("")
        lab.setObjectName("compareFigure")
        lab.setFixedWidth(width)
        lab.setAlignment(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
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
        self.count_label.setText(f"<b>{result.n_tokens:,}</b> tokens")
        self.cpt_label.setText(f"{result.chars_per_token:.2f} chars/tok")
        self.bpt_label.setText(f"{result.bytes_per_token:.2f} bytes/tok")
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
            lab.setText("—")
        self.detail.setText(detail)
        self.strip.set_placeholder(message)
