"""Editing forbidden merges: pairs one per line ("LEFT RIGHT", as on the command line) and a forbid regex.

:class:`ForbidEditor` is the small form the settings pane and the branch dialog share: a few lines of pairs
(:func:`~bpe_desktop.core.forbid.parse_pair`: ``\\ `` is a space inside a symbol; bytes mode writes ``Ġ`` for
a space, as the merge list shows) and a pattern, both checked as the user types, the problem shown under
them.  :meth:`ForbidEditor.pairs` / :meth:`ForbidEditor.pattern` raise the core's ``BpeError`` when invalid.
It decides nothing about training.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from ...core.choices import Mode
from ...core.errors import BpeError
from ...core.forbid import Pair, check_pairs, compile_regex, format_pair, parse_pair


def parse_lines(text: str) -> tuple[Pair, ...]:
    r"""Pairs, one per non-blank line (leading/trailing blanks of a line ignored; duplicates dropped).

    >>> parse_lines("e s\n\n  Ġt he \ne s")
    (('e', 's'), ('Ġt', 'he'))
    """
    out: list[Pair] = []
    for line in text.splitlines():
        line = line.strip(" \t")
        if line:
            p = parse_pair(line)
            if p not in out:
                out.append(p)
    return tuple(out)


def format_lines(pairs: tuple[Pair, ...]) -> str:
    return "\n".join(format_pair(p) for p in pairs)


class ForbidEditor(QtWidgets.QWidget):
    """Signal ``changed()`` on every edit."""

    changed = QtCore.Signal()

    def __init__(self, parent: QtWidgets.QWidget | None = None, *, lines: int = 3) -> None:
        super().__init__(parent)
        self.mode = Mode.CHARS  # for the bytes-mode check of the symbols
        self.pairs_edit = QtWidgets.QPlainTextEdit(self)
        self.pairs_edit.setObjectName("forbidPairs")
        self.pairs_edit.setPlaceholderText("never merge, one pair a line: e s   ·   Ġt he")
        self.pairs_edit.setTabChangesFocus(True)
        self.pairs_edit.setLineWrapMode(QtWidgets.QPlainTextEdit.LineWrapMode.NoWrap)
        h = self.pairs_edit.fontMetrics().lineSpacing() * lines + 12
        self.pairs_edit.setFixedHeight(h)
        self.pairs_edit.setToolTip("Pairs the trainer never merges: the two symbols as the merge list shows them, "
                                   "one space between (\\  is a space inside a symbol)")
        self.regex_edit = QtWidgets.QLineEdit(self)
        self.regex_edit.setObjectName("forbidRegex")
        self.regex_edit.setPlaceholderText(r"forbid regex, e.g. \d\s+\d (digits across a space)")
        self.regex_edit.setToolTip("Never merge a pair whose merged token matches this pattern anywhere")
        self.error_label = QtWidgets.QLabel(self)
        self.error_label.setObjectName("inlineError")
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(3)
        lay.addWidget(self.pairs_edit)
        lay.addWidget(self.regex_edit)
        lay.addWidget(self.error_label)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Fixed)
        self.pairs_edit.textChanged.connect(self._edited)
        self.regex_edit.textChanged.connect(self._edited)

    def pairs(self) -> tuple[Pair, ...]:
        pairs = parse_lines(self.pairs_edit.toPlainText())
        check_pairs(pairs, self.mode)
        return pairs

    def pattern(self) -> str | None:
        text = self.regex_edit.text()
        if not text:
            return None
        compile_regex(text)
        return text

    def error(self) -> str | None:
        try:
            self.pairs()
            self.pattern()
        except BpeError as e:
            return str(e)
        return None

    def set_values(self, pairs: tuple[Pair, ...], pattern: str | None) -> None:
        self.pairs_edit.setPlainText(format_lines(pairs))
        self.regex_edit.setText(pattern or "")

    def set_mode(self, mode: Mode) -> None:
        self.mode = mode
        self._edited()

    def _edited(self) -> None:
        problem = self.error()
        self.error_label.setText(problem or "")
        self.error_label.setVisible(bool(problem))
        self.changed.emit()
