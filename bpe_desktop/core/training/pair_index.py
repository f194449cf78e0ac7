"""The trainer's starting state: each distinct word as a str of token ids, the weighted count of every
adjacent pair, and the index from a pair to the words that hold it.

Representation (see :mod:`.trainer`): the i-th character of a word's str is ``chr(id of its i-th symbol)``
and a pair (a, b) is the 2-character str ``chr(a) + chr(b)``, so the trainer finds and rewrites pairs with
``str.find``/``str.replace``.  The index keeps word numbers in ``array('I')`` -- 4 bytes each, no int object
per entry -- and lists a word once per pair however often the word holds it (a long word with no spaces
holds some pairs thousands of times: one entry each made merging quadratic).  A later merge may list a word
again, or leave one listed that has lost the pair since (the trainer skips both); a one-symbol word has no
pair and is in no list.  Nothing here merges.
"""

from __future__ import annotations

from array import array
from collections import defaultdict

from ..choices import Mode
from ..config import TrainConfig
from ..tokenizers.model import Token


def word_list() -> array[int]:
    """An empty list of word numbers."""
    return array("I")


def word_strings(pieces: list[str], ids: dict[Token, int], config: TrainConfig) -> list[str]:
    """The words (pieces) as strs of their base symbols' ids, mapped in C.

    >>> word_strings(["low", "é"], {b: i for i, b in enumerate(bytes([c]) for c in range(256))},
    ...              TrainConfig(mode="bytes"))
    ['low', 'Ã©']
    """
    if config.mode == Mode.BYTES:  # base ids are 0..255: one byte each, mapped by bytes.translate
        table = bytes(ids[bytes([i])] for i in range(256))
        return [w.encode("utf-8", "surrogateescape").translate(table).decode("latin-1") for w in pieces]
    to_id = {ord(t): i for t, i in ids.items() if len(t) == 1}
    out = [w.translate(to_id) for w in pieces]
    marker = config.end_of_word
    if marker and config.glue_marker:  # the last char and the marker are one symbol
        return [s[:-1] + chr(ids[w[-1] + marker]) for s, w in zip(out, pieces, strict=True)]
    if marker:
        end = chr(ids[marker])
        return [s + end for s in out]
    return out


def pair_tables(words: list[str], wcounts: list[int]) -> tuple[defaultdict[str, int], defaultdict[str, array[int]]]:
    """Pair key -> weighted count (overlaps counted), and pair key -> numbers of the words that hold it.

    >>> counts, where = pair_tables(["aaa", "ab", "b"], [2, 5, 7])
    >>> dict(counts), {k: list(v) for k, v in where.items()}
    ({'aa': 4, 'ab': 5}, {'aa': [0], 'ab': [1]})
    """
    counts: defaultdict[str, int] = defaultdict(int)
    where: defaultdict[str, array[int]] = defaultdict(word_list)
    for wi, w in enumerate(words):
        if len(w) < 2:
            continue
        c = wcounts[wi]
        for i in range(len(w) - 1):
            key = w[i : i + 2]
            counts[key] += c
            held = where[key]
            if not held or held[-1] != wi:  # a word once per pair, however often it holds it
                held.append(wi)
    return counts, where
