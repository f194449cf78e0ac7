"""CLIP's merges file (open_clip's ``bpe_simple_vocab_16e6.txt.gz``, OpenAI CLIP's ``SimpleTokenizer``),
gzipped or not, read as open_clip encodes with it.

The file is a ``#version`` line and one merge per line over GPT-2's byte alphabet, ``</w>`` glued to a
word's last symbol.  As open_clip does, it keeps the first 48,894 merges (a 49,408-token vocabulary);
ids are the 256 byte characters in GPT-2's order, their 256 ``</w>`` forms, the merged tokens, then
``<start_of_text>`` and ``<end_of_text>``.  Text is cleaned as open_clip's default ``lower`` cleaning:
``ftfy.fix_text``, HTML entities unescaped twice, whitespace runs made one space, stripped, lowercased
(the whole string, as ``str.lower``); then cut with CLIP's pattern (case-insensitive, the two specials
first), each piece byte-mapped and encoded with the merges.  ``decode`` is open_clip's (``</w>`` becomes a
space).  The file is recognised by its checksum (gzipped or not); any other file in this shape must be
named ``clip:PATH`` -- it is never guessed from its content.  It does not write CLIP files.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import html
import os
import zlib
from typing import Any

import regex

from ..choices import Mode
from ..errors import FormatError
from ..text.byte_level import GPT2_BYTE_ORDER, bytes_to_text
from .hf.added_tokens import AddedToken, AddedTokens
from .hf.aligned import Aligned
from .hf.bpe_model import HFBPE
from .hf.decoders import Decoder, text_bytes
from .hf.pipeline import HFTokenizer
from .vocab_merges import model_from_vocab

#: sha256 of open_clip's bpe_simple_vocab_16e6.txt.gz, and of its content unzipped
CLIP_SHA256 = ("924691ac288e54409236115652ad4aa250f48203de50a9e4722a6ecd48d6804a",
               "67603cfda2e032ad77b5f8808af37789d590db664b26df8705d2bf8b3c553fc8")
N_MERGES = 49152 - 256 - 2  # open_clip: merges[1 : 49152 - 256 - 2 + 1]
SPECIALS = ("<start_of_text>", "<end_of_text>")
PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+"""
MARKER = "</w>"
_SPACES = regex.compile(r"[\s\x1c-\x1f]+")  # what str.split() splits on


def read_bytes(path: str) -> bytes:
    """The file's bytes, unzipped when they are gzip data."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise FormatError(f"{path}: cannot read ({e.strerror}) -- check the path") from None
    if data[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as e:
            raise FormatError(f"{path}: a damaged gzip file ({e}) -- download it again") from None
    return data


def is_clip_file(path: str) -> bool:
    """True for open_clip's own merges file (by checksum, gzipped or not)."""
    try:
        if os.path.getsize(path) > 8 << 20:
            return False
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return False
    if hashlib.sha256(data).hexdigest() in CLIP_SHA256:
        return True
    return data[:2] == b"\x1f\x8b" and hashlib.sha256(read_bytes(path)).hexdigest() in CLIP_SHA256


def _lower(a: Aligned) -> Aligned:
    out = a.text.lower()  # the whole string: a final sigma becomes ς, as in open_clip
    if len(out) == len(a.text):
        return dataclasses.replace(a, text=out)
    per_char = a.map_chars(str.lower)
    return per_char if per_char.text == out else a.segments([(0, len(a.text))], [out])


def clean(a: Aligned) -> Aligned:
    """open_clip's ``_clean_lower`` on aligned text."""
    import ftfy

    text = html.unescape(html.unescape(ftfy.fix_text(a.text)))
    if text != a.text:
        a = a.segments([(0, len(a.text))], [text]) if a.text else a
    a = a.replace_spans([m.span() for m in _SPACES.finditer(a.text)], " ")
    i, j = 0, len(a.text)
    if i < j and a.text[0] == " ":
        i = 1
    if j > i and a.text[j - 1] == " ":
        j -= 1
    return _lower(a.slice(i, j))


class ClipPieces(AddedTokens):
    """CLIP's cut: one case-insensitive pattern with the specials first, over the cleaned text."""

    def __init__(self, specials: list[AddedToken]) -> None:
        super().__init__(specials, clean)
        alts = "|".join(regex.escape(t.content) for t in specials)
        self.pattern = regex.compile(alts + "|" + PATTERN, regex.IGNORECASE)
        self.by_text = {t.content: t for t in specials}

    def extract(self, text: str) -> list[Any]:
        a = clean(Aligned.original(text))
        out: list[Any] = []
        for m in self.pattern.finditer(a.text):
            i, j = m.span()
            if i == j:
                continue
            tok = self.by_text.get(m.group())
            out.append((tok, a.span(i, j)) if tok is not None else a.slice(i, j))
        return out


def _clip_chain(tokens: list[str]) -> list[str]:
    return [text_bytes("".join(tokens)).decode("utf-8", "replace").replace(MARKER, " ")]


def load(path: str) -> HFTokenizer:
    """Read a CLIP merges file (gzipped or not) as open_clip's tokenizer."""
    try:
        text = read_bytes(path).decode("utf-8")
    except UnicodeDecodeError as e:
        raise FormatError(f"{path}: not UTF-8 text at byte {e.start} -- is this CLIP's merges file?") from None
    lines = text.split("\n")
    # open_clip's own file starts '"bpe_simple_vocab_16e6.txt#version: 0.2'
    if "#version" not in lines[0]:
        raise FormatError(f"{path}: a CLIP merges file starts with a '#version' line, which open_clip skips "
                          f"-- this one starts {lines[0][:40]!r}")
    pairs: list[tuple[str, str]] = []
    for n, line in enumerate(lines[1 : N_MERGES + 1], 2):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 2:
            raise FormatError(f"{path}: line {n}: expected two tokens, got {line[:60]!r}")
        pairs.append((parts[0], parts[1]))
    alphabet = [bytes_to_text(bytes([b])) for b in GPT2_BYTE_ORDER]
    listed = [*alphabet, *(c + MARKER for c in alphabet), *(a + b for a, b in pairs), *SPECIALS]
    # a repeated token takes its last id, as in open_clip's dict
    vocab: dict[str | bytes, int] = {t: k for k, t in enumerate(listed)}
    model, to_file = model_from_vocab(Mode.CHARS, vocab, pairs, path, SPECIALS, pretokenizer="none",
                                      end_of_word=MARKER, glue_marker=True)
    specials = [AddedToken(s, vocab[s], special=True) for s in SPECIALS]
    n = len(model.tokens) + len(model.specials)
    return HFTokenizer(HFBPE(model, byte_chars=True), ClipPieces(specials), None,
                       Decoder(_clip_chain, lambda t: text_bytes(t).replace(MARKER.encode(), b" ")
                               if isinstance(t, str) else t),
                       to_file if to_file is not None else list(range(n)), name=os.path.basename(path),
                       plain_reason="CLIP's text cleaning")
