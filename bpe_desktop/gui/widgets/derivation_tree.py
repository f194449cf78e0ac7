"""How a token was built, as a tree widget: the token, the two tokens its merge joined, and so on down to base
symbols, each row with its merge rank and the count the merge had (from the merge records).

One widget for every pane that shows a derivation (the token stream, the vocabulary).  It leaves out
computing the tree (:func:`bpe_desktop.core.views.derivation.derivation_tree`) and choosing row colours (the
caller passes a colour function, so each pane keeps its own token colours).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape

from PySide6 import QtCore, QtGui, QtWidgets

from ...core.choices import Mode
from ...core.records import MergeRecord
from ...core.tokenizers.model import BPEModel
from ...core.views.derivation import DerivationNode, derivation_tree


class DerivationTree(QtWidgets.QTreeWidget):
    """Columns token / merge / count; :meth:`fill` shows one token, :meth:`items` reads the rows back."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setColumnCount(3)
        self.setHeaderLabels(["token", "merge", "count"])
        self.setRootIsDecorated(True)
        self.setUniformRowHeights(True)
        header = self.header()
        header.setStretchLastSection(False)
        bold = QtGui.QFont(header.font())
        bold.setBold(True)  # the style sheet's header sections are bold: size them for that
        margin = 2 * header.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_HeaderMargin, None, header) + 12
        header.setMinimumSectionSize(max(QtGui.QFontMetrics(bold).horizontalAdvance(t) for t in ("merge", "count"))
                                     + margin)
        header.setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.Stretch)
        for col in (1, 2):
            header.setSectionResizeMode(col, QtWidgets.QHeaderView.ResizeMode.ResizeToContents)

    def fill(
        self,
        model: BPEModel,
        records: Sequence[MergeRecord],
        token_id: int,
        colour: Callable[[DerivationNode], QtGui.QColor | None],
        ink: QtGui.QColor | None = None,
        font: QtGui.QFont | None = None,
    ) -> str:
        """Show the derivation of *token_id* (a merged or base token of *model*); rows are painted
        ``colour(node)`` (None: left as they are) with text *ink*.  Returns the title (HTML): the token, its
        id and how many merges built it from how many base symbols."""
        self.clear()
        root = derivation_tree(model, token_id)

        def add(node: DerivationNode, parent: QtWidgets.QTreeWidget | QtWidgets.QTreeWidgetItem) -> None:
            rank = node.rank
            count = records[rank - 1].count if rank is not None and rank <= len(records) else 0
            item = QtWidgets.QTreeWidgetItem(parent, [node.label, "" if rank is None else f"#{rank:,}",
                                                      f"{count:,}" if count else ""])
            item.setData(0, QtCore.Qt.ItemDataRole.UserRole, node.id)
            if font is not None:
                item.setFont(0, font)
            fill = colour(node)
            if fill is not None:
                for col in range(3):
                    item.setBackground(col, QtGui.QBrush(fill))
                    if ink is not None:
                        item.setForeground(col, QtGui.QBrush(ink))
            for child in node.children:
                add(child, item)

        add(root, self)
        self.expandAll()
        n = len(root.ranks())
        unit = "bytes" if model.mode == Mode.BYTES else "symbols"
        return (f"<b>{escape(root.label)}</b> &nbsp;id {token_id}<br>"
                + (f"{n} merge{'s' if n != 1 else ''} from {len(root.leaves())} {unit}" if n else "a base symbol"))

    def items(self) -> list[tuple[int, str]]:
        """(depth, label) of every row, depth first."""
        out: list[tuple[int, str]] = []

        def walk(item: QtWidgets.QTreeWidgetItem, depth: int) -> None:
            out.append((depth, item.text(0)))
            for i in range(item.childCount()):
                walk(item.child(i), depth + 1)

        for i in range(self.topLevelItemCount()):
            top = self.topLevelItem(i)
            if top is not None:
                walk(top, 0)
        return out
