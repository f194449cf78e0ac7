"""Small Qt-free helpers that keep the window's sentences true: counts with the right noun form, rates only
over a real interval, and why a finished run cannot be continued (from its :class:`StopReason`).

It leaves out where a sentence is shown (the panes) and translations.
"""

from __future__ import annotations

from ..core.stopping import StopReason

#: a rate needs at least this long a window and this many merges in it before it is shown
MIN_RATE_INTERVAL_S = 0.5
MIN_RATE_MERGES = 2


def plural(n: int, noun: str, plural_noun: str | None = None) -> str:
    """'1 merge', '2 merges', '1,000 merges' (thousands separated)."""
    return f"{n:,} {noun if n == 1 else plural_noun or noun + 's'}"


def rate(merges: int, seconds: float) -> float | None:
    """Merges per second over a window, or None when the window is too short or too thin to mean anything
    (one Step after a pause is not a rate)."""
    if seconds < MIN_RATE_INTERVAL_S or merges < MIN_RATE_MERGES:
        return None
    return merges / seconds


def rate_text(merges_per_s: float) -> str:
    """'12,345 merges/s', '1 merge/s'; '' for an unknown rate (0)."""
    if merges_per_s <= 0:
        return ""
    n = round(merges_per_s)
    return f"{n:,} merge/s" if n == 1 else f"{n:,} merges/s"


#: why a run whose trainer is gone cannot take more merges, by how it ended
_CANNOT_CONTINUE = {
    StopReason.STOPPED: "this run was stopped, so its training process has ended",
    StopReason.WORKER_DIED: "this run's training process died",
    StopReason.LOADED: "this tokenizer was opened from a file: there is no training process to continue",
    StopReason.NO_PAIR: "this run stopped because no pair was left to merge",
    StopReason.MIN_FREQUENCY: "this run stopped at the minimum frequency",
}


def cannot_continue(reason: StopReason | None, *, process_alive: bool) -> str:
    """Why Train further cannot extend a run that ended with *reason* ('' if it can)."""
    if reason is None:
        return "this run has not finished"
    if reason.can_continue:
        return "" if process_alive else ("the training process of this run has ended (it is closed when the "
                                         "corpus changes, to free its memory)")
    return _CANNOT_CONTINUE[reason]
