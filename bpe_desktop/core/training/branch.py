"""Branch a run at step k: keep its first k merges, continue with changed settings ("what if…").

A branch starts from the state at step k of a source run, rebuilt by *replaying* the source's first k merges
on the same word counts (:meth:`~.trainer.Trainer.replay`: no ranking, the time of k merges), then trains on
under the new settings.  What may change: the tie-break rule, the merge budget or target vocabulary, the
minimum frequency, the forbidden pairs and the forbid pattern.  What may not: the mode, the pre-tokenizer,
the end-of-word marker (and whether it is glued) and the special tokens -- they change the words themselves,
so the first k merges would not be the same merges; :func:`needs_restart` says so as a typed answer.

The first k merges are kept as they are, even when the new settings would not have made them (a forbidden
pair among them stays; a count below the new minimum frequency stays).  After them, the branch makes exactly
the merges a fresh run under the new settings makes once its first k merges coincide with the source's --
the trainer's state after a replay is the state after training (tests: ``tests/core/training/test_branch.py``).

The corpus must be the source's: the replay refuses a merge that does not occur, and when the source's
records are known each replayed merge must reproduce them (count, occurrences merged, symbols after, words
touched); the branch then keeps the source's records (contenders included) for its first k merges.

Everything here is plain and picklable.  A window branches at step k of the run it shows with
``BranchPoint.from_model(model, k, records)``, asks :func:`needs_restart` before offering the branch, and
hands the point, the :class:`~.config.TrainConfig` and the corpus to its worker process, which counts the
corpus, calls :func:`start_branch` (progress and cancel between slices of the replay), sends
``branch.records`` and then the trainer's records as usual.  :func:`config_changes` lists what a branch
changed (to name it); :func:`kept_forbidden` the kept merges the new forbids name (they stay).  This
module does not read files (the CLI loads the source with :mod:`.formats`) nor
decide which run a window shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, NamedTuple

from ..choices import Mode
from ..config import TrainConfig
from ..counting.pieces import CancelFn, ProgressFn, WordCounts
from ..errors import Cancelled, ConfigError, CorpusError
from ..forbid import ForbidRule
from ..records import MergeRecord
from ..text.byte_level import UNICODE_TO_BYTE
from ..text.pretokenize import Pretokenizer
from ..tokenizers.model import BPEModel, token_text
from .trainer import Trainer

#: settings a branch cannot change (they change the words, so the run restarts from step 0)
RESTART_SETTINGS = ("mode", "pretokenizer", "end_of_word", "glue_marker", "specials")
#: merges replayed between two progress reports / cancel checks
REPLAY_SLICE = 256


class SettingChange(NamedTuple):
    """One setting that differs between two runs (values as the settings pane writes them)."""

    name: str
    before: str
    after: str


@dataclass(frozen=True)
class NeedsRestart:
    """The typed answer "this change cannot branch at step k: train from 0 instead"."""

    step: int
    changes: tuple[SettingChange, ...]

    @property
    def message(self) -> str:
        what = ", ".join(f"{c.name} {c.before} -> {c.after}" for c in self.changes)
        return (
            f"cannot branch at step {self.step}: {what} changes the words the merges work on -- keep "
            f"{'that setting' if len(self.changes) == 1 else 'those settings'} to branch, or train from step 0"
        )


@dataclass(frozen=True)
class BranchPoint:
    """Where a branch starts: a source run's settings that fix the words, and its first k merges.

    ``pairs`` are the merges as display text (``("Ġ", "t")`` in bytes mode); ``records`` the source's records
    of those merges when known (then checked and kept), else empty; ``base`` the source's base symbols.
    """

    mode: Mode
    pretokenizer: str
    end_of_word: str
    glue_marker: bool
    specials: tuple[str, ...]
    base: tuple[str, ...]
    pairs: tuple[tuple[str, str], ...]
    records: tuple[MergeRecord, ...] = ()

    def __post_init__(self) -> None:
        if self.records and len(self.records) != len(self.pairs):
            raise ConfigError(f"a branch point of {len(self.pairs)} merges got {len(self.records)} records")

    @property
    def step(self) -> int:
        return len(self.pairs)

    @classmethod
    def from_model(cls, model: BPEModel, k: int, records: Sequence[MergeRecord] = ()) -> BranchPoint:
        """Step *k* of the run that made *model* (*records*: its records, at least the first *k*, or none).

        >>> from bpe_desktop.core import TrainConfig, train
        >>> model, recs = train({"low": 5, "lower": 2}, TrainConfig(merges=3))
        >>> BranchPoint.from_model(model, 2, recs).pairs
        (('l', 'o'), ('lo', 'w'))
        """
        n = len(model.merges)
        if not 0 <= k <= n:
            raise ConfigError(f"cannot branch at step {k}: the run has merges 0 to {n} -- choose a step in that range")
        kept = tuple(records[:k]) if len(records) >= k else ()
        return cls(
            mode=model.mode, pretokenizer=model.pretokenizer, end_of_word=model.end_of_word,
            glue_marker=model.glue_marker, specials=tuple(model.specials),
            base=tuple(token_text(t) for t in model.base), pairs=tuple(model.merge_pairs_text()[:k]),
            records=kept,
        )


class Branch(NamedTuple):
    """A trainer standing at step k, ready to continue, and the records of its first k merges."""

    trainer: Trainer
    records: list[MergeRecord]


def _pattern(spec: str) -> str | None:
    return Pretokenizer.from_spec(spec).pattern


def needs_restart(point: BranchPoint, config: TrainConfig) -> NeedsRestart | None:
    """``None`` when *config* can branch at *point*, else which settings force a restart from step 0.

    >>> from bpe_desktop.core import TrainConfig, train
    >>> model, _ = train({"low": 5}, TrainConfig(merges=2))
    >>> point = BranchPoint.from_model(model, 1)
    >>> needs_restart(point, TrainConfig(tie_break="hf", min_frequency=3)) is None
    True
    >>> needs_restart(point, TrainConfig(mode="bytes", pretokenizer="whitespace")).changes
    (SettingChange(name='mode', before=<Mode.CHARS: 'chars'>, after=<Mode.BYTES: 'bytes'>),)
    """
    changes: list[SettingChange] = []
    if point.mode != config.mode:
        changes.append(SettingChange("mode", point.mode, config.mode))
    if _pattern(point.pretokenizer) != _pattern(config.pretokenizer):
        changes.append(SettingChange("pretokenizer", point.pretokenizer, config.pretokenizer))
    if config.mode == point.mode == Mode.CHARS:
        if point.end_of_word != config.marker:
            changes.append(SettingChange("end_of_word", repr(point.end_of_word), repr(config.marker)))
        elif config.marker and point.glue_marker != config.glue_marker:
            changes.append(SettingChange("glue_marker", str(point.glue_marker), str(config.glue_marker)))
    if tuple(point.specials) != tuple(config.specials):
        changes.append(SettingChange("specials", " ".join(point.specials) or "none",
                                     " ".join(config.specials) or "none"))
    return NeedsRestart(point.step, tuple(changes)) if changes else None


def config_changes(before: TrainConfig, after: TrainConfig) -> tuple[SettingChange, ...]:
    """Every setting that differs between two configs, in field order (to name a branch by what it changed).

    >>> [c.name for c in config_changes(TrainConfig(merges=10), TrainConfig(merges=20, forbid=(("e", "s"),)))]
    ['merges', 'forbid']
    """
    out = []
    for f in fields(TrainConfig):
        a, b = getattr(before, f.name), getattr(after, f.name)
        if a != b:
            out.append(SettingChange(f.name, str(a), str(b)))
    return tuple(out)


def records_from_stats(model: BPEModel, stats: Sequence[Mapping[str, Any]]) -> list[MergeRecord]:
    """The records a native file stored (its ``stats``, one dict per merge), or ``[]`` if they do not fit."""
    if len(stats) != len(model.merges):
        return []
    tokens = model.tokens
    out = []
    try:
        for k, ((a, b), c, st) in enumerate(zip(model.merges, model.merge_token_ids, stats, strict=True), 1):
            out.append(MergeRecord(
                rank=k, left=token_text(tokens[a]), right=token_text(tokens[b]), token=token_text(tokens[c]),
                left_id=a, right_id=b, token_id=c, count=int(st["count"]), merged=int(st["merged"]),
                symbols_after=int(st["symbols_after"]), vocab_size=int(st["vocab_size"]),
                words_touched=int(st["words_touched"]),
                contenders=tuple((str(x), str(y), int(n)) for x, y, n in st.get("contenders", ())),
            ))
    except (KeyError, TypeError, ValueError):
        return []
    return out


def start_branch(
    word_counts: WordCounts | Mapping[str, int], config: TrainConfig, point: BranchPoint, *,
    progress: ProgressFn | None = None, cancel: CancelFn | None = None,
) -> Branch:
    """A trainer at step ``point.step`` of the source run, continuing under *config*.

    The replay runs in slices of :data:`REPLAY_SLICE` merges, reporting ``progress("replaying", done, k)``
    and polling *cancel* (it raises :class:`Cancelled`) between them.  Raises :class:`ConfigError` when
    *config* needs a restart or its budget ends before step k, and :class:`CorpusError` when the corpus is
    not the source's.

    >>> from bpe_desktop.core import TrainConfig, train
    >>> table = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    >>> model, recs = train(table, TrainConfig(merges=4))
    >>> point = BranchPoint.from_model(model, 3, recs)  # after e+s, es+t, est+</w>; merge 4 was l+o
    >>> branch = start_branch(table, TrainConfig(merges=5, forbid=(("l", "o"),)), point)
    >>> branch.records == recs[:3], [(r.left, r.right, r.count) for r in branch.trainer]
    (True, [('o', 'w', 7), ('l', 'ow', 7)])
    """
    restart = needs_restart(point, config)
    if restart is not None:
        raise ConfigError(restart.message)
    k = point.step
    if config.merges is not None and config.merges < k:
        raise ConfigError(f"a budget of {config.merges} merges ends before the branch step {k} -- "
                          f"ask for {k} merges or more")
    trainer = Trainer(word_counts, config)
    if tuple(trainer.texts[: trainer.model.n_base]) != point.base:
        extra = sorted(set(trainer.texts[: trainer.model.n_base]) ^ set(point.base))[:5]
        raise CorpusError(
            f"this corpus has other characters than the source run's (differing: {' '.join(extra)}) -- branch "
            "on the corpus the source was trained on, or train from 0"
        )
    if point.records and trainer.total_symbols != point.records[0].symbols_before:
        raise CorpusError(
            f"this corpus has {trainer.total_symbols:,} symbols, the source run's had "
            f"{point.records[0].symbols_before:,} -- branch on the corpus the source was trained on, or train from 0"
        )
    replayed: list[MergeRecord] = []
    for i in range(0, k, REPLAY_SLICE):
        if cancel is not None and cancel():
            raise Cancelled()
        replayed += trainer.replay(point.pairs[i : i + REPLAY_SLICE])
        if progress is not None:
            progress("replaying", len(replayed), k)
        for mine, theirs in zip(replayed[i:], point.records[i : i + REPLAY_SLICE], strict=False):
            if replace(theirs, contenders=()) != mine:
                diff = next(f.name for f in fields(MergeRecord) if getattr(mine, f.name) != getattr(theirs, f.name))
                raise CorpusError(
                    f"merge {mine.rank} ({mine.left} {mine.right}) has {diff} {getattr(mine, diff)} on this corpus, "
                    f"{getattr(theirs, diff)} in the source run -- branch on the corpus the source was trained on, "
                    "or train from 0"
                )
    if config.vocab_size is not None and trainer.vocab_size > config.vocab_size:
        raise ConfigError(f"a target vocabulary of {config.vocab_size} is smaller than the {trainer.vocab_size} "
                          f"tokens at the branch step {k} -- ask for {trainer.vocab_size} or more")
    return Branch(trainer, list(point.records) if point.records else replayed)


def kept_forbidden(point: BranchPoint, config: TrainConfig) -> list[tuple[int, tuple[str, str]]]:
    """The kept merges (rank 1..k) that *config* forbids: a branch keeps them, so forbidding them changes nothing.

    >>> from bpe_desktop.core import TrainConfig, train
    >>> model, recs = train({"low": 5, "lower": 2}, TrainConfig(merges=3))
    >>> kept_forbidden(BranchPoint.from_model(model, 2, recs), TrainConfig(forbid=(("l", "o"), ("e", "r"))))
    [(1, ('l', 'o'))]
    """
    rule = ForbidRule.from_settings(config.forbid, config.forbid_regex)
    if rule is None:
        return []
    found = []
    for rank, (left, right) in enumerate(point.pairs, 1):
        text = left + right
        token: str | bytes = bytes(UNICODE_TO_BYTE[ch] for ch in text) if point.mode == Mode.BYTES else text
        if rule.blocks(left, right, token):
            found.append((rank, (left, right)))
    return found
