"""The textbook BPE trainer: recount every pair after every merge (seed 000's Python, generalised).

It is the executable definition the fast trainer is tested against, for every tie-break rule and both
modes, with forbidden pairs and with a forced start (the first merges of a branched run, made whatever the
rule says), and it is short enough to read in one go.  It is far too slow for real corpora (minutes on a few MB)
and reports no statistics beyond the merge list.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import regex

from ..choices import Mode, TieBreak
from ..config import TrainConfig
from ..tokenizers.model import BPEModel, Token, joined, token_text
from .trainer import word_symbols


def merge_word(seq: tuple[Token, ...], pair: tuple[Token, Token]) -> tuple[Token, ...]:
    """Replace every occurrence of *pair* in *seq*, left to right, without overlaps."""
    out: list[Token] = []
    i = 0
    while i < len(seq):
        if i < len(seq) - 1 and (seq[i], seq[i + 1]) == pair:
            out.append(joined(seq[i], seq[i + 1]))
            i += 2
        else:
            out.append(seq[i])
            i += 1
    return tuple(out)


def forbidden(pair: tuple[Token, Token], config: TrainConfig) -> bool:
    """The definition of a forbidden pair: named by its display texts, or its merged token matches the regex."""
    if (token_text(pair[0]), token_text(pair[1])) in config.forbid:
        return True
    if config.forbid_regex is None:
        return False
    new = joined(*pair)
    text = new.decode("utf-8", "replace") if isinstance(new, bytes) else new
    return regex.search(config.forbid_regex, text) is not None


def naive_train(
    word_counts: Mapping[str, int], config: TrainConfig, start: Sequence[tuple[Token, Token]] = ()
) -> list[tuple[Token, Token]]:
    """Return the merges (as token pairs) the textbook loop learns under *config*.

    The first merges are *start* (a branch's first k merges, made whatever the rule or the forbids say;
    each must occur), then the rule picks the best pair that is not :func:`forbidden`.
    """
    words = [(tuple(word_symbols(w, config)), c) for w, c in word_counts.items() if c > 0 and w]
    alphabet = {ch for w, c in word_counts.items() if c > 0 for ch in w}
    model = BPEModel.empty(config, alphabet if config.mode == Mode.CHARS else ())
    ids = {t: i for i, t in enumerate(model.base)}  # for the hf rule: id order = creation order
    merges: list[tuple[Token, Token]] = []
    while True:
        if config.merges is not None and len(merges) >= config.merges:
            break
        if config.vocab_size is not None and len(ids) + len(config.specials) >= config.vocab_size:
            break
        pairs: dict[tuple[Token, Token], int] = {}
        for seq, c in words:
            for pair in itertools.pairwise(seq):
                pairs[pair] = pairs.get(pair, 0) + c
        if len(merges) < len(start):
            forced = start[len(merges)]
            if forced not in pairs:
                raise ValueError(f"forced merge {forced} does not occur")
            pairs = {forced: pairs[forced]}
        else:
            pairs = {p: n for p, n in pairs.items() if not forbidden(p, config)}
        if not pairs:
            break
        if config.tie_break == TieBreak.LEXICAL:
            best = min(pairs, key=lambda p: (-pairs[p], p))
        elif config.tie_break == TieBreak.FIRST_SEEN:
            best = max(pairs, key=pairs.__getitem__)  # first maximum in insertion order
        elif config.tie_break == "subword-nmt":
            best = max(pairs, key=lambda p: (pairs[p], p))  # learn_bpe's own line
        else:
            best = min(pairs, key=lambda p: (-pairs[p], ids[p[0]], ids[p[1]]))
        if pairs[best] < config.min_frequency and len(merges) >= len(start):
            break
        merges.append(best)
        new = joined(*best)
        ids.setdefault(new, len(ids))
        words = [(merge_word(seq, best), c) for seq, c in words]
    return merges
