"""The native tokenizer file: versioned JSON holding the settings, the merge list and per-merge stats.

This is the file the app saves and opens.  Base symbols are stored only in chars mode (bytes mode always
has the 256 bytes).  Tokens are written as text: bytes through GPT-2's mapping.  It does not hold ids:
they are derived from the merge list on load.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from ..atomic import atomic_write
from ..errors import FormatError
from ..model import BYTE_BASE, BPEModel, Token, token_text
from ..records import MergeRecord
from .textio import read_text, token_reader

FORMAT_NAME = "bpe-desktop"
VERSION = 1


def dumps(model: BPEModel, records: Sequence[MergeRecord] | Sequence[dict[str, Any]] | None = None) -> str:
    """Serialise a model (and optionally its training records, or the stats another native file stored)."""
    doc: dict[str, Any] = {
        "format": FORMAT_NAME,
        "version": VERSION,
        "settings": {
            "mode": model.mode,
            "pretokenizer": model.pretokenizer,
            "end_of_word": model.end_of_word,
            "glue_marker": model.glue_marker,
            "specials": list(model.specials),
            "tie_break": model.tie_break,
        },
        "base": None if model.mode == "bytes" else [token_text(t) for t in model.base],
        "merges": [[a, b] for a, b in model.merge_pairs_text()],
    }
    if records:
        doc["stats"] = [
            {k: v for k, v in (r if isinstance(r, dict) else asdict(r)).items() if k not in ("left", "right", "token")}
            for r in records
        ]
    return json.dumps(doc, ensure_ascii=False, indent=1)


def save(
    path: str | os.PathLike[str], model: BPEModel,
    records: Sequence[MergeRecord] | Sequence[dict[str, Any]] | None = None,
) -> None:
    """Write atomically."""
    text = dumps(model, records)
    with atomic_write(path) as f:
        f.write(text)


def loads(text: str, source: str = "<text>") -> tuple[BPEModel, list[dict[str, Any]]]:
    """Parse native JSON; returns the model and the raw per-merge stats (possibly empty)."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise FormatError(
            f"{source}: line {e.lineno}: not valid JSON ({e.msg}) -- is this a bpe-desktop tokenizer file?"
        ) from e
    if not isinstance(doc, dict) or doc.get("format") != FORMAT_NAME:
        raise FormatError(f"{source}: not a bpe-desktop tokenizer file (no \"format\": \"{FORMAT_NAME}\")")
    if doc.get("version") != VERSION:
        raise FormatError(
            f"{source}: native format version {doc.get('version')!r} is not supported (this program "
            f"reads version {VERSION}) -- update bpe-desktop"
        )
    try:
        s = doc["settings"]
        mode = s["mode"]
        if mode not in ("chars", "bytes"):
            raise FormatError(f"{source}: settings.mode must be 'chars' or 'bytes', not {mode!r}")
        conv = token_reader(mode == "bytes", source)
        base: list[Token] = list(BYTE_BASE) if mode == "bytes" else [str(t) for t in doc["base"]]
        pairs = [(conv(a), conv(b)) for a, b in doc["merges"]]
        model = BPEModel.from_token_pairs(
            mode, base, pairs, pretokenizer=s["pretokenizer"], end_of_word=s.get("end_of_word", ""),
            glue_marker=bool(s.get("glue_marker", False)), specials=tuple(s.get("specials", ())),
            tie_break=s.get("tie_break"),
        )
    except (KeyError, TypeError, ValueError) as e:
        raise FormatError(f"{source}: malformed native tokenizer file ({type(e).__name__}: {e})") from e
    stats = doc.get("stats") or []
    return model, stats if isinstance(stats, list) else []


def load(path: str | os.PathLike[str]) -> tuple[BPEModel, list[dict[str, Any]]]:
    return loads(read_text(path), os.fspath(path))
