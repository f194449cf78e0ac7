"""The rows of training settings that the settings pane and the "Branch here…" dialog both show.

:class:`SettingsRows` builds mode, pre-tokenizer (the named patterns, each with its description as tooltip),
merges, minimum frequency, tie-break (each rule with its description) and the forbid editor, reads the
mode and rule back as :class:`~bpe_desktop.core.choices.Mode` / :class:`~bpe_desktop.core.choices.TieBreak`,
sets them from a :class:`TrainConfig`, and lays them out in a form with each owner's own rows between.
It leaves out what only one owner has (the pane's presets, custom regex, vocabulary size, marker and
special tokens; the dialog's restart note) and builds no :class:`TrainConfig`: each owner does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6 import QtCore, QtWidgets

from ...core.choices import Mode, TieBreak
from ...core.config import MODES, TIE_BREAKS, TrainConfig
from ...core.text.pretokenize import NAMED_PATTERNS
from ..runs.forbid_edit import ForbidEditor

FormRow = tuple[str, QtWidgets.QWidget | QtWidgets.QLayout]


def spin_box(parent: QtWidgets.QWidget, lo: int, hi: int, special: str, tip: str) -> QtWidgets.QSpinBox:
    """A spin box for a count: *lo*..*hi* with group separators; *special* names its lowest value."""
    s = QtWidgets.QSpinBox(parent)
    s.setRange(lo, hi)
    s.setGroupSeparatorShown(True)
    if special:
        s.setSpecialValueText(special)
    s.setToolTip(tip)
    return s


class SettingsRows:
    """The shared rows' widgets (``mode``, ``pretok``, ``merges``, ``min_freq``, ``tie``, ``forbid``)."""

    def __init__(self, parent: QtWidgets.QWidget, *, merges_tip: str, forbid_lines: int) -> None:
        self.mode = QtWidgets.QComboBox(parent)
        self.mode.addItems([m.value for m in MODES])
        self.mode.setToolTip("chars: characters plus an end-of-word marker · bytes: byte-level, like GPT-2")
        self.pretok = QtWidgets.QComboBox(parent)
        for name, (_, desc) in NAMED_PATTERNS.items():
            self.pretok.addItem(name)
            self.pretok.setItemData(self.pretok.count() - 1, desc, QtCore.Qt.ItemDataRole.ToolTipRole)
        self.merges = spin_box(parent, 0, 1_000_000, "no limit", merges_tip)
        self.min_freq = spin_box(parent, 1, 1_000_000_000, "", "Stop when the best pair occurs fewer times")
        self.tie = QtWidgets.QComboBox(parent)
        for name, desc in TIE_BREAKS.items():
            self.tie.addItem(name.value)
            self.tie.setItemData(self.tie.count() - 1, desc, QtCore.Qt.ItemDataRole.ToolTipRole)
        self.forbid = ForbidEditor(parent, lines=forbid_lines)

    def chosen_mode(self) -> Mode:
        return Mode(self.mode.currentText())

    def chosen_tie_break(self) -> TieBreak:
        return TieBreak(self.tie.currentText())

    def set_from(self, cfg: TrainConfig) -> None:
        """Show *cfg*'s mode, merges, minimum frequency, rule and forbidden pairs (the pre-tokenizer is the
        owner's: the pane offers a custom regex, the dialog the run's own pattern)."""
        self.mode.setCurrentText(cfg.mode)
        self.merges.setValue(cfg.merges or 0)
        self.min_freq.setValue(cfg.min_frequency)
        self.tie.setCurrentText(cfg.tie_break)
        self.forbid.set_mode(cfg.mode)
        self.forbid.set_values(cfg.forbid, cfg.forbid_regex)

    def follow_mode(self) -> Mode:
        """Keep the forbid editor's symbol check on the chosen mode; returns that mode."""
        mode = self.chosen_mode()
        if self.forbid.mode != mode:
            self.forbid.set_mode(mode)
        return mode

    def changed_signals(self) -> list[QtCore.SignalInstance]:
        """The signals that say a shared row was edited."""
        return [self.mode.currentIndexChanged, self.pretok.currentIndexChanged, self.merges.valueChanged,
                self.min_freq.valueChanged, self.tie.currentIndexChanged, self.forbid.changed]

    def add_to(self, form: QtWidgets.QFormLayout, after: Mapping[str, Sequence[FormRow]] | None = None
               ) -> None:
        """Add the rows to *form* in order, each followed by the owner's rows *after* its label."""
        shared: list[FormRow] = [("Mode", self.mode), ("Pre-tokenizer", self.pretok), ("Merges", self.merges),
                                 ("Min frequency", self.min_freq), ("Tie-break", self.tie), ("Forbid", self.forbid)]
        for label, field in shared:
            form.addRow(label, field)
            for extra_label, extra in (after or {}).get(label, ()):
                form.addRow(extra_label, extra)
