"""File → Export tokenizer at this step: choose a format the tokenizer can be written as, and a name.

Every format is listed; the ones whose writer refuses this tokenizer (:func:`~..core.formats.refusals.refusal`,
the writer's own check, run before any name is asked) are greyed with the reason in their tooltip and in a
note below the list.  The name box follows the chosen format: a folder name for the two GPT-2 pairs, the
format's extension otherwise (``tokenizer.json`` becomes ``tokenizer`` and ``tokenizer.tiktoken``).  The
dialog only chooses; :func:`~.file_actions.export_tokenizer` writes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import NamedTuple

from PySide6 import QtCore, QtWidgets

from ..core.formats.refusals import refusal
from ..core.records import MergeRecord
from ..core.tokenizers.model import BPEModel


class ExportFormat(NamedTuple):
    fmt: str  # for core.formats.save_model
    label: str
    ext: str  # "" for the formats that write a folder
    default: str  # the name offered first


FORMATS = (
    ExportFormat("hf", "HF tokenizers tokenizer.json", ".json", "tokenizer.json"),
    ExportFormat("vocab-merges", "GPT-2 vocab.json + merges.txt (a folder)", "", "tokenizer"),
    ExportFormat("gpt2", "GPT-2 encoder.json + vocab.bpe (a folder)", "", "tokenizer"),
    ExportFormat("tiktoken", "tiktoken ranks (.tiktoken)", ".tiktoken", "tokenizer.tiktoken"),
    ExportFormat("subword-nmt", "subword-nmt codes (.txt)", ".txt", "codes.txt"),
    ExportFormat("native", "bpe-desktop native (.json, with per-merge statistics)", ".json", "tokenizer.json"),
    ExportFormat("csv", "per-merge statistics CSV (.csv)", ".csv", "merges.csv"),
)
_EXTS = {f.ext for f in FORMATS if f.ext}


def renamed(name: str, fmt: ExportFormat) -> str:
    """*name* with the extension of *fmt* (none for a folder format), keeping the user's stem.

    >>> f = {x.fmt: x for x in FORMATS}
    >>> renamed("tokenizer.json", f["vocab-merges"]), renamed("mine", f["tiktoken"]), renamed("a.txt", f["hf"])
    ('tokenizer', 'mine.tiktoken', 'a.json')
    >>> renamed("/tmp/", f["hf"]), renamed(".", f["gpt2"])
    ('/tmp/tokenizer.json', './tokenizer')
    """
    folder, base = os.path.split(name)  # a path's folder stays as it is
    if base in (".", ".."):  # a folder, not a name: the format's name inside it
        folder, base = name, ""
    stem, ext = os.path.splitext(base)
    if ext not in _EXTS:
        stem = base
    return os.path.join(folder, (stem or os.path.splitext(fmt.default)[0]) + fmt.ext)


class ExportDialog(QtWidgets.QDialog):
    """The formats (greyed where the writer refuses), the path, Export / Cancel."""

    def __init__(self, parent: QtWidgets.QWidget | None, model: BPEModel, records: Sequence[MergeRecord],
                 step: int, folder: str, shown: int | None = None) -> None:
        """*step*: the merges written; *shown*: that step as the timeline counts it (an extension run's, from its
        original; default *step*)."""
        super().__init__(parent)
        self.setWindowTitle(f"Export the tokenizer at step {step if shown is None else shown:,}")
        self.refusals = {f.fmt: refusal(model, f.fmt, records) for f in FORMATS}
        self.list = QtWidgets.QListWidget()
        self.list.setObjectName("exportFormats")
        for f in FORMATS:
            item = QtWidgets.QListWidgetItem(f.label)
            why = self.refusals[f.fmt]
            if why is not None:
                item.setFlags(item.flags() & ~QtCore.Qt.ItemFlag.ItemIsEnabled & ~QtCore.Qt.ItemFlag.ItemIsSelectable)
                item.setToolTip(f"Cannot be written as this format: {why}")
            self.list.addItem(item)
        self.list.setFixedHeight(self.list.sizeHintForRow(0) * len(FORMATS) + 2 * self.list.frameWidth() + 4)
        greyed = [f"{f.label}: {self.refusals[f.fmt]}" for f in FORMATS if self.refusals[f.fmt]]
        head = "Greyed, because this tokenizer cannot be written so:\n"
        self.note = QtWidgets.QLabel(head + "\n".join(f"• {g}" for g in greyed) if greyed else "")
        self.note.setWordWrap(True)
        self.note.setVisible(bool(greyed))
        self.path = QtWidgets.QLineEdit()
        self.path.setObjectName("exportPath")
        browse = QtWidgets.QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        self.buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        self.export_button = self.buttons.addButton("Export", QtWidgets.QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addWidget(QtWidgets.QLabel(f"Format of the tokenizer's first {step:,} merges:"))
        lay.addWidget(self.list)
        lay.addWidget(self.note)
        lay.addWidget(QtWidgets.QLabel("Write to (a folder for the GPT-2 pairs):"))
        lay.addLayout(row)
        lay.addWidget(self.buttons)
        self.path.setText(os.path.join(folder, FORMATS[0].default))
        self.list.currentRowChanged.connect(self._format_changed)
        self.path.textChanged.connect(self._update_button)
        first = next((k for k, f in enumerate(FORMATS) if self.refusals[f.fmt] is None), -1)
        self.list.setCurrentRow(first)
        self._update_button()

    def chosen(self) -> ExportFormat | None:
        row = self.list.currentRow()
        if row < 0 or self.refusals[FORMATS[row].fmt] is not None:
            return None
        return FORMATS[row]

    def select(self, fmt: str) -> bool:
        """Choose *fmt* as a click would (False when it is greyed)."""
        row = next(k for k, f in enumerate(FORMATS) if f.fmt == fmt)
        if self.refusals[fmt] is not None:
            return False
        self.list.setCurrentRow(row)
        return True

    def _format_changed(self, row: int) -> None:
        f = self.chosen()
        if f is None:
            return
        folder, name = os.path.split(self.path.text())
        self.path.setText(os.path.join(folder, renamed(name, f)))

    def _update_button(self) -> None:
        self.export_button.setEnabled(self.chosen() is not None and bool(self.path.text().strip()))

    def _browse(self) -> None:
        f = self.chosen()
        if f is None:
            return
        if f.ext:
            path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Export to", self.path.text(), f"*{f.ext}")
        else:
            path = QtWidgets.QFileDialog.getExistingDirectory(self, "Export into this folder (created if new)",
                                                              os.path.dirname(self.path.text()))
            path = os.path.join(path, os.path.basename(self.path.text())) if path else ""
        if path:
            self.path.setText(renamed(path, f) if f.ext else path)
