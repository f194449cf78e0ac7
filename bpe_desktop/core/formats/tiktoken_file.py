"""tiktoken's ``.tiktoken`` rank files: one ``base64(token bytes) rank`` line per token, nothing else.

A rank file holds neither the pre-tokenization pattern nor the special tokens: the caller (or a preset,
see :mod:`.presets`) supplies them.  Reading is fast (one ``split`` and a C-level base64 decode per token);
the merge list is not recovered here (see :func:`bpe_desktop.core.tokenizers.ranks.recover_merges`).  Writing takes a
bytes-mode model and writes its tokens in id order, so ranks equal our ids.  Chars-mode models cannot be
written: tiktoken is byte-level only.
"""

from __future__ import annotations

import binascii
import os
from base64 import b64encode

from ..choices import Mode
from ..errors import FormatError
from ..io.atomic import atomic_write
from ..tokenizers.model import BPEModel, bytes_token


def parse(data: bytes, source: str = "<bytes>") -> dict[bytes, int]:
    """Parse rank-file bytes into ``{token bytes: rank}``.

    >>> parse(b"YQ== 0\\nYg== 1\\n")
    {b'a': 0, b'b': 1}
    """
    fields = data.split()
    try:
        if len(fields) % 2:
            raise ValueError("odd number of fields")
        ranks = dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2]), strict=True))
    except (ValueError, binascii.Error):
        _raise_bad_line(data, source)
    if len(ranks) * 2 != len(fields):
        raise FormatError(f"{source}: a token appears twice -- a .tiktoken file lists each token once")
    values = list(ranks.values())
    if values != list(range(len(values))) and (min(values) < 0 or len(set(values)) != len(values)):
        raise FormatError(f"{source}: ranks must be distinct and not negative -- is this a .tiktoken file?")
    return ranks


def _raise_bad_line(data: bytes, source: str) -> None:
    for n, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        try:
            if len(parts) != 2:
                raise ValueError(f"{len(parts)} fields")
            binascii.a2b_base64(parts[0], strict_mode=True)
            int(parts[1])
        except (ValueError, binascii.Error) as e:
            raise FormatError(
                f"{source}: line {n}: expected 'BASE64TOKEN RANK' (a .tiktoken rank file), got "
                f"{line[:60]!r} ({e})"
            ) from e
    raise FormatError(f"{source}: not a .tiktoken rank file (expected 'BASE64TOKEN RANK' lines)")


def check_complete(ranks: dict[bytes, int], source: str) -> None:
    """Refuse a rank table a byte-level tokenizer cannot encode with: every one of the 256 single bytes
    must have a rank (else some text has no tokens), and the ranks must be 0..n-1 without gaps.

    >>> check_complete({b"a": 0}, "f")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bpe_desktop.core.errors.FormatError: f: the rank file lacks 255 of the 256 single bytes ...
    """
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        raise FormatError(
            f"{source}: the rank file lacks {len(missing)} of the 256 single bytes (first: {bytes([missing[0]])!r}) "
            "-- a .tiktoken file must give every byte a rank; is it cut short or edited?"
        )
    if max(ranks.values()) != len(ranks) - 1:
        raise FormatError(f"{source}: the ranks are not 0..{len(ranks) - 1} without gaps (the highest is "
                          f"{max(ranks.values())}) -- is this file edited?")


def load(path: str | os.PathLike[str]) -> dict[bytes, int]:
    """Read a ``.tiktoken`` file, checked with :func:`check_complete`."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise FormatError(f"{path}: cannot read ({e.strerror}) -- check the path") from None
    ranks = parse(data, path)
    check_complete(ranks, path)
    return ranks


def dumps(model: BPEModel) -> bytes:
    """The rank file of a bytes-mode model (tokens in id order; specials are not stored)."""
    if model.mode != Mode.BYTES:
        raise FormatError(
            "tiktoken rank files are byte-level: this is a chars-mode tokenizer -- write it as native, "
            "hf (tokenizer.json) or subword-nmt, or train in bytes mode"
        )
    return b"".join(b64encode(bytes_token(t)) + b" %d\n" % i for i, t in enumerate(model.tokens))


def save(path: str | os.PathLike[str], model: BPEModel) -> None:
    """Write atomically."""
    data = dumps(model)
    with atomic_write(path, "wb") as f:
        f.write(data)
