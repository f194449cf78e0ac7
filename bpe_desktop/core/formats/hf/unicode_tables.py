"""Where HF ``tokenizers``' Unicode tables differ from Python's: what its normalizers and punctuation do not know.

HF's normalizers (``NFC``, ``NFD``, ``NFKC``, ``NFKD``, ``StripAccents``) use the ``unicode-normalization-
alignments`` crate, whose tables are Unicode 9.0; Python 3.11's :mod:`unicodedata` is Unicode 14.0.  A character
assigned since then is, to HF, a character with no decomposition, no composition and combining class 0 (so HF
leaves it alone, never reorders marks around it and never strips it as an accent), while Python decomposes it,
reorders it or strips it.  :data:`UNKNOWN_RANGES` lists those of them that make a difference (the marks added
since, the characters whose decomposition was added since, and the parts of a composition added since);
:func:`unknown` tells one.  Two characters were marks (Mc) in Unicode 9 and are letters now: HF's
``StripAccents`` still drops them (:data:`STRIPPED_LETTERS`).

How the tables were made, and checked on every run of the tests against ``tokenizers`` over every assigned code
point (``tests/core/formats/test_hf_unicode_tables.py``): a mark Python knows that HF's ``StripAccents`` keeps,
a character whose ``NF*`` form differs between the two, or a primary composite HF does not compose.  HF's
``Punctuation`` and ``BertPreTokenizer`` take punctuation from the ``unicode_categories`` crate, also older: the
punctuation added since is not punctuation to them (:data:`NOT_PUNCTUATION_RANGES`), and two characters that
were punctuation then still are (:data:`STILL_PUNCTUATION`).  It leaves out the pattern pre-tokenizers' classes
(HF's Oniguruma is newer than Python and agrees with :mod:`regex` on every character Python knows), ``Digits``
and ``Lowercase`` (Rust's own tables, newer too: they agree on every character Python knows).
"""

from __future__ import annotations

import bisect
import unicodedata

#: inclusive code-point ranges of the characters HF's normalizers treat as unassigned (see the module's text)
UNKNOWN_RANGES: tuple[tuple[int, int], ...] = (
    (0x07FD, 0x07FD), (0x0898, 0x089F), (0x08CA, 0x08D3), (0x09FE, 0x09FE), (0x0AFA, 0x0AFF), (0x0B55, 0x0B55),
    (0x0C04, 0x0C04), (0x0C3C, 0x0C3C), (0x0D00, 0x0D00), (0x0D3B, 0x0D3C), (0x0D81, 0x0D81), (0x0EBA, 0x0EBA),
    (0x1715, 0x1715), (0x180F, 0x180F), (0x1ABF, 0x1ACE), (0x1CF7, 0x1CF7), (0x1DF6, 0x1DFA), (0x32FF, 0x32FF),
    (0xA7F2, 0xA7F4), (0xA82C, 0xA82C), (0xA8FF, 0xA8FF), (0xAB69, 0xAB69), (0x10781, 0x10785), (0x10787, 0x107B0),
    (0x107B2, 0x107BA), (0x10D24, 0x10D27), (0x10EAB, 0x10EAC), (0x10F46, 0x10F50), (0x10F82, 0x10F85),
    (0x11070, 0x11070), (0x11073, 0x11074), (0x110C2, 0x110C2), (0x11145, 0x11146), (0x111C9, 0x111C9),
    (0x111CE, 0x111CF), (0x1133B, 0x1133B), (0x1145E, 0x1145E), (0x1182C, 0x1183A), (0x11930, 0x11935),
    (0x11937, 0x11938), (0x1193B, 0x1193E), (0x11940, 0x11940), (0x11942, 0x11943), (0x119D1, 0x119D7),
    (0x119DA, 0x119E0), (0x119E4, 0x119E4), (0x11A01, 0x11A0A), (0x11A33, 0x11A39), (0x11A3B, 0x11A3E),
    (0x11A47, 0x11A47), (0x11A51, 0x11A5B), (0x11A8A, 0x11A99), (0x11D31, 0x11D36), (0x11D3A, 0x11D3A),
    (0x11D3C, 0x11D3D), (0x11D3F, 0x11D45), (0x11D47, 0x11D47), (0x11D8A, 0x11D8E), (0x11D90, 0x11D91),
    (0x11D93, 0x11D97), (0x11EF3, 0x11EF6), (0x16F4F, 0x16F4F), (0x16F7F, 0x16F87), (0x16FE4, 0x16FE4),
    (0x16FF0, 0x16FF1), (0x1CF00, 0x1CF2D), (0x1CF30, 0x1CF46), (0x1E130, 0x1E136), (0x1E2AE, 0x1E2AE),
    (0x1E2EC, 0x1E2EF), (0x1F16C, 0x1F16C), (0x1FBF0, 0x1FBF9),
)
#: letters now, marks in Unicode 9: HF's ``StripAccents`` drops them
STRIPPED_LETTERS = frozenset("\u1cf2\u1cf3")

#: punctuation (P*) to Python, not to HF's ``unicode_categories`` tables
NOT_PUNCTUATION_RANGES: tuple[tuple[int, int], ...] = (
    (0x061D, 0x061D), (0x09FD, 0x09FD), (0x0A76, 0x0A76), (0x0C77, 0x0C77), (0x0C84, 0x0C84), (0x1B7D, 0x1B7E),
    (0x2E43, 0x2E4F), (0x2E52, 0x2E5D), (0x10EAD, 0x10EAD), (0x10F55, 0x10F59), (0x10F86, 0x10F89),
    (0x1144B, 0x1144F), (0x1145A, 0x1145B), (0x1145D, 0x1145D), (0x11660, 0x1166C), (0x116B9, 0x116B9),
    (0x1183B, 0x1183B), (0x11944, 0x11946), (0x119E2, 0x119E2), (0x11A3F, 0x11A46), (0x11A9A, 0x11A9C),
    (0x11A9E, 0x11AA2), (0x11C41, 0x11C45), (0x11C70, 0x11C71), (0x11EF7, 0x11EF8), (0x11FFF, 0x11FFF),
    (0x12FF1, 0x12FF2), (0x16E97, 0x16E9A), (0x16FE2, 0x16FE2), (0x1E95E, 0x1E95F),
)
#: symbols or letters to Python now, punctuation to HF's tables
STILL_PUNCTUATION = frozenset("\u166d\U000111c9")


def _in(ranges: tuple[tuple[int, int], ...], starts: list[int], c: str) -> bool:
    cp = ord(c)
    if cp < starts[0]:
        return False
    return cp <= ranges[bisect.bisect_right(starts, cp) - 1][1]


_UNKNOWN_STARTS = [a for a, _ in UNKNOWN_RANGES]
_NOT_PUNCTUATION_STARTS = [a for a, _ in NOT_PUNCTUATION_RANGES]


def unknown(c: str) -> bool:
    """Whether HF's normalizers treat the character *c* as unassigned where Python's do not."""
    return _in(UNKNOWN_RANGES, _UNKNOWN_STARTS, c)


def punctuation(c: str) -> bool:
    """Whether *c* is punctuation (a P* category) in HF's ``unicode_categories`` tables."""
    if c in STILL_PUNCTUATION:
        return True
    return unicodedata.category(c).startswith("P") and not _in(NOT_PUNCTUATION_RANGES, _NOT_PUNCTUATION_STARTS, c)
