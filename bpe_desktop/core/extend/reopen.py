"""An extension file read back as an extension: a ``.tiktoken`` opened as ``cl100k:FILE`` whose first ranks are
exactly a known encoding's (by checksum: :func:`~..formats.presets.extended`), then ranks after its special ids --
what ``train --extend cl100k`` writes.

:func:`reopen` gives the merge list the window's timeline steps through: the original's merges recovered from its
ranks, then one merge per added rank, in the model's ids as :meth:`.Extension.timeline` numbers them (an added
rank ``r`` is model id ``r - gap``, the gap being the ids the specials hold), and how many merges are the
original's (the timeline's step 0).  A tokenizer that is no such extension gives None (the caller reads it as any
rank table); an extension whose added ranks leave a gap, or whose added token is no merge of two lower ranks, is
refused with the reason.  It keeps no per-merge counts (the file has none) and reads no file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..choices import Mode
from ..errors import FormatError
from ..formats.presets import Preset, extended
from ..text.byte_level import bytes_to_text
from ..tokenizers.model import BPEModel
from ..tokenizers.ranks import RankTokenizer, recover_merges_prefix


@dataclass(frozen=True)
class Reopened:
    """An extension read from its file, as the timeline shows it."""

    preset: Preset  # the encoding it extends
    model: BPEModel  # the original's merges, then the added ones (model ids)
    start: int  # how many merges are the original's
    first_rank: int  # the file's rank of the first added token (model id ``start + 256``)

    @property
    def added(self) -> int:
        return len(self.model.merges) - self.start


def reopen(tok: RankTokenizer, progress: Callable[[int, int], None] | None = None) -> Reopened | None:
    """*tok* as the extension of a known encoding it is (None when its ranks extend none, or it was not read
    with that encoding's pattern and special tokens); *progress(done, total)* as :func:`recover_merges_prefix`
    takes it.  Raises :class:`FormatError` when the added ranks cannot be a merge list.

    >>> from bpe_desktop.core.formats import load
    >>> reopen(load("cl100k").tokenizer) is None  # cl100k itself extends nothing
    True
    """
    ranks = tok.ranks
    preset = extended(ranks)
    if preset is None or preset.n_ranks is None:
        return None
    if dict(tok.special_tokens) != preset.specials or tok.pretokenizer.spec != preset.pretokenizer:
        return None  # read with another pattern or other specials: not this encoding extended
    n = preset.n_ranks
    added = sorted(r for r in ranks.values() if r >= n)
    first = added[0]
    missing = next((first + k for k, r in enumerate(added) if r != first + k), None)
    if missing is not None:
        raise FormatError(
            f"{tok.name}: its ranks after {preset.encoding}'s are not {first}..{first + len(added) - 1} one after "
            f"another (rank {missing} is missing) -- the merges it adds cannot be listed; the Log inspector and "
            "Compare tokenizers encode with its ranks as they are")
    gap = first - n
    renumbered = {t: (r if r < n else r - gap) for t, r in ranks.items()}
    base, merges, outside = recover_merges_prefix(renumbered, progress)
    if outside:
        r = outside[0] + gap
        token = next(t for t, q in ranks.items() if q == r)
        raise FormatError(f"{tok.name}: the token of rank {r} ({bytes_to_text(token)!r}) is no merge of two tokens "
                          "of lower rank -- the file is not a BPE merge table")
    model = BPEModel(mode=Mode.BYTES, base=list(base), merges=merges, pretokenizer=tok.pretokenizer.spec,
                     specials=tuple(sorted(tok.special_tokens, key=tok.special_tokens.__getitem__)))
    return Reopened(preset, model, n - len(base), first)
