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

from ...core.config import TrainConfig
from ...core.errors import BpeError
from ...core.text.pretokenize import NAMED_PATTERNS
from ...core.training.branch import BranchPoint, NeedsRestart, needs_restart
from ..panes.settings_form import SettingsRows
from ..widgets import theme


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
        self.rows = rows = SettingsRows(self, merges_tip="Merge budget of the branch, the kept merges included",
                                        forbid_lines=4)
        # the shared rows' widgets, by the names callers and tests use
        self.mode, self.pretok, self.merges, self.min_freq, self.tie, self.forbid = (
            rows.mode, rows.pretok, rows.merges, rows.min_freq, rows.tie, rows.forbid)
        if base.pretokenizer not in NAMED_PATTERNS:
            self.pretok.addItem(base.pretokenizer)  # the run's own custom pattern
        self.pretok.setCurrentText(base.pretokenizer)
        rows.set_from(base)
        self.note = QtWidgets.QLabel(self)
        self.note.setObjectName("branchNote")
        self.note.setWordWrap(True)
        self.buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Ok | QtWidgets.QDialogButtonBox.StandardButton.Cancel, self)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        form = QtWidgets.QFormLayout()
        rows.add_to(form)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addWidget(self.intro)
        lay.addLayout(form)
        lay.addWidget(self.note)
        lay.addWidget(self.buttons)
        self.setMinimumWidth(460)
        for sig in rows.changed_signals():
            sig.connect(self._update)
        self._update()

    def config(self) -> TrainConfig:
        """The branch's settings; raises the core's ``BpeError`` (with the fix) when the form is invalid."""
        return self.base.with_(
            mode=self.rows.chosen_mode(), pretokenizer=self.pretok.currentText(),
            merges=self.merges.value() or None, min_frequency=self.min_freq.value(),
            tie_break=self.rows.chosen_tie_break(), forbid=self.forbid.pairs(), forbid_regex=self.forbid.pattern(),
            vocab_size=None if self.merges.value() else self.base.vocab_size,
        )

    def restart(self) -> NeedsRestart | None:
        """Which chosen settings force a restart from step 0 (None: a real branch at step k)."""
        try:
            return needs_restart(self.point, self.config())
        except BpeError:
            return None

    def _update(self, *_: object) -> None:
        self.rows.follow_mode()
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
