"""Which format a tokenizer file is in, decided from its content (and, for GPT-2 pairs, its partner file).

Only the first 64 KB are looked at (of the decompressed content, for a gzip, xz or bzip2 file).  It does not
parse the file (the format modules do).
"""

from __future__ import annotations

import lzma
import os
import re
import zlib

from ..errors import FormatError

_TIKTOKEN_LINE = re.compile(rb"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)? \d+$")


def detect(path: str) -> str:
    """One of ``native``, ``hf``, ``gpt2``, ``subword-nmt``, ``tiktoken``, ``csv``, ``sentencepiece``, ``tekken``."""
    from .tiktoken_file import open_maybe_compressed

    if os.path.isdir(path):
        return "gpt2"
    try:
        with open_maybe_compressed(path) as f:
            head = f.read(65536)
    except (OSError, EOFError, ValueError, lzma.LZMAError, zlib.error) as e:
        raise FormatError(f"{path}: cannot read ({getattr(e, 'strerror', None) or e}) -- check the path") from None
    from . import gpt2  # (the format modules only when a file is detected: not at start-up)
    from .sentencepiece_model import looks_like_model
    from .tekken import looks_like_tekken

    if looks_like_model(head):
        return "sentencepiece"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"{"):
        if re.search(rb'"format"\s*:\s*"bpe-desktop"', head):
            return "native"
        if looks_like_tekken(head):
            return "tekken"
        if re.search(rb'"(model|added_tokens|pre_tokenizer|truncation)"\s*:', head) and re.search(
            rb'"(version|model)"\s*:', head
        ):
            return "hf"
        if gpt2.has_partner(path) or os.path.basename(path) in ("encoder.json", "vocab.json"):
            return "gpt2"  # its reader says if the partner file is missing
        return "hf"  # its reader says what is missing
    lines = [ln for ln in text.split(b"\n")[:50] if ln.strip()]
    if lines and len(lines) < 50 and not head.endswith(b"\n") and len(head) == 65536:
        lines = lines[:-1]  # the last line may be cut
    if lines and all(_TIKTOKEN_LINE.match(ln.rstrip(b"\r")) for ln in lines):
        return "tiktoken"
    if text.startswith(b"rank,left,right"):
        return "csv"
    if os.path.basename(path) in ("vocab.bpe", "merges.txt") and gpt2.has_partner(path):
        return "gpt2"
    return "subword-nmt"
