"""Named training settings offered in the settings panel, and the sample corpora of the File menu.

Plain data (no Qt): a preset is a :class:`TrainConfig`; a sample is a name and a function returning text.
Presets change settings only, samples the corpus only; :data:`PRESET_SAMPLES` names the sample a preset is
about (choosing "Robot logs" offers the robot-log sample).
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.choices import Mode, TieBreak
from ..core.config import TrainConfig
from . import resources

#: the settings of the seeds' worked example: four words, seven merges, lexical ties
SEED_CONFIG = TrainConfig(mode=Mode.CHARS, pretokenizer="whitespace", end_of_word="</w>", tie_break=TieBreak.LEXICAL,
                          merges=7)

PRESETS: dict[str, TrainConfig] = {
    "Seed worked example": SEED_CONFIG,
    "GPT-2 style": TrainConfig(mode=Mode.BYTES, pretokenizer="gpt2", tie_break=TieBreak.HF, merges=2000),
    "Robot logs": TrainConfig(mode=Mode.BYTES, pretokenizer="cl100k", tie_break=TieBreak.HF, merges=1000,
                              min_frequency=2),
}

SEED_SAMPLE = "Seed word counts (low, lower, newest, widest)"
ROBOT_SAMPLE = "Robot logs (200 KB sample)"
PROSE_SAMPLE = "English prose (Python's documentation)"
CODE_SAMPLE = "Python source (standard library)"

#: sample corpora: name -> (loader, is a word-count table)
SAMPLES: dict[str, tuple[Callable[[], str], bool]] = {
    SEED_SAMPLE: (lambda: resources.read_text(resources.SEED_TABLE), True),
    ROBOT_SAMPLE: (lambda: resources.read_text(resources.ROBOT_LOGS), False),
    PROSE_SAMPLE: (resources.python_docs_text, False),
    CODE_SAMPLE: (resources.python_source_text, False),
}

#: the sample corpus a preset is about (offered when the preset is chosen on another corpus)
PRESET_SAMPLES: dict[str, str] = {"Seed worked example": SEED_SAMPLE, "Robot logs": ROBOT_SAMPLE}


def preset_matching(config: TrainConfig) -> str | None:
    """The name of the preset equal to *config*, if any."""
    for name, cfg in PRESETS.items():
        if cfg == config:
            return name
    return None
