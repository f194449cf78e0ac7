"""SentencePiece's normalizer: the rules a ``.model`` file records (its precompiled charsmap) and its
whitespace handling, with the original byte offset of every normalized byte.

A SentencePiece model carries its normalization (``nmt_nfkc``, ``nfkc``, ``nmt_nfkc_cf``, a user's TSV
rules...) compiled into ``precompiled_charsmap``: a darts-clone double-array trie over UTF-8 byte strings
whose values point into a blob of NUL-terminated replacements.  :class:`SpmNormalizer` replays
SentencePiece's ``Normalizer::Normalize``: at each position a user-defined symbol is kept as it is, else
the longest rule that matches is applied, else one character is copied (a byte that is not valid UTF-8
becomes U+FFFD); spaces become ``▁``; with ``remove_extra_whitespaces`` leading, trailing and repeated
spaces go; ``add_dummy_prefix`` puts one ``▁`` before the text (after it, with
``treat_whitespace_as_suffix``).

It does not split the text into pieces or look anything up in a vocabulary (:mod:`..tokenizers.spm`
does), and it does not read files.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable

from ..errors import FormatError

SPACE = "\u2581".encode()  # ▁, SentencePiece's kSpaceSymbol
_REPLACEMENT = "\ufffd".encode()


def _utf8_len(data: bytes, i: int) -> int:
    """The length of the valid UTF-8 character at *data[i]*, or 0 if the bytes there are not one."""
    b = data[i]
    if b < 0x80:
        return 1
    n = 2 if 0xC2 <= b <= 0xDF else 3 if 0xE0 <= b <= 0xEF else 4 if 0xF0 <= b <= 0xF4 else 0
    if n == 0 or i + n > len(data):
        return 0
    try:
        data[i : i + n].decode("utf-8")
    except UnicodeDecodeError:
        return 0
    return n


class Charsmap:
    """A precompiled charsmap: the longest rule matching a prefix, as SentencePiece finds it.

    >>> Charsmap(b"").longest(b"abc")
    (0, b'')
    """

    def __init__(self, blob: bytes) -> None:
        self._units: tuple[int, ...] = ()
        self._normalized = b""
        if not blob:
            return
        if len(blob) < 4:
            raise FormatError("the precompiled charsmap is cut short")
        (size,) = struct.unpack_from("<I", blob)
        if size % 4 or 4 + size > len(blob):
            raise FormatError("the precompiled charsmap's trie size does not fit the data")
        self._units = struct.unpack_from(f"<{size // 4}I", blob, 4)
        self._normalized = blob[4 + size :]

    def longest(self, data: bytes, start: int = 0) -> tuple[int, bytes]:
        """(length, replacement) of the longest rule matching *data* at *start*; (0, b"") if none."""
        units = self._units
        if not units:
            return 0, b""
        best_len, best_value = 0, -1
        pos = 0
        unit = units[0]
        pos ^= (unit >> 10) << ((unit & (1 << 9)) >> 6)
        n = len(units)
        for k in range(start, len(data)):
            c = data[k]
            pos ^= c
            if pos >= n:
                break
            unit = units[pos]
            if unit & ((1 << 31) | 0xFF) != c:
                break
            pos ^= (unit >> 10) << ((unit & (1 << 9)) >> 6)
            if (unit >> 8) & 1 and pos < n:
                best_len, best_value = k + 1 - start, units[pos] & ((1 << 31) - 1)
        if best_len == 0:
            return 0, b""
        end = self._normalized.find(b"\0", best_value)
        if best_value >= len(self._normalized):
            raise FormatError("a precompiled charsmap rule points outside its replacement table")
        return best_len, self._normalized[best_value : end if end >= 0 else None]


class SpmNormalizer:
    """Normalize text as a SentencePiece model does, keeping where each normalized byte came from.

    >>> n = SpmNormalizer(Charsmap(b""), add_dummy_prefix=True, remove_extra_whitespaces=True)
    >>> n.normalize("  Hello   world ".encode())[0].decode()
    '▁Hello▁world'
    """

    def __init__(
        self, charsmap: Charsmap, *, add_dummy_prefix: bool = True, remove_extra_whitespaces: bool = True,
        escape_whitespaces: bool = True, treat_whitespace_as_suffix: bool = False,
        user_defined: Iterable[bytes] = (),
    ) -> None:
        self.charsmap = charsmap
        self.add_dummy_prefix = add_dummy_prefix
        self.remove_extra_whitespaces = remove_extra_whitespaces
        self.escape_whitespaces = escape_whitespaces
        self.suffix = treat_whitespace_as_suffix
        self._user = sorted({u for u in user_defined if u}, key=len, reverse=True)
        self._user_first = {u[0] for u in self._user}

    def user_symbol_at(self, data: bytes, i: int) -> int:
        """The length of the longest user-defined symbol at *data[i]* (0 if none)."""
        if data[i] in self._user_first:
            for u in self._user:
                if data.startswith(u, i):
                    return len(u)
        return 0

    def _prefix(self, data: bytes, i: int) -> tuple[bytes, int]:
        n = self.user_symbol_at(data, i)
        if n:
            return data[i : i + n], n
        n, rep = self.charsmap.longest(data, i)
        if n:
            return rep, n
        n = _utf8_len(data, i)
        return (data[i : i + n], n) if n else (_REPLACEMENT, 1)

    def normalize(self, data: bytes) -> tuple[bytes, list[int]]:
        """The normalized bytes and, for each of them, the offset in *data* of the chunk it came from
        (plus one entry for the end: ``len(data)``)."""
        out = bytearray()
        orig: list[int] = []
        i, n = 0, len(data)
        space = SPACE if self.escape_whitespaces else b" "
        if self.remove_extra_whitespaces:
            while i < n:
                rep, k = self._prefix(data, i)
                if rep != b" ":
                    break
                i += k
        if i >= n:
            return b"", [n]
        if self.add_dummy_prefix and not self.suffix:
            out += space
            orig += [i] * len(space)
        prev_space = self.remove_extra_whitespaces
        while i < n:
            rep, k = self._prefix(data, i)
            if prev_space:
                rep = rep.lstrip(b" ")
            if rep:
                for b in rep:
                    if b == 0x20 and self.escape_whitespaces:
                        out += SPACE
                        orig += [i] * 3
                    else:
                        out.append(b)
                        orig.append(i)
                prev_space = rep.endswith(b" ")
            i += k
            if not self.remove_extra_whitespaces:
                prev_space = False
        if self.remove_extra_whitespaces:
            while out.endswith(space):
                del out[-len(space) :]
                del orig[-len(space) :]
        if self.add_dummy_prefix and self.suffix:
            out += space
            orig += [n] * len(space)
        orig.append(n)
        return bytes(out), orig
