"""The "Branch here…" dialog: the settings a branch at step k continues with, and what that means.

It starts from the shown run's settings and offers what a branch may change (merge budget, minimum
frequency, tie-break, forbidden pairs and the forbid regex) beside the two settings that change the words
(mode, pre-tokenizer).  Changing one of those is allowed but the dialog says, as you choose it, that the run
then restarts from step 0 (:func:`~bpe_desktop.core.training.branch.needs_restart`), and its button says so too.
It trains nothing: :mod:`.whatif` reads :meth:`BranchDialog.config` and :meth:`BranchDialog.restart`.
"""

from __future__ import annotations

import html

from PySide6 import QtWidgets

from ...core.choices import Mode, TieBreak
from ...core.config import MODES, TIE_BREAKS, TrainConfig
from ...core.errors import BpeError
from ...core.text.pretokenize import NAMED_PATTERNS
from ...core.training.branch import BranchPoint, NeedsRestart, needs_restart
from ..widgets import theme
from .forbid_edit import ForbidEditor


class BranchDialog(QtWidgets.QDialog):
    def __init__(self, base: TrainConfig, point: BranchPoint, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.base, self.point = base, point
        k = point.step
        self.setWindowTitle(f"Branch at step {k:,}")
        self.intro = QtWidgets.QLabel(
            f"A new run keeps the first <b>{k:,}</b> merges of this run (replayed on its word counts, not "
            "retrained) and continues with these settings.", self)
        self.intro.setWordWrap(True)
        self.mode = QtWidgets.QComboBox(self)
        self.mode.addItems(list(MODES))
        self.mode.setCurrentText(base.mode)
        self.pretok = QtWidgets.QComboBox(self)
        self.pretok.addItems(list(NAMED_PATTERNS))
        if base.pretokenizer not in NAMED_PATTERNS:
            self.pretok.addItem(base.pretokenizer)  # the run's own custom pattern
        self.pretok.setCurrentText(base.pretokenizer)
        self.merges = QtWidgets.QSpinBox(self)
        self.merges.setRange(0, 1_000_000)
        self.merges.setSpecialValueText("no limit")
        self.merges.setGroupSeparatorShown(True)
        self.merges.setValue(base.merges or 0)
        self.merges.setToolTip("Merge budget of the branch, the kept merges included")
        self.min_freq = QtWidgets.QSpinBox(self)
        self.min_freq.setRange(1, 1_000_000_000)
        self.min_freq.setGroupSeparatorShown(True)
        self.min_freq.setValue(base.min_frequency)
        self.tie = QtWidgets.QComboBox(self)
        self.tie.addItems(list(TIE_BREAKS))
        self.tie.setCurrentText(base.tie_break)
        self.forbid = ForbidEditor(self, lines=4)
        self.forbid.set_mode(base.mode)
        self.forbid.set_values(base.forbid, base.forbid_regex)
        self.note = QtWidgets.QLabel(self)
        self.note.setObjectName("branchNote")
        self.note.setWordWrap(True)
        self.buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Ok | QtWidgets.QDialogButtonBox.StandardButton.Cancel, self)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        form = QtWidgets.QFormLayout()
        form.addRow("Mode", self.mode)
        form.addRow("Pre-tokenizer", self.pretok)
        form.addRow("Merges", self.merges)
        form.addRow("Min frequency", self.min_freq)
        form.addRow("Tie-break", self.tie)
        form.addRow("Forbid", self.forbid)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addWidget(self.intro)
        lay.addLayout(form)
        lay.addWidget(self.note)
        lay.addWidget(self.buttons)
        self.setMinimumWidth(460)
        for sig in (self.mode.currentIndexChanged, self.pretok.currentIndexChanged, self.merges.valueChanged,
                    self.min_freq.valueChanged, self.tie.currentIndexChanged, self.forbid.changed):
            sig.connect(self._update)
        self._update()

    def config(self) -> TrainConfig:
        """The branch's settings; raises the core's ``BpeError`` (with the fix) when the form is invalid."""
        return self.base.with_(
            mode=Mode(self.mode.currentText()), pretokenizer=self.pretok.currentText(),
            merges=self.merges.value() or None, min_frequency=self.min_freq.value(),
            tie_break=TieBreak(self.tie.currentText()), forbid=self.forbid.pairs(), forbid_regex=self.forbid.pattern(),
            vocab_size=None if self.merges.value() else self.base.vocab_size,
        )

    def restart(self) -> NeedsRestart | None:
        """Which chosen settings force a restart from step 0 (None: a real branch at step k)."""
        try:
            return needs_restart(self.point, self.config())
        except BpeError:
            return None

    def _update(self, *_: object) -> None:
        mode = Mode(self.mode.currentText())
        if self.forbid.mode != mode:
            self.forbid.set_mode(mode)
        ok = self.buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Ok)
        k = self.point.step
        try:
            cfg = self.config()
            if cfg.merges is not None and cfg.merges < k and needs_restart(self.point, cfg) is None:
                raise BpeError(f"a budget of {cfg.merges:,} merges ends before step {k:,} -- ask for {k:,} or more")
        except BpeError as e:
            self.note.setText(f"<span style='color:{theme.current().error}'>{html.escape(str(e))}</span>")
            ok.setEnabled(False)
            ok.setText("Branch")
            return
        ok.setEnabled(True)
        restart = needs_restart(self.point, cfg)
        if restart is not None:
            what = ", ".join(c.name.replace("_", " ") for c in restart.changes)
            warn = theme.current().banner_fg
            self.note.setText(f"<span style='color:{warn}'><b>Changing {what} restarts from step 0</b>: it changes "
                              "the words the merges work on, so no merge can be kept.</span>")
            ok.setText("Train from step 0")
        else:
            self.note.setText(f"Merges 1–{k:,} are kept; training continues from step {k:,}.")
            ok.setText(f"Branch at {k:,}")
