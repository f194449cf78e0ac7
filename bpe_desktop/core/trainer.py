"""The incremental BPE trainer: word counts in, one :class:`MergeRecord` per merge out.

Design (HF tokenizers' ``trainer.rs``): the corpus is counted once into distinct words; then the trainer
keeps the weighted count of every adjacent pair (overlaps counted, the seeds' formula), an index from
each pair to the words that contain it, and a heap ordered by (count, tie key).  A merge pops the top; if
the stored count is stale it is pushed back corrected (lazy re-check, correct because existing pairs only
lose count); then only the words the index names are rewritten, left to right and without overlaps,
applying +/- deltas to the neighbouring pairs.  Nothing rescans the corpus.

Tie-break rules (:data:`~.config.TIE_BREAKS`):

* ``lexical``    -- smallest ``(left, right)`` in string order (bytes order in bytes mode);
* ``first-seen`` -- the pair whose first occurrence comes first, scanning distinct words in first-appearance
  order, each left to right in its current segmentation (Python's ``max`` over a freshly built dict);
* ``hf``         -- smallest ``(left id, right id)``; our ids follow HF's order (alphabet by code point,
  then merges in creation order), so this is HF's BpeTrainer choice.

The trainer is a plain object: ``step()`` makes one merge, so a caller can pause, step or cancel between
merges from any process.  It does not read files (:mod:`.corpus`) or encode text (:mod:`.tokenizer`).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator, Mapping
from typing import Any

from .config import TrainConfig
from .corpus import WordCounts
from .model import BPEModel, Token, token_text
from .records import CONTENDERS, MergeRecord


def word_symbols(word: str, config: TrainConfig) -> list[Token]:
    """The base symbols of one word (piece) under *config*.

    >>> word_symbols("low", TrainConfig())
    ['l', 'o', 'w', '</w>']
    >>> word_symbols("low", TrainConfig(glue_marker=True))
    ['l', 'o', 'w</w>']
    >>> word_symbols("é", TrainConfig(mode="bytes"))
    [b'\\xc3', b'\\xa9']
    """
    if config.mode == "bytes":
        data = word.encode("utf-8", "surrogateescape")
        return [data[i : i + 1] for i in range(len(data))]
    syms: list[Token] = list(word)
    marker = config.end_of_word
    if marker:
        if config.glue_marker:
            if syms:
                syms[-1] = syms[-1] + marker  # type: ignore[operator]
        else:
            syms.append(marker)
    return syms


class Trainer:
    """Learns merges one at a time.

    >>> t = Trainer({"low": 5, "lower": 2, "newest": 6, "widest": 3}, TrainConfig(merges=3))
    >>> [(r.left, r.right, r.count) for r in t]
    [('e', 's', 9), ('es', 't', 9), ('est', '</w>', 9)]
    """

    def __init__(self, word_counts: WordCounts | Mapping[str, int], config: TrainConfig) -> None:
        counts = word_counts.counts if isinstance(word_counts, WordCounts) else dict(word_counts)
        self.config = config
        words_syms = [(word_symbols(w, config), c) for w, c in counts.items() if c > 0 and w]
        alphabet = {ch for w, c in counts.items() if c > 0 for ch in w} if config.mode == "chars" else ()
        self.model = BPEModel.empty(config, alphabet)
        self.tokens: list[Token] = list(self.model.base)
        self.ids: dict[Token, int] = {t: i for i, t in enumerate(self.tokens)}
        self.texts: list[str] = [token_text(t) for t in self.tokens]  # display text, by id
        ids = self.ids
        self.words: list[list[int]] = [[ids[s] for s in syms] for syms, _ in words_syms]
        self.wcounts: list[int] = [c for _, c in words_syms]
        self.total_symbols = sum(len(w) * c for w, c in zip(self.words, self.wcounts, strict=True))
        self.initial_symbols = self.total_symbols
        self.stop_reason: str | None = None

        pair_counts: dict[tuple[int, int], int] = {}
        where: dict[tuple[int, int], set[int]] = {}
        for wi, (w, c) in enumerate(zip(self.words, self.wcounts, strict=True)):
            for pair in itertools.pairwise(w):
                pair_counts[pair] = pair_counts.get(pair, 0) + c
                s = where.get(pair)
                if s is None:
                    where[pair] = {wi}
                else:
                    s.add(wi)
        self.pair_counts = pair_counts
        self.where = where
        self._heap: list[tuple[Any, ...]] = [self._entry(p, c) for p, c in pair_counts.items()]
        heapq.heapify(self._heap)

    # -- public -------------------------------------------------------------------------------------
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

    def step(self) -> MergeRecord | None:
        """Make the next merge, or return ``None`` (and set :attr:`stop_reason`) when training is over."""
        cfg = self.config
        if cfg.merges is not None and self.n_merges >= cfg.merges:
            self.stop_reason = f"reached {cfg.merges} merges"
            return None
        if cfg.vocab_size is not None and self.vocab_size >= cfg.vocab_size:
            self.stop_reason = f"reached vocabulary size {self.vocab_size}"
            return None
        best = self._pop_valid()
        if best is None:
            self.stop_reason = "no pair left to merge"
            return None
        pair, count = best
        if count < cfg.min_frequency:
            heapq.heappush(self._heap, self._entry(pair, count))
            self.stop_reason = f"best pair count {count} is below the minimum frequency {cfg.min_frequency}"
            return None
        pair, popped = self._choose(pair, count)
        for p, c in popped:
            heapq.heappush(self._heap, self._entry(p, c))
        texts = self.texts
        contenders = tuple((texts[p[0]], texts[p[1]], c) for p, c in popped[:CONTENDERS])
        return self._merge(pair, count, contenders)

    def set_limits(self, *, merges: int | None = None, vocab_size: int | None = None) -> None:
        """Change the stop conditions mid-run (the GUI's "train further")."""
        self.config = self.config.with_(merges=merges, vocab_size=vocab_size)
        self.stop_reason = None

    # -- internals ----------------------------------------------------------------------------------
    def _entry(self, pair: tuple[int, int], count: int) -> tuple[Any, ...]:
        rule = self.config.tie_break
        if rule == "lexical":
            t = self.tokens
            return (-count, t[pair[0]], t[pair[1]], pair)
        return (-count, pair[0], pair[1], pair)  # hf; first-seen refines ties in _choose

    def _pop_valid(self) -> tuple[tuple[int, int], int] | None:
        heap, counts = self._heap, self.pair_counts
        while heap:
            entry = heapq.heappop(heap)
            pair = entry[-1]
            c = counts.get(pair, 0)
            if c <= 0:
                continue
            if c != -entry[0]:
                heapq.heappush(heap, self._entry(pair, c))
                continue
            return pair, c
        return None

    def _choose(
        self, pair: tuple[int, int], count: int
    ) -> tuple[tuple[int, int], list[tuple[tuple[int, int], int]]]:
        """Pick the winner among the top pairs; return it and the popped runners-up (best first).

        Pops :data:`CONTENDERS` further pairs for the explanation; under ``first-seen`` it also pops every
        pair tied at *count*, since that rule's key changes as words are rewritten and cannot live in the
        heap.  The caller pushes the runners-up back.
        """
        popped: list[tuple[tuple[int, int], int]] = []
        seen = {pair}
        first_seen = self.config.tie_break == "first-seen"
        while len(popped) < CONTENDERS or (first_seen and self._heap and -self._heap[0][0] >= count):
            nxt = self._pop_valid()
            if nxt is None:
                break
            if nxt[0] not in seen:
                seen.add(nxt[0])
                popped.append(nxt)
        if first_seen:
            tied = [pair] + [p for p, c in popped if c == count]
            if len(tied) > 1:
                tied.sort(key=self._first_occurrence)
                pair = tied[0]
                popped = [(p, count) for p in tied[1:]] + [(p, c) for p, c in popped if c != count]
        return pair, popped

    def _first_occurrence(self, pair: tuple[int, int]) -> tuple[int, int]:
        """(word index, position) of the pair's first occurrence; drops stale words from the index."""
        a, b = pair
        s = self.where.get(pair)
        while s:
            wi = min(s)
            w = self.words[wi]
            for i in range(len(w) - 1):
                if w[i] == a and w[i + 1] == b:
                    return (wi, i)
            s.discard(wi)  # the pair left this word for good: a merge only ever removes it
        return (1 << 62, 0)

    def _merge(
        self, pair: tuple[int, int], count: int, contenders: tuple[tuple[str, str, int], ...]
    ) -> MergeRecord:
        a, b = pair
        new_tok = self.tokens[a] + self.tokens[b]  # type: ignore[operator]
        c = self.ids.get(new_tok)
        if c is None:
            c = self.ids[new_tok] = len(self.tokens)
            self.tokens.append(new_tok)
            self.texts.append(self.texts[a] + self.texts[b])
        self.model.merges.append(pair)
        self.model.invalidate()

        counts = self.pair_counts
        where = self.where
        words, wcounts = self.words, self.wcounts
        grown: set[tuple[int, int]] = set()
        merged = 0
        touched = 0
        for wi in where.pop(pair, ()):
            w = words[wi]
            n = len(w)
            f = wcounts[wi]
            out: list[int] = []
            i = 0
            hits = 0
            while i < n:
                if i + 1 < n and w[i] == a and w[i + 1] == b:
                    if out:
                        p = out[-1]
                        old = (p, a)
                        counts[old] -= f
                        new = (p, c)
                        counts[new] = counts.get(new, 0) + f
                        grown.add(new)
                        s = where.get(new)
                        if s is None:
                            where[new] = {wi}
                        else:
                            s.add(wi)
                    if i + 2 < n:
                        q = w[i + 2]
                        old = (b, q)
                        counts[old] -= f
                        new = (c, q)
                        counts[new] = counts.get(new, 0) + f
                        grown.add(new)
                        s = where.get(new)
                        if s is None:
                            where[new] = {wi}
                        else:
                            s.add(wi)
                    out.append(c)
                    hits += 1
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            if hits:
                words[wi] = out
                merged += hits * f
                touched += 1
        counts.pop(pair, None)
        heap = self._heap
        for gp in grown:
            n_gp = counts.get(gp, 0)
            if n_gp > 0:
                heapq.heappush(heap, self._entry(gp, n_gp))
        self.total_symbols -= merged
        if merged == 0:  # cannot happen with consistent counts; guard against silent corruption
            raise RuntimeError(f"internal error: pair {pair} had count {count} but no occurrence")
        texts = self.texts
        return MergeRecord(
            rank=self.n_merges, left=texts[a], right=texts[b], token=texts[c],
            left_id=a, right_id=b, token_id=c, count=count, merged=merged,
            symbols_after=self.total_symbols, vocab_size=self.vocab_size, words_touched=touched,
            contenders=contenders,
        )

    def segmentation(self) -> list[tuple[list[Token], int]]:
        """Every distinct word in its current segmentation, with its count (first-seen order)."""
        t = self.tokens
        return [([t[s] for s in w], c) for w, c in zip(self.words, self.wcounts, strict=True)]


def train(word_counts: WordCounts | Mapping[str, int], config: TrainConfig) -> tuple[BPEModel, list[MergeRecord]]:
    """Train to the end. Returns the model and the per-merge records.

    >>> model, recs = train({"aaaa": 1}, TrainConfig(mode="chars", end_of_word=""))
    >>> [(r.token, r.count, r.merged) for r in recs]
    [('aa', 3, 2), ('aaaa', 1, 1)]
    """
    t = Trainer(word_counts, config)
    recs = t.run()
    return t.model, recs
