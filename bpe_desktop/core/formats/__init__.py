"""Tokenizer files: one module per format, format detection, presets, and the functions that pick them.

| format        | read | write | module            |
|---------------|------|-------|-------------------|
| native        | yes  | yes   | :mod:`.native`    |
| hf            | yes  | yes   | :mod:`.hf_json` (``tokenizer.json``) |
| gpt2          | yes  | yes   | :mod:`.gpt2` (``encoder.json`` + ``vocab.bpe``) |
| vocab-merges  | yes  | yes   | :mod:`.gpt2` (``vocab.json`` + ``merges.txt``) |
| subword-nmt   | yes  | yes   | :mod:`.subword_nmt` (codes) |
| tiktoken      | yes  | yes   | :mod:`.tiktoken_file` (``.tiktoken`` ranks, also gzip/xz/bzip2) |
| sentencepiece | yes  | no    | :mod:`.sentencepiece_model` (BPE ``.model``; Unigram refused) |
| tekken        | yes  | no    | :mod:`.tekken` (Mistral's ``tekken.json``) |
| clip          | yes  | no    | :mod:`.clip_merges` (open_clip's merges, ``clip:PATH``) |
| csv           | no   | yes   | :mod:`.csv_stats` (per-merge stats) |

A tokenizer is named by a path (format detected from content, :mod:`.detect`), a bundled encoding's name
(``gpt2``, ``p50k``, ``cl100k``, ``o200k``) or ``PRESET:PATH`` with a preset of :mod:`.presets`
(``cl100k:cl100k_base.tiktoken``, ``gpt2:folder``).  Rank files give a
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

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..choices import Mode
from ..config import MODES
from ..errors import BpeError, FormatError, PatternError, PretokenizerNeeded
from ..io.reading import read_head
from ..records import MergeRecord
from ..text.pretokenize import Pretokenizer
from ..tokenizers.model import BPEModel
from .detect import detect

# Each format's module is imported when a file of that format is read or written, not at start-up: ``train``
# writes a native file and needs none of the others (nor the tokenizers they build).
if TYPE_CHECKING:
    from ..tokenizers.any_tokenizer import AnyTokenizer
    from ..tokenizers.ranks import RankTokenizer
    from .hf.pipeline import HFTokenizer
    from .presets import Preset

WRITE_FORMATS = ("native", "hf", "gpt2", "vocab-merges", "subword-nmt", "tiktoken", "csv")
READ_FORMATS = ("native", "hf", "gpt2", "subword-nmt", "tiktoken", "sentencepiece", "tekken")



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
        from . import native

        native.save(path, model, records)
    elif fmt == "hf":
        from . import hf_json

        hf_json.save(path, model, special_ids)
    elif fmt in ("gpt2", "vocab-merges"):
        from . import gpt2

        gpt2.save(path, model, fmt, special_ids)
    elif fmt == "subword-nmt":
        from . import subword_nmt

        subword_nmt.save(path, model)
    elif fmt == "tiktoken":
        from . import tiktoken_file

        tiktoken_file.save(path, model)
    elif fmt == "csv":
        from . import csv_stats

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
    if os.path.isdir(path):
        return  # a GPT-2 pair's folder: its reader names the files it needs
    head = read_head(path, 4096, error=FormatError, what="tokenizer file")
    if not head.strip(b"\xef\xbb\xbf \t\r\n"):
        raise FormatError(f"{path}: the file is empty -- it holds no tokenizer; open the file it was "
                          "meant to be, or export the tokenizer again")


def check_model(model: BPEModel, source: str) -> None:
    """Raise :class:`FormatError` unless every field of *model* has the type and range the tokenizer
    relies on (whatever file it came from)."""
    def bad(what: str) -> FormatError:
        return FormatError(f"{source}: {what} -- the file is damaged or was not written by a BPE tool")

    if model.mode not in MODES:
        raise bad(f"mode must be 'chars' or 'bytes', not {model.mode!r:.40}")
    kind = bytes if model.mode == Mode.BYTES else str
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


SpecialsArg = Sequence[str] | Mapping[str, int | None] | None  # names, or name -> id (None: the next free id)

#: formats whose reader decompresses a gzip/xz/bzip2 file itself
READS_COMPRESSED = frozenset({"tiktoken"})
#: formats read through textio.read_text, which unzips gzip data
READS_GZIP = frozenset({"hf", "native", "gpt2", "subword-nmt"})


def _special_items(specials: SpecialsArg, path: str) -> list[tuple[str, int | None]]:
    items: list[tuple[str, int | None]] = (
        list(specials.items()) if isinstance(specials, Mapping) else [(s, None) for s in specials or ()])
    for s, i in items:
        if not isinstance(s, str) or not s:
            raise FormatError(f"{path}: special tokens must be non-empty texts, not {s!r:.40}")
        if i is not None and (type(i) is not int or i < 0):
            raise FormatError(f"{path}: the id of special token {s!r} must be a whole number of 0 or more, "
                              f"not {i!r:.40}")
    return items


def _rank_tokenizer(ranks: dict[bytes, int], data: bytes, preset: Preset | None, pretokenizer: str | None,
                    specials: SpecialsArg, path: str) -> RankTokenizer:
    from ..tokenizers.ranks import RankTokenizer
    from .presets import PRESETS_HELP, extended, is_bundled, recognise

    known = recognise(data, ranks)
    if preset is not None and known is not None and known is not preset:
        raise FormatError(f"{path}: this is {known.encoding}'s rank file, not {preset.encoding}'s -- write "
                          f"{known.name}:{path}, or the path alone (a known file is recognised)")
    grown = extended(ranks) if known is None and (preset is None or preset.n_ranks != len(ranks)) else None
    if preset is not None and grown is not None and grown is not preset:
        raise FormatError(f"{path}: this file extends {grown.encoding}'s ranks, not {preset.encoding}'s -- write "
                          f"{grown.name}:{path}")
    if preset is None and grown is not None and pretokenizer is None:
        raise PretokenizerNeeded(
            f"{path}: a .tiktoken file holds no pre-tokenization pattern; this one extends {grown.encoding} (its "
            f"first {grown.n_ranks:,} ranks are {grown.encoding}'s) -- open it as {grown.name}:{path} to use "
            f"{grown.encoding}'s pattern and special tokens", path, grown.name)
    preset = preset or known
    if preset is None and pretokenizer is None:
        raise PretokenizerNeeded(
            f"{path}: a .tiktoken file holds no pre-tokenization pattern and this one is no known encoding "
            f"({PRESETS_HELP}) -- name its pattern with --pretokenizer NAME|REGEX (e.g. --pretokenizer cl100k)",
            path)
    pre = pretokenizer or (preset.pretokenizer if preset else "gpt2")
    n = len(ranks)
    special_ids: dict[str, int] = {}
    if preset is not None:
        if preset.n_ranks == n or grown is preset:  # the encoding itself, or extended after its specials
            special_ids.update(preset.specials)
        else:
            special_ids.update({s: n + k for k, s in enumerate(preset.specials)})
    items = _special_items(specials, path)
    for s, i in items:  # explicit ids first, so the others are numbered after every id taken
        if i is not None:
            if i < n:
                raise FormatError(f"{path}: --special {s}={i}: id {i} is an ordinary token's rank (the file has "
                                  f"ranks 0..{n - 1}) -- give a special an id of {n} or more")
            other = next((t for t, j in special_ids.items() if j == i and t != s), None)
            if other is not None:
                raise FormatError(f"{path}: --special {s}={i}: id {i} is already {other!r}'s -- give another id")
            special_ids[s] = i
    for s, i in items:
        if i is None:
            special_ids.setdefault(s, max([n - 1, *special_ids.values()]) + 1)
    name = preset.encoding if preset and (known is preset or is_bundled(path)) else os.path.basename(path)
    return RankTokenizer(ranks, pre, special_ids, name=name)


def load(spec: str, *, pretokenizer: str | None = None, specials: SpecialsArg = None) -> Loaded:
    """Resolve a tokenizer spec: a path in any readable format, ``PRESET`` (a bundled encoding: ``gpt2``,
    ``p50k``, ``cl100k``, ``o200k``) or ``PRESET:PATH``.

    *pretokenizer* and *specials* override or complete what the file (or preset) says; *specials* is a list
    of names or a mapping name -> id (``None``: the next free id).  A ``.tiktoken`` file whose ranks are a
    known encoding's (by checksum) gets that encoding's pattern and specials; any other needs
    *pretokenizer* (:class:`PretokenizerNeeded` otherwise) -- a pattern is never guessed.

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
    >>> load("o200k").special_ids["<|endoftext|>"]
    199999
    """
    from . import tiktoken_file
    from .presets import bundled_data, is_bundled, split_spec

    spec = os.fspath(spec)
    clip = spec.startswith("clip:")
    preset, path = (None, spec[5:]) if clip else split_spec(spec)
    if preset is not None and is_bundled(path):
        data = bundled_data(preset)
        ranks = tiktoken_file.parse(data, path)
        return Loaded("tiktoken", _rank_tokenizer(ranks, data, preset, pretokenizer, specials, path))
    _check_exists(path)
    from . import clip_merges  # (not at start-up: ftfy, html)

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
          specials: SpecialsArg) -> Loaded:
    from ..tokenizers.renumber import RenumberedTokenizer
    from ..tokenizers.tokenizer import Tokenizer
    from . import gpt2, native, subword_nmt, tiktoken_file

    if fmt == "csv":
        raise FormatError(f"{path}: a per-merge statistics CSV is a report, not a tokenizer -- open the "
                          "tokenizer file that was saved with it")
    if fmt not in READS_COMPRESSED and os.path.isfile(path):
        kind = tiktoken_file.compression(read_head(path, 6, error=FormatError, what="tokenizer file"))
        if kind is not None and not (kind == "gzip" and fmt in READS_GZIP):
            raise FormatError(f"{path}: a {kind}-compressed {fmt} file -- decompress it and open that "
                              "(.tiktoken rank files are read compressed, text formats gzipped)")
    if fmt == "tiktoken":
        data = tiktoken_file.read_data(path)
        ranks = tiktoken_file.parse(data, path)
        tiktoken_file.check_complete(ranks, path)
        return Loaded(fmt, _rank_tokenizer(ranks, data, preset, pretokenizer, specials, path))
    if fmt == "sentencepiece":
        if preset is not None or pretokenizer is not None or specials:
            raise FormatError(f"{path}: a SentencePiece model carries its own normalization and pieces -- "
                              "drop the preset prefix, --pretokenizer and --special")
        from . import sentencepiece_model

        return Loaded(fmt, sentencepiece_model.load(path))
    if fmt == "tekken":
        if preset is not None or pretokenizer is not None or specials:
            raise FormatError(f"{path}: a tekken file carries its own pattern and special tokens -- drop the "
                              "preset prefix, --pretokenizer and --special")
        from . import tekken

        return Loaded(fmt, tekken.load(path))
    if fmt == "hf":
        return Loaded(fmt, _hf_tokenizer(path, preset, pretokenizer, specials))
    items = _special_items(specials, path)
    if any(i is not None for _, i in items):
        raise FormatError(f"{path}: --special NAME=ID sets ids in .tiktoken rank files only; a {fmt} file numbers "
                          "its special tokens itself -- give the name alone")
    stats: list[dict[str, Any]] = []
    to_file: list[int] | None = None  # the file's id of each of our ids, when it numbers tokens otherwise
    if fmt == "native":
        model, stats = native.load(path)
    elif fmt == "gpt2":
        model, to_file = gpt2.read(path)
    else:
        model = subword_nmt.load(path)
    if preset is not None and model.mode != Mode.BYTES:
        raise FormatError(f"{path}: the {preset.name} preset needs a byte-level file, this one is chars-mode "
                          "-- drop the preset prefix")
    if preset is not None:
        model.pretokenizer = preset.pretokenizer
        extra = tuple(s for s in preset.specials if s not in model.specials)
        model.specials = model.specials + extra
    if pretokenizer is not None:
        model.pretokenizer = pretokenizer
    if items:
        model.specials = model.specials + tuple(s for s, _ in items if s not in model.specials)
    check_model(model, path)
    tok = Tokenizer(model, unknown="keep" if fmt == "subword-nmt" else "error")  # apply-bpe passes them through
    if to_file is not None:
        n = len(to_file)
        to_file = to_file + [max(to_file) + 1 + k for k in range(len(model.specials) - (n - len(model.tokens)))]
        return Loaded(fmt, RenumberedTokenizer(tok, to_file), stats)
    return Loaded(fmt, tok, stats)


def _hf_tokenizer(path: str, preset: Preset | None, pretokenizer: str | None,
                  specials: SpecialsArg) -> HFTokenizer:
    """A ``tokenizer.json`` runs its own pipeline: a preset or pre-tokenizer would silently replace part of
    it, and its added tokens are its specials, so those options are refused."""
    from . import hf_json

    tok = hf_json.read_tokenizer(path)
    if preset is not None:
        chars = " (and the preset needs a byte-level file, this one is chars-mode)" if tok.mode != Mode.BYTES else ""
        raise FormatError(f"{path}: an HF tokenizer.json carries its own pre-tokenizer and added tokens{chars} "
                          f"-- drop the {preset.name}: prefix")
    if pretokenizer is not None:
        raise FormatError(f"{path}: an HF tokenizer.json runs its own pre-tokenizer -- drop --pretokenizer")
    if isinstance(specials, Mapping) and any(i is not None for i in specials.values()):
        raise FormatError(f"{path}: --special NAME=ID sets ids in .tiktoken rank files only; a tokenizer.json "
                          "numbers its added tokens itself -- give the name alone")
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


def __getattr__(name: str) -> Any:
    """``AnyTokenizer``, re-exported here, imported on first use (see the imports above)."""
    if name == "AnyTokenizer":
        from ..tokenizers.any_tokenizer import AnyTokenizer

        return AnyTokenizer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "READ_FORMATS", "WRITE_FORMATS", "AnyTokenizer", "Loaded", "PretokenizerNeeded", "detect", "load", "load_model",
    "load_tokenizer", "save_model",
]
