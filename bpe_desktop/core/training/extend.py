"""Learn new merges on top of an existing tokenizer's segmentation: the extension trainer.

It starts from every distinct word (pre-tokenized piece) as the *original* tokenizer segments it, with its
count, and learns merges one at a time with the trainer's bookkeeping -- the weighted count of every adjacent
pair (overlaps counted), an index from a pair to the words that hold it, a lazy heap ordered by count then
tie key -- and emits one :class:`~..records.MergeRecord` per merge (count, runner-ups).  After a merge only
the words the index names are rewritten, and the pair counts change by the difference between each word's
old and new pairs.  What "rewritten" means depends on how the original encodes:

- ``merge-list`` (HF BPE, GPT-2 merges, ours): the encoder replays merges lowest rank first; every appended
  merge involves a token the original never makes in that word, so "encode with the original, then apply the
  new merges in order" is what the extended file encodes as.  A word is rewritten by replacing the pair left
  to right, as :mod:`.trainer` does.  A pair is a pair of ids; a merge whose token already exists reuses its id.
- ``ranks`` (tiktoken): the encoder merges the adjacent pair whose *concatenated bytes* have the lowest rank.
  A new token X gets a rank above all others, so a word's encoding with the extended table passes through its
  encoding before X (:func:`~..tokenizers.rank_bpe.byte_pair_continue`); the rewrite goes on from there with the
  extended table -- which may merge X with a neighbour into an *original* token of lower rank.  So a pair is
  keyed by its concatenated bytes (two different splits of X both make X), ``merged`` is the fall in symbols
  and :attr:`ExtendTrainer.made` the number of X really made.  A candidate whose bytes the table so far does
  not encode as exactly two tokens is skipped (tiktoken encodes a piece that is a whole token as that token,
  and a rank file must stay a merge table for :func:`~..tokenizers.ranks.recover_merges`).

Ties go to the smaller key: the smaller (left id, right id) pair, or the smaller bytes for rank tables (the
``--tie-break`` rules are about training from bytes, not here).  Forbidden pairs and the minimum frequency
apply as in :mod:`.trainer`.  This module does not read files, split text or write the extended tokenizer
(:mod:`bpe_desktop.core.extend` does).
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from itertools import pairwise
from typing import Literal

from ..config import TrainConfig
from ..errors import CorpusError
from ..forbid import ForbidRule
from ..records import CONTENDERS, MergeRecord
from ..stopping import StopReason
from ..tokenizers.model import Token, joined, token_text
from ..tokenizers.rank_bpe import byte_pair_continue, byte_pair_ranks

Kind = Literal["merge-list", "ranks"]
Key = tuple[int, int] | bytes  # a pair of ids (merge-list) or the pair's concatenated bytes (ranks)


class ExtendTrainer:
    """Learns merges on top of a segmentation (ids of the original tokenizer).

    >>> toks = [b"a", b"b", b"c"]
    >>> t = ExtendTrainer([[0, 1, 2], [0, 1]], [3, 2], toks, kind="merge-list", next_id=3,
    ...                   config=TrainConfig(mode="bytes", merges=2))
    >>> [(r.token, r.token_id, r.count) for r in t]
    [('ab', 3, 5), ('abc', 4, 3)]
    """

    def __init__(
        self, words: Sequence[Sequence[int]], wcounts: Sequence[int], tokens: Sequence[Token], *, kind: Kind,
        next_id: int, config: TrainConfig, ranks: dict[bytes, int] | None = None, history: bool = False,
    ) -> None:
        """*tokens*: the original's token by id (a gap: any placeholder); *next_id*: the first new id (rank);
        *ranks*: the rank table (``kind="ranks"``), copied; *history*: keep every rewrite (:attr:`rewrites`)."""
        self.config = config
        self.kind: Kind = kind
        self.words: list[list[int]] = [list(w) for w in words]
        self.wcounts: list[int] = list(wcounts)
        self.tokens: list[Token] = list(tokens)
        self.tokens += [b""] * (next_id - len(self.tokens))  # ids between the last token and next_id: unused
        self.ranks: dict[bytes, int] = dict(ranks or {})
        self.ids: dict[Token, int] = {t: i for i, t in enumerate(tokens)} if kind == "merge-list" else {}
        self.first_new_id = next_id
        self.merges: list[tuple[int, int]] = []  #: the new merges as (left id, right id), in order
        self.made: list[int] = []  #: per new merge: how many of its token the words hold right after it
        self.records: list[MergeRecord] = []
        #: with *history*: the words as the original segments them, and per new merge the words it rewrote as
        #: (word index, segmentation after it) -- the corpus's segmentation at every step (the plots' source)
        self.start_words: list[tuple[int, ...]] | None = [tuple(w) for w in self.words] if history else None
        self.rewrites: list[list[tuple[int, tuple[int, ...]]]] | None = [] if history else None
        self.total_symbols = sum(len(w) * c for w, c in zip(self.words, self.wcounts, strict=True))
        self.initial_symbols = self.total_symbols
        self.stop_reason: str | None = None
        self.stopped_by: StopReason | None = None
        self._forbid = ForbidRule.from_settings(config.forbid, config.forbid_regex)
        self._blocked: dict[Key, bool] = {}
        self._unusable: set[bytes] = set()  # rank candidates skipped since the last merge (see the docstring)
        self.counts: defaultdict[Key, int] = defaultdict(int)  # key -> weighted count (may hold zeros)
        self.where: defaultdict[Key, set[int]] = defaultdict(set)  # key -> words that held it
        for wi, w in enumerate(self.words):
            for k in self._keys(w):
                self.counts[k] += self.wcounts[wi]
                self.where[k].add(wi)
        self._heap: list[tuple[int, Key]] = [(-c, k) for k, c in self.counts.items() if c > 0]
        heapq.heapify(self._heap)

    # -- public -------------------------------------------------------------------------------------
    @property
    def n_merges(self) -> int:
        return len(self.merges)

    @property
    def vocab_size(self) -> int:
        """Ids in use: the original's (up to the first new one) and the new tokens."""
        return len(self.tokens)

    def __iter__(self) -> Iterator[MergeRecord]:
        return iter(self.step, None)

    def run(self) -> list[MergeRecord]:
        return list(self)

    def step(self) -> MergeRecord | None:
        """Make the next merge, or return ``None`` (and set :attr:`stop_reason`)."""
        cfg = self.config
        if cfg.merges is not None and self.n_merges >= cfg.merges:
            noun = "merge" if cfg.merges == 1 else "merges"
            self.stop_reason, self.stopped_by = f"reached {cfg.merges:,} new {noun}", StopReason.MERGES
            return None
        best = self._best(1 + CONTENDERS)
        if not best:
            self.stop_reason, self.stopped_by = "no pair left to merge", StopReason.NO_PAIR
            return None
        (key, count, (a, b)), rest = best[0], best[1:]
        for k, c, _ in best:
            heapq.heappush(self._heap, (-c, k))
        if count < cfg.min_frequency:
            self.stop_reason = f"best pair count {count} is below the minimum frequency {cfg.min_frequency}"
            self.stopped_by = StopReason.MIN_FREQUENCY
            return None
        t = self._text
        contenders = tuple((t(x), t(y), c) for _, c, (x, y) in rest)
        return self._merge(key, count, a, b, contenders)

    def replay(self, merges: Iterable[tuple[Token, Token]], *, strict: bool = True) -> None:
        """Make these merges (given by their two tokens) in order, whatever their counts: an extension learned
        before on this corpus, followed again (a session reopened); a pair this corpus does not hold is refused,
        or with *strict* False (another text: a held-out one) its token is made and nothing is rewritten."""
        for left, right in merges:
            key: Key | None = None
            if self.kind == "merge-list":
                a, b = self.ids.get(left), self.ids.get(right)
                key = (a, b) if a is not None and b is not None else None
            elif isinstance(left, bytes) and isinstance(right, bytes):
                a, b = self.ranks.get(left), self.ranks.get(right)
                key = left + right if a is not None and b is not None else None
            else:
                a = b = None
            count = self.counts.get(key, 0) if key is not None else 0
            if key is None or a is None or b is None or count <= 0:
                if strict or a is None or b is None:
                    raise CorpusError(f"the merge {token_text(left)!r} + {token_text(right)!r} does not occur in "
                                      "this corpus -- it is not the corpus the extension was learned on")
                self._new_id(a, b)  # (later merges' ids and, for a rank table, its rule need the token)
                self.merges.append((a, b))
                self.made.append(0)
                if self.rewrites is not None:
                    self.rewrites.append([])
                continue
            self._merge(key, count, a, b, ())

    # -- internals ----------------------------------------------------------------------------------
    def _text(self, i: int) -> str:
        return token_text(self.tokens[i])

    def _keys(self, w: list[int]) -> list[Key]:
        if self.kind == "merge-list":
            return list(pairwise(w))
        t = self.tokens
        return [t[x] + t[y] for x, y in pairwise(w)]  # type: ignore[operator,misc]

    def _split(self, key: Key) -> tuple[int, int] | None:
        """The (left, right) ids a key merges, or None for a rank candidate that is no merge of two tokens."""
        if isinstance(key, tuple):
            return key
        parts = byte_pair_ranks(self.ranks, key, len(self.tokens) + 1)
        if len(parts) != 2:
            return None
        return self.ranks[parts[0]], self.ranks[parts[1]]

    def _usable(self, key: Key, split: tuple[int, int]) -> bool:
        if self._forbid is None:
            return True
        b = self._blocked.get(key)
        if b is None:
            a, c = split
            b = self._blocked[key] = self._forbid.blocks(self._text(a), self._text(c),
                                                         joined(self.tokens[a], self.tokens[c]))
        return not b

    def _best(self, need: int) -> list[tuple[Key, int, tuple[int, int]]]:
        """Up to *need* valid (key, count, split)s, best first, taken out of the heap."""
        heap, counts = self._heap, self.counts
        got: list[tuple[Key, int, tuple[int, int]]] = []
        seen: set[Key] = set()
        while heap and len(got) < need:
            negc, key = heapq.heappop(heap)
            n = counts.get(key, 0)
            if n <= 0 or key in seen:
                continue
            if n != -negc:
                heapq.heappush(heap, (-n, key))  # stale: pushed back corrected
                continue
            split = self._split(key)
            if split is None:
                self._unusable.add(key)  # type: ignore[arg-type]
                continue
            if not self._usable(key, split):
                continue
            seen.add(key)
            got.append((key, n, split))
        return got

    def _new_id(self, a: int, b: int) -> int:
        tok = joined(self.tokens[a], self.tokens[b])
        if self.kind == "merge-list":
            c = self.ids.get(tok)
            if c is not None:
                return c
        c = len(self.tokens)
        self.tokens.append(tok)
        if self.kind == "merge-list":
            self.ids[tok] = c
        else:
            self.ranks[tok] = c  # type: ignore[index]
        return c

    def _rewrite(self, w: list[int], a: int, b: int, c: int) -> list[int]:
        if self.kind == "merge-list":  # left to right, no overlaps (ids fit in a character: Trainer's trick)
            return list(map(ord, "".join(map(chr, w)).replace(chr(a) + chr(b), chr(c))))
        t, ranks = self.tokens, self.ranks
        parts = byte_pair_continue(ranks, [t[i] for i in w], len(t))  # type: ignore[misc]
        return [ranks[p] for p in parts]

    def _merge(self, key: Key, count: int, a: int, b: int,
               contenders: tuple[tuple[str, str, int], ...]) -> MergeRecord:
        c = self._new_id(a, b)
        self.merges.append((a, b))
        counts, where, words, wcounts = self.counts, self.where, self.words, self.wcounts
        touched = merged = made = 0
        gained: set[Key] = set()
        rewrote: list[tuple[int, tuple[int, ...]]] | None = [] if self.rewrites is not None else None
        for wi in sorted(where.pop(key, ())):
            w = words[wi]
            new = self._rewrite(w, a, b, c)
            if new == w:
                continue  # stale index entry
            f = wcounts[wi]
            touched += 1
            merged += (len(w) - len(new)) * f
            made += (new.count(c) - w.count(c)) * f
            for k in self._keys(w):
                counts[k] -= f
            for k in self._keys(new):
                counts[k] += f
                where[k].add(wi)
                gained.add(k)
            words[wi] = new
            if rewrote is not None:
                rewrote.append((wi, tuple(new)))
        counts.pop(key, None)
        if merged == 0:  # cannot happen with consistent counts; guard against silent corruption
            raise RuntimeError(f"internal error: pair {(a, b)} had count {count} but no occurrence")
        for k in gained:
            if counts[k] > 0:
                heapq.heappush(self._heap, (-counts[k], k))
        for k in self._unusable:  # a new rank may make them a merge of two tokens: try them again
            if counts.get(k, 0) > 0:
                heapq.heappush(self._heap, (-counts[k], k))
        self._unusable.clear()
        self.total_symbols -= merged
        self.made.append(made)
        if self.rewrites is not None and rewrote is not None:
            self.rewrites.append(rewrote)
        t = self._text
        rec = MergeRecord(
            rank=self.n_merges, left=t(a), right=t(b), token=t(c), left_id=a, right_id=b, token_id=c,
            count=count, merged=merged, symbols_after=self.total_symbols, vocab_size=self.vocab_size,
            words_touched=touched, contenders=contenders,
        )
        self.records.append(rec)
        return rec
