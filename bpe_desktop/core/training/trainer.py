"""The incremental BPE trainer: word counts in, one :class:`MergeRecord` per merge out.

Design (HF tokenizers' ``trainer.rs``): the corpus is counted once into distinct words; then the trainer keeps the
weighted count of every adjacent pair (overlaps counted, the seeds' formula), an index from each pair to the words
that contain it, and a heap ordered by (count, tie key).  A merge pops the top; if the stored count is stale it is
pushed back corrected (lazy re-check, correct because existing pairs only lose count); then only the words the index
names are rewritten, left to right and without overlaps, applying +/- deltas to the neighbouring pairs.  Nothing
rescans the corpus.

Representation choices keep that Python-cheap and compact (see ``Trainer.__init__``): a word is a str of ``chr(token
id)`` and a pair a 2-character str, so finding and rewriting a pair run in C (``str.find``, ``str.replace``) and the
Python work is per occurrence, not per symbol; the index holds word numbers in ``array('I')`` (4 bytes each; a word
once per pair, or again after a later merge, or after it lost the pair -- a rewrite skips those); a heap entry starts
with one int ordering count then tie key; and the runner-ups popped for the "why this merge" record wait outside the
heap until the next step instead of being pushed and popped again.

Tie-break rules are described once, in :data:`~bpe_desktop.core.choices.TIE_RULES`; here each is a heap key
(``subword-nmt``'s wraps the tokens with :func:`.descending.descending`) and ``first-seen`` a choice in ``_choose``.

Forbidden pairs (``TrainConfig.forbid``/``forbid_regex``) are dropped when they reach the top of the heap -- asked of
:mod:`.forbid` once per distinct pair, cached, and only for pairs that get that far -- so they never win and are
never listed among a record's contenders (the runner-ups are the pairs the rule could still pick); their counts are
kept up to date like any other's (:attr:`pair_counts` includes them). :meth:`Trainer.replay` makes given merges
whatever the rule says, to rebuild the state at step k of an earlier run (see :mod:`.branch`).

This pure-Python code is the definition and the fallback: where the compiled kernel is built,
``Trainer(...)`` makes a :class:`~.kernel_trainer.KernelTrainer` (the same records from compact C arrays) for
the tie rules the kernel has; :func:`.kernel_trainer.uses_kernel` decides, ``pure=True`` forces this code.

The trainer is a plain object: ``step()`` makes one merge, so a caller can pause, step or cancel between merges from
any process.  It does not read files (:mod:`..counting`) or encode text (:mod:`..tokenizers`).
"""

from __future__ import annotations

import heapq
from array import array
from collections import defaultdict
from collections.abc import Mapping
from operator import mul
from typing import Any

from ..choices import Mode, TieBreak
from ..config import TrainConfig
from ..counting.pieces import WordCounts
from ..forbid import ForbidRule
from ..records import CONTENDERS, MergeRecord
from ..stopping import StopReason
from ..tokenizers.model import BPEModel, Token, base_symbols, token_text
from .descending import descending
from .pair_index import pair_tables, word_strings
from .trainer_base import TrainerBase

#: a heap entry's first element is ``(-count << _SHIFT) | tie bits``: count = ``-(e[0] >> _SHIFT)``
_SHIFT = 42
_ID_BITS = 21  # token ids < 0x110000 fit in 21 bits


def word_symbols(word: str, config: TrainConfig) -> list[Token]:
    """The base symbols of one word (piece) under *config*.

    >>> word_symbols("low", TrainConfig())
    ['l', 'o', 'w', '</w>']
    >>> word_symbols("low", TrainConfig(glue_marker=True))
    ['l', 'o', 'w</w>']
    >>> word_symbols("é", TrainConfig(mode="bytes"))
    [b'\\xc3', b'\\xa9']
    """
    return base_symbols(word, config.mode, config.end_of_word, config.glue_marker)


class Trainer(TrainerBase):
    """Learns merges one at a time.

    >>> t = Trainer({"low": 5, "lower": 2, "newest": 6, "widest": 3}, TrainConfig(merges=3))
    >>> [(r.left, r.right, r.count) for r in t]
    [('e', 's', 9), ('es', 't', 9), ('est', '</w>', 9)]
    """

    def __new__(
        cls, word_counts: WordCounts | Mapping[str, int], config: TrainConfig, *, release: bool = False,
        pure: bool | None = None,
    ) -> Trainer:
        """``Trainer(...)`` runs on the compiled kernel when :func:`.kernel_trainer.uses_kernel` says so (the
        one place that decides; *pure* forces a path), else it is this pure-Python trainer."""
        if cls is Trainer:
            from .kernel_trainer import KernelTrainer, uses_kernel

            if uses_kernel(config, pure):
                return super().__new__(KernelTrainer)
        return super().__new__(cls)

    def __init__(
        self, word_counts: WordCounts | Mapping[str, int], config: TrainConfig, *, release: bool = False,
        pure: bool | None = None,
    ) -> None:
        """*release*: empty the table (``word_counts``' dict; a read-only one, :class:`PartedCounts`, is kept) once
        its words are taken, so that a table of millions of pieces is not held beside the trainer's own copy; the
        caller must not use it afterwards.
        *pure*: ``True`` runs this pure-Python code, ``False`` the compiled kernel (see ``__new__``)."""
        table = word_counts.counts if isinstance(word_counts, WordCounts) else dict(word_counts)
        self.config = config
        pieces = [w for w, c in table.items() if c > 0 and w]
        self.wcounts: list[int] = [c for w, c in table.items() if c > 0 and w]
        alphabet = set("".join(pieces)) if config.mode == Mode.CHARS else ()
        self.model = BPEModel.empty(config, alphabet)
        self.tokens: list[Token] = list(self.model.base)
        self.ids: dict[Token, int] = {t: i for i, t in enumerate(self.tokens)}
        self.texts: list[str] = [token_text(t) for t in self.tokens]  # display text, by id
        # Each word is kept as a str whose i-th character is chr(id of its i-th symbol), and a pair (a, b) as
        # the 2-character str chr(a) + chr(b).  Finding a pair in a word (str.find) and rewriting every
        # occurrence left to right without overlaps (str.replace) then run in C; a pair key is made by one
        # slice and hashes once (a str caches its hash; a tuple rehashes on every lookup); and comparing two
        # keys compares (a, b) in id order, which is the ``hf`` tie rule.  :attr:`words` and
        # :attr:`pair_counts` give the same data as ids.
        self._words: list[str] = word_strings(pieces, self.ids, config)
        del pieces
        if release and isinstance(table, dict):
            table.clear()
        self.total_symbols = sum(map(mul, map(len, self._words), self.wcounts))
        self.initial_symbols = self.total_symbols
        self.stop_reason: str | None = None
        self.stopped_by: StopReason | None = None  # the same, as a value

        # pair key -> weighted count (may hold zeros); pair key -> the words that held it (see pair_index)
        self._counts, self.where = counts, _ = pair_tables(self._words, self.wcounts)
        self.word_visits = 0  #: index entries read by merges: grows with words holding a pair, not occurrences
        self._lexical = config.tie_break == TieBreak.LEXICAL
        self._first_seen = config.tie_break == TieBreak.FIRST_SEEN
        self._desc = descending if config.tie_break == TieBreak.SUBWORD_NMT else None
        # first-seen ties: pair -> index of the first word holding it.  Valid while that word still holds the
        # pair: the words holding a pair only ever shrink, except in the merge that gains it occurrences,
        # which drops the entry (see _merge).
        self._first_word: dict[str, int] = {}
        self._aside: list[tuple[Any, ...]] = []  # valid entries of last step's runner-ups, out of the heap
        self._forbid = ForbidRule.from_settings(config.forbid, config.forbid_regex)
        self._blocked: dict[str, bool] = {}  # pair key -> forbidden? (asked once per distinct pair)
        entry = self._entry
        self._heap: list[tuple[Any, ...]] = [entry(p, c) for p, c in counts.items()]
        heapq.heapify(self._heap)

    # -- public -------------------------------------------------------------------------------------
    @property
    def pair_counts(self) -> dict[tuple[int, int], int]:
        """The weighted count of every adjacent pair of ids seen so far (a fresh dict; may hold zeros)."""
        return {(ord(k[0]), ord(k[1])): n for k, n in self._counts.items()}

    @property
    def words(self) -> list[list[int]]:
        """The current segmentation of every distinct word as a list of token ids (first-seen order)."""
        return [list(map(ord, w)) for w in self._words]

    @property
    def forbidden_pairs(self) -> list[tuple[str, str, int]]:
        """The forbidden pairs skipped so far (they reached the top) that still occur, as ``(left, right, count)``,
        highest count first; when training ran out of pairs, every forbidden pair left."""
        t, counts = self.texts, self._counts
        met = [(t[ord(k[0])], t[ord(k[1])], counts.get(k, 0)) for k, b in self._blocked.items() if b]
        return sorted((m for m in met if m[2] > 0), key=lambda m: -m[2])

    def step(self) -> MergeRecord | None:
        """Make the next merge, or return ``None`` (and set :attr:`stop_reason`) when training is over."""
        cfg = self.config
        if self._at_limit():
            return None
        ranked = self._ranked()
        if not ranked:
            self._stop_no_pair()
            return None
        top = ranked[0]
        count = -(top[0] >> _SHIFT)
        if count < cfg.min_frequency:
            self._aside = ranked
            self._stop_below(count)
            return None
        # The best CONTENDERS runner-ups -- and every pair tied with the winner when there are more, which
        # first-seen must look at again anyway -- stay aside for the next step's _ranked (most of them are
        # still valid then, which saves popping and pushing them every merge); any others go back to the heap.
        if self._first_seen:
            key, popped = self._choose([(e[-1], -(e[0] >> _SHIFT)) for e in ranked])
            by_key = {e[-1]: e for e in ranked}
            keep = max(CONTENDERS, sum(1 for _, c in popped if c == count))
            self._aside = [by_key[k] for k, _ in popped[:keep]]
            back = [by_key[k] for k, _ in popped[keep:]]
            best = popped[:CONTENDERS]
        else:  # ranked is the rule's order: the winner first, ties with it next
            key = top[-1]
            keep = CONTENDERS
            if len(ranked) > keep + 1 and ranked[keep + 1][0] >> _SHIFT == top[0] >> _SHIFT:
                keep = sum(1 for e in ranked if e[0] >> _SHIFT == top[0] >> _SHIFT) - 1
            self._aside = ranked[1 : keep + 1]
            back = ranked[keep + 1 :]
            best = [(e[-1], -(e[0] >> _SHIFT)) for e in ranked[1 : CONTENDERS + 1]]
        heap = self._heap
        for e in back:
            heapq.heappush(heap, e)
        texts = self.texts
        contenders = tuple([(texts[ord(k[0])], texts[ord(k[1])], c) for k, c in best])
        return self._merge(key, count, contenders)

    def _live_count(self, a: int, b: int) -> int:
        """The current count of pair (*a*, *b*) (0 when it does not occur)."""
        return self._counts.get(chr(a) + chr(b), 0)

    def _merge_ids(self, a: int, b: int, count: int, contenders: tuple[tuple[str, str, int], ...]) -> MergeRecord:
        """Merge pair (*a*, *b*) of count *count* everywhere; its record."""
        return self._merge(chr(a) + chr(b), count, contenders)

    # -- internals ----------------------------------------------------------------------------------
    def _is_blocked(self, key: str) -> bool:
        """Whether pair *key* is forbidden (only called when there is a rule; cached per pair)."""
        b = self._blocked.get(key)
        if b is None:
            if self._forbid is None:
                return False
            b = self._blocked[key] = self._forbids(ord(key[0]), ord(key[1]))
        return b

    def _entry(self, key: str, count: int) -> tuple[Any, ...]:
        """The heap entry of pair *key*: smallest first = highest count, then the tie rule's order.

        The first element packs the count and, under ``hf`` and ``first-seen``, the pair's ids (one int
        comparison orders two entries); ``lexical`` compares the tokens next.  The key is always last."""
        if self._lexical:
            t = self.tokens
            return (-count << _SHIFT, t[ord(key[0])], t[ord(key[1])], key)
        if self._desc is not None:
            t = self.tokens
            return (-count << _SHIFT, self._desc(t[ord(key[0])]), self._desc(t[ord(key[1])]), key)
        # hf: (left id, right id); first-seen refines ties in _choose
        return ((-count << _SHIFT) | (ord(key[0]) << _ID_BITS) | ord(key[1]), key)

    def _ranked(self) -> list[tuple[Any, ...]]:
        """Valid entries of the best pairs, best first, taken out of the heap and the set-aside runner-ups.

        At least 1 + :data:`CONTENDERS` when there are that many pairs (the winner and its runner-ups for
        the explanation), every one better than anything left in the heap; under ``first-seen`` also every
        pair tied with the best, since that rule's order changes as words are rewritten and cannot live in
        the heap.  An entry is valid when its count is the pair's live count; a stale one is pushed back
        corrected (lazy re-check: existing pairs only lose count, and a pair that grows gets a new entry).
        """
        heap, counts, entry, pop = self._heap, self._counts, self._entry, heapq.heappop
        got: dict[str, tuple[Any, ...]] = {}
        for e in self._aside:
            k = e[-1]
            n = counts.get(k, 0)
            if n == -(e[0] >> _SHIFT):
                got[k] = e
            elif n > 0:
                heapq.heappush(heap, entry(k, n))
        self._aside = []
        need = 1 + CONTENDERS
        first_seen = self._first_seen
        blocked = self._is_blocked if self._forbid is not None else None
        worst = max(got.values()) if len(got) >= need else None
        best = min(got.values()) if got else None  # kept up to date below: min() per pop was quadratic in ties
        while heap:
            top = heap[0]
            # Stop once we hold `need` pairs and the heap offers nothing better than the worst of them
            # (under first-seen: nor anything tied with the best).
            if worst is not None and top >= worst:
                if not first_seen or best is None or top[0] >> _SHIFT > best[0] >> _SHIFT:
                    break
            e = pop(heap)
            k = e[-1]
            n = counts.get(k, 0)
            if n <= 0:
                continue
            if blocked is not None and blocked(k):
                continue  # forbidden: dropped; a later gain pushes it again and it is dropped again
            if n != -(e[0] >> _SHIFT):
                heapq.heappush(heap, entry(k, n))
            elif k not in got:
                got[k] = e
                if best is None or e < best:
                    best = e
                if worst is None:
                    if len(got) >= need:
                        worst = max(got.values())  # the worst we hold; the heap has nothing better left
                elif e > worst:
                    worst = e
        return sorted(got.values())

    def _choose(self, ranked: list[tuple[str, int]]) -> tuple[str, list[tuple[str, int]]]:
        """Pick the winner among the best (pair, count)s; return it and the runners-up (best first).

        The first is the winner, except under ``first-seen``, where the pair whose first occurrence comes
        first wins among those tied with it.
        """
        key, count = ranked[0]
        popped = ranked[1:]
        if self.config.tie_break == TieBreak.FIRST_SEEN:
            tied = [key] + [k for k, c in popped if c == count]
            if len(tied) > 1:
                tied.sort(key=self._first_occurrence)
                key = tied[0]
                popped = [(k, count) for k in tied[1:]] + [(k, c) for k, c in popped if c != count]
        return key, popped

    def _first_occurrence(self, key: str) -> tuple[int, int]:
        """(word index, position) of the pair's first occurrence; drops stale words from the index."""
        wi = self._first_word.get(key)
        if wi is not None:
            i = self._words[wi].find(key)
            if i >= 0:
                return (wi, i)
        s = self.where.get(key)
        if s:
            order = sorted(set(s))
            for n, wi in enumerate(order):
                i = self._words[wi].find(key)
                if i >= 0:
                    self._first_word[key] = wi
                    self.where[key] = array("I", order[n:])  # it left the words before for good
                    return (wi, i)
            del self.where[key]
        return (1 << 62, 0)

    def _merge(self, ab: str, count: int, contenders: tuple[tuple[str, str, int], ...]) -> MergeRecord:
        a, b = ord(ab[0]), ord(ab[1])
        c = self._new_token(a, b)

        counts, where = self._counts, self.where
        words, wcounts = self._words, self.wcounts
        # New pairs (all contain c) -> the words that gained them, once per occurrence (their counts are
        # the words' weights summed per occurrence); counts and index entries (one per word) are added at the
        # end, one C-level pass per new pair instead of per occurrence.
        gained: defaultdict[str, list[int]] = defaultdict(list)
        cc = chr(c)
        merged = 0
        touched = 0
        entries = where.pop(ab, ())
        self.word_visits += len(entries)
        done: set[int] = set()  # a word can be listed again by a later merge that gained the pair in it again
        for wi in entries:
            if wi in done:
                continue
            done.add(wi)
            w = words[wi]
            i = w.find(ab)
            if i < 0:
                continue  # stale index entry: the pair is no longer in this word
            new_w = w.replace(ab, cc)  # left to right, no overlaps: exactly the textbook rewrite
            words[wi] = new_w
            f = wcounts[wi]
            touched += 1
            last = len(w) - 2  # a hit at i < last has a right neighbour w[i + 2]
            k = 0  # hits so far: the hit at old position i is new_w[i - k]
            prev_end = 0  # old position just after the previous hit (0: no left neighbour at i = 0)
            while i >= 0:
                j = i - k
                # Left side: (x, a) becomes (x, c).  When the previous hit ends right here, x was its b:
                # that hit's right side already removed (b, a) and added the final (c, c) -- skip.
                if i != prev_end:
                    counts[w[i - 1 : i + 1]] -= f
                    gained[new_w[j - 1 : j + 1]].append(wi)
                # Right side: (b, q) goes; the new pair is read from the rewritten word, so it is the
                # final (c, q), or (c, c) when the next hit starts at q.
                if i < last:
                    counts[w[i + 1 : i + 3]] -= f
                    gained[new_w[j : j + 2]].append(wi)
                k += 1
                prev_end = i + 2
                i = w.find(ab, prev_end)
            merged += k * f
        counts.pop(ab, None)
        if self._first_word:  # pairs that gained occurrences may now first occur in an earlier word
            for gp in gained:
                self._first_word.pop(gp, None)
        heap, push, weight = self._heap, heapq.heappush, wcounts.__getitem__
        lexical, desc, t = self._lexical, self._desc, self.tokens
        for gp, wis in gained.items():
            n = counts[gp] = counts.get(gp, 0) + sum(map(weight, wis))
            where[gp].extend(dict.fromkeys(wis))  # a word once, however often it gained the pair
            if lexical:  # self._entry, inlined
                push(heap, (-n << _SHIFT, t[ord(gp[0])], t[ord(gp[1])], gp))
            elif desc is not None:
                push(heap, (-n << _SHIFT, desc(t[ord(gp[0])]), desc(t[ord(gp[1])]), gp))
            else:
                push(heap, ((-n << _SHIFT) | (ord(gp[0]) << _ID_BITS) | ord(gp[1]), gp))
        return self._record(a, b, c, count, merged, touched, contenders)

    def segmentation(self) -> list[tuple[list[Token], int]]:
        """Every distinct word in its current segmentation, with its count (first-seen order)."""
        t = self.tokens
        return [([t[ord(s)] for s in w], c) for w, c in zip(self._words, self.wcounts, strict=True)]


def train(word_counts: WordCounts | Mapping[str, int], config: TrainConfig) -> tuple[BPEModel, list[MergeRecord]]:
    """Train to the end. Returns the model and the per-merge records.

    >>> model, recs = train({"aaaa": 1}, TrainConfig(mode="chars", end_of_word=""))
    >>> [(r.token, r.count, r.merged) for r in recs]
    [('aa', 3, 2), ('aaaa', 1, 1)]
    """
    t = Trainer(word_counts, config)
    return t.model, t.run()
