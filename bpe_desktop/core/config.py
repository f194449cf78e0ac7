"""Training settings: one frozen, picklable value object shared by the CLI, the worker process and the GUI.

It validates combinations of options and says how to fix a bad one; it does not read files or train.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from .choices import BYTE_IDS, TIE_RULES, ByteIds, Mode, TieBreak
from .errors import ConfigError
from .forbid import check_pairs, compile_regex
from .text.pretokenize import Pretokenizer

__all__ = ["BYTE_IDS", "MODES", "TIE_BREAKS", "ByteIds", "Mode", "TieBreak", "TrainConfig"]  # from .choices

MODES: tuple[Mode, ...] = tuple(Mode)
#: each tie-break rule's description, by name (from its :class:`~.choices.TieRule`)
TIE_BREAKS: dict[TieBreak, str] = {name: rule.description for name, rule in TIE_RULES.items()}


@dataclass(frozen=True)
class TrainConfig:
    """Everything that decides which merges are learned.

    ``end_of_word`` is appended to every word in ``chars`` mode ("" for none); with ``glue_marker`` it is
    glued to the last character (``w</w>``) as subword-nmt 0.2 and HF ``end_of_word_suffix`` do, otherwise
    it is a symbol of its own (``w </w>``) as in the seeds.  Stop conditions combine: training ends at the
    first one reached (``merges``, ``vocab_size``, a best count below ``min_frequency``, or no pair left).
    ``forbid`` names pairs never merged, as the display text of their symbols (bytes mode: ``("Ġ", "t")``);
    ``forbid_regex`` forbids every pair whose merged token matches it (see :mod:`.forbid`).
    """

    mode: Mode = Mode.CHARS
    pretokenizer: str = "whitespace"  # a name of NAMED_PATTERNS or a custom regex
    end_of_word: str = "</w>"
    glue_marker: bool = False
    tie_break: TieBreak = TieBreak.LEXICAL
    merges: int | None = None
    vocab_size: int | None = None
    min_frequency: int = 1
    specials: tuple[str, ...] = field(default_factory=tuple)
    forbid: tuple[tuple[str, str], ...] = ()  # (left, right) display texts
    forbid_regex: str | None = None
    byte_ids: ByteIds = ByteIds.GPT2  # bytes mode: the base bytes' ids (see BYTE_IDS)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ConfigError(f"unknown mode {self.mode!r} -- use 'chars' or 'bytes'")
        if self.tie_break not in TIE_BREAKS:
            raise ConfigError(
                f"unknown tie-break rule {self.tie_break!r} -- use one of {', '.join(TIE_BREAKS)}"
            )
        object.__setattr__(self, "mode", Mode(self.mode))  # a caller may pass the text ("bytes")
        object.__setattr__(self, "tie_break", TieBreak(self.tie_break))
        if self.byte_ids not in BYTE_IDS:
            raise ConfigError(f"unknown byte numbering {self.byte_ids!r} -- use one of {', '.join(BYTE_IDS)}")
        object.__setattr__(self, "byte_ids", ByteIds(self.byte_ids))
        if self.merges is not None and self.merges < 0:
            raise ConfigError(f"--merges must be 0 or more, not {self.merges}")
        if self.vocab_size is not None and self.vocab_size < 1:
            raise ConfigError(f"--vocab-size must be positive, not {self.vocab_size}")
        if self.min_frequency < 1:
            raise ConfigError(f"--min-frequency must be 1 or more, not {self.min_frequency}")
        if len(set(self.specials)) != len(self.specials) or any(not s for s in self.specials):
            raise ConfigError("special tokens must be distinct and non-empty -- remove the duplicate")
        Pretokenizer.from_spec(self.pretokenizer)  # raises PatternError with the position
        object.__setattr__(self, "forbid", tuple(tuple(p) if isinstance(p, list) else p for p in self.forbid))
        check_pairs(self.forbid, self.mode)
        if self.forbid_regex is not None:
            compile_regex(self.forbid_regex)  # raises PatternError with the position

    @property
    def marker(self) -> str:
        """The end-of-word marker actually used: always empty in bytes mode."""
        return self.end_of_word if self.mode == Mode.CHARS else ""

    def with_(self, **changes: Any) -> TrainConfig:
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)
