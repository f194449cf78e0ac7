"""The settings pane and the branch dialog build their shared rows with one builder and read them alike."""

from __future__ import annotations

import itertools

from PySide6 import QtCore, QtWidgets

from bpe_desktop.core import TrainConfig, train
from bpe_desktop.core.choices import TIE_RULES, Mode, TieBreak
from bpe_desktop.core.training.branch import BranchPoint
from bpe_desktop.gui.panes.settings import SettingsPanel
from bpe_desktop.gui.runs.branch_dialog import BranchDialog
from bpe_desktop.gui.session import Session

TIP = QtCore.Qt.ItemDataRole.ToolTipRole
SHARED = ["Mode", "Pre-tokenizer", "Merges", "Min frequency", "Tie-break", "Forbid"]


def _items(combo: QtWidgets.QComboBox) -> list[tuple[str, object]]:
    return [(combo.itemText(i), combo.itemData(i, TIP)) for i in range(combo.count())]


def _labels(form: QtWidgets.QFormLayout) -> list[str]:
    out = []
    for r in range(form.rowCount()):
        item = form.itemAt(r, QtWidgets.QFormLayout.ItemRole.LabelRole)
        if item is not None and isinstance(item.widget(), QtWidgets.QLabel):
            out.append(item.widget().text())
    return out


def _pair(qtbot, base: TrainConfig) -> tuple[SettingsPanel, BranchDialog]:
    model, records = train({"low": 5, "lower": 2, "newest": 6}, base)
    panel = SettingsPanel(Session())
    dialog = BranchDialog(base, BranchPoint.from_model(model, 1, records))
    qtbot.addWidget(panel)
    qtbot.addWidget(dialog)
    return panel, dialog


def test_both_offer_the_same_choices_with_the_rules_descriptions(qtbot) -> None:
    panel, dialog = _pair(qtbot, TrainConfig(merges=3))
    assert _items(panel.tie) == _items(dialog.tie) == [(r.name.value, r.description) for r in TIE_RULES.values()]
    assert [t for t, _ in _items(panel.mode)] == [t for t, _ in _items(dialog.mode)] == ["chars", "bytes"]
    # the pane adds its custom-regex entry after the named patterns; the rest is the same list
    assert _items(panel.pretok)[:-1] == _items(dialog.pretok)
    panel_labels = _labels(panel.layout())
    dialog_labels = [x for x in _labels(dialog.layout().itemAt(1).layout()) if x]
    assert dialog_labels == SHARED
    assert [x for x in panel_labels if x in SHARED] == SHARED  # the pane's own rows sit between, in order


def test_every_mode_and_rule_reads_back_as_its_member(qtbot) -> None:
    for mode, rule in itertools.product(Mode, TieBreak):
        base = TrainConfig(mode=mode, tie_break=rule, merges=4, min_frequency=2,
                           pretokenizer="gpt2" if mode == Mode.BYTES else "whitespace")
        panel, dialog = _pair(qtbot, base)
        panel.set_config(base)
        got = panel.config()
        assert got == base and got.mode is mode and got.tie_break is rule
        branched = dialog.config()
        assert branched == base and branched.mode is mode and branched.tie_break is rule
        assert panel.forbid.mode == dialog.forbid.mode == mode  # the forbid check follows the chosen mode
