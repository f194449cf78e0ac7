"""GPT-2's reversible byte-to-unicode mapping, used wherever byte-level tokens are shown as text.

GPT-2 (and every format derived from it: ``vocab.json``/``merges.txt``, HF ``ByteLevel``) writes each of
the 256 byte values as one printable unicode character, so a byte token can be stored in a text file.
Printable Latin-1 bytes map to themselves; the rest map to U+0100 onwards.

This module only converts; it knows nothing about merges or vocabularies.
"""

from __future__ import annotations


def _bytes_to_unicode() -> dict[int, str]:
    printable = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    chars = printable[:]
    n = 0
    for b in range(256):
        if b not in printable:
            printable.append(b)
            chars.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(printable, chars, strict=True)}


BYTE_TO_UNICODE: dict[int, str] = _bytes_to_unicode()  # byte value -> printable char
UNICODE_TO_BYTE: dict[str, int] = {c: b for b, c in BYTE_TO_UNICODE.items()}  # inverse

#: The 256 byte values in GPT-2's order (the order of their mapped code points). This is the id order of
#: the base symbols in byte mode, identical to GPT-2's ``encoder.json`` and to HF's sorted alphabet.
GPT2_BYTE_ORDER: tuple[int, ...] = tuple(sorted(range(256), key=lambda b: ord(BYTE_TO_UNICODE[b])))

_ENCODE_TABLE = {b: BYTE_TO_UNICODE[b] for b in range(256)}


def bytes_to_text(data: bytes) -> str:
    """Render raw bytes in GPT-2's printable alphabet.

    >>> bytes_to_text(b" hello")
    'Ġhello'
    """
    return "".join(map(_ENCODE_TABLE.__getitem__, data))


def text_to_bytes(text: str) -> bytes:
    """Inverse of :func:`bytes_to_text`; raises ``KeyError`` on a char outside the mapping.

    >>> text_to_bytes("Ġhello")
    b' hello'
    """
    return bytes(UNICODE_TO_BYTE[c] for c in text)
