"""Hugging Face ``tokenizer.json`` with a BPE model, as ``tokenizers.Tokenizer.from_file`` reads it.

Written: bytes mode as ``ByteLevel`` (GPT-2 pattern) or ``Split(regex)`` + ``ByteLevel`` (any other pattern)
with a ``ByteLevel`` decoder; chars mode as ``WhitespaceSplit`` (or ``Split(regex)``) with
``end_of_word_suffix`` and a ``BPEDecoder``.  Merges are written as pairs (tokens may contain spaces);
specials go to ``added_tokens``.  HF can only glue the end-of-word marker to the last character, so a
chars-mode model with a separate marker symbol (the seeds' ``w </w>``) is refused: train it with
``--glue-marker``.  Our pattern ``none`` (a line is a piece) is written as a line-matching regex.

Read: the same shapes (merges as pairs or as ``"A B"`` strings).  Other model types (WordPiece, Unigram,
WordLevel), normalizers, byte fallback and continuing-subword prefixes are refused with an error naming
what is unsupported.  It does not check that a custom regex means the same to HF's Oniguruma engine as to
Python's ``regex`` module.
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
from ..tokenizers.model import BPEModel, Token, token_text
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


def _pretokenizer(pre: Any, source: str) -> tuple[str, bool]:
    """(our pre-tokenizer spec, byte-level?) for an HF pre_tokenizer object."""
    if pre is None:
        return "none", False
    if not isinstance(pre, dict):
        raise FormatError(f"{source}: pre_tokenizer must be an object")
    kind = pre.get("type")
    if kind == "ByteLevel":
        if pre.get("add_prefix_space"):
            raise FormatError(f"{source}: ByteLevel with add_prefix_space=true is not supported -- "
                              "this program never adds a space before the text")
        return ("gpt2" if pre.get("use_regex", True) else "none"), True
    if kind == "WhitespaceSplit":
        return "whitespace", False
    if kind == "Split":
        pat = pre.get("pattern") or {}
        regex_text = pat.get("Regex") if isinstance(pat, dict) else None
        if regex_text is None and isinstance(pat, dict) and isinstance(pat.get("String"), str):
            raise FormatError(f"{source}: Split on a plain string is not supported -- use a regex pattern")
        if not isinstance(regex_text, str):
            raise FormatError(f"{source}: Split pre-tokenizer without a regex pattern")
        behavior = pre.get("behavior")
        invert = bool(pre.get("invert"))
        if not ((behavior == "Removed" and invert) or (behavior == "Isolated" and not invert)):
            raise FormatError(f"{source}: Split with behavior {behavior!r} and invert={invert} is not "
                              "supported -- only regexes that match the pieces themselves")
        if regex_text == LINES_PATTERN:
            return "none", False
        for name, (p, _) in NAMED_PATTERNS.items():
            if p is not None and regex_text in (p, onig_pattern(p)):
                return name, False
        Pretokenizer.from_spec(regex_text)  # PatternError if our regex engine cannot compile it
        return regex_text, False
    if kind == "Sequence":
        items = pre.get("pretokenizers")
        if not isinstance(items, list) or not 1 <= len(items) <= 2:
            raise FormatError(f"{source}: only a Sequence of Split and ByteLevel is supported")
        if len(items) == 1:
            return _pretokenizer(items[0], source)
        spec, b0 = _pretokenizer(items[0], source)
        if isinstance(items[1], dict) and items[1].get("type") == "ByteLevel" and not b0:
            if items[1].get("use_regex", True):
                raise FormatError(f"{source}: Split followed by ByteLevel(use_regex=true) is not supported")
            _pretokenizer(items[1], source)
            return spec, True
        raise FormatError(f"{source}: only a Sequence of Split then ByteLevel is supported")
    raise FormatError(f"{source}: the {kind!r} pre-tokenizer is not supported -- use ByteLevel, "
                      "WhitespaceSplit or Split(regex)")


def loads(text: str, source: str = "<text>") -> tuple[BPEModel, list[int] | None]:
    """Parse a ``tokenizer.json`` text: the model and ``to_file`` (see :mod:`.vocab_merges`)."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise FormatError(f"{source}: line {e.lineno}: not valid JSON ({e.msg})") from e
    try:
        return _from_doc(doc, source)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise FormatError(f"{source}: malformed tokenizer.json ({type(e).__name__}: {e})") from e


def _from_doc(doc: Any, source: str) -> tuple[BPEModel, list[int] | None]:
    if not isinstance(doc, dict) or not isinstance(doc.get("model"), dict):
        raise FormatError(f"{source}: not an HF tokenizer.json (no \"model\" object)")
    m = doc["model"]
    kind = m.get("type", "BPE" if "merges" in m else None)
    if kind != "BPE":
        raise FormatError(f"{source}: model type {kind!r} is not supported -- only BPE tokenizers can be "
                          "read (WordPiece, Unigram and WordLevel have no merge list)")
    for key, what in (("continuing_subword_prefix", "a continuing-subword prefix"),
                      ("dropout", "BPE dropout")):
        if m.get(key):
            raise FormatError(f"{source}: {what} is not supported")
    if m.get("byte_fallback"):
        raise FormatError(f"{source}: byte_fallback is not supported -- use a ByteLevel tokenizer")
    if doc.get("normalizer") is not None:
        raise FormatError(f"{source}: normalizers are not supported (this one is "
                          f"{doc['normalizer'].get('type') if isinstance(doc['normalizer'], dict) else '?'}) "
                          "-- our tokenizers see the text unchanged")
    spec, byte_level = _pretokenizer(doc.get("pre_tokenizer"), source)
    dec = doc.get("decoder")
    if not byte_level and isinstance(dec, dict) and dec.get("type") == "ByteLevel":
        byte_level = True
    suffix = m.get("end_of_word_suffix") or ""
    if not isinstance(suffix, str):
        raise FormatError(f"{source}: model.end_of_word_suffix must be text or null, not {suffix!r:.40}")
    if byte_level and suffix:
        raise FormatError(f"{source}: byte-level tokenizers with an end_of_word_suffix are not supported")
    vocab_raw = m["vocab"]
    if not isinstance(vocab_raw, dict) or not all(type(v) is int for v in vocab_raw.values()):
        raise FormatError(f"{source}: model.vocab must map tokens to integer ids")
    merges_raw = m.get("merges", [])
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
            raise FormatError(f"{source}: merge {n}: expected two tokens, got {item!r}")
        pairs_text.append((parts[0], parts[1]))
    added = doc.get("added_tokens") or []
    if not isinstance(added, list) or not all(
        isinstance(a, dict) and isinstance(a.get("content"), str) and a["content"] and type(a.get("id")) is int
        for a in added
    ):
        raise FormatError(f"{source}: added_tokens must be a list of objects with a non-empty \"content\" "
                          "and an integer \"id\"")
    specials = [a["content"] for a in sorted(added, key=lambda a: a["id"])]
    conv = token_reader(byte_level, source)
    special_set = set(specials)
    vocab: dict[Token, int] = {}
    for t, i in vocab_raw.items():
        vocab[t if t in special_set else conv(t)] = i
    for a in added:
        vocab.setdefault(a["content"], a["id"])
    pairs = [(conv(a), conv(b)) for a, b in pairs_text]
    return model_from_vocab(
        Mode.BYTES if byte_level else Mode.CHARS, vocab, pairs, source, specials, pretokenizer=spec,
        end_of_word=suffix, glue_marker=bool(suffix),
    )


def load(path: str | os.PathLike[str]) -> BPEModel:
    """Read a ``tokenizer.json`` (the model, in our id numbering)."""
    return read(path)[0]


def read(path: str | os.PathLike[str]) -> tuple[BPEModel, list[int] | None]:
    """Read a ``tokenizer.json``: the model and the file's id table (``None`` if the ids are ours)."""
    return loads(read_text(path), os.fspath(path))
