"""Named training settings offered in the settings panel, and the sample corpora of the File menu.

Plain data (no Qt): a preset is a :class:`TrainConfig`; a sample is a name and a function returning text.
Presets change settings only, never the corpus; samples change the corpus only.
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.config import TrainConfig
from . import resources

#: the settings of the seeds' worked example: four words, seven merges, lexical ties
SEED_CONFIG = TrainConfig(mode="chars", pretokenizer="whitespace", end_of_word="</w>", tie_break="lexical",
                          merges=7)

PRESETS: dict[str, TrainConfig] = {
    "Seed worked example": SEED_CONFIG,
    "GPT-2 style": TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=2000),
    "Robot logs": TrainConfig(mode="bytes", pretokenizer="cl100k", tie_break="hf", merges=1000,
                              min_frequency=2),
}

#: sample corpora: name -> (loader, is a word-count table)
SAMPLES: dict[str, tuple[Callable[[], str], bool]] = {
    "Seed word counts (low, lower, newest, widest)": (lambda: resources.read_text(resources.SEED_TABLE), True),
    "Robot logs (200 KB sample)": (lambda: resources.read_text(resources.ROBOT_LOGS), False),
    "Python documentation (pydoc topics)": (resources.python_docs_text, False),
}


def preset_matching(config: TrainConfig) -> str | None:
    """The name of the preset equal to *config*, if any."""
    for name, cfg in PRESETS.items():
        if cfg == config:
            return name
    return None
