"""The per-merge record the trainer emits: a small, plain, picklable value streamed to the GUI.

It holds what one merge did (pair, counts, corpus size after it) and which pairs competed with it, so a
view can explain the choice.  It carries display text, not model data: the merge list itself lives in
:class:`bpe_desktop.core.tokenizers.model.BPEModel`.
"""

from __future__ import annotations

from dataclasses import dataclass

#: how many runner-up pairs each record carries (for the "why this merge" explanation)
CONTENDERS = 6

#: the columns of ``--steps`` CSV files, in order
STEP_COLUMNS = (
    "rank", "left", "right", "token", "count", "merged", "symbols_after", "vocab_size", "words_touched",
)


@dataclass(frozen=True, slots=True)
class MergeRecord:
    """One merge. ``rank`` is 1-based: after this merge the timeline is at step ``rank``.

    ``count`` is the pair's weighted count with overlaps (the seeds' formula, what the rule ranks by);
    ``merged`` the occurrences actually replaced left to right, so ``symbols_after`` is exactly
    ``symbols_before - merged``.  ``contenders`` are the next pairs the rule would have picked, best first,
    as ``(left, right, count)``.
    """

    rank: int
    left: str
    right: str
    token: str
    left_id: int
    right_id: int
    token_id: int
    count: int
    merged: int
    symbols_after: int
    vocab_size: int
    words_touched: int
    contenders: tuple[tuple[str, str, int], ...] = ()

    @property
    def symbols_before(self) -> int:
        return self.symbols_after + self.merged

    @property
    def ties(self) -> tuple[tuple[str, str], ...]:
        """The other pairs that had the winning count (as far as ``contenders`` reaches)."""
        return tuple((a, b) for a, b, c in self.contenders if c == self.count)

    def row(self) -> tuple[object, ...]:
        """The values of :data:`STEP_COLUMNS`."""
        return tuple(getattr(self, name) for name in STEP_COLUMNS)


def explain(record: MergeRecord, tie_break: str) -> str:
    """One sentence saying why this pair won, the way the seeds do.

    >>> r = MergeRecord(1, "e", "s", "es", 0, 0, 0, 9, 9, 86, 1, 2, (("s", "t", 9), ("t", "</w>", 9)))
    >>> explain(r, "lexical")
    'e+s, s+t and t+</w> tie at 9; the lexical rule takes e+s.'
    """
    win = f"{record.left}+{record.right}"
    ties = [f"{a}+{b}" for a, b in record.ties]
    rule = {
        "lexical": "the lexical rule takes",
        "first-seen": "the first-seen rule takes the earliest in the corpus,",
        "hf": "the HF rule takes the smallest symbol ids,",
        "subword-nmt": "the subword-nmt rule takes the largest pair,",
    }.get(tie_break, "the rule takes")
    if ties:
        names = [win, *ties]
        listed = ", ".join(names[:-1]) + " and " + names[-1]
        more = " (and maybe more)" if len(ties) == len(record.contenders) >= CONTENDERS else ""
        return f"{listed} tie at {record.count}{more}; {rule} {win}."
    if record.contenders:
        a, b, c = record.contenders[0]
        return f"{win} has the highest count, {record.count}; the runner-up is {a}+{b} with {c}."
    return f"{win} is the only pair left, with count {record.count}."
