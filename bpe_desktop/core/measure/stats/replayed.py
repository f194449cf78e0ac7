"""Zipf data at any step of a growing merge list, from the compiled trainer replayed over the word counts.

:class:`~.history.SegmentationHistory` keeps every word's every segmentation as Python objects: on millions of
distinct pieces that is gigabytes, and the early merges (each rewriting hundreds of thousands of pieces) go at
about one a second.  :class:`ReplayedCounts` keeps the word counts and one compiled trainer
(:class:`~...training.kernel_trainer.KernelTrainer`) over them instead.  It replays the merge list forward as
the list grows (``Trainer.replay_ids``: no ranking), and answers the Zipf question at the trainer's current step
from its live pair counts.  It keeps the pair counts of the steps it reported last (:meth:`snapshot`: the window
asks for the step it was told of, by when the trainer has moved on); another earlier step rebuilds a second
trainer from the counts and replays it up to that step.  Its answers are
:meth:`SegmentationHistory.zipf`'s: the same ids, counts, labels and order
of equal counts, as both go through :func:`~.results.zipf_from_counts`.

It covers what the kernel trains (:func:`kernel_config`; :meth:`ReplayedCounts.building` returns False for the
rest, whose history stays :class:`~.history.SegmentationHistory`), and only the Zipf data: the compression and
trade-off curves come from the training records.  It leaves out where the merges and counts come from.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ...choices import ByteIds, Mode
from ...config import TrainConfig
from ...counting.pieces import WordCounts
from ...errors import ConfigError
from ...tokenizers.model import RAW_BYTE_BASE, BPEModel, Token, chars_base, token_text
from ...training.kernel_trainer import KernelTrainer, uses_kernel
from .results import Pair, ZipfData, ZipfView, view_from_counts, zipf_from_counts
from .slicing import Job

TOTALS_CHUNK = 4096  # pieces per unit of the corpus totals' pass


def kernel_config(model: BPEModel) -> TrainConfig | None:
    """The training settings that rebuild *model*'s base on the compiled kernel, or ``None`` when
    :func:`uses_kernel` refuses them (a tie rule it lacks, the kernel not built, ``BPE_DESKTOP_PURE=1``)."""
    if model.tie_break is None:  # (a model read from a file may not say: the kernel needs a rule to exist)
        return None
    raw = model.mode == Mode.BYTES and list(model.base) == list(RAW_BYTE_BASE)
    try:
        config = TrainConfig(mode=model.mode, pretokenizer=model.pretokenizer, end_of_word=model.end_of_word,
                             glue_marker=model.glue_marker, tie_break=model.tie_break,
                             byte_ids=ByteIds.RAW if raw else ByteIds.GPT2)
    except (ConfigError, ValueError):
        return None
    return config if uses_kernel(config) else None


class ReplayedCounts:
    """A corpus's word counts and a compiled trainer over them, following *model*'s (growing) merge list.

    Make it, run :meth:`building` (False: not the kernel's case), then :meth:`extending` as merges come and
    :meth:`zipf_steps` for a question.  Do not run two of its jobs at once.
    """

    SNAPSHOTS = 1  # pair-count tables kept (one of a big corpus is every pair there: millions of them)

    def __init__(self, counts: Mapping[str, int], model: BPEModel) -> None:
        self.counts = counts  # (kept: a step behind the trainer's rebuilds from them)
        self.model = model  # its merges may grow; read again by every job
        self.config = kernel_config(model)
        self.trainer: KernelTrainer | None = None
        self.built = 0  # pieces whose pairs the first build has counted
        self.n_words = self.n_bytes = 0  # the corpus's pieces and their bytes, with multiplicity
        self.reached = 0  # the furthest step the trainer has been at (every step up to it is answerable)
        self._snapshots: dict[int, dict[Pair, int]] = {}  # step -> pair counts (see snapshot)
        self._back: KernelTrainer | None = None  # the trainer of the last earlier step asked for

    @property
    def n_merges(self) -> int:
        """Steps answerable (the furthest step replayed): :meth:`zipf_steps` of any step up to it is exact."""
        return self.reached

    @property
    def pending(self) -> int:
        """Merges of the model not replayed yet."""
        return max(0, len(self.model.merges) - self.reached)

    def building(self) -> Job[bool]:
        """Count the corpus's totals and build the trainer, yielding between units; False (and nothing built)
        when the kernel does not cover this model or corpus (its base is not the one the corpus gives)."""
        config = self.config
        if config is None:
            return False
        n_words = n_bytes = 0
        alphabet: set[str] = set()
        chars = config.mode == Mode.CHARS
        for n, (w, c) in enumerate(self.counts.items(), 1):
            if n % TOTALS_CHUNK == 0:
                yield
            if c > 0 and w:
                n_words += c
                n_bytes += len(w.encode("utf-8", "surrogateescape")) * c
                if chars:
                    alphabet.update(w)
        base = (chars_base(alphabet, config.end_of_word, config.glue_marker) if chars
                else BPEModel.empty(config).base)
        if list(base) != list(self.model.base):
            return False
        self.n_words, self.n_bytes = n_words, n_bytes
        self.trainer = yield from self._fresh(progress=True)
        return True

    def _fresh(self, progress: bool = False) -> Job[KernelTrainer]:
        assert self.config is not None
        fill = KernelTrainer.filling(WordCounts(self.counts), self.config)
        while True:
            try:
                taken = next(fill)
            except StopIteration as stop:
                trainer: KernelTrainer = stop.value
                return trainer
            if progress:
                self.built = taken
            yield

    def _replay_next(self, trainer: KernelTrainer) -> None:
        trainer.replay_ids([self.model.merges[trainer.n_merges]])
        if trainer is self.trainer:
            self.reached = trainer.n_merges

    def extending(self) -> Job[None]:
        """Replay the merges not replayed yet (the model is read again after each), a merge per unit."""
        while self.pending:
            assert self.trainer is not None, "building() first"
            self._replay_next(self.trainer)
            yield

    def snapshot(self) -> None:
        """Keep the pair counts of the current step (:attr:`n_merges`): a question for it is then answered
        without a rebuild after the trainer has moved on (the window asks for the step it was last told of).
        The last :attr:`SNAPSHOTS` are kept."""
        t = self.trainer
        if t is None or t.n_merges in self._snapshots:
            return
        if len(self._snapshots) >= self.SNAPSHOTS:
            self._snapshots.pop(next(iter(self._snapshots)))
        self._snapshots[t.n_merges] = _live(t)

    def zipf_steps(self, k: int, chunk: int = 512) -> Job[ZipfData]:
        """The pairs at step *k* (at most :attr:`n_merges`) by rank, as a job: from a snapshot of that step,
        forward from the trainer's step, or from a second trainer rebuilt from the counts for an earlier step
        (kept for the next such question).  The same as ``SegmentationHistory.zipf``."""
        k, counts = yield from self._counts_at(k)
        token, text = self._namers()
        return (yield from zipf_from_counts(k, counts, token, text, chunk))

    def view_steps(self, k: int, next_pair: Pair | None = None, chunk: int = 512) -> Job[ZipfView]:
        """What a plot draws of :meth:`zipf_steps`'s table (``zipf_steps(k).view(next_pair)``), without ordering
        every pair (:func:`~.results.view_from_counts`)."""
        k, counts = yield from self._counts_at(k)
        token, text = self._namers()
        return (yield from view_from_counts(k, counts, token, text, next_pair, chunk))

    def _namers(self) -> tuple[Callable[[int], Token], Callable[[int], str]]:
        assert self.trainer is not None, "building() first"
        tokens = self.trainer.tokens  # (append-only: an earlier step's ids are the same tokens)
        texts = [token_text(tok) for tok in tokens]  # (one str per id, shared by its labels: millions of them)
        return tokens.__getitem__, texts.__getitem__

    def _counts_at(self, k: int) -> Job[tuple[int, dict[Pair, int]]]:
        """Step *k* clamped to :attr:`n_merges` and the pair counts there (see :meth:`zipf_steps`)."""
        k = max(0, min(int(k), self.reached))
        front = self.trainer
        assert front is not None, "building() first"
        counts = self._snapshots.get(k)
        while counts is None:
            t = front if front.n_merges <= k else self._back
            if t is None or t.n_merges > k:
                self._back = t = None  # (its memory goes back before the new one is built)
                self._back = yield from self._fresh()
            elif t.n_merges < k:
                self._replay_next(t)
                yield
            else:
                counts = _live(t)  # (read at step k: no unit in between)
        return k, counts


def _live(t: KernelTrainer) -> dict[Pair, int]:
    """The trainer's pair counts now, without the zeros the kernel keeps."""
    return {p: c for p, c in t.pair_counts.items() if c > 0}
