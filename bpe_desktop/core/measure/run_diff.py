"""Compare two runs' merge lists: first divergence, merges only in A, only in B, same merge at another rank.

Merges are compared as pairs of display texts (``("Ġ", "t")`` in bytes mode), so any two tokenizer files can
be compared, whatever their format or ids.  A pair merged twice in one list (possible when two merges make
the same token string) is matched occurrence by occurrence: the n-th ``a b`` of A with the n-th of B.  The
settings that differ (mode, pre-tokenizer, marker, specials, tie-break) are listed alongside: merge lists of
different modes or pre-tokenizers differ for that reason alone.

This module only compares; reading files is :mod:`.formats`' job and printing the CLI's (``bpe-desktop diff``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..tokenizers.model import BPEModel
from ..training.branch import SettingChange

#: model settings shown side by side when they differ
COMPARED_SETTINGS = ("mode", "pretokenizer", "end_of_word", "glue_marker", "specials", "tie_break")


class RankedMerge(NamedTuple):
    """A merge of one list: its 1-based rank and its pair."""

    rank: int
    left: str
    right: str


class MovedMerge(NamedTuple):
    """A merge both lists make, at different ranks (1-based)."""

    left: str
    right: str
    rank_a: int
    rank_b: int


@dataclass(frozen=True)
class RunDiff:
    """How merge list B differs from merge list A (every tuple in rank order of its own list; moves by A)."""

    n_a: int
    n_b: int
    first_divergence: int | None  # first rank where the lists differ (or one ends); None: identical
    only_a: tuple[RankedMerge, ...]
    only_b: tuple[RankedMerge, ...]
    moved: tuple[MovedMerge, ...]
    settings: tuple[SettingChange, ...] = ()

    @property
    def identical(self) -> bool:
        """Same merges in the same order (settings may still differ: see :attr:`settings`)."""
        return self.first_divergence is None

    @property
    def common_prefix(self) -> int:
        """How many leading merges the two runs share (the step a branch would start from)."""
        return min(self.n_a, self.n_b) if self.first_divergence is None else self.first_divergence - 1

    def to_json(self) -> dict[str, Any]:
        return {
            "identical": self.identical, "merges_a": self.n_a, "merges_b": self.n_b,
            "first_divergence": self.first_divergence,
            "settings": [{"name": s.name, "a": s.before, "b": s.after} for s in self.settings],
            "only_a": [m._asdict() for m in self.only_a],
            "only_b": [m._asdict() for m in self.only_b],
            "moved": [m._asdict() for m in self.moved],
        }


def _keyed(pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str, int], int]:
    """(left, right, occurrence) -> 1-based rank."""
    seen: dict[tuple[str, str], int] = {}
    out = {}
    for r, (a, b) in enumerate(pairs, 1):
        n = seen[(a, b)] = seen.get((a, b), 0) + 1
        out[(a, b, n)] = r
    return out


def diff_merges(
    a: Sequence[tuple[str, str]], b: Sequence[tuple[str, str]], settings: tuple[SettingChange, ...] = ()
) -> RunDiff:
    """Compare two merge lists given as display-text pairs.

    >>> d = diff_merges([("e", "s"), ("l", "o"), ("x", "y")], [("l", "o"), ("e", "s"), ("p", "q")])
    >>> d.first_divergence, d.only_a, d.only_b
    (1, (RankedMerge(rank=3, left='x', right='y'),), (RankedMerge(rank=3, left='p', right='q'),))
    >>> [(m.left, m.rank_a, m.rank_b) for m in d.moved]
    [('e', 1, 2), ('l', 2, 1)]
    >>> diff_merges([("e", "s")], [("e", "s")]).identical
    True
    """
    a, b = [(x, y) for x, y in a], [(x, y) for x, y in b]
    first = next((r for r, (x, y) in enumerate(zip(a, b, strict=False), 1) if x != y), None)
    if first is None and len(a) != len(b):
        first = min(len(a), len(b)) + 1
    ka, kb = _keyed(a), _keyed(b)
    only_a = tuple(RankedMerge(r, k[0], k[1]) for k, r in ka.items() if k not in kb)
    only_b = tuple(RankedMerge(r, k[0], k[1]) for k, r in kb.items() if k not in ka)
    moved = tuple(MovedMerge(k[0], k[1], r, kb[k]) for k, r in ka.items() if k in kb and kb[k] != r)
    return RunDiff(len(a), len(b), first, only_a, only_b, moved, settings)


def _shown(value: object) -> str:
    if value is None:
        return "not stored"
    if isinstance(value, tuple):
        return " ".join(map(str, value)) or "none"
    return repr(value) if value == "" else str(value)


def settings_changes(a: BPEModel, b: BPEModel) -> tuple[SettingChange, ...]:
    """The :data:`COMPARED_SETTINGS` in which two models differ, values as text.

    >>> m = BPEModel(mode="bytes", base=[], specials=("<s>",), tie_break=None)
    >>> [tuple(c) for c in settings_changes(m, BPEModel(mode="bytes", base=[], tie_break="hf"))]
    [('specials', '<s>', 'none'), ('tie_break', 'not stored', 'hf')]
    """
    out = []
    for name in COMPARED_SETTINGS:
        x, y = getattr(a, name), getattr(b, name)
        if x != y:
            out.append(SettingChange(name, _shown(x), _shown(y)))
    return tuple(out)


def diff_models(a: BPEModel, b: BPEModel) -> RunDiff:
    """Compare two models' merge lists and settings."""
    return diff_merges(a.merge_pairs_text(), b.merge_pairs_text(), settings_changes(a, b))
