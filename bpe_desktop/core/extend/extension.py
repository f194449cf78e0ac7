"""Extend a loaded BPE tokenizer with merges learned on a corpus, and write the result in the original's format.

:func:`start` takes a loaded tokenizer (:func:`~..formats.load`: a bundled encoding, a ``.tiktoken``, an HF
``tokenizer.json``, GPT-2 files, a native file) and a corpus text.  The corpus is pre-tokenized by the
tokenizer's own pipeline (its special / added tokens cut out first), each distinct piece is segmented by the
tokenizer, and an :class:`~..training.extend.ExtendTrainer` learns merges on top.  Its existing merges and ids
stay as they were; the new tokens get the next ids as the home format numbers them:

- ``.tiktoken`` (cl100k, o200k, any rank file): ranks after the highest rank *and* special id (cl100k's
  first new rank is 100277), so no special moves.  The file holds no pattern: :meth:`Extension.save` writes the
  original's ranks and then the new ones, so its first ranks are exactly the original's and the reader knows it
  as that encoding extended -- open it as ``cl100k:FILE`` (:func:`~..formats.presets.extended`); tiktoken needs
  ``Encoding(pat_str=..., special_tokens=...)`` of the original.
- ``tokenizer.json``: the file itself with the new tokens in ``model.vocab`` after the largest id (added tokens
  included) and the new merges appended to ``model.merges``; every other component is kept as written.
- GPT-2 files (``encoder.json`` + ``vocab.bpe``, or ``vocab.json`` + ``merges.txt``: the original's names): ids
  after the largest one (``<|endoftext|>`` keeps 50256).
- native: the model with the merges appended (the native format numbers specials after the last token).

Refused: other formats (SentencePiece, tekken, CLIP's, subword-nmt codes: not supported, said so), and, naming
the component, HF's ``ignore_merges`` (a piece that is a whole vocabulary token skips the merges, so appended
merges do not act as appended).  HF's ``unk_token`` and byte-fallback ``<0xNN>`` tokens are never taken into a
new merge (a word is cut at them: the decoder reads them one by one).  It counts a corpus's files
(:func:`count_files`) but draws nothing.

:meth:`Extension.timeline` is the extension as one merge list in the original model's ids (the original's merges,
then the new ones, each with its record) -- what the window steps through from "step 0 = the original"; a rank
table's is encoded by tiktoken's rank rule (:class:`~..tokenizers.rank_rule.RankRuleTokenizer`), any other by
replaying the merges.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..config import TrainConfig
from ..counting.pieces import decode_chunk
from ..errors import ConfigError, CorpusError
from ..formats import Loaded, gpt2, native
from ..formats.hf.pipeline import HFTokenizer
from ..formats.hf_json import loads_tokenizer
from ..formats.presets import KNOWN, split_spec
from ..formats.textio import read_text
from ..formats.tiktoken_file import dumps_ranks
from ..io.atomic import atomic_write
from ..measure.stats import Rewrites
from ..records import MergeRecord
from ..text.inputs import expand, iter_chunks
from ..text.specials import split_specials
from ..tokenizers.any_tokenizer import AnyTokenizer
from ..tokenizers.model import BPEModel, token_text
from ..tokenizers.ranks import RankTokenizer
from ..tokenizers.renumber import RenumberedTokenizer
from ..tokenizers.tokenizer import UNKNOWN_ID, Tokenizer
from ..training.branch import records_from_stats
from ..training.extend import ExtendTrainer, Kind
from .reopen import reopen

#: the formats an extension is written in (the original's)
EXTENDABLE = ("tiktoken", "hf", "gpt2", "native")


def corpus_pieces(tok: AnyTokenizer, text: str, into: Counter[str] | None = None) -> Counter[str]:
    """The pre-tokenized pieces of *text* as *tok* sees them (its special / added tokens cut out), counted
    (added to *into* when given: a corpus read in line-aligned chunks)."""
    out: Counter[str] = Counter() if into is None else into
    if isinstance(tok, HFTokenizer):
        out.update(tok.pieces(text))
        return out
    pre = tok.pretokenizer
    specials = tok.special_tokens
    for segment, sid in split_specials(text, specials, "all", ()) if specials else [(text, None)]:
        if sid is None:
            out.update(pre.split(segment))
    return out


def count_files(tok: AnyTokenizer, paths: Sequence[str], *, glob: str | None = None,
                errors: str = "strict") -> tuple[Counter[str], int]:
    """The pieces of the files (folders, compressed files, ``-``: :func:`~..text.inputs.expand`) as *tok* sees
    them, read in line-aligned chunks, and the number of lines read."""
    pieces: Counter[str] = Counter()
    lines = 0
    for item in expand(paths, glob):
        for offset, data in iter_chunks(item):
            lines += data.count(b"\n")
            corpus_pieces(tok, decode_chunk(data, item.name, offset, tok.mode, errors), pieces)
    return pieces, lines


def _cut(ids: list[int], barriers: set[int]) -> list[list[int]]:
    """*ids* split at the *barriers* (tokens no new merge may take in), which are dropped."""
    out: list[list[int]] = [[]]
    for i in ids:
        if i in barriers:
            out.append([])
        else:
            out[-1].append(i)
    return [w for w in out if w]


def _segmenter(tok: AnyTokenizer) -> tuple[Kind, Callable[[str], list[int]]]:
    """How the trainer's ids of a piece are got: ranks for a rank table, the model's ids otherwise."""
    if isinstance(tok, RankTokenizer):
        return "ranks", tok.encode_piece
    if isinstance(tok, HFTokenizer):
        if tok.bpe.ignore_merges:
            raise ConfigError(f"{tok.name}: model option ignore_merges cannot be extended exactly (a piece that is "
                              "a whole vocabulary token skips the merges, so new merges would not act as the last "
                              "ones) -- extend a tokenizer.json without it")
        if tok.bpe.byte_chars:
            raise ConfigError(f"{tok.name}: a byte-level end_of_word_suffix (CLIP's) cannot be extended -- extend a "
                              "ByteLevel or plain BPE tokenizer.json")
        bpe = tok.bpe
        return "merge-list", lambda p: list(bpe.encode(p)[0])
    inner = tok.inner if isinstance(tok, RenumberedTokenizer) else tok
    if isinstance(inner, Tokenizer):
        return "merge-list", inner.encode_piece
    raise ConfigError(f"a {type(tok).__name__} cannot be extended -- extend a BPE merge list or rank table")


@dataclass(frozen=True)
class ExtensionRun:
    """The extension as one merge list in the original model's ids: what the window's timeline steps through."""

    model: BPEModel  # the original's merges, then the new ones
    records: list[MergeRecord]  # the new merges', ranked after the original's merges (model ids)
    start: int  # how many merges are the original's: the timeline's step 0
    rule: Kind  # "ranks": tiktoken's rank rule encodes it at each step; "merge-list": the merges replayed
    initial_symbols: int  # the corpus's tokens under the original
    #: the corpus's pieces at every step, from the original (step 0) on (None unless prepared with history)
    rewrites: Rewrites | None = None


@dataclass
class Extension:
    """An original tokenizer, the merges learned on top, and how to write both in the original's format."""

    fmt: str
    original: AnyTokenizer
    trainer: ExtendTrainer
    path: str  # the original's file or folder ("" for a bundled encoding)
    preset: str | None = None  # the bundled encoding's name (cl100k) when there is one
    original_stats: list[dict[str, Any]] = field(default_factory=list)  # a native original's per-merge stats
    pieces: tuple[int, int] = (0, 0)  # the corpus's pieces and their UTF-8 bytes, with multiplicity
    _tokenizer: AnyTokenizer | None = field(default=None, repr=False)

    @property
    def records(self) -> list[MergeRecord]:
        return self.trainer.records

    @property
    def file_ids(self) -> list[int]:
        """The file's id of each new merge's token (its id in :attr:`tokenizer`)."""
        ids = [r.token_id for r in self.records]
        if self.trainer.kind == "ranks":
            return ids
        return [self._to_file(i) for i in ids]

    def _to_file(self, ours: int) -> int:
        """The file's id of one of the model's ids (original or new)."""
        tok = self.original
        n = len(tok.model.tokens)
        if ours < n:
            if isinstance(tok, HFTokenizer | RenumberedTokenizer):
                return tok.file_id(ours)
            return ours
        first = max(self._original_file_ids(), default=-1) + 1
        if self.fmt == "native":
            return ours  # the native format numbers specials after the new tokens
        return first + ours - n

    def _original_file_ids(self) -> list[int]:
        tok = self.original
        n = len(tok.model.tokens) + len(tok.model.specials)
        if isinstance(tok, HFTokenizer | RenumberedTokenizer):
            return [tok.file_id(i) for i in range(n)] + list(tok.special_tokens.values())
        return list(range(n))

    def model(self) -> BPEModel:
        """The merge-list model extended (merge-list tokenizers only)."""
        m = self.original.model
        return replace(m, merges=list(m.merges) + self.trainer.merges, base=list(m.base))

    def ranks(self) -> dict[bytes, int]:
        """The extended rank table (rank tokenizers only)."""
        return dict(self.trainer.ranks)

    def tokenizer(self) -> AnyTokenizer:
        """The extended tokenizer, in the file's ids: what the written file reads as."""
        if self._tokenizer is None:
            self._tokenizer = self._build()
        return self._tokenizer

    def _build(self) -> AnyTokenizer:
        tok = self.original
        if isinstance(tok, RankTokenizer):
            return RankTokenizer(self.ranks(), tok.pretokenizer.spec, tok.special_tokens,
                                 name=f"{tok.name} + {self.trainer.n_merges}")
        if isinstance(tok, HFTokenizer):
            return loads_tokenizer(self.hf_json(), self.path)
        inner = Tokenizer(self.model())
        if self.fmt == "native":
            return inner
        model = inner.model
        to_file = [self._to_file(i) for i in range(len(model.tokens))]
        to_file += [tok.special_tokens[s] for s in model.specials]
        return RenumberedTokenizer(inner, to_file)

    def timeline(self) -> ExtensionRun:
        """The original's merge list (recovered from a rank table) with the new merges appended, in the model's
        ids: the new tokens follow the original's, so a rank table's rank ``r`` past the specials' gap is model
        id ``r - gap``; the records keep the trainer's counts and runner-ups.  Raises :class:`ConfigError` for a
        ``tokenizer.json`` only its own pipeline encodes (a normalizer, Metaspace...): replaying its merges with
        our pre-tokenizers would show other tokens."""
        tok, t = self.original, self.trainer
        reason = getattr(tok, "plain_reason", None)
        if reason is not None:
            raise ConfigError(f"{self.path or self.preset}: this tokenizer.json has {reason}, which the timeline's "
                              "replay of merges cannot express -- the extension is written and shown in the Log "
                              "inspector only")
        first_added = t.first_new_id  # the first id after the specials' gap (rank tables)
        if isinstance(tok, RankTokenizer):
            again = reopen(tok)  # an extension's file extended again: its own added ranks follow that gap too
            base = again.model if again is not None else tok.recover()
            first_added = again.first_rank if again is not None else first_added
        else:
            base = tok.model
        n = len(base.tokens)
        gap = t.first_new_id - n  # rank tables: the ids the specials hold between the original's and the new

        def ours(i: int) -> int:
            return i - gap if i >= first_added else i

        merges = [(ours(a), ours(b)) for a, b in t.merges]
        model = replace(base, merges=list(base.merges) + merges, base=list(base.base))
        k = len(base.merges)
        records = [replace(r, rank=k + r.rank, left_id=ours(r.left_id), right_id=ours(r.right_id),
                           token_id=ours(r.token_id), vocab_size=model.vocab_size_at(k + r.rank))
                   for r in t.records]
        return ExtensionRun(model, records, k, t.kind, t.initial_symbols, self.rewrites(ours if gap else None))

    def rewrites(self, ours: Callable[[int], int] | None = None) -> Rewrites | None:
        """The corpus at every step (prepared with ``history=True``; else None), the trainer's ids mapped to the
        model's by *ours* (None: the same)."""
        t = self.trainer
        if t.start_words is None or t.rewrites is None:
            return None

        def seg(w: tuple[int, ...]) -> tuple[int, ...]:
            return tuple(map(ours, w)) if ours is not None else w

        return Rewrites([seg(w) for w in t.start_words], list(t.wcounts),
                        [[(wi, seg(w)) for wi, w in step] for step in t.rewrites], *self.pieces)

    # -- writing --------------------------------------------------------------------------------------
    def hf_json(self) -> str:
        """The original ``tokenizer.json`` with the new tokens and merges."""
        doc: dict[str, Any] = json.loads(read_text(self.path))
        m = doc["model"]
        vocab, merges = m["vocab"], m.setdefault("merges", [])
        model = self.original.model
        as_strings = bool(merges) and isinstance(merges[0], str)
        new_model = self.model()
        tokens = new_model.tokens

        def text(i: int) -> str:
            return token_text(tokens[i])

        for i in range(len(model.tokens), len(tokens)):
            vocab[text(i)] = self._to_file(i)
        pairs = [(text(a), text(b)) for a, b in self.trainer.merges]
        if as_strings and any(" " in t for p in pairs for t in p):
            merges[:] = [s.split(" ") for s in merges]
            as_strings = False
        merges.extend(f"{a} {b}" if as_strings else [a, b] for a, b in pairs)
        return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"

    def save(self, out: str) -> str:
        """Write the extension in the original's format to *out* (atomically); return a sentence saying how
        to read it back."""
        if self.fmt == "tiktoken":
            with atomic_write(out, "wb") as f:
                f.write(dumps_ranks(self.ranks()))
            how = f"open it as {self.preset}:{out}" if self.preset else (
                f"open it with --pretokenizer '{self.original.pretokenizer.spec}' and its specials")
            return f"a .tiktoken holds no pattern: {how}"
        if self.fmt == "hf":
            text = self.hf_json()
            with atomic_write(out) as f:
                f.write(text)
            return "tokenizers.Tokenizer.from_file reads it"
        if self.fmt == "gpt2":
            model = self.model()
            ids = [self._to_file(i) for i in range(len(model.tokens))]
            vocab_name = os.path.basename(gpt2.find_pair(self.path)[0]) if self.path else gpt2.PAIRS[0][0]
            flavor = "vocab-merges" if vocab_name == gpt2.PAIRS[1][0] else "gpt2"  # the original's file names
            v, m = gpt2.save(out, model, flavor, self.original.special_tokens, file_ids=ids)
            return f"{os.path.basename(v)} and {os.path.basename(m)}, GPT-2's pattern"
        before = records_from_stats(self.original.model, self.original_stats) if self.original_stats else []
        k = len(self.original.model.merges)
        rows = (before + [replace(r, rank=r.rank + k) for r in self.records]) if before or not k else None
        native.save(out, self.model(), rows)  # per-merge stats only when the original had them too
        return "a native tokenizer file"


def start(loaded: Loaded, spec: str, corpus: str | Mapping[str, int], config: TrainConfig) -> Extension:
    """Learn ``config.merges`` merges (and the limits of *config*: min frequency, forbids) on top of *loaded*
    (read from *spec*) over the corpus -- a text, or its pieces counted by :func:`corpus_pieces`; the
    extension is trained when this returns.

    >>> from bpe_desktop.core.formats import load
    >>> ext = start(load("cl100k"), "cl100k", "Qzxv Qzxv Qzxv", TrainConfig(mode="bytes", merges=2))
    >>> [(r.token, r.token_id) for r in ext.records]  # cl100k: Q zx v; the first new rank follows the specials
    [('zxv', 100277), ('ĠQzxv', 100278)]
    >>> ext.tokenizer().encode("Qzxv Qzxv"), load("cl100k").tokenizer.encode("Qzxv Qzxv")
    ([48, 100277, 100278], [48, 67800, 85, 1229, 67800, 85])
    """
    ext = prepare(loaded, spec, corpus, config)
    ext.trainer.run()
    return ext


def prepare(loaded: Loaded, spec: str, corpus: str | Mapping[str, int], config: TrainConfig, *,
            history: bool = False) -> Extension:
    """As :func:`start` without training: the trainer is ready for its first ``step()``; *history*: it keeps
    every rewrite, so :meth:`Extension.timeline` holds the corpus's segmentation at every step (the plots')."""
    if loaded.fmt not in EXTENDABLE:
        raise ConfigError(f"{spec}: extending a {loaded.fmt} tokenizer is not supported (only .tiktoken rank files, "
                          "HF tokenizer.json, GPT-2 files and native files are) -- convert it, or extend one of those")
    tok = loaded.tokenizer
    kind, segment = _segmenter(tok)
    pieces = corpus_pieces(tok, corpus) if isinstance(corpus, str) else corpus
    if not pieces:
        raise CorpusError("the corpus has no text to learn from (nothing is left once the special tokens are cut "
                          "out) -- give a corpus with text")
    barriers: set[int] = set()  # never merged: a word is cut there (HF's unk_token, byte-fallback <0xNN>)
    if isinstance(tok, HFTokenizer):
        barriers.update(i for i in [tok.bpe.unk, *(tok.bpe.byte_ids if tok.bpe.byte_fallback else ())] if i is not None)
    words, counts = [], []
    for p, c in pieces.items():
        ids = segment(p)
        if UNKNOWN_ID in ids:
            raise CorpusError(f"the piece {p[:30]!r} has a character this tokenizer has no token for -- remove it "
                              "from the corpus")
        for part in _cut(ids, barriers) if barriers.intersection(ids) else [ids]:
            words.append(part)
            counts.append(c)
    if isinstance(tok, RankTokenizer):
        tokens: list[Any] = [tok.token_bytes(i) if tok.has_id(i) and i not in tok.special_tokens.values() else b""
                             for i in range(tok.n_vocab)]
        next_id = tok.n_vocab
        ranks: dict[bytes, int] | None = tok.ranks
    else:
        model = tok.model
        tokens, next_id, ranks = list(model.tokens), len(model.tokens), None
    trainer = ExtendTrainer(words, counts, tokens, kind=kind, next_id=next_id, config=config, ranks=ranks,
                            history=history)
    preset, path = split_spec(spec)
    if isinstance(tok, RankTokenizer):
        preset = preset or next((p for p in KNOWN if p.encoding == tok.name), None)
    n_bytes = sum(len(p.encode("utf-8", "surrogateescape")) * c for p, c in pieces.items()) if history else 0
    return Extension(loaded.fmt, tok, trainer, path if os.path.exists(path) else "",
                     preset.name if preset is not None else None, loaded.stats,
                     (sum(pieces.values()), n_bytes))


def rewrites_again(loaded: Loaded, spec: str, corpus: str | Mapping[str, int], model: BPEModel, start: int,
                   config: TrainConfig, *, strict: bool = True) -> Rewrites:
    """The corpus's segmentation at every step of an extension learned on it before -- *model* holds the
    original's *start* merges, then the new ones -- by replaying the new merges on the corpus as the extension
    trainer made them (what the job's :attr:`ExtensionRun.rewrites` held; a reopened session has not kept them);
    in *model*'s ids.  A :class:`~..errors.CorpusError` if the corpus is not the one the extension was learned on,
    unless *strict* is False (another text, e.g. a held-out one: a merge whose pair it lacks rewrites nothing).

    >>> from bpe_desktop.core.formats import load
    >>> cfg = TrainConfig(mode="bytes", merges=2)
    >>> ext = prepare(load("cl100k"), "cl100k", "Qzxv Qzxv Qzxv", cfg, history=True)
    >>> run = (ext.trainer.run(), ext.timeline())[1]
    >>> rewrites_again(load("cl100k"), "cl100k", "Qzxv Qzxv Qzxv", run.model, run.start, cfg) == run.rewrites
    True
    """
    ext = prepare(loaded, spec, corpus, config.with_(merges=None), history=True)
    tokens = model.tokens
    ext.trainer.replay(((tokens[a], tokens[b]) for a, b in model.merges[start:]), strict=strict)
    ids, made = model.token_ids, ext.trainer.tokens
    rw = ext.rewrites(lambda i: ids[made[i]])
    assert rw is not None
    return rw
