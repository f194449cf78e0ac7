"""Why a training run ended, as a value: :class:`StopReason` and whether such a run can continue.

The trainer sets one beside its human-readable ``stop_reason`` sentence; the GUI adds the reasons that only
a window has (the user stopped the run, the worker process died, the model was opened from a file).  It
leaves out the sentences themselves (they carry numbers: "reached 700 merges") and deciding what to do.
"""

from __future__ import annotations

from enum import Enum


class StopReason(Enum):
    """Why a run ended.  Only the limits leave a trainer that can take further merges."""

    MERGES = "merges"  # reached the merge limit
    VOCAB_SIZE = "vocab-size"  # reached the vocabulary-size limit
    NO_PAIR = "no-pair"  # every word is one symbol
    MIN_FREQUENCY = "min-frequency"  # the best pair is rarer than the minimum frequency
    STOPPED = "stopped"  # asked to stop (Stop button, new run, window closing)
    WORKER_DIED = "worker-died"  # the training process ended without saying why
    LOADED = "loaded"  # no run: the model was opened from a file

    @property
    def can_continue(self) -> bool:
        """A run that stopped at a limit can take more merges from the same trainer (Train further)."""
        return self in (StopReason.MERGES, StopReason.VOCAB_SIZE)
