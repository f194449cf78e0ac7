"""What every trainer does around its merge engine: limits, stop reasons, new tokens, records, replay.

:class:`TrainerBase` holds the run's bookkeeping that the pure-Python :class:`~.trainer.Trainer` and the
compiled :class:`~.kernel_trainer.KernelTrainer` share, so the two differ only in how they find and make a
merge (``step``, ``_live_count``, ``_merge_ids``, the read-only views of their state).  It keeps the model,
the tokens and their display texts, the stop conditions and the symbol totals; it does not count pairs,
index words or rank anything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from ..choices import Mode
from ..config import TrainConfig
from ..errors import ConfigError, CorpusError
from ..forbid import ForbidRule
from ..records import MergeRecord, RecordLog
from ..stopping import StopReason
from ..text.byte_level import text_to_bytes
from ..tokenizers.model import BPEModel, Token, joined

#: the largest token id: a pure trainer's word holds each id as one str character
MAX_TOKEN_ID = 0x10FFFF


def too_many_tokens() -> ConfigError:
    """The error of a run that would make more tokens than ids go to (:data:`MAX_TOKEN_ID`)."""
    return ConfigError("more than 1,114,111 tokens is not supported: ask for fewer merges")


class TrainerBase:
    """The bookkeeping of a training run; subclasses make the merges (see the module docstring)."""

    config: TrainConfig
    model: BPEModel
    tokens: list[Token]  # by id
    ids: dict[Token, int]
    texts: list[str]  # display text, by id
    total_symbols: int
    initial_symbols: int
    stop_reason: str | None
    stopped_by: StopReason | None  # the same, as a value
    word_visits: int  #: index entries read by merges: grows with words holding a pair, not occurrences
    _forbid: ForbidRule | None

    @property
    def forbidden_pairs(self) -> list[tuple[str, str, int]]:  # each subclass has its own
        raise NotImplementedError

    def step(self) -> MergeRecord | None:  # each subclass has its own
        raise NotImplementedError

    def _live_count(self, a: int, b: int) -> int:  # each subclass has its own
        """The current count of pair (*a*, *b*) (0 when it does not occur)."""
        raise NotImplementedError

    def _merge_ids(  # each subclass has its own
        self, a: int, b: int, count: int, contenders: tuple[tuple[str, str, int], ...]
    ) -> MergeRecord:
        """Merge pair (*a*, *b*) of count *count* everywhere; its record."""
        raise NotImplementedError

    @property
    def n_merges(self) -> int:
        return len(self.model.merges)

    @property
    def vocab_size(self) -> int:
        return len(self.tokens) + len(self.config.specials)

    def __iter__(self) -> Iterator[MergeRecord]:
        while True:
            rec = self.step()
            if rec is None:
                return
            yield rec

    def run(self) -> list[MergeRecord]:
        """Train to the end; return every record."""
        return list(self)

    def run_into(self, log: RecordLog, progress: Callable[[int], None] | None = None) -> None:
        """Train to the end, appending every record to *log*, for a caller that wants no say between merges
        (``bpe-desktop train``); *progress(merges so far)* is called now and then.  The records are the ones
        iterating would give; the compiled kernel makes many merges per call here, writing the records'
        columns itself when *log* numbers texts by this trainer's ids (``RecordLog(texts=trainer.texts)``)."""
        for rec in self:
            log.append(rec)
            if progress is not None:
                progress(rec.rank)

    def set_limits(self, *, merges: int | None = None, vocab_size: int | None = None) -> None:
        """Change the stop conditions mid-run (the GUI's "train further")."""
        self.config = self.config.with_(merges=merges, vocab_size=vocab_size)
        self.stop_reason = self.stopped_by = None

    def _at_limit(self) -> bool:
        """Whether the merge or vocabulary limit is reached (then :attr:`stop_reason` says which)."""
        cfg = self.config
        if cfg.merges is not None and self.n_merges >= cfg.merges:
            noun = "merge" if cfg.merges == 1 else "merges"
            self.stop_reason, self.stopped_by = f"reached {cfg.merges:,} {noun}", StopReason.MERGES
            return True
        if cfg.vocab_size is not None and self.vocab_size >= cfg.vocab_size:
            self.stop_reason, self.stopped_by = f"reached vocabulary size {self.vocab_size:,}", StopReason.VOCAB_SIZE
            return True
        return False

    def _stop_no_pair(self) -> None:
        left = len(self.forbidden_pairs) if self._forbid is not None else 0
        self.stop_reason = f"no pair left to merge but {left} forbidden" if left else "no pair left to merge"
        self.stopped_by = StopReason.NO_PAIR

    def _stop_below(self, count: int) -> None:
        self.stop_reason = f"best pair count {count} is below the minimum frequency {self.config.min_frequency}"
        self.stopped_by = StopReason.MIN_FREQUENCY

    def replay(self, pairs: Iterable[tuple[str, str]]) -> list[MergeRecord]:
        """Make the merges *pairs* (display texts, in order) whatever the rule would pick; return their records.

        This rebuilds the state at step k of an earlier run on the same corpus (:mod:`.branch`) in the time
        of k merges without ranking anything.  Limits, the minimum frequency and forbids do not apply to
        these merges, and their records carry no contenders.  A pair that does not occur in the current
        segmentation raises :class:`CorpusError`: the run was trained on another corpus or other settings.
        """
        out: list[MergeRecord] = []
        bytes_mode = self.config.mode == Mode.BYTES
        for n, (lt, rt) in enumerate(pairs, self.n_merges + 1):
            try:
                a = self.ids[text_to_bytes(lt) if bytes_mode else lt]
                b = self.ids[text_to_bytes(rt) if bytes_mode else rt]
            except KeyError:
                a = b = -1
            out.append(self._replay_one(n, a, b, f"{lt} {rt}"))
        return out

    def replay_ids(self, pairs: Iterable[tuple[int, int]]) -> list[MergeRecord]:
        """:meth:`replay` with the merges as pairs of this trainer's ids: a model's merge list whose base is this
        trainer's (its ids are then this trainer's too: both number a new token the same way)."""
        n_ids = len(self.tokens)
        out: list[MergeRecord] = []
        for n, (a, b) in enumerate(pairs, self.n_merges + 1):
            known = 0 <= a < n_ids and 0 <= b < n_ids
            what = f"{self.texts[a]} {self.texts[b]}" if known else f"of ids {a} {b}"
            out.append(self._replay_one(n, a if known else -1, b if known else -1, what))
            n_ids = len(self.tokens)
        return out

    def _replay_one(self, n: int, a: int, b: int, what: str) -> MergeRecord:
        count = self._live_count(a, b) if a >= 0 else 0
        if count <= 0:
            raise CorpusError(
                f"merge {n} ({what}) does not occur in this corpus after the merges before it -- the "
                "run was trained on another corpus or with other settings: use its corpus, or train from 0"
            )
        return self._merge_ids(a, b, count, ())

    def _forbids(self, a: int, b: int) -> bool:
        """The forbid rule's answer for pair (*a*, *b*) (there is a rule)."""
        assert self._forbid is not None
        t = self.tokens
        return self._forbid.blocks(self.texts[a], self.texts[b], joined(t[a], t[b]))

    def _new_token(self, a: int, b: int) -> int:
        """The id of the token merging *a* and *b* makes (added when new); the merge joins the model."""
        new_tok = joined(self.tokens[a], self.tokens[b])
        c = self.ids.get(new_tok)
        if c is None:
            if len(self.tokens) > MAX_TOKEN_ID:  # ids must fit in one str character (see trainer.py)
                raise too_many_tokens()
            c = self.ids[new_tok] = len(self.tokens)
            self.tokens.append(new_tok)
            self.texts.append(self.texts[a] + self.texts[b])
        self.model.merges.append((a, b))
        self.model.invalidate()
        return c

    def _record(
        self, a: int, b: int, c: int, count: int, merged: int, touched: int,
        contenders: tuple[tuple[str, str, int], ...],
    ) -> MergeRecord:
        """The record of the merge just made (and the corpus size after it)."""
        self.total_symbols -= merged
        if merged == 0:  # cannot happen with consistent counts; guard against silent corruption
            raise RuntimeError(f"internal error: pair {(a, b)} had count {count} but no occurrence")
        texts = self.texts
        return MergeRecord(
            rank=self.n_merges, left=texts[a], right=texts[b], token=texts[c],
            left_id=a, right_id=b, token_id=c, count=count, merged=merged,
            symbols_after=self.total_symbols, vocab_size=self.vocab_size, words_touched=touched,
            contenders=contenders,
        )
