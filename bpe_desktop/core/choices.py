"""The named choices a tokenizer is trained with: :class:`Mode` and :class:`TieBreak`, and one
:class:`TieRule` record per tie-break rule that every place naming a rule reads (the settings pane and the
CLI help through ``TIE_BREAKS``, the why pane through :func:`~.records.explain`).

Both are ``StrEnum`` s, so a member equals its text (``Mode.BYTES == "bytes"``) and is written as that text
in JSON, CSV and session files.  This module sits below every other so that any layer can name a choice;
it does not validate combinations (see :mod:`.config`) nor implement a rule (the trainer's heap key is in
:mod:`.training.trainer`, the definition in :mod:`.training.naive`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Mode(StrEnum):
    """What the base symbols are: a word's characters (with an end-of-word marker), or its UTF-8 bytes."""

    CHARS = "chars"
    BYTES = "bytes"


class TieBreak(StrEnum):
    """Which pair wins when several have the highest count (see :data:`TIE_RULES`)."""

    LEXICAL = "lexical"
    FIRST_SEEN = "first-seen"
    HF = "hf"
    SUBWORD_NMT = "subword-nmt"


class ByteIds(StrEnum):
    """How bytes mode numbers the 256 base bytes (ids 0-255) -- see :data:`BYTE_IDS`."""

    GPT2 = "gpt2"
    RAW = "raw"


#: what each byte numbering is, for the CLI's help
BYTE_IDS: dict[ByteIds, str] = {
    ByteIds.GPT2: "GPT-2's byte-to-unicode order (GPT-2, HF ByteLevel, cl100k's ranks)",
    ByteIds.RAW: "by byte value, id = byte (minbpe, rustbpe, nanochat)",
}


@dataclass(frozen=True)
class TieRule:
    """One tie-break rule: its name, what it picks (settings pane, CLI help) and the phrase the why pane
    puts before the winning pair ("...; the lexical rule takes e+s.")."""

    name: TieBreak
    description: str
    phrase: str


#: every rule, by name, in the order the settings pane and the CLI list them
TIE_RULES: dict[TieBreak, TieRule] = {r.name: r for r in (
    TieRule(TieBreak.LEXICAL, "highest count, then the smallest pair in string order (seed 000)",
            "the lexical rule takes"),
    TieRule(TieBreak.FIRST_SEEN, "highest count, then the pair that occurs first in the corpus (seeds 001/002)",
            "the first-seen rule takes the earliest in the corpus,"),
    TieRule(TieBreak.HF, "highest count, then the smallest pair of symbol ids (HF tokenizers' BpeTrainer)",
            "the HF rule takes the smallest symbol ids,"),
    TieRule(TieBreak.SUBWORD_NMT, "highest count, then the largest pair in string order (subword-nmt's learn_bpe)",
            "the subword-nmt rule takes the largest pair,"),
)}
