"""Token byte offsets of one tokenizer over a log's chunks, fast: each distinct piece is encoded once.

:class:`TokenOffsets` gives, for each chunk, the start and end byte of every token -- what
``encode_with_offsets(chunk, allowed_special=())`` gives, as two arrays.  A log repeats its pieces, so for our
own two encoders (:class:`~..tokenizers.ranks.RankTokenizer`, :class:`~..tokenizers.tokenizer.Tokenizer`:
each pre-tokenizer piece is encoded on its own, special strings as text) when their tokens cover the text end
to end (byte-level: no dropped whitespace, no marker tokens without bytes), the chunk is split into pieces
(through the standard library's twin of the pattern on ASCII text, :mod:`..text.ascii_twins`), each piece is
looked up in a table of the pieces met so far (their token byte lengths, in flat arrays), and the chunk's
tokens are gathered with numpy.  A piece not yet met is encoded alone (``encode_piece``); the table starts
over past :data:`MAX_PIECES` pieces, so memory stays bounded.  Other tokenizers (and ours once a piece is not
covered end to end) go through ``encode_ordinary`` plus a table of token lengths when the tokens cover the
chunk, and ``encode_with_offsets`` otherwise.  This module does not classify nor attribute tokens
(:mod:`.log_inspect`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np

from ..text.ascii_twins import ascii_splitter
from ..tokenizers.any_tokenizer import AnyTokenizer
from ..tokenizers.ranks import RankTokenizer
from ..tokenizers.tokenizer import Tokenizer

#: distinct pieces kept before the table starts over
MAX_PIECES = 1 << 18


class TokenOffsets:
    """The token byte offsets of one tokenizer (limited to its first *upto* merges), chunk by chunk (see
    the module docstring)."""

    def __init__(self, tokenizer: AnyTokenizer, upto: int | None = None, max_pieces: int = MAX_PIECES) -> None:
        self.tokenizer, self.upto, self.max_pieces = tokenizer, upto, max_pieces
        pre = tokenizer.pretokenizer
        # (our two encoders: their encode_ordinary is encode_piece of each piece, special strings as text)
        self.by_piece = type(tokenizer) in (RankTokenizer, Tokenizer) and not pre.drops_whitespace
        self.fast = not pre.drops_whitespace
        self._split: Callable[[str], list[str]] = (
            ascii_splitter(pre.pattern, pre.split) if pre.pattern is not None and pre.name != "custom"
            else pre.split)
        self._lengths = np.zeros(0, dtype=np.int64)  # byte length of token id i, -1 = not yet known
        self._clear()

    def _clear(self) -> None:
        self.ids: dict[str, int] = {}  # piece -> its entry
        self.start = np.zeros(0, dtype=np.int64)  # entry -> its first token in the flat array
        self.count = np.zeros(0, dtype=np.int64)  # entry -> its tokens
        self.length = np.zeros(0, dtype=np.int64)  # flat: token byte length

    def __call__(self, chunk: str, n_bytes: int) -> tuple[np.ndarray, np.ndarray]:
        """Start and end bytes (in the chunk's UTF-8, *n_bytes* long) of every token of *chunk*."""
        if self.by_piece:
            lens = self._piece_lengths(chunk)
            if lens is not None and int(lens.sum()) == n_bytes:
                ends = np.cumsum(lens)
                return ends - lens, ends
            self.by_piece = False  # (not byte-level after all: the paths below from now on)
        tok = self.tokenizer
        if self.fast:
            ids = np.array(tok.encode_ordinary(chunk, self.upto), dtype=np.int64)
            if not len(ids) or ids.min() >= 0:
                lens = self._token_lengths(ids)
                if int(lens.sum()) == n_bytes:
                    ends = np.cumsum(lens)
                    return ends - lens, ends
        spans = tok.encode_with_offsets(chunk, upto=self.upto, allowed_special=())
        n = len(spans)
        return (np.fromiter((s.start for s in spans), dtype=np.int64, count=n),
                np.fromiter((s.end for s in spans), dtype=np.int64, count=n))

    def _piece_lengths(self, chunk: str) -> np.ndarray | None:
        """The byte length of every token of *chunk*, piece by piece; None when a piece's tokens do not
        cover its bytes."""
        pieces = self._split(chunk)
        if len(self.ids) > self.max_pieces:
            self._clear()
        entry = np.fromiter(map(self.ids.get, pieces, itertools.repeat(-1)), dtype=np.int64, count=len(pieces))
        missing = np.flatnonzero(entry < 0).tolist()
        if missing:
            if not self._add({pieces[i] for i in missing}):
                return None
            entry[missing] = [self.ids[pieces[i]] for i in missing]
        cnt = self.count[entry]
        offset = np.cumsum(cnt) - cnt
        flat = np.repeat(self.start[entry] - offset, cnt) + np.arange(int(cnt.sum()), dtype=np.int64)
        return self.length[flat]

    def _token_lengths(self, ids: np.ndarray) -> np.ndarray:
        """The byte length of each token id (ids 0 or more), from a table filled as ids are met."""
        if not len(ids):
            return ids
        top = int(ids.max()) + 1
        if top > len(self._lengths):
            self._lengths = np.concatenate([self._lengths, np.full(top - len(self._lengths), -1, dtype=np.int64)])
        token_bytes = self.tokenizer.token_bytes
        for i in np.unique(ids[self._lengths[ids] < 0]).tolist():
            self._lengths[i] = len(token_bytes(i))
        return self._lengths[ids]

    def _add(self, new: set[str]) -> bool:
        """Encode the pieces not met yet and add them (in a fixed order); False when one's tokens do not
        cover its bytes."""
        tok, upto = self.tokenizer, self.upto
        pieces = sorted(new)
        encoded = [tok.encode_piece(piece, upto) for piece in pieces]
        ids = np.fromiter(itertools.chain.from_iterable(encoded), dtype=np.int64)
        if len(ids) and ids.min() < 0:
            return False
        lengths = self._token_lengths(ids)
        counts = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
        covered = np.bincount(np.repeat(np.arange(len(pieces)), counts), weights=lengths, minlength=len(pieces))
        n_bytes = [len(p.encode("utf-8", "surrogateescape")) for p in pieces]
        if not np.array_equal(covered, n_bytes):
            return False
        first = len(self.start)
        self.ids.update(zip(pieces, range(first, first + len(pieces)), strict=True))
        self.start = np.concatenate([self.start, len(self.length) + np.cumsum(counts) - counts])
        self.count = np.concatenate([self.count, counts])
        self.length = np.concatenate([self.length, lengths])
        return True
