"""subword-nmt codes files (``learn-bpe`` output, ``apply-bpe -c``): a ``#version`` header, then ``A B`` per line.

Version 0.2 glues the end-of-word marker ``</w>`` to the last character (``w</w>``), version 0.1 keeps it
as a symbol of its own (``w </w>``, the seeds' convention).  We write 0.2 for glued models and 0.1 for
separate-marker and marker-less models, so ``apply-bpe`` segments exactly as we do.  subword-nmt knows
only the marker ``</w>``, chars mode and whitespace-separated words: byte-level models, other markers and
other pre-tokenizers are refused with the format that can hold them.

A codes file has no vocabulary: on reading, the alphabet is the characters the merges use; a character
that never took part in a merge passes through as the unknown id (``UNKNOWN_ID``, covering that character's
bytes), as ``apply-bpe`` passes it through, instead of refusing the text.  A loaded codes file splits words
as subword-nmt does (the ``subword-nmt`` pre-tokenizer: on spaces and newlines, not at a tab or a
no-break space).
"""

from __future__ import annotations

import os

from ..choices import Mode
from ..errors import FormatError
from ..io.atomic import atomic_write
from ..tokenizers.model import BPEModel, chars_base
from .textio import read_text

MARKER = "</w>"


def dumps(model: BPEModel) -> str:
    """The codes text of a chars-mode model."""
    if model.mode != Mode.CHARS:
        raise FormatError(
            "subword-nmt codes are character-level and cannot hold byte-level merges -- write this "
            "tokenizer as hf (tokenizer.json), gpt2, vocab-merges, tiktoken or native"
        )
    if model.end_of_word not in ("", MARKER):
        raise FormatError(f"subword-nmt only knows the end-of-word marker {MARKER}, this tokenizer uses "
                          f"{model.end_of_word!r} -- retrain with --end-of-word '{MARKER}' or write hf or native")
    if model.pretokenizer not in ("whitespace", "subword-nmt"):
        raise FormatError(f"subword-nmt splits words on whitespace only, this tokenizer uses the "
                          f"{model.pretokenizer!r} pre-tokenizer -- write hf (tokenizer.json) or native")
    for a, b in model.merge_pairs_text():
        # a codes line is "A B", split at its space; apply-bpe reads the file with universal newlines
        if any(c in " \r\n" for c in a + b):
            raise FormatError(f"the merge {a!r} + {b!r} contains a space or a line break, which a codes file "
                              "cannot hold -- write hf (tokenizer.json) or native")
    version = "0.2" if model.end_of_word and model.glue_marker else "0.1"
    return f"#version: {version}\n" + "".join(f"{a} {b}\n" for a, b in model.merge_pairs_text())


def save(path: str | os.PathLike[str], model: BPEModel) -> None:
    """Write atomically."""
    text = dumps(model)
    with atomic_write(path) as f:
        f.write(text)


def loads(text: str, source: str = "<text>") -> BPEModel:
    """Parse a codes file (version 0.1 or 0.2; no header means 0.1, as in subword-nmt)."""
    lines = text.split("\n")
    version = "0.1"
    start = 0
    if lines and lines[0].startswith("#version:"):
        version = lines[0].split()[-1] if lines[0].split()[1:] else ""
        if version not in ("0.1", "0.2"):
            raise FormatError(f"{source}: line 1: codes version {version!r} is not supported (0.1 or 0.2)")
        start = 1
    pairs: list[tuple[str, str]] = []
    for n in range(start, len(lines)):
        line = lines[n].strip("\r\n ")
        if not line:
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise FormatError(f"{source}: line {n + 1}: expected two subword units separated by one space, "
                              f"got {line[:60]!r}")
        pairs.append((parts[0], parts[1]))
    uses_marker = any(MARKER in a + b for a, b in pairs)
    glue = version == "0.2"
    marker = MARKER if (glue or uses_marker) else ""
    alphabet = {c for a, b in pairs for t in (a, b) for c in (t[: -len(MARKER)] if t.endswith(MARKER) else t)}
    base = chars_base(alphabet, marker, glue)
    return BPEModel.from_token_pairs(
        Mode.CHARS, base, pairs, pretokenizer="subword-nmt", end_of_word=marker, glue_marker=glue
    )


def load(path: str | os.PathLike[str]) -> BPEModel:
    return loads(read_text(path), os.fspath(path))
