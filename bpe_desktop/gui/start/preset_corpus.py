"""Presets that are about a corpus bring it: choosing "Robot logs" while a bundled sample (the seed's word
counts, say) is the corpus offers to open the robot-log sample (:data:`~..presets.PRESET_SAMPLES`).

The user's own text or file is never replaced, and nothing is asked when that sample is already open.
It leaves out the settings themselves (the settings pane applies the preset) and training.
"""

from __future__ import annotations

from typing import Any

from PySide6 import QtWidgets

from ..presets import PRESET_SAMPLES, SAMPLES

#: the corpus names the window gives bundled corpora (besides the samples' own names)
BUNDLED_NAMES = frozenset({*SAMPLES, "seed word counts"})


def sample_to_offer(window: Any, preset: str) -> str | None:
    """The sample to offer for *preset*, or None (no sample for it, already open, or the user's own corpus)."""
    sample = PRESET_SAMPLES.get(preset)
    corpus = window.corpus
    if sample is None:
        return None
    if corpus.path is None and (corpus.name == sample or corpus.text() == SAMPLES[sample][0]()):
        return None  # already open
    own = corpus.path is not None or (corpus.name not in BUNDLED_NAMES and corpus.text().strip())
    return None if own else sample


def offer(window: Any, preset: str) -> bool:
    """Ask whether to open the preset's sample; open it on Yes.  True if the corpus changed."""
    sample = sample_to_offer(window, preset)
    if sample is None:
        return False
    answer = QtWidgets.QMessageBox.question(
        window, "Open the sample corpus?",
        f"The {preset} settings are made for a corpus like the bundled sample “{sample}”.\n\n"
        f"Open it as the corpus? (The settings are applied either way.)",
        QtWidgets.QMessageBox.StandardButton.Yes | QtWidgets.QMessageBox.StandardButton.No)
    if answer != QtWidgets.QMessageBox.StandardButton.Yes:
        return False
    window.load_sample(sample)
    return True


def install(window: Any) -> None:
    """Offer the sample whenever the user picks a preset in the settings pane."""
    combo: QtWidgets.QComboBox = window.settings.preset
    combo.activated.connect(lambda i: offer(window, combo.itemText(i)))
