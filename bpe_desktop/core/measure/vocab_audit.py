"""The vocabulary of a model at step k, token by token: where each came from, how much it is used, and
the flags that say it should not be there.

Per token (:class:`TokenRow`): id, label (bytes shown visibly, partial UTF-8 as hex), length in bytes,
the merge that made it (:class:`MadeBy`: 1-based step, pair, the pair's count then -- ``None`` when the
tokenizer was loaded without training statistics), its frequency in the corpus tokenized at step k, how
many of the first k merges consume it, and :class:`TokenFlag` s:

* ``UNREACHABLE`` / ``UNDECODABLE`` -- see :mod:`.reachability`;
* ``INTERMEDIATE`` -- its frequency at step k over its count when made is under a threshold (Picky BPE's
  intersection-over-self): most of its occurrences were consumed by later merges; only where counts are
  known;
* ``UNUSED`` -- frequency 0 at step k;
* ``SPECIAL`` -- a special token (no other flag: ordinary encoding never produces it).

:class:`VocabAudit` stores the columns as plain lists (100k rows for cl100k) and builds a
:class:`TokenRow` only when asked, so a virtualized table reads it cheaply; :meth:`VocabAudit.order`
sorts by any :class:`Column`.  :func:`audit` computes it at once, :func:`auditing` in small units for an
event loop (a :data:`~.stats.Job`).  The frequencies are the caller's: from
:class:`~.token_counts.TokenCounts` while training, or :func:`encoded_frequencies` for any text.  This
module does not draw, and does not decide reachability itself.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..choices import Mode
from ..records import MergeRecord
from ..tokenizers.model import BPEModel, text_token
from ..views.labels import token_label
from .reachability import PieceEncoder, is_undecodable, ordinary_count, unreachable_steps
from .stats import Job, finish

#: the default intersection-over-self threshold under which a token is flagged intermediate
DEFAULT_INTERMEDIATE_THRESHOLD = 0.1


class TokenFlag(enum.Flag):
    NONE = 0
    UNREACHABLE = enum.auto()
    UNDECODABLE = enum.auto()
    INTERMEDIATE = enum.auto()
    UNUSED = enum.auto()
    SPECIAL = enum.auto()


class Column(enum.Enum):
    """The sortable columns of the audit."""

    ID = "id"
    LABEL = "label"
    BYTES = "bytes"
    MADE_AT = "made_at"
    MADE_COUNT = "made_count"
    FREQUENCY = "frequency"
    CONSUMERS = "consumers"
    RATIO = "ratio"


class MadeBy(NamedTuple):
    """The merge that first made a token."""

    step: int  # 1-based: the timeline step right after the merge
    left: int
    right: int
    pair_count: int | None  # the pair's count then; None when unknown (a tokenizer loaded without statistics)


class TokenRow(NamedTuple):
    id: int
    label: str
    n_bytes: int
    made_by: MadeBy | None  # None for base symbols and specials
    frequency: int
    consumers: int  # merges among the first k that take this token as left or right
    ratio: float | None  # frequency / count when made (None when unknown)
    flags: TokenFlag


def made_counts(records: Sequence[MergeRecord] | Sequence[Mapping[str, Any]]) -> list[int | None]:
    """The pair count of each merge, from training records or the stats a native file stored."""
    out: list[int | None] = []
    for r in records:
        c = r.get("count") if isinstance(r, Mapping) else r.count
        out.append(int(c) if isinstance(c, int | float) else None)
    return out


def encoded_frequencies(
    encoder: PieceEncoder, word_counts: Mapping[str, int], step: int | None, size: int
) -> list[int]:
    """Token frequencies (ids ``0..size-1``) of a piece-count table encoded with the first *step* merges."""
    freq = [0] * size
    for piece, c in word_counts.items():
        if c <= 0 or not piece:
            continue
        for i in encoder.encode_piece(piece, step):
            if 0 <= i < size:
                freq[i] += c
    return freq


@dataclass
class VocabAudit:
    """Column lists over the rows: the ordinary ids ``0..n-1`` of step k, then the special tokens."""

    step: int
    threshold: float
    ids: list[int]
    labels: list[str]
    n_bytes: list[int]
    made_by: list[MadeBy | None]
    frequencies: list[int]
    consumers: list[int]
    ratios: list[float | None]
    flags: list[TokenFlag]

    def __len__(self) -> int:
        return len(self.ids)

    def row(self, r: int) -> TokenRow:
        return TokenRow(
            self.ids[r], self.labels[r], self.n_bytes[r], self.made_by[r], self.frequencies[r],
            self.consumers[r], self.ratios[r], self.flags[r],
        )

    def flagged(self, flag: TokenFlag) -> list[int]:
        """Row indexes carrying *flag* (equal to ids for ordinary tokens)."""
        return [r for r, f in enumerate(self.flags) if flag in f]

    def order(self, column: Column, descending: bool = False) -> list[int]:
        """Row indexes sorted by *column* (unknowns last either way), ties by id."""
        key_of: dict[Column, Sequence[Any]] = {
            Column.ID: self.ids, Column.LABEL: self.labels, Column.BYTES: self.n_bytes,
            Column.MADE_AT: [m.step if m else None for m in self.made_by],
            Column.MADE_COUNT: [m.pair_count if m else None for m in self.made_by],
            Column.FREQUENCY: self.frequencies, Column.CONSUMERS: self.consumers, Column.RATIO: self.ratios,
        }
        values = key_of[column]
        known = [r for r in range(len(values)) if values[r] is not None]
        unknown = [r for r in range(len(values)) if values[r] is None]
        known.sort(key=lambda r: (values[r], self.ids[r]), reverse=descending)
        return known + unknown


def audit(
    model: BPEModel,
    step: int | None,
    frequencies: Sequence[int],
    *,
    counts_when_made: Sequence[int | None] | None = None,
    threshold: float = DEFAULT_INTERMEDIATE_THRESHOLD,
    encoder: PieceEncoder | None = None,
    unreachable: Sequence[int] | None = None,
) -> VocabAudit:
    """Audit *model* at *step* (default: every merge) given the corpus's token *frequencies* at that step.

    *counts_when_made[r]* is merge ``r + 1``'s pair count (:func:`made_counts`); *encoder* decides
    reachability (see :func:`~.reachability.unreachable_ids`), whose result can also be passed in as
    *unreachable* when already known.

    >>> from bpe_desktop.core import TrainConfig, train
    >>> words = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    >>> model, recs = train(words, TrainConfig(merges=4))
    >>> from bpe_desktop.core.tokenizers.tokenizer import Tokenizer
    >>> a = audit(model, 4, encoded_frequencies(Tokenizer(model), words, 4, 20), counts_when_made=made_counts(recs))
    >>> est = model.token_ids["est"]
    >>> a.row(est).made_by, a.row(est).frequency, a.row(est).consumers, a.row(est).flags
    (MadeBy(step=2, left=11, right=8, pair_count=9), 0, 1, <TokenFlag.INTERMEDIATE|UNUSED: 12>)
    """
    return finish(auditing(model, step, frequencies, counts_when_made=counts_when_made, threshold=threshold,
                           encoder=encoder, unreachable=unreachable, chunk=1 << 30))


def auditing(
    model: BPEModel,
    step: int | None,
    frequencies: Sequence[int],
    *,
    counts_when_made: Sequence[int | None] | None = None,
    threshold: float = DEFAULT_INTERMEDIATE_THRESHOLD,
    encoder: PieceEncoder | None = None,
    unreachable: Sequence[int] | None = None,
    chunk: int = 2048,
    known_labels: Sequence[str] | None = None,
) -> Job[VocabAudit]:
    """:func:`audit` in small units (about *chunk* tokens each; drive it with :class:`~.stats.Sliced`).

    *known_labels* (the labels of the ordinary ids ``0, 1, ..`` -- no specials -- e.g. the first
    ``ordinary_count`` labels of an earlier audit of the same model: they do not depend on the step) saves
    labelling the tokens again when it covers every id of the step.
    """
    k = len(model.merges) if step is None else max(0, min(step, len(model.merges)))
    n = ordinary_count(model, k)
    tokens = model.tokens
    marker = model.end_of_word
    if unreachable is None:
        unreachable = yield from unreachable_steps(model, k, encoder, chunk // 2)
    bad = set(unreachable)
    consumers = [0] * n
    for r, (a, b) in enumerate(model.merges[:k]):
        if r % (4 * chunk) == 4 * chunk - 1:
            yield
        consumers[a] += 1
        if b != a:
            consumers[b] += 1
    labels: list[str] = []
    sizes: list[int] = []
    cut = len(marker)
    reuse = known_labels is not None and len(known_labels) >= n
    if known_labels is not None and reuse:
        labels = list(known_labels[:n])
    for lo in range(0, n, chunk):
        yield
        part = tokens[lo : min(lo + chunk, n)]
        if not reuse:
            labels.extend(map(token_label, part))
        if model.mode == Mode.BYTES:
            sizes.extend(map(len, part))
        else:
            sizes.extend(
                len((s[:-cut] if cut and s.endswith(marker) else s).encode("utf-8", "surrogateescape"))
                for s in map(text_token, part)
            )
    made: list[MadeBy | None] = [None] * n
    counts = counts_when_made or ()
    merges = model.merges
    next_new = model.n_base  # tokens are numbered as made: the first merge making id t is the one made it
    for r, t in enumerate(model.merge_token_ids[:k]):
        if r % chunk == chunk - 1:
            yield
        if t >= next_new:
            a, b = merges[r]
            made[t] = MadeBy(r + 1, a, b, counts[r] if r < len(counts) else None)
            next_new = t + 1
    yield
    freqs = [frequencies[i] if i < len(frequencies) else 0 for i in range(n)]
    ratios: list[float | None] = [None] * n
    bits = [0] * n  # TokenFlag values, turned into flags once at the end
    unreachable_bit, undecodable_bit = TokenFlag.UNREACHABLE.value, TokenFlag.UNDECODABLE.value
    for i in bad:
        if 0 <= i < n:
            bits[i] |= unreachable_bit
    for i in range(n):
        if i % chunk == chunk - 1:
            yield
        if is_undecodable(tokens[i]):
            bits[i] |= undecodable_bit
        if not freqs[i]:
            bits[i] |= TokenFlag.UNUSED.value
        m = made[i]
        if m is not None and m.pair_count:
            ratios[i] = ratio = freqs[i] / m.pair_count
            if ratio < threshold:
                bits[i] |= TokenFlag.INTERMEDIATE.value
    as_flag = {v: TokenFlag(v) for v in set(bits)}
    flags = [as_flag[v] for v in bits]
    ids = list(range(n))
    for s, sid in model.special_ids.items():
        ids.append(sid)
        labels.append(s)
        sizes.append(len(s.encode("utf-8")))
        made.append(None)
        freqs.append(0)
        ratios.append(None)
        flags.append(TokenFlag.SPECIAL)
        consumers.append(0)
    return VocabAudit(k, threshold, ids, labels, sizes, made, freqs, consumers, ratios, flags)
