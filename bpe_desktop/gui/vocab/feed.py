"""Where the vocabulary pane's rows come from: the audit (:mod:`bpe_desktop.core.measure.vocab_audit`) of the
session's model at a step, computed a unit at a time so the GUI thread never stalls for long.

Everything is one job per step (:meth:`VocabFeed.advance` runs it for a time budget); what does not depend
on the step is computed once per model by sub-jobs that survive a change of step (scrubbing restarts only
the per-step part):

* **the encoder** that decides reachability: the merge list replayed (:class:`~.core.tokenizers.tokenizer.Tokenizer`,
  what the window encodes with), or for a tiktoken rank file (cl100k) tiktoken's rank rule over the same
  ids (:class:`~.core.tokenizers.ranks.RankTokenizer`), as ``bpe-desktop analyze`` does, or for a
  ``tokenizer.json`` shown through its own pipeline (``session.work.pipeline``) its model on the pieces that
  pipeline cuts (:class:`~.core.formats.hf.pipeline.ModelIdEncoder`, as ``analyze`` does).  For a tokenizer opened
  from a file (it never grows) reachability is checked once, at its last step: a token that exists at
  step k is reachable there iff it is at the last step (once its text encodes as that one token, later
  merges find no pair in it; under the rank rule a whole piece that is a token is that token) -- unless a
  later merge makes the same token again, in which case every step is checked afresh.  A run trained in
  the window is checked at each step;
* **the frequencies**: for a run trained in the window, the training corpus's step-0 counts moved to the
  step by the merges' recorded occurrence counts (:class:`~.core.measure.token_counts.TokenCounts`, exact and
  O(1) per merge); for a tokenizer opened from a file, the session's corpus counted with the tokenizer's
  own pre-tokenizer (a file's own pipeline: the corpus pane's text only, line by line as the token stream
  shows it; otherwise the pane says frequencies are unknown) and encoded at the step (a corpus that is
  empty leaves frequencies unknown: no token is then flagged unused or intermediate);
* **the labels** of the tokens (they never change between steps).

It draws nothing and connects no signals: the pane (:mod:`.pane`) drives it from its timers.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Generator, Mapping
from typing import Any

from ...core.choices import Mode
from ...core.config import TrainConfig
from ...core.counting.pieces import WordCounts
from ...core.counting.sources import CorpusSource
from ...core.errors import BpeError
from ...core.formats.hf.pipeline import HFTokenizer, ModelIdEncoder
from ...core.measure.holdout import counting_with_totals
from ...core.measure.reachability import PieceEncoder, ordinary_count, unreachable_steps
from ...core.measure.stats import Job, Sliced
from ...core.measure.token_counts import TokenCounts, effects_from_records, initial_counting
from ...core.measure.vocab_audit import DEFAULT_INTERMEDIATE_THRESHOLD, TokenFlag, VocabAudit, auditing, made_counts
from ...core.stopping import StopReason
from ...core.text.lines import split_lines
from ...core.tokenizers.model import BPEModel, bytes_token
from ...core.tokenizers.ranks import RankTokenizer
from ...core.tokenizers.tokenizer import Tokenizer
from ..session import Session

SEEK_CHUNK = 2000  # merges crossed per unit when the frequency table moves to another step
ENCODE_CHUNK = 200  # corpus pieces encoded per unit (loaded tokenizers)
RANKS_CHUNK = 10_000  # tokens put into the rank table per unit
FLAGS_CHUNK = 4096  # rows whose flags are changed per unit


def with_threshold(audit: VocabAudit, threshold: float) -> VocabAudit:
    """The same audit with the intermediate flag recomputed for another threshold (the rest is unchanged)."""
    inter = TokenFlag.INTERMEDIATE
    flags = []
    for f, ratio in zip(audit.flags, audit.ratios, strict=True):
        f = f & ~inter
        if ratio is not None and ratio < threshold:
            f |= inter
        flags.append(f)
    return VocabAudit(audit.step, threshold, audit.ids, audit.labels, audit.n_bytes, audit.made_by,
                      audit.frequencies, audit.consumers, audit.ratios, flags)


def uses_rank_rule(session: Session) -> bool:
    """True for a tiktoken rank file (cl100k...): its tokens are encoded by tiktoken's rule (see above)."""
    return session.loaded_format == "tiktoken" and session.model.mode == Mode.BYTES


def has_counts(session: Session) -> bool:
    """The records carry the pair counts of training (a run in the window, or a native file's statistics)."""
    return any(r.count for r in session.records[:64])


class VocabFeed:
    """The audit of the session's model at a step, computed a unit at a time (see the module docstring)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.threshold = DEFAULT_INTERMEDIATE_THRESHOLD
        self.audit: VocabAudit | None = None  # the last audit finished (any step)
        self.note = ""  # why frequencies are unknown, or what is being computed
        self.has_corpus = False  # the audit's frequencies come from a corpus
        self.work_s = 0.0  # GUI-thread time spent in advance() since the last reset (for the benchmark)
        self.reset()

    def reset(self) -> None:
        """Forget everything computed for the old model or corpus."""
        self.audit = None
        self.note = ""
        self.work_s = 0.0
        self._sub: dict[str, Sliced[Any]] = {}  # sub-jobs that outlive a change of step
        self._labels: list[str] = []
        self._counts: TokenCounts | None = None
        self._freqs: tuple[int, list[int]] | None = None  # (step, frequencies) of a loaded tokenizer
        self._job: Sliced[VocabAudit] | None = None
        self._job_step = -1
        self.counted: tuple[VocabAudit, Counter[int]] | None = None  # an audit's rows per flag member id

    # -- driving ------------------------------------------------------------------------------------
    def ready(self, step: int) -> bool:
        a = self.audit
        return a is not None and a.step == step and a.threshold == self.threshold

    def set_threshold(self, threshold: float) -> None:
        """Change the intermediate threshold; the audit shown is re-flagged at once (no recomputation)."""
        self.threshold = float(threshold)
        if self.audit is not None:
            self.audit = with_threshold(self.audit, self.threshold)

    def advance(self, budget_s: float) -> bool:
        """Work towards the audit of the session's step for about *budget_s* seconds; True if work remains."""
        t0 = time.perf_counter()
        try:
            k = self.session.step
            if self.ready(k):
                return False
            if self._job is None or self._job_step != k:
                self._job = Sliced(self._computing(k))
                self._job_step = k
            if not self._job.run(budget_s):
                return True
            audit = self._job.result
            self._job = None
            assert audit is not None
            self.audit = with_threshold(audit, self.threshold) if audit.threshold != self.threshold else audit
            return False
        except BpeError as e:  # a corpus that cannot be read or pre-tokenized: the audit without frequencies
            self.note = f"frequencies unknown: {e}"
            self._sub["words"] = Sliced(_done(None))
            self._job = None
            return True
        finally:
            self.work_s += time.perf_counter() - t0

    # -- the per-step job ---------------------------------------------------------------------------
    def _need(self, name: str, factory: Callable[[], Job[Any]]) -> Generator[None, None, Any]:
        """The result of the sub-job *name* (started by *factory* the first time), one unit per yield."""
        job = self._sub.get(name)
        if job is None:
            job = self._sub[name] = Sliced(factory())
        while not job.run(0.0):
            yield
        return job.result

    def _computing(self, k: int) -> Job[VocabAudit]:
        s = self.session
        model = s.model
        loaded = s.stop_reason is StopReason.LOADED
        encoder: PieceEncoder
        pipeline = s.work.pipeline
        if uses_rank_rule(s):
            encoder = yield from self._need("ranks", lambda: _rank_tokenizer(model))
        elif pipeline is not None:  # a file's own pipeline: its model on the pieces that pipeline cuts
            encoder = yield from self._need("replay", lambda: _done(ModelIdEncoder(pipeline)))
        elif loaded:
            encoder = yield from self._need("replay", lambda: _done(Tokenizer(model, unknown="keep")))
        else:
            encoder = Tokenizer(model, unknown="keep")  # the model grows while training: a fresh one
        freqs = yield from self._frequencies(k, model, encoder)
        n = ordinary_count(model, k)
        bad = None
        if loaded and (uses_rank_rule(s) or len(set(model.merge_token_ids)) == len(model.merges)):
            every = yield from self._need("unreachable", lambda: unreachable_steps(model, None, encoder, 1024))
            bad = [i for i in every if i < n]
        known = made_counts(s.records) if has_counts(s) else None
        audit = yield from auditing(model, k, freqs, counts_when_made=known, threshold=self.threshold,
                                    encoder=encoder, unreachable=bad, known_labels=self._labels)
        if n > len(self._labels):
            self._labels = audit.labels[:n]
        if not self.has_corpus:  # no corpus: "unused" and "intermediate" would say nothing
            keep = ~(TokenFlag.UNUSED | TokenFlag.INTERMEDIATE)
            flags: list[TokenFlag] = []
            for lo in range(0, len(audit), FLAGS_CHUNK):
                yield
                flags.extend(f & keep for f in audit.flags[lo : lo + FLAGS_CHUNK])
            audit.flags = flags
        counts: Counter[int] = Counter()  # rows per flag value, by the identity of the (cached) members
        for lo in range(0, len(audit), 8 * FLAGS_CHUNK):
            yield
            counts.update(map(id, audit.flags[lo : lo + 8 * FLAGS_CHUNK]))
        self.counted = (audit, counts)
        return audit

    def _frequencies(self, k: int, model: BPEModel, encoder: PieceEncoder) -> Generator[None, None, list[int]]:
        s = self.session
        n = ordinary_count(model, k)
        words = s.word_counts
        if s.stop_reason is not StopReason.LOADED and words is not None and has_counts(s):
            self.has_corpus = bool(words.counts)
            self.note = ""
            counts = self._counts
            if counts is None:
                initial = yield from self._need("initial", lambda: initial_counting(words.counts, model))
                counts = self._counts = TokenCounts(initial, alpha=2.0)
            if counts.n_steps < k:
                counts.extend(effects_from_records(model, s.records[counts.n_steps : k]))
            while counts.step != k:
                yield
                target = max(counts.step - SEEK_CHUNK, min(counts.step + SEEK_CHUNK, k))
                counts.seek(target)
            return counts.frequencies(n)
        pipeline = s.work.pipeline
        if pipeline is not None and (s.source.word_counts or s.source.text is None):
            self.has_corpus = False  # (a table's words, a file's text: not cut by this file's pipeline here)
            self.note = ("frequencies unknown: a corpus of files or a word-count table is not counted through "
                         "this tokenizer.json's own pipeline -- paste the text into the Corpus pane")
            return [0] * n
        table = yield from self._need("words", lambda: _counting(s.source, model) if pipeline is None
                                      else _pipeline_counting(s.source.text or "", pipeline))
        if not table:
            self.has_corpus = False
            self.note = "no corpus counted: train on a corpus (or open one and train) to see frequencies"
            return [0] * n
        self.has_corpus = True
        self.note = ""
        if self._freqs is not None and self._freqs[0] == k:
            return self._freqs[1]
        freq = [0] * n
        for j, (piece, c) in enumerate(table.items()):
            if j % ENCODE_CHUNK == ENCODE_CHUNK - 1:
                yield
            if c > 0 and piece:
                for i in encoder.encode_piece(piece, k):
                    if 0 <= i < n:
                        freq[i] += c
        self._freqs = (k, freq)
        return freq


def _done(value: Any) -> Job[Any]:
    yield
    return value


def _counting(source: CorpusSource, model: BPEModel) -> Job[Mapping[str, int] | None]:
    """The session's corpus counted with the model's own settings (None when there is none)."""
    if source.text is not None and not source.text.strip() and not source.paths:
        return None
    cfg = TrainConfig(mode=model.mode, pretokenizer=model.pretokenizer, specials=model.specials,
                      end_of_word=model.end_of_word or "", glue_marker=model.glue_marker)
    words: WordCounts
    words, _totals = yield from counting_with_totals(source, cfg)
    return words.counts or None


def _pipeline_counting(text: str, pipeline: HFTokenizer) -> Job[dict[str, int] | None]:
    """The pieces of *text*, line by line as the token stream shows it, cut by a file's own pipeline."""
    if not text.strip():
        return None
    counts: Counter[str] = Counter()
    for j, line in enumerate(split_lines(text)):
        if j % ENCODE_CHUNK == ENCODE_CHUNK - 1:
            yield
        counts.update(pipeline.pieces(line))
    yield
    return dict(counts) or None


def _rank_tokenizer(model: BPEModel) -> Job[RankTokenizer]:
    """A rank table over the model's ids (token bytes -> id), built a slice at a time."""
    tokens = model.tokens
    ranks: dict[bytes, int] = {}
    for lo in range(0, len(tokens), RANKS_CHUNK):
        yield
        for i in range(lo, min(lo + RANKS_CHUNK, len(tokens))):
            ranks.setdefault(bytes_token(tokens[i]), i)
    return RankTokenizer(ranks, model.pretokenizer or "none", model.special_ids)
