"""Tokenizer files: one module per format, format detection, presets, and the functions that pick them.

| format        | read | write | module            |
|---------------|------|-------|-------------------|
| native        | yes  | yes   | :mod:`.native`    |
| hf            | yes  | yes   | :mod:`.hf_json` (``tokenizer.json``) |
| gpt2          | yes  | yes   | :mod:`.gpt2` (``encoder.json`` + ``vocab.bpe``) |
| vocab-merges  | yes  | yes   | :mod:`.gpt2` (``vocab.json`` + ``merges.txt``) |
| subword-nmt   | yes  | yes   | :mod:`.subword_nmt` (codes) |
| tiktoken      | yes  | yes   | :mod:`.tiktoken_file` (``.tiktoken`` ranks) |
| clip          | yes  | no    | :mod:`.clip_merges` (open_clip's merges, ``clip:PATH``) |
| csv           | no   | yes   | :mod:`.csv_stats` (per-merge stats) |

A tokenizer is named by a path (format detected from content, :mod:`.detect`) or ``PRESET:PATH`` with a
preset of :mod:`.presets` (``cl100k:cl100k_base.tiktoken``, ``gpt2:folder``).  Rank files give a
:class:`~bpe_desktop.core.tokenizers.ranks.RankTokenizer` (tiktoken's algorithm, merges recovered only on demand);
HF ``tokenizer.json`` files give an :class:`~.hf.pipeline.HFTokenizer` (their whole pipeline, their ids);
every other format gives a :class:`~bpe_desktop.core.tokenizers.tokenizer.Tokenizer` replaying the merge list,
wrapped in a :class:`~bpe_desktop.core.tokenizers.renumber.RenumberedTokenizer` when the file numbers its tokens
otherwise than we do (HF's trainer puts specials first), so ids are always the file's.
Every writer is atomic (multi-file formats all new or all old); every reader raises
:class:`~bpe_desktop.core.errors.FormatError` naming the file and what was expected, and :func:`load`
checks the whole result (:func:`check_model`) before returning it: only a :class:`BpeError` ever leaves
it, never a half-read tokenizer.  Nothing here downloads anything.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import BpeError, FormatError, PatternError
from ..records import MergeRecord
from ..text.pretokenize import Pretokenizer
from ..tokenizers.any_tokenizer import AnyTokenizer
from ..tokenizers.model import BPEModel
from ..tokenizers.ranks import RankTokenizer
from ..tokenizers.renumber import RenumberedTokenizer
from ..tokenizers.tokenizer import Tokenizer
from . import clip_merges, csv_stats, gpt2, hf_json, native, subword_nmt, tiktoken_file
from .detect import detect
from .hf.pipeline import HFTokenizer
from .presets import CL100K_SHA256, PRESETS, Preset, split_spec

WRITE_FORMATS = ("native", "hf", "gpt2", "vocab-merges", "subword-nmt", "tiktoken", "csv")
READ_FORMATS = ("native", "hf", "gpt2", "subword-nmt", "tiktoken")



def save_model(
    model: BPEModel,
    path: str | os.PathLike[str],
    fmt: str = "native",
    records: Sequence[MergeRecord] | Sequence[dict[str, Any]] | None = None,
    *,
    special_ids: dict[str, int] | None = None,
) -> None:
    """Write *model* to *path* in format *fmt* (one of :data:`WRITE_FORMATS`).

    *special_ids* overrides the ids written for special tokens (hf, gpt2, vocab-merges), e.g. cl100k's.
    ``gpt2``/``vocab-merges`` write two files into the folder *path*.

    >>> import tempfile, os
    >>> from bpe_desktop.core import TrainConfig, train
    >>> model, _ = train({"low": 5, "lower": 2}, TrainConfig(merges=2, glue_marker=True))
    >>> p = os.path.join(tempfile.mkdtemp(), "codes.txt")
    >>> save_model(model, p, "subword-nmt")
    >>> open(p).read()
    '#version: 0.2\\nl o\\nlo w</w>\\n'
    >>> load_model(p).merge_pairs_text() == model.merge_pairs_text()
    True
    """
    if fmt == "native":
        native.save(path, model, records)
    elif fmt == "hf":
        hf_json.save(path, model, special_ids)
    elif fmt in ("gpt2", "vocab-merges"):
        gpt2.save(path, model, fmt, special_ids)
    elif fmt == "subword-nmt":
        subword_nmt.save(path, model)
    elif fmt == "tiktoken":
        tiktoken_file.save(path, model)
    elif fmt == "csv":
        csv_stats.save(path, model, records)
    else:
        raise FormatError(f"unknown output format {fmt!r} -- use one of {', '.join(WRITE_FORMATS)}")


@dataclass
class Loaded:
    """What a tokenizer spec resolved to: the format, the tokenizer, and native stats if any."""

    fmt: str
    tokenizer: AnyTokenizer
    stats: list[dict[str, Any]] = field(default_factory=list)

    @property
    def model(self) -> BPEModel:
        """The merge-list model (recovered from ranks on first use for rank files)."""
        return self.tokenizer.model

    @property
    def special_ids(self) -> dict[str, int]:
        return self.tokenizer.special_tokens


def _check_exists(path: str) -> None:
    if not os.path.exists(path):
        raise FormatError(f"{path}: no such file or folder -- check the path")
    if os.path.isfile(path):
        try:
            with open(path, "rb") as f:
                head = f.read(4096)
        except OSError as e:
            raise FormatError(f"{path}: cannot read ({e.strerror}) -- check the path") from None
        if not head.strip(b"\xef\xbb\xbf \t\r\n"):
            raise FormatError(f"{path}: the file is empty -- it holds no tokenizer; open the file it was "
                              "meant to be, or export the tokenizer again")


def check_model(model: BPEModel, source: str) -> None:
    """Raise :class:`FormatError` unless every field of *model* has the type and range the tokenizer
    relies on (whatever file it came from)."""
    def bad(what: str) -> FormatError:
        return FormatError(f"{source}: {what} -- the file is damaged or was not written by a BPE tool")

    if model.mode not in ("chars", "bytes"):
        raise bad(f"mode must be 'chars' or 'bytes', not {model.mode!r:.40}")
    kind = bytes if model.mode == "bytes" else str
    if not isinstance(model.base, list) or not all(isinstance(t, kind) and t for t in model.base):
        raise bad(f"the base symbols must be non-empty {kind.__name__} values")
    if len(set(model.base)) != len(model.base):
        raise bad("a base symbol is listed twice")
    n = len(model.base)
    for k, pair in enumerate(model.merges):
        if not (isinstance(pair, tuple) and len(pair) == 2 and all(type(i) is int and 0 <= i < n + k for i in pair)):
            raise bad(f"merge {k + 1} refers to a token that does not exist yet")
    for name in ("pretokenizer", "end_of_word"):
        if not isinstance(getattr(model, name), str):
            raise bad(f"{name} must be text, not {getattr(model, name)!r:.40}")
    if not isinstance(model.glue_marker, bool):
        raise bad(f"glue_marker must be true or false, not {model.glue_marker!r:.40}")
    if model.tie_break is not None and not isinstance(model.tie_break, str):
        raise bad(f"tie_break must be text, not {model.tie_break!r:.40}")
    specials = model.specials
    if not isinstance(specials, tuple) or not all(isinstance(s, str) and s for s in specials):
        raise bad("special tokens must be non-empty texts")
    if len(set(specials)) != len(specials):
        raise bad("a special token is listed twice")
    try:
        Pretokenizer.from_spec(model.pretokenizer)
    except PatternError as e:
        raise bad(f"its pre-tokenizer is unusable ({e})") from None


def _rank_tokenizer(ranks: dict[bytes, int], preset: Preset | None, pretokenizer: str | None,
                    specials: Sequence[str] | None, path: str) -> RankTokenizer:
    if preset is None and pretokenizer is None and len(ranks) == PRESETS["cl100k"].n_ranks:
        with open(path, "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() == CL100K_SHA256:
                preset = PRESETS["cl100k"]
    pre = pretokenizer or (preset.pretokenizer if preset else "gpt2")
    n = len(ranks)
    special_ids: dict[str, int] = {}
    if preset is not None:
        if preset.n_ranks == n:
            special_ids.update(preset.specials)
        else:
            special_ids.update({s: n + k for k, s in enumerate(preset.specials)})
    for s in specials or ():
        special_ids.setdefault(s, max([n - 1, *special_ids.values()]) + 1)
    return RankTokenizer(ranks, pre, special_ids, name=preset.name if preset else os.path.basename(path))


def load(spec: str, *, pretokenizer: str | None = None, specials: Sequence[str] | None = None) -> Loaded:
    """Resolve a tokenizer spec: a path in any readable format, or ``PRESET:PATH``.

    *pretokenizer* and *specials* override or complete what the file (or preset) says; a ``.tiktoken``
    file without a preset uses the GPT-2 pattern unless it is the official cl100k_base file.

    >>> import tempfile, os
    >>> from bpe_desktop.core import TrainConfig, train
    >>> model, _ = train({"hello": 3, " hello": 2}, TrainConfig(mode="bytes", pretokenizer="gpt2", merges=5))
    >>> p = os.path.join(tempfile.mkdtemp(), "t.tiktoken")
    >>> save_model(model, p, "tiktoken")
    >>> loaded = load(f"gpt2:{p}")
    >>> loaded.fmt, [loaded.tokenizer.token_str(i) for i in loaded.tokenizer.encode("hello hello")]
    ('tiktoken', ['hello', 'Ġhello'])
    >>> loaded.special_ids == {"<|endoftext|>": len(model.tokens)}  # the preset's special, after the ranks
    True
    """
    spec = os.fspath(spec)
    clip = spec.startswith("clip:")
    preset, path = (None, spec[5:]) if clip else split_spec(spec)
    _check_exists(path)
    if clip or (os.path.isfile(path) and clip_merges.is_clip_file(path)):
        if pretokenizer is not None or specials:
            raise FormatError(f"{path}: CLIP's merges come with CLIP's own cleaning, pattern and specials -- "
                              "drop --pretokenizer and --special")
        return Loaded("clip", clip_merges.load(path))
    fmt = detect(path)
    try:
        return _load(fmt, path, preset, pretokenizer, specials)
    except BpeError:
        raise
    except (TypeError, KeyError, ValueError, AttributeError, IndexError, UnicodeError, RecursionError,
            OverflowError) as e:  # a reader missed a malformed value: still one clear error, never a traceback
        raise FormatError(f"{path}: malformed {fmt} file ({type(e).__name__}: {str(e)[:80]}) -- the file is "
                          "damaged; export the tokenizer again") from e


def _load(fmt: str, path: str, preset: Preset | None, pretokenizer: str | None,
          specials: Sequence[str] | None) -> Loaded:
    if fmt == "csv":
        raise FormatError(f"{path}: a per-merge statistics CSV is a report, not a tokenizer -- open the "
                          "tokenizer file that was saved with it")
    if fmt == "tiktoken":
        ranks = tiktoken_file.load(path)
        for s in specials or ():
            if not isinstance(s, str) or not s:
                raise FormatError(f"{path}: special tokens must be non-empty texts, not {s!r:.40}")
        return Loaded(fmt, _rank_tokenizer(ranks, preset, pretokenizer, specials, path))
    if fmt == "hf":
        return Loaded(fmt, _hf_tokenizer(path, preset, pretokenizer, specials))
    stats: list[dict[str, Any]] = []
    to_file: list[int] | None = None  # the file's id of each of our ids, when it numbers tokens otherwise
    if fmt == "native":
        model, stats = native.load(path)
    elif fmt == "gpt2":
        model, to_file = gpt2.read(path)
    else:
        model = subword_nmt.load(path)
    if preset is not None and model.mode != "bytes":
        raise FormatError(f"{path}: the {preset.name} preset needs a byte-level file, this one is chars-mode "
                          "-- drop the preset prefix")
    if preset is not None:
        model.pretokenizer = preset.pretokenizer
        extra = tuple(s for s in preset.specials if s not in model.specials)
        model.specials = model.specials + extra
    if pretokenizer is not None:
        model.pretokenizer = pretokenizer
    if specials:
        model.specials = model.specials + tuple(s for s in specials if s not in model.specials)
    check_model(model, path)
    tok = Tokenizer(model)
    if to_file is not None:
        n = len(to_file)
        to_file = to_file + [max(to_file) + 1 + k for k in range(len(model.specials) - (n - len(model.tokens)))]
        return Loaded(fmt, RenumberedTokenizer(tok, to_file), stats)
    return Loaded(fmt, tok, stats)


def _hf_tokenizer(path: str, preset: Preset | None, pretokenizer: str | None,
                  specials: Sequence[str] | None) -> HFTokenizer:
    """A ``tokenizer.json`` runs its own pipeline: a preset or pre-tokenizer would silently replace part of
    it, and its added tokens are its specials, so those options are refused."""
    tok = hf_json.read_tokenizer(path)
    if preset is not None:
        chars = " (and the preset needs a byte-level file, this one is chars-mode)" if tok.mode != "bytes" else ""
        raise FormatError(f"{path}: an HF tokenizer.json carries its own pre-tokenizer and added tokens{chars} "
                          f"-- drop the {preset.name}: prefix")
    if pretokenizer is not None:
        raise FormatError(f"{path}: an HF tokenizer.json runs its own pre-tokenizer -- drop --pretokenizer")
    missing = [s for s in specials or () if s not in tok.special_tokens]
    if missing:
        raise FormatError(f"{path}: {missing[0]!r:.40} is not an added token of this tokenizer.json (it has "
                          f"{', '.join(sorted(tok.special_tokens)) or 'none'}) -- drop --special; HF splits "
                          "the file's added tokens out of any text")
    check_model(tok.model, path)
    return tok


def load_model(spec: str, **kwargs: Any) -> BPEModel:
    """Read a tokenizer file (any readable format, or ``PRESET:PATH``) as a merge-list model."""
    return load(spec, **kwargs).model


def load_tokenizer(spec: str, **kwargs: Any) -> AnyTokenizer:
    """A ready tokenizer from a file (any readable format, or ``PRESET:PATH``)."""
    return load(spec, **kwargs).tokenizer


__all__ = [
    "READ_FORMATS", "WRITE_FORMATS", "AnyTokenizer", "Loaded", "detect", "load", "load_model",
    "load_tokenizer", "save_model",
]
