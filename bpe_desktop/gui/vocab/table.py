"""The vocabulary table: a virtualized Qt model over a :class:`~bpe_desktop.core.measure.vocab_audit.VocabAudit`.

The audit stores its columns as plain lists; this model keeps only the visible rows' order (a list of row
indexes, sorted and filtered) and builds each cell when the view asks for it, so cl100k's 100k rows cost a
list of 100k ints.  Sorting uses the audit's own :meth:`~bpe_desktop.core.measure.vocab_audit.VocabAudit.order`
(ties by id, unknown values last) for its columns, and the pair's labels or the flags for the two columns
it does not know.  Filtering keeps rows whose token (or pair) contains a text and that carry any of the
chosen flags, and the :attr:`~VocabTableModel.pinned` token (the selected one) whatever its flags at this
step.  It computes no audit (see :mod:`.feed`) and does not observe the session.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from PySide6 import QtCore, QtGui

from ...core.measure.vocab_audit import Column, TokenFlag, VocabAudit
from ...core.views.labels import visible_text
from ..widgets import theme

#: flag -> the word the table and the filter boxes use
FLAG_WORDS: dict[TokenFlag, str] = {
    TokenFlag.UNREACHABLE: "unreachable",
    TokenFlag.UNDECODABLE: "not decodable",
    TokenFlag.INTERMEDIATE: "intermediate",
    TokenFlag.UNUSED: "unused",
    TokenFlag.SPECIAL: "special",
}
FLAG_HELP: dict[TokenFlag, str] = {
    TokenFlag.UNREACHABLE: "decoded alone and encoded again (pre-tokenizer included) it does not come back "
                           "as this one token",
    TokenFlag.UNDECODABLE: "its bytes are not valid UTF-8 on their own (a piece of a character)",
    TokenFlag.INTERMEDIATE: "its frequency now over its pair's count when it was made is under the threshold: "
                            "later merges consumed most of it",
    TokenFlag.UNUSED: "the corpus tokenized at this step never uses it",
    TokenFlag.SPECIAL: "a special token (ordinary encoding never produces it)",
}


class VocabColumn(NamedTuple):
    title: str
    key: Column | None  # the audit's sort column (None: the pair or the flags)
    numeric: bool
    tip: str


COLUMNS: tuple[VocabColumn, ...] = (
    VocabColumn("id", Column.ID, True, "token id"),
    VocabColumn("token", Column.LABEL, False, "the token (· space, ↵ newline; bytes that are not whole "
                                              "UTF-8 characters as ⟨hex⟩)"),
    VocabColumn("bytes", Column.BYTES, True, "length in bytes"),
    VocabColumn("made at", Column.MADE_AT, True, "the step right after the merge that made it"),
    VocabColumn("pair", None, False, "the pair that merge joined"),
    VocabColumn("count then", Column.MADE_COUNT, True, "the pair's count when it was merged"),
    VocabColumn("frequency", Column.FREQUENCY, True, "how often the corpus tokenized at this step uses it"),
    VocabColumn("consumers", Column.CONSUMERS, True, "merges up to this step that take it as left or right"),
    VocabColumn("freq / count", Column.RATIO, True, "frequency now over its count when made (intermediate "
                                                    "when under the threshold)"),
    VocabColumn("flags", None, False, "unreachable, not decodable, intermediate, unused, special"),
)
_Idx = QtCore.QModelIndex | QtCore.QPersistentModelIndex
PAIR_COLUMN = 4
FLAGS_COLUMN = 9


def flag_text(flags: TokenFlag) -> str:
    """``"unreachable, not decodable"`` for a token's flags ("" for none)."""
    return ", ".join(word for f, word in FLAG_WORDS.items() if f in flags)


class VocabTableModel(QtCore.QAbstractTableModel):
    """Rows of an audit, in the order and under the filter chosen (see the module docstring)."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.audit: VocabAudit | None = None
        self.rows: list[int] = []  # audit row indexes shown, in order
        self.sort_column = 0
        self.descending = False
        self.text = ""
        self.flag_filter = TokenFlag.NONE  # show only rows with any of these (NONE: all)
        # (not "flags": that name would override QAbstractItemModel.flags)
        self.pinned: int | None = None  # a token id shown whatever the filter (the selected one)
        self.has_frequencies = True
        self.origin: tuple[int, str] = (0, "")  # an extension run: its step 0 and the original's name
        self._mono = QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont)
        self._themed(theme.current())
        theme.notifier().changed.connect(self._themed)

    def _themed(self, t: theme.Theme) -> None:
        self._grey = QtGui.QBrush(QtGui.QColor(t.faint))  # (a view repaints itself when the palette changes)
        self._warn = QtGui.QBrush(QtGui.QColor(t.error))

    # -- content ------------------------------------------------------------------------------------
    def set_audit(self, audit: VocabAudit | None, has_frequencies: bool = True) -> None:
        self.beginResetModel()
        self.audit = audit
        self.has_frequencies = has_frequencies
        self.rows = self._visible()
        self.endResetModel()

    def set_filter(self, text: str, flags: TokenFlag) -> None:
        if text == self.text and flags == self.flag_filter:
            return
        self.beginResetModel()
        self.text, self.flag_filter = text, flags
        self.rows = self._visible()
        self.endResetModel()

    def sort(self, column: int, order: QtCore.Qt.SortOrder = QtCore.Qt.SortOrder.AscendingOrder) -> None:
        self.layoutAboutToBeChanged.emit()
        self.sort_column = column
        self.descending = order == QtCore.Qt.SortOrder.DescendingOrder
        self.rows = self._visible()
        self.layoutChanged.emit()

    def row_of_id(self, token_id: int) -> int | None:
        """The table row showing *token_id*, if shown."""
        a = self.audit
        if a is None:
            return None
        for pos, r in enumerate(self.rows):
            if a.ids[r] == token_id:
                return pos
        return None

    def token_id(self, row: int) -> int | None:
        if self.audit is None or not 0 <= row < len(self.rows):
            return None
        return self.audit.ids[self.rows[row]]

    def _order(self) -> list[int]:
        a = self.audit
        assert a is not None
        col = COLUMNS[self.sort_column]
        if col.key is not None:
            return a.order(col.key, self.descending)
        values: Sequence[Any]
        if self.sort_column == PAIR_COLUMN:
            labels = a.labels
            values = [(labels[m.left], labels[m.right]) if m else None for m in a.made_by]
        else:
            values = [f.value for f in a.flags]
        known = [r for r in range(len(a)) if values[r] is not None]
        known.sort(key=lambda r: (values[r], a.ids[r]), reverse=self.descending)
        return known + [r for r in range(len(a)) if values[r] is None]

    def _visible(self) -> list[int]:
        a = self.audit
        if a is None:
            return []
        if self.sort_column == 0 and not self.descending:
            order: list[int] = list(range(len(a)))  # rows are in id order already
        else:
            order = self._order()
        if not self.flag_filter and not self.text:
            return order
        pin = -1 if self.pinned is None else next((r for r, i in enumerate(a.ids) if i == self.pinned), -1)
        if self.flag_filter:
            want = self.flag_filter
            flags = a.flags
            order = [r for r in order if flags[r] & want or r == pin]
        if self.text:
            needle, shown = self.text.lower(), visible_text(self.text).lower()
            labels = a.labels
            if needle.isdigit():
                order = [r for r in order if str(a.ids[r]) == needle or needle in labels[r].lower() or r == pin]
            else:
                order = [r for r in order if needle in labels[r].lower() or shown in labels[r].lower() or r == pin]
        return order

    # -- Qt model -----------------------------------------------------------------------------------
    def rowCount(self, parent: _Idx = QtCore.QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Idx = QtCore.QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: QtCore.Qt.Orientation, role: int = 0) -> Any:
        if orientation != QtCore.Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        if role == QtCore.Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section].title
        if role == QtCore.Qt.ItemDataRole.ToolTipRole:
            return COLUMNS[section].tip
        return None

    def cell(self, row: int, column: int) -> str:
        """The text of a cell (what the view shows)."""
        a = self.audit
        assert a is not None
        r = self.rows[row]
        m = a.made_by[r]
        if column == 0:
            return str(a.ids[r])
        if column == 1:
            return a.labels[r]
        if column == 2:
            return str(a.n_bytes[r])
        if column == 3:  # (an extension run: counted from the original, whose own tokens it names)
            o, label = self.origin
            return "" if not m else f"{m.step - o:,}" if m.step > o else label
        if column == PAIR_COLUMN:
            return f"{a.labels[m.left]} + {a.labels[m.right]}" if m else ""
        if column == 5:
            return f"{m.pair_count:,}" if m and m.pair_count is not None else ("" if not m else "—")
        if column == 6:
            return f"{a.frequencies[r]:,}" if self.has_frequencies else "—"
        if column == 7:
            return f"{a.consumers[r]:,}"
        if column == 8:
            ratio = a.ratios[r]
            return f"{ratio:.3f}" if ratio is not None and self.has_frequencies else ""
        return flag_text(a.flags[r])

    def data(self, index: _Idx, role: int = 0) -> Any:
        if not index.isValid() or self.audit is None or index.row() >= len(self.rows):
            return None
        col = index.column()
        R = QtCore.Qt.ItemDataRole
        if role == R.DisplayRole:
            return self.cell(index.row(), col)
        if role == R.TextAlignmentRole and COLUMNS[col].numeric:
            return int(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
        if role == R.FontRole and col in (1, PAIR_COLUMN):
            return self._mono
        flags = self.audit.flags[self.rows[index.row()]]
        if role == R.ForegroundRole:
            if col == FLAGS_COLUMN and flags & (TokenFlag.UNREACHABLE | TokenFlag.UNDECODABLE):
                return self._warn
            if flags & TokenFlag.SPECIAL or (col == 1 and flags & TokenFlag.UNUSED):
                return self._grey
        if role == R.ToolTipRole and col == FLAGS_COLUMN and flags:
            return "\n".join(f"{FLAG_WORDS[f]}: {FLAG_HELP[f]}" for f in FLAG_WORDS if f in flags)
        return None
