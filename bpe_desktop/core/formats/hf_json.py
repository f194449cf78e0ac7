"""Hugging Face ``tokenizer.json`` with a BPE model, as ``tokenizers.Tokenizer.from_file`` reads it.

Written: bytes mode as ``ByteLevel`` (GPT-2 pattern) or ``Split(regex)`` + ``ByteLevel`` (any other pattern)
with a ``ByteLevel`` decoder; chars mode as ``WhitespaceSplit`` (or ``Split(regex)``) with
``end_of_word_suffix`` and a ``BPEDecoder``.  Merges are written as pairs (tokens may contain spaces);
specials go to ``added_tokens``.  HF can only glue the end-of-word marker to the last character, so a
chars-mode model with a separate marker symbol (the seeds' ``w </w>``) is refused: train it with
``--glue-marker``.  Our pattern ``none`` (a line is a piece) is written as a line-matching regex.

Read: the whole pipeline as today's models write it -- added tokens, normalizer, pre-tokenizer, decoder
(:mod:`.hf`, which names what it reads) and the BPE model with ``byte_fallback``, ``ignore_merges``,
``unk_token``/``fuse_unk``, ``end_of_word_suffix`` and ``continuing_subword_prefix`` (:mod:`.hf.subword_prefix`),
merges as pairs or as ``"A B"`` strings -- into an :class:`~.hf.pipeline.HFTokenizer`.  A file has bytes
mode when its pre-tokenizer contains ``ByteLevel`` (with a suffix or prefix, chars mode over the byte
alphabet).  Other model types (WordPiece, Unigram, WordLevel), BPE dropout and any unknown component are
refused with an error naming it.  The post-processor, truncation and padding are not
applied (encoding is HF's ``add_special_tokens=False``).  It does not check that a custom regex means the
same to HF's Oniguruma engine as to Python's ``regex`` module.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from ..choices import Mode
from ..errors import FormatError
from ..io.atomic import atomic_write
from ..text.pretokenize import GPT2_PATTERN, NAMED_PATTERNS, Pretokenizer
from ..tokenizers.model import BPEModel, Token, text_token, token_text
from .hf.added_tokens import AddedTokens, read_added
from .hf.bpe_model import HFBPE
from .hf.decoders import read_decoder
from .hf.normalizers import read_normalizer
from .hf.pipeline import HFTokenizer
from .hf.pretokenizers import read_pretokenizer
from .hf.subword_prefix import made_token, prefixed_names
from .textio import read_text, token_reader
from .vocab_merges import model_from_vocab

LINES_PATTERN = r"[^\n]*\n|[^\n]+"  # what the "none" pre-tokenizer does: each line, with its newline


def onig_pattern(pattern: str) -> str:
    """The pattern as HF's Oniguruma engine must see it: ``X{m,n}+`` is possessive in Python's ``regex``
    but means ``(X{m,n})+`` to Oniguruma, so it becomes the greedy ``X{m,n}`` (the same matches wherever
    nothing after it can force backtracking, as in cl100k's ``\\p{N}{1,3}+``).

    >>> onig_pattern(r"\\p{N}{1,3}+|a++")
    '\\\\p{N}{1,3}|a++'
    """
    return re.sub(r"(\{\d+(?:,\d*)?\})\+", r"\1", pattern)


def _pattern_of(spec: str) -> str:
    pre = Pretokenizer.from_spec(spec)
    return LINES_PATTERN if pre.pattern is None else onig_pattern(pre.pattern)


def _split(pattern: str) -> dict[str, Any]:
    # invert=True: the regex matches the pieces; the text between matches is removed (like findall)
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Removed", "invert": True}


def _byte_level(use_regex: bool) -> dict[str, Any]:
    return {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": use_regex}


def to_dict(model: BPEModel, special_ids: dict[str, int] | None = None) -> dict[str, Any]:
    """The ``tokenizer.json`` document."""
    if model.mode == Mode.CHARS and model.end_of_word and not model.glue_marker:
        raise FormatError(
            "HF tokenizer.json can only express an end-of-word marker glued to the last character "
            "(end_of_word_suffix), but this tokenizer keeps it as a separate symbol -- train with "
            "--glue-marker, or write native or subword-nmt (version 0.1) instead"
        )
    specials = dict(special_ids if special_ids is not None else model.special_ids)
    pattern = _pattern_of(model.pretokenizer)
    if model.mode == Mode.BYTES:
        pre: dict[str, Any] = (
            _byte_level(True) if pattern == GPT2_PATTERN
            else {"type": "Sequence", "pretokenizers": [_split(pattern), _byte_level(False)]}
        )
        decoder: dict[str, Any] = _byte_level(True)
        suffix = None
    else:
        pre = {"type": "WhitespaceSplit"} if model.pretokenizer == "whitespace" else _split(pattern)
        suffix = model.end_of_word or None
        decoder = {"type": "BPEDecoder", "suffix": suffix or ""}
    vocab = {token_text(t): i for i, t in enumerate(model.tokens)}
    vocab.update(specials)
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}
            for s, i in sorted(specials.items(), key=lambda kv: kv[1])
        ],
        "normalizer": None,
        "pre_tokenizer": pre,
        "post_processor": None,
        "decoder": decoder,
        "model": {
            "type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
            "end_of_word_suffix": suffix, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
            "vocab": vocab,
            "merges": [[a, b] for a, b in model.merge_pairs_text()],
        },
    }


def dumps(model: BPEModel, special_ids: dict[str, int] | None = None) -> str:
    return json.dumps(to_dict(model, special_ids), ensure_ascii=False, indent=1)


def save(path: str | os.PathLike[str], model: BPEModel, special_ids: dict[str, int] | None = None) -> None:
    """Write atomically."""
    text = dumps(model, special_ids)
    with atomic_write(path) as f:
        f.write(text)


def _our_spec(pre: Any) -> str | None:
    """Our pattern spec for a pre-tokenizer that is exactly one (what the hf writer emits), else ``None``."""
    if not isinstance(pre, dict):  # none: HF's one piece is the whole text, our "none" a line
        return None
    kind = pre.get("type")
    if kind == "ByteLevel":
        return "gpt2" if pre.get("use_regex", True) and not pre.get("add_prefix_space") else None
    if kind == "WhitespaceSplit":
        return "whitespace"
    if kind == "Split":
        pat = pre.get("pattern")
        regex_text = pat.get("Regex") if isinstance(pat, dict) else None
        behavior, invert = pre.get("behavior"), bool(pre.get("invert"))
        if not isinstance(regex_text, str) or not (
                (behavior == "Removed" and invert) or (behavior == "Isolated" and not invert)):
            return None
        if regex_text == LINES_PATTERN:
            return "none"
        for name, (p, _) in NAMED_PATTERNS.items():
            full = name in ("gpt2", "cl100k", "o200k")  # they match every character: Isolated = find-all
            if p is not None and regex_text in (p, onig_pattern(p)) and (full or behavior == "Removed"):
                return name
        return regex_text if behavior == "Removed" else None  # Isolated keeps the text between matches
    if kind == "Sequence":
        items = pre.get("pretokenizers")
        if not isinstance(items, list) or not 1 <= len(items) <= 2:
            return None
        if len(items) == 1:
            return _our_spec(items[0])
        last = items[1]
        if (isinstance(last, dict) and last.get("type") == "ByteLevel" and not last.get("use_regex", True)
                and not last.get("add_prefix_space") and not (isinstance(items[0], dict)
                                                              and items[0].get("type") == "ByteLevel")):
            return _our_spec(items[0])
    return None


def _named_pre(pre: Any) -> str:
    if isinstance(pre, dict):
        return f'pre-tokenizer "{pre.get("type")}"'
    return "no pre-tokenizer (the whole text is one piece)"


def loads_tokenizer(text: str, source: str = "<text>") -> HFTokenizer:
    """Parse a ``tokenizer.json`` text into its tokenizer (the file's ids)."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise FormatError(f"{source}: line {e.lineno}: not valid JSON ({e.msg})") from e
    try:
        return _from_doc(doc, source)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise FormatError(f"{source}: malformed tokenizer.json ({type(e).__name__}: {e})") from e


def loads(text: str, source: str = "<text>") -> tuple[BPEModel, list[int] | None]:
    """Parse a ``tokenizer.json`` text: the model and ``to_file`` (see :mod:`.vocab_merges`)."""
    tok = loads_tokenizer(text, source)
    to_file = [tok.file_id(i) for i in range(len(tok.model.tokens) + len(tok.model.specials))]
    return tok.model, (None if to_file == list(range(len(to_file))) else to_file)


def _merge_pairs(merges_raw: Any, source: str) -> list[tuple[str, str]]:
    if not isinstance(merges_raw, list):
        raise FormatError(f"{source}: model.merges must be a list")
    pairs_text: list[tuple[str, str]] = []
    for n, item in enumerate(merges_raw, 1):
        if isinstance(item, str):
            parts = item.split(" ")
        elif isinstance(item, list):
            parts = item
        else:
            parts = []
        if len(parts) != 2 or not all(isinstance(p, str) and p for p in parts):
            raise FormatError(f"{source}: merge {n}: expected two tokens, got {item!r:.80}")
        pairs_text.append((parts[0], parts[1]))
    return pairs_text


def _from_doc(doc: Any, source: str) -> HFTokenizer:
    if not isinstance(doc, dict) or not isinstance(doc.get("model"), dict):
        raise FormatError(f"{source}: not an HF tokenizer.json (no \"model\" object)")
    m = doc["model"]
    kind = m.get("type", "BPE" if "merges" in m else None)
    if kind != "BPE":
        raise FormatError(f"{source}: model type {kind!r} is not supported -- only BPE tokenizers can be "
                          "read (WordPiece, Unigram and WordLevel have no merge list)")
    if m.get("dropout"):
        raise FormatError(f"{source}: model option \"dropout\" (BPE dropout) is not supported -- its ids "
                          "are random")
    flags = {}
    for key in ("byte_fallback", "ignore_merges", "fuse_unk"):
        v = m.get(key, False)
        if v is None:
            v = False
        if not isinstance(v, bool):
            raise FormatError(f"{source}: model.{key} must be true or false, not {v!r:.40}")
        flags[key] = v
    normalizer = read_normalizer(doc.get("normalizer"), source)
    pretokenize, byte_level = read_pretokenizer(doc.get("pre_tokenizer"), source)
    decoder = read_decoder(doc.get("decoder"), source)
    spec = _our_spec(doc.get("pre_tokenizer"))
    suffix = m.get("end_of_word_suffix") or ""
    prefix = m.get("continuing_subword_prefix") or ""
    for key, v in (("end_of_word_suffix", suffix), ("continuing_subword_prefix", prefix)):
        if not isinstance(v, str):
            raise FormatError(f"{source}: model.{key} must be text or null, not {v!r:.40}")
    # CLIP: byte-level pieces, chars-mode tokens (over the byte alphabet) with a suffix or prefix
    byte_chars = byte_level and bool(suffix or prefix)
    byte_level = byte_level and not byte_chars
    if byte_level and flags["byte_fallback"]:
        raise FormatError(f"{source}: model option \"byte_fallback\" with a ByteLevel pre-tokenizer is not "
                          "supported (every byte has a token there)")
    vocab_raw = m["vocab"]
    if not isinstance(vocab_raw, dict) or not all(type(v) is int for v in vocab_raw.values()):
        raise FormatError(f"{source}: model.vocab must map tokens to integer ids")
    pairs_text = _merge_pairs(m.get("merges", []), source)
    added = read_added(doc.get("added_tokens"), source)
    conv = token_reader(byte_level, source)
    in_merges = {t for a, b in pairs_text for t in (a, b, made_token(a, b, prefix))}
    file_text = (lambda s: token_text(s.encode("utf-8"))) if byte_level or byte_chars else (lambda s: s)
    specials = [a.content for a in sorted(added, key=lambda a: a.id) if file_text(a.content) not in in_merges]
    special_set = set(specials)
    vocab: dict[Token, int] = {}
    for t, i in vocab_raw.items():
        vocab[t if t in special_set else conv(t)] = i
    for a in added:
        if a.content in special_set:
            vocab[a.content] = a.id
    pairs = [(conv(a), conv(b)) for a, b in pairs_text]
    if prefix:  # our names for the file's tokens, so that merges concatenate (chars mode: all are str)
        names = prefixed_names({text_token(t): i for t, i in vocab.items()}, pairs_text, prefix, special_set,
                               source)
        vocab = {names[text_token(t)]: i for t, i in vocab.items()}
        pairs = [(names[a], names[b]) for a, b in pairs_text]
    model, to_file = model_from_vocab(
        Mode.BYTES if byte_level else Mode.CHARS, vocab, pairs, source, specials, pretokenizer=spec or "none",
        end_of_word=suffix, glue_marker=bool(suffix),
    )
    unk_name = m.get("unk_token")
    unk: int | None = None
    if unk_name is not None:
        ours = {token_text(t): i for i, t in enumerate(model.tokens)} | model.special_ids
        if not isinstance(unk_name, str) or unk_name not in ours:
            raise FormatError(f"{source}: model.unk_token {unk_name!r:.40} is not in the vocabulary")
        unk = ours[unk_name]
    bpe = HFBPE(model, byte_fallback=flags["byte_fallback"], unk=unk, fuse_unk=flags["fuse_unk"],
                ignore_merges=flags["ignore_merges"], byte_chars=byte_chars, prefix=prefix)
    n = len(model.tokens) + len(model.specials)
    reasons = [f'normalizer "{doc["normalizer"].get("type")}"' if normalizer is not None else "",
               _named_pre(doc.get("pre_tokenizer")) if spec is None else "",
               *(f"model option {k}" for k in ("byte_fallback", "ignore_merges") if flags[k]),
               "model option unk_token" if unk is not None else "",
               "model option continuing_subword_prefix" if prefix else "",
               "a byte-level end_of_word_suffix" if byte_chars and not prefix else "",
               *(f"added token {a.content!r:.30} (not special, normalized, or with strip options)" for a in added
                 if not a.special or a.normalized or a.lstrip or a.rstrip or a.single_word)]
    plain = next((r for r in reasons if r), None)
    return HFTokenizer(bpe, AddedTokens(added, normalizer), pretokenize, decoder,
                       to_file if to_file is not None else list(range(n)), name=os.path.basename(source),
                       plain_reason=plain, fast=spec != "whitespace")


def load(path: str | os.PathLike[str]) -> BPEModel:
    """Read a ``tokenizer.json`` (the model, in our id numbering)."""
    return read(path)[0]


def read(path: str | os.PathLike[str]) -> tuple[BPEModel, list[int] | None]:
    """Read a ``tokenizer.json``: the model and the file's id table (``None`` if the ids are ours)."""
    return loads(read_text(path), os.fspath(path))


def read_tokenizer(path: str | os.PathLike[str]) -> HFTokenizer:
    """Read a ``tokenizer.json`` as the tokenizer HF would run."""
    return loads_tokenizer(read_text(path), os.fspath(path))
