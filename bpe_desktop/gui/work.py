"""A piece of work, Qt-free: one corpus, the settings it was trained with, the merges they gave, where the
timeline stands -- what a run of the window *is* -- and the two policies that read it.

:class:`Work` holds the corpus source (its text or file reference), the :class:`TrainConfig`, the model and
its merge records, why training stopped, the timeline step and what the run kept out (``held_out``), plus
a run's identity (id, :class:`Origin`, name).  An extension run (:class:`ExtensionOf`: a production
tokenizer's merges, then merges learned on top of it) holds the original's merges first; its timeline starts
after them (:attr:`Work.start`: "step 0 = cl100k").  Fields that are counted again when needed (word counts,
the base symbol total, the held-out lines, the file format a tokenizer was read from) and the drafts (the
corpus and settings the window held, not trained on yet, when another work was shown) take no part in
``==``: two works are equal when a saved session would write them the same.  The
:class:`~.session.Session` holds the shown work and the list of the others; every change goes through it.

:func:`continuation` is the "Train further" policy (can this run be continued, and if not why) and
:func:`what_would_be_lost` the "ask before losing work" one.  Nothing here trains, counts, or shows.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from ..core.config import TrainConfig
from ..core.counting.pieces import WordCounts
from ..core.counting.sources import CorpusSource
from ..core.formats.hf.model_ids import PipelineTokenizer
from ..core.formats.hf.pipeline import HFTokenizer
from ..core.formats.hf.pipeline_ref import PipelineRef
from ..core.measure.stats import Rewrites
from ..core.records import MergeRecord
from ..core.stopping import StopReason
from ..core.tokenizers.model import BPEModel
from ..core.tokenizers.rank_rule import RankRuleTokenizer
from ..core.tokenizers.tokenizer import Tokenizer
from ..core.training.branch import SettingChange
from .training.protocol import HeldOut
from .wording import cannot_continue, plural


@dataclass(frozen=True)
class Origin:
    """Where a run came from: ``parent`` (a run id) and ``step`` for a branch, both None for a run from 0."""

    parent: int | None = None
    step: int | None = None
    changes: tuple[SettingChange, ...] = ()


NO_ORIGIN = Origin()  # a run trained from step 0


@dataclass(frozen=True)
class ExtensionOf:
    """What an extension run extends: the original tokenizer (``spec``: a bundled encoding's name, or a file's
    path with its SHA-256), how many of the run's merges are the original's (``start``: the timeline's step 0),
    and the rule that encodes it (``"ranks"``: tiktoken's rank rule; ``"merge-list"``: the merges replayed)."""

    spec: str
    label: str  # the original as the timeline names it: "cl100k", "tokenizer.json"
    start: int
    rule: str
    sha256: str = ""  # a file's ("" for a bundled encoding)
    added: int = 0  # the merges learned on top
    corpus: str = ""  # the corpus's name

    @property
    def name(self) -> str:
        """The run's name: "cl100k + 200 merges on robot logs"."""
        return f"{self.label} + {plural(self.added, 'merge')}" + (f" on {self.corpus}" if self.corpus else "")


@dataclass(eq=True)
class Work:
    """One piece of work (a run).  Mutable, but only the :class:`~.session.Session` changes the one shown."""

    source: CorpusSource
    config: TrainConfig
    model: BPEModel
    records: list[MergeRecord] = field(default_factory=list)  # model.merges, with the trainer's numbers
    stop_reason: StopReason | None = None  # None: not trained, or still training
    stop_text: str = ""
    step: int = 0  # the timeline: the first *step* merges are shown
    name: str = ""
    renamed: bool = False  # the user named it: never renamed automatically
    id: int = field(default=0, compare=False)  # session-local (renumbered when a session is reopened)
    origin: Origin = field(default=NO_ORIGIN, compare=False)
    word_counts: WordCounts | None = field(default=None, compare=False, repr=False)
    initial_symbols: int = field(default=0, compare=False)
    held_out: HeldOut | None = field(default=None, compare=False, repr=False)
    loaded_format: str = field(default="", compare=False)  # "tiktoken", "hf"…; "" when trained here
    #: the file whose whole pipeline encodes this run's text (a ``tokenizer.json`` beyond our pre-tokenizers:
    #: a normalizer, Metaspace...); None when our own replay of the merges is exact.  A saved session keeps it.
    pipeline_ref: PipelineRef | None = None
    pipeline: HFTokenizer | None = field(default=None, compare=False, repr=False)  # read from pipeline_ref
    extension: ExtensionOf | None = None  # an extension run: the original's merges come first (saved with it)
    #: an extension run's corpus segmented at each of its steps (the extension job's; not saved: see the plots)
    rewrites: Rewrites | None = field(default=None, compare=False, repr=False)
    draft: CorpusSource | None = field(default=None, compare=False, repr=False)  # editor's corpus, untrained
    draft_config: TrainConfig | None = field(default=None, compare=False, repr=False)
    #: the tokenizer spec this run was read from or written to (File → Open tokenizer, Extend: ``cl100k:FILE``),
    #: which Training → Extend offers first; "" for a run trained here (not saved: a reopened session has none)
    opened_from: str = field(default="", compare=False)
    #: its :func:`encoder`, built by :meth:`prepare` on a helper thread; the session takes it when it shows the work
    prepared_encoder: Tokenizer | None = field(default=None, compare=False, repr=False)

    @classmethod
    def empty(cls, source: CorpusSource | None = None, config: TrainConfig | None = None) -> Work:
        """Nothing trained yet on *source* (default: no text) with *config* (default settings)."""
        config = config if config is not None else TrainConfig()
        return cls(source if source is not None else CorpusSource.from_text("", word_counts=True), config,
                   BPEModel.empty(config))

    @classmethod
    def loaded(cls, model: BPEModel, records: list[MergeRecord], source: CorpusSource, config: TrainConfig,
               stop_text: str, fmt: str = "", pipeline: tuple[PipelineRef, HFTokenizer] | None = None
               ) -> Work:
        """Merges read from a file (a tokenizer, a session, a variant): not trained on *source* here, which
        ``stop_reason`` LOADED and ``stop_text`` ("loaded from …") say; *pipeline* (a file by
        reference and its pipeline) encodes its text when our replay of the merges would not."""
        first = records[0] if records else None
        return cls(source, config, model, list(records), StopReason.LOADED, stop_text, len(records),
                   initial_symbols=first.symbols_before if first is not None and first.merged else 0,
                   loaded_format=fmt, pipeline_ref=pipeline[0] if pipeline else None,
                   pipeline=pipeline[1] if pipeline else None)

    def prepare(self) -> None:
        """Build now (on a helper thread, behind a progress dialog) what showing this work would otherwise build
        on the GUI thread at its first paint: the model's tables (the timeline's vocabulary sizes) and its
        encoder -- for a 100,000-merge run each takes longer than a frame."""
        self.model.vocab_size_at(len(self.model.merges))
        self.prepared_encoder = encoder(self)

    @property
    def n_merges(self) -> int:
        return len(self.records)

    @property
    def start(self) -> int:
        """The timeline's first step: 0, or for an extension run the original's merges (its step 0)."""
        return self.extension.start if self.extension is not None else 0

    def symbols_at(self, k: int) -> int:
        """Total symbols in the corpus after the first k merges."""
        if k <= 0 or not self.records:
            return self.initial_symbols
        return self.records[min(k, len(self.records)) - 1].symbols_after

    @property
    def target_merges(self) -> int | None:
        """How many merges its settings ask for, if known (for progress and ETA)."""
        cfg, goals = self.config, []
        if cfg.merges is not None:
            goals.append(cfg.merges)
        if cfg.vocab_size is not None and self.model.base:
            goals.append(max(0, cfg.vocab_size - self.model.vocab_size_at(0)))
        return min(goals) if goals else None

    @property
    def holds_work(self) -> bool:
        """It holds merges (trained or loaded): showing another work in its place would lose them."""
        return bool(self.records)


def encoder(work: Work) -> Tokenizer:
    """What encodes *work*'s text at each step, in its model's ids: our replay of the merges, or a file's own
    pipeline (``work.pipeline``: one our replay cannot express), or for an extended rank table tiktoken's rank
    rule (a new token beside a neighbour can make an original one, which no replay of merges does)."""
    if work.pipeline is not None:
        return PipelineTokenizer(work.pipeline)
    if work.extension is not None and work.extension.rule == "ranks":
        return RankRuleTokenizer(work.model, unknown="keep")
    return Tokenizer(work.model, unknown="keep")


def frozen(work: Work) -> Work:
    """*work* over a copy of its merges as they are now, for a helper thread (the window may go on appending to
    the model): :func:`encoder` of it encodes as the panes do at every step up to now.  The copy is quick;
    build the encoder on the helper thread (a 100k-merge one takes a moment)."""
    return dataclasses.replace(work, model=work.model.truncated(len(work.model.merges)), records=list(work.records))


class RunList:
    """The session's works in order, one of them shown (by identity: equal works are still two runs), and
    the user's list set aside while the tour shows one of its own.  Each method returns the index to show."""

    def __init__(self, first: Work) -> None:
        self.items: list[Work] = [first]
        self.current = 0
        self.aside: tuple[list[Work], int] | None = None
        self._next_id = 1
        self._number()

    @property
    def shown(self) -> Work:
        return self.items[self.current]

    def index_of(self, work: Work) -> int:
        return next(i for i, r in enumerate(self.items) if r is work)

    def _number(self) -> None:
        """Runs are numbered as they join (a session's runs keep theirs; a copy gets its own)."""
        self._next_id = max([self._next_id, *(r.id + 1 for r in self.items)])
        seen: set[int] = set()
        for r in self.items:
            if not r.id or r.id in seen:
                r.id, self._next_id = self._next_id, self._next_id + 1
            seen.add(r.id)

    def add(self, work: Work, runs: list[Work] | tuple[Work, ...] | None = None) -> int:
        """*work* joins (in place of a shown work that holds no merges), or *runs* (holding it) replace all."""
        if runs is not None:
            if not any(r is work for r in runs):
                raise ValueError("the work to show is not one of the runs")
            self.items = list(runs)
        elif self.shown.holds_work:
            self.items.append(work)
        else:
            self.items[self.current] = work
        self._number()
        self.current = self.index_of(work)
        return self.current

    def remove(self, index: int) -> int | None:
        """Drop run *index* (never the last): the index to show when it was the shown one, else None."""
        if len(self.items) <= 1 or not 0 <= index < len(self.items):
            raise IndexError(index)
        shown = self.shown
        gone = self.items.pop(index)
        if gone is shown:
            self.current = min(index, len(self.items) - 1)
            return self.current
        self.current = self.index_of(shown)
        return None

    def set_aside(self, work: Work) -> int:
        self.aside = (self.items, self.current)
        self.items, self.current = [work], 0
        return 0

    def bring_back(self) -> int:
        assert self.aside is not None
        self.items, self.current = self.aside
        self.aside = None
        return self.current

    def saved(self) -> tuple[tuple[Work, ...], int]:
        """The user's runs and which is shown (those set aside while the tour runs)."""
        items, current = self.aside if self.aside is not None else (self.items, self.current)
        return tuple(items), current


def keep_drafts(w: Work, corpus: CorpusSource | None, config: TrainConfig | None, successor: Work | None, *,
                active: bool) -> bool:
    """Keep with *w* what the window holds but has not trained on (*corpus*, *config*; what a *successor*
    about to be shown takes over is no draft of it); True when an untrained *w* itself changed (*active*: a
    run is training)."""
    if not w.records and not active:  # nothing trained: what the window holds *is* the work
        was = (w.source, w.config)
        w.source = corpus if corpus is not None else w.source
        w.config = config if config is not None else w.config
        w.draft = w.draft_config = None
        return (w.source, w.config) != was
    taken = (successor.source, successor.config) if successor is not None else (None, None)
    w.draft = None if corpus is None or corpus in (w.source, taken[0]) else corpus
    w.draft_config = None if config is None or config in (w.config, taken[1]) else config
    return False


def same_corpus(a: CorpusSource | None, b: CorpusSource | None) -> bool:
    """The same text or files read the same way (the label the editor gives a text does not count)."""
    if a is None or b is None:
        return a is b
    return dataclasses.replace(a, name="") == dataclasses.replace(b, name="")


# -- "Train further": can the shown run be continued? ------------------------------------------------------
class Continuation(NamedTuple):
    """``refusal``: say it and do nothing; else ``retrain``: say it and offer Retrain; else continue."""

    refusal: str = ""
    retrain: str = ""

    @property
    def ok(self) -> bool:
        return not self.refusal and not self.retrain


def run_changed(work: Work, settings: TrainConfig | None, corpus: CorpusSource) -> str:
    """Why *work* no longer matches the window's *settings* (None: not valid) or *corpus* ("" if it does;
    the merge and vocabulary limits do not count: continuing raises them)."""
    if settings is None:
        return "the settings are not valid any more"
    if settings.with_(merges=None, vocab_size=None) != work.config.with_(merges=None, vocab_size=None):
        return "the settings changed since this run"
    if not same_corpus(corpus, work.source):
        return "the corpus changed since this run"
    return ""


def continuation(work: Work, settings: TrainConfig | None, corpus: CorpusSource, *, process_alive: bool
                 ) -> Continuation:
    """Whether "Train further" may append merges to *work* (its worker idle and alive: *process_alive*).

    >>> w = Work.empty()
    >>> continuation(w, w.config, w.source, process_alive=False).refusal
    'nothing has been trained yet -- press Train (F5) first'
    """
    if not work.records:
        return Continuation(refusal="nothing has been trained yet -- press Train (F5) first")
    if work.extension is not None:
        return Continuation(refusal=extension_refusal(work.extension, "trained further"))
    changed = run_changed(work, settings, corpus)
    reason = work.stop_reason
    if not changed and reason is StopReason.NO_PAIR:
        return Continuation(refusal="the last run stopped because no pair was left to merge: every word is "
                            "already a single token, so there is nothing more to learn -- add text to the "
                            "corpus and Retrain (F5)")
    if not changed and reason is StopReason.MIN_FREQUENCY:
        return Continuation(refusal=f"the last run stopped because the {work.stop_text} -- lower Min "
                            "frequency in the settings and Retrain (F5)")
    if changed or not process_alive:
        return Continuation(retrain=changed or cannot_continue(reason, process_alive=process_alive))
    return Continuation()


def extension_refusal(ext: ExtensionOf, what: str) -> str:
    """Why an extension run cannot be *what* ("trained further", "branched") here: the window's trainer
    learns from the corpus's bytes, not on top of the original's segmentation."""
    return (f"this run extends {ext.label}: it cannot be {what} here (the window's trainer learns from the corpus's "
            f"bytes, not on top of {ext.label}'s tokens, so it would not be the same extension) -- extend "
            f"{ext.label} again with more merges from Training > Extend a tokenizer on this corpus…")


# -- asking before losing work -------------------------------------------------------------------------------
Replacing = Literal["corpus", "session"]


def what_would_be_lost(replacing: Replacing, runs: list[Work] | tuple[Work, ...], *, typed: CorpusSource | None,
                       unsaved: bool) -> str:
    """What replacing the editor's corpus (``"corpus"``) or the whole session (``"session"``: opening another,
    quitting) would lose, as a phrase ("" when nothing: then nothing need be asked).

    Runs are never lost by a new corpus, a retrain, an opened tokenizer or the tour: each stays in the Runs
    list (and in the autosave).  *typed*: the text the user typed into the Corpus pane, if any (lost when
    no run holding merges was trained on it: an untrained run takes whatever the editor shows next);
    *unsaved*: the runs changed since the session was last saved.
    """
    lost = []
    if unsaved and replacing == "session":
        kept = [w for w in runs if w.holds_work]
        if kept:
            merges = sum(w.n_merges for w in kept)
            lost.append(f"{plural(len(kept), 'run')} with {plural(merges, 'merge')} not saved in a session file")
    if typed is not None and typed.text is not None and typed.text.strip() and not any(
            same_corpus(typed, w.source) for w in runs if w.holds_work):  # (an untrained run follows the editor)
        lines = len(typed.text.splitlines())
        lost.append(f"the text typed into the Corpus pane ({plural(lines, 'line')}, not trained on)")
    return " and ".join(lost)
