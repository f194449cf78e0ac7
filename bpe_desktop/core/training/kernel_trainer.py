"""The trainer on the compiled kernel, and the one place that decides which path trains.

:class:`KernelTrainer` is a :class:`~.trainer.Trainer` whose hot state -- the words as runs of int32 ids in
one buffer, the pair counts in an open-addressing hash, the pair-to-word index as int32 vectors (a word once
per pair), the lazy heap and its set-aside runner-ups -- lives in the C extension ``_kernel``
(``_kernel.c``), a port of the pure trainer's ``_ranked``/``step``/``_merge``.  Python keeps the model, the
token texts, the records, the limits and the stop messages (shared with the pure trainer), and the forbid
rule, which the kernel calls once per distinct pair that reaches the top.  Its records are identical to
the pure path's, field for field (tests: ``tests/core/training/test_kernel.py``).  For a caller that wants
no say between merges (``bpe-desktop train``), :meth:`KernelTrainer.run_into` lets the kernel make
:data:`BATCH` merges per call, doing that bookkeeping in C and writing each record as a
:class:`~..records.RecordLog` row (``test_kernel_batched.py``).

:func:`uses_kernel` decides: the kernel runs when it is built, the tie rule is one it has (``hf``,
``lexical``, ``subword-nmt``; ``first-seen``, whose order changes as words are rewritten, stays pure), and
neither ``pure=True`` nor the environment variable ``BPE_DESKTOP_PURE=1`` asks for pure Python.  The pure
trainer stays the definition and the fallback; this module does not count corpora or write files.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Mapping
from itertools import islice
from types import ModuleType

from ..choices import Mode, TieBreak
from ..config import TrainConfig
from ..counting.parted import PartedCounts
from ..counting.pieces import WordCounts
from ..errors import ConfigError
from ..forbid import ForbidRule
from ..records import CONTENDERS, MergeRecord, RecordLog
from ..tokenizers.model import BPEModel, Token, token_text
from .pair_index import word_strings
from .trainer import Trainer
from .trainer_base import too_many_tokens

#: set to 1 to run the pure-Python trainer even when the kernel is built
PURE_ENV = "BPE_DESKTOP_PURE"
#: the kernel's number for each tie rule it implements
KERNEL_RULES = {TieBreak.HF: 0, TieBreak.LEXICAL: 1, TieBreak.SUBWORD_NMT: 2}
_CHUNK = 1 << 16  # words handed to the kernel per call (bounds the temporary strs)
#: merges per kernel call in run_into (its records are written in C; progress and Ctrl-C come between calls)
BATCH = 256
_NO_PAIR, _BELOW, _TOO_MANY, _RAISED = 1, 2, 3, 4  # Kernel.run's stops, besides 0 (a limit)


def _load() -> tuple[ModuleType | None, str]:
    try:
        from . import _kernel
    except ImportError:
        return None, "the compiled training kernel is not built"
    if _kernel.CONTENDERS != CONTENDERS:
        return None, "the compiled training kernel is out of date (rebuild it: python setup.py build_ext --inplace)"
    return _kernel, ""


_KERNEL, _WHY_NOT = _load()


def kernel_built() -> bool:
    """Whether the compiled kernel can be imported (a compiler was there when this package was built)."""
    return _KERNEL is not None


def pure_python_note() -> str | None:
    """One line saying training runs in pure Python because the kernel is not built, or ``None`` if it is."""
    if _KERNEL is not None:
        return None
    return (f"note: {_WHY_NOT} (it needs a C compiler when installing): training runs in pure Python -- "
            "same merges, slower")


def path_name(config: TrainConfig, pure: bool | None = None) -> str:
    """Which path trains *config*: ``"compiled kernel"`` or ``"pure Python"`` (with why, when not the kernel)."""
    if uses_kernel(config, pure):
        return "compiled kernel"
    if _KERNEL is None:
        return f"pure Python ({_WHY_NOT})"
    if config.tie_break not in KERNEL_RULES:
        return f"pure Python (the {config.tie_break} tie rule has no kernel)"
    return "pure Python (asked for)"


def uses_kernel(config: TrainConfig, pure: bool | None = None) -> bool:
    """Whether a :class:`~.trainer.Trainer` for *config* runs on the kernel (the one place that decides).

    *pure*: ``True`` forces pure Python, ``False`` the kernel (a :class:`ConfigError` when it cannot run
    *config*), ``None`` the kernel where it can, unless ``BPE_DESKTOP_PURE=1`` is set.
    """
    if pure:
        return False
    can = _KERNEL is not None and config.tie_break in KERNEL_RULES
    if pure is False and not can:
        why = _WHY_NOT if _KERNEL is None else f"the {config.tie_break} tie rule has no kernel"
        raise ConfigError(f"cannot train on the compiled kernel: {why} -- train in pure Python (pure=None)")
    if pure is None and os.environ.get(PURE_ENV, "") not in ("", "0"):
        return False
    return can


class KernelTrainer(Trainer):
    """A :class:`~.trainer.Trainer` whose pair counts, index, heap and words live in the compiled kernel.

    Made by ``Trainer(...)`` when :func:`uses_kernel` says so; same API, same records.

    >>> t = Trainer({"low": 5, "lower": 2, "newest": 6, "widest": 3}, TrainConfig(merges=3), pure=False)
    >>> type(t).__name__, [(r.left, r.right, r.count) for r in t]
    ('KernelTrainer', [('e', 's', 9), ('es', 't', 9), ('est', '</w>', 9)])
    """

    def __init__(
        self, word_counts: WordCounts | Mapping[str, int], config: TrainConfig, *, release: bool = False,
        pure: bool | None = None,
    ) -> None:
        for _ in self._filling(word_counts, config, release=release):
            pass

    @classmethod
    def filling(cls, word_counts: WordCounts | Mapping[str, int],
                config: TrainConfig) -> Generator[int, None, KernelTrainer]:
        """Build a trainer a part at a time: a generator yielding the pieces taken so far after every part of
        the table (bytes mode; a chunk of :data:`_CHUNK` pieces in chars mode); its last value is the trainer.
        (For a caller that reads a pipe between the parts: the statistics process.)  The table is kept."""
        t = object.__new__(cls)  # (not Trainer.__new__: the path is decided, this is the kernel's)
        yield from t._filling(word_counts, config, release=False)
        return t

    def _filling(self, word_counts: WordCounts | Mapping[str, int], config: TrainConfig, *,
                 release: bool) -> Generator[int, None, None]:
        assert _KERNEL is not None
        table = word_counts.counts if isinstance(word_counts, WordCounts) else dict(word_counts)
        self.config = config
        alphabet: set[str] = set()
        if config.mode == Mode.CHARS:
            items = iter(table.items())
            while chunk := list(islice(items, _CHUNK)):
                alphabet.update("".join(w for w, c in chunk if c > 0))
        self.model = BPEModel.empty(config, alphabet)
        self.tokens: list[Token] = list(self.model.base)
        self.ids: dict[Token, int] = {t: i for i, t in enumerate(self.tokens)}
        self.texts: list[str] = [token_text(t) for t in self.tokens]
        self._kernel = kernel = _KERNEL.Kernel(KERNEL_RULES[TieBreak(config.tie_break)], self.tokens)
        total = taken = 0
        if config.mode == Mode.BYTES:  # pair_index.word_strings' mapping, done in C: no temporary str per piece
            byte_ids = bytes(self.ids[bytes([i])] for i in range(256))
            parts: tuple[dict[str, int], ...]  # (add_table takes dicts: a parted table's parts go in turn)
            if isinstance(table, PartedCounts):
                parts = table.parts
            else:
                parts = (table if isinstance(table, dict) else dict(table),)
            for part in parts:
                total += kernel.add_table(part, byte_ids)
                taken += len(part)
                yield taken
        else:
            items = iter(table.items())
            while chunk := list(islice(items, _CHUNK)):
                kept = [(w, c) for w, c in chunk if c > 0 and w]
                total += kernel.add_words(word_strings([w for w, _ in kept], self.ids, config), [c for _, c in kept])
                taken += len(chunk)
                yield taken
            del chunk
        if release and isinstance(table, dict):
            table.clear()
        kernel.build()
        self.total_symbols = self.initial_symbols = total
        self.stop_reason = None
        self.stopped_by = None
        self.word_visits = 0
        self._forbid = ForbidRule.from_settings(config.forbid, config.forbid_regex)

    @property
    def pair_counts(self) -> dict[tuple[int, int], int]:
        return self._kernel.pair_counts()

    @property
    def words(self) -> list[list[int]]:
        return self._kernel.words()

    @property
    def wcounts(self) -> list[int]:  # type: ignore[override]
        """Every distinct word's count (first-seen order; a fresh list)."""
        return self._kernel.word_counts()

    @property
    def forbidden_pairs(self) -> list[tuple[str, str, int]]:
        t = self.texts
        met = [(t[a], t[b], n) for a, b, n in self._kernel.forbidden() if n > 0]
        return sorted(met, key=lambda m: -m[2])

    def step(self) -> MergeRecord | None:
        if self._at_limit():
            return None
        got = self._kernel.step(self.config.min_frequency, self._forbids if self._forbid is not None else None)
        if got is None:
            self._stop_no_pair()
            return None
        a, b, count, best = got
        if best is None:
            self._stop_below(count)
            return None
        t = self.texts
        return self._merge_ids(a, b, count, tuple([(t[x], t[y], n) for x, y, n in best]))

    def run_into(self, log: RecordLog, progress: Callable[[int], None] | None = None) -> None:
        """:meth:`TrainerBase.run_into`: with a log numbered by this trainer's ids, :data:`BATCH` merges per
        kernel call, whose records the kernel writes as the log's rows (``Kernel.run``); else one at a time."""
        if not log.numbered_by(self.texts):
            super().run_into(log, progress)
            return
        cfg, kernel, specials = self.config, self._kernel, len(self.config.specials)
        blocked = self._forbids if self._forbid is not None else None
        while not self._at_limit():
            limit = BATCH if cfg.merges is None else min(BATCH, cfg.merges - self.n_merges)
            max_vocab = cfg.vocab_size if cfg.vocab_size is not None else 1 << 62
            *rows, status, count, self.total_symbols = kernel.run(
                limit, max_vocab, specials, cfg.min_frequency, blocked, self.tokens, self.texts, self.ids,
                self.model.merges, self.total_symbols, log.n_contenders)
            log.extend_rows(*rows)
            self.model.invalidate()
            self.word_visits = kernel.word_visits
            if progress is not None:
                progress(self.n_merges)
            if status == _NO_PAIR:
                self._stop_no_pair()
                return
            if status == _BELOW:
                self._stop_below(count)
                return
            if status == _TOO_MANY:
                raise too_many_tokens()
            if status == _RAISED:  # before a merge (the forbid rule): the merges made are in the log
                assert isinstance(count, BaseException)
                raise count

    def _live_count(self, a: int, b: int) -> int:
        return self._kernel.count(a, b)

    def _merge_ids(self, a: int, b: int, count: int, contenders: tuple[tuple[str, str, int], ...]) -> MergeRecord:
        c = self._new_token(a, b)
        merged, touched = self._kernel.merge(a, b, c, self.tokens[c])
        self.word_visits = self._kernel.word_visits
        return self._record(a, b, c, count, merged, touched, contenders)

    def segmentation(self) -> list[tuple[list[Token], int]]:
        t = self.tokens
        return [([t[i] for i in w], c) for w, c in zip(self._kernel.words(), self._kernel.word_counts(), strict=True)]

    def memory(self) -> dict[str, int]:
        """Bytes the kernel holds, by part (symbols, words, pairs, index, heap, tokens; capacities)."""
        return self._kernel.nbytes()
