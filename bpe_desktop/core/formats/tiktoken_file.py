"""tiktoken's ``.tiktoken`` rank files: one ``base64(token bytes) rank`` line per token, nothing else.

A rank file holds neither the pre-tokenization pattern nor the special tokens: the caller (or a preset,
see :mod:`.presets`) supplies them.  A file may be compressed (gzip, xz or bzip2, told by its first bytes,
not its name); it is decompressed whole, up to :data:`MAX_BYTES`.  Reading is fast (one ``split`` and a
C-level base64 decode per token); the merge list is not recovered here (see
:func:`bpe_desktop.core.tokenizers.ranks.recover_merges`).  Writing takes a bytes-mode model and writes its
tokens in id order, so ranks equal our ids; :func:`dumps_ranks` writes a rank table as it is (an
extension's).  Chars-mode models cannot be written: tiktoken is byte-level only.
"""

from __future__ import annotations

import binascii
import bz2
import contextlib
import gzip
import lzma
import os
import zlib
from base64 import b64encode
from collections.abc import Iterator, Mapping
from typing import IO, cast

from ..choices import Mode
from ..errors import FormatError
from ..io.atomic import atomic_write
from ..io.reading import open_regular
from ..tokenizers.model import BPEModel, bytes_token
from .textio import TOKENIZER_LIMIT

_SLICE = 1 << 15  # fields parsed in one C call (an even number: token and rank stay together)


def parse(data: bytes, source: str = "<bytes>") -> dict[bytes, int]:
    """Parse rank-file bytes into ``{token bytes: rank}``.

    >>> parse(b"YQ== 0\\nYg== 1\\n")
    {b'a': 0, b'b': 1}
    """
    fields = data.split()
    try:
        if len(fields) % 2:
            raise ValueError("odd number of fields")
        ranks: dict[bytes, int] = {}
        for lo in range(0, len(fields), _SLICE):  # slices: a thread waiting for the GIL gets it between them
            part = fields[lo : lo + _SLICE]
            ranks.update(zip(map(binascii.a2b_base64, part[0::2]), map(int, part[1::2]), strict=True))
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
    must have a rank (else some text has no tokens).  Gaps between ranks are allowed, as tiktoken allows
    them (p50k_base leaves 50256 to ``<|endoftext|>``), but not a table mostly made of gaps.

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
    top = max(ranks.values())
    if top >= len(ranks) + MAX_GAPS:
        raise FormatError(f"{source}: the highest rank is {top} but there are only {len(ranks)} tokens -- is "
                          "this file edited?")


#: how many ranks a file may leave unused below its highest rank
MAX_GAPS = 1 << 16


#: the largest rank file read, decompressed (o200k_base is 3.6 MB): past it a file is refused, not read
MAX_BYTES = 256 * 1024 * 1024

_MAGIC = ((b"\x1f\x8b", "gzip"), (b"\xfd7zXZ\x00", "xz"), (b"BZh", "bzip2"))


def compression(head: bytes) -> str | None:
    """``"gzip"``, ``"xz"``, ``"bzip2"`` or None, from a file's first bytes.

    >>> compression(bytes([0x1F, 0x8B, 8])), compression(b"YQ== 0")
    ('gzip', None)
    """
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    return None


@contextlib.contextmanager
def open_maybe_compressed(path: str) -> Iterator[IO[bytes]]:
    """The file's bytes, decompressed if it is gzip, xz or bzip2: a regular file of at most
    :data:`~.textio.TOKENIZER_LIMIT` bytes (else :class:`FormatError`, before anything blocks)."""
    with open_regular(path, error=FormatError, what="tokenizer file", limit=TOKENIZER_LIMIT) as raw:
        kind = compression(raw.read(6))
        raw.seek(0)
        if kind is None:
            yield raw
            return
        unpacked: IO[bytes]
        if kind == "gzip":
            unpacked = cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="rb"))
        elif kind == "xz":
            unpacked = cast(IO[bytes], lzma.LZMAFile(raw, "rb"))
        else:
            unpacked = cast(IO[bytes], bz2.BZ2File(raw, "rb"))
        with unpacked:
            yield unpacked


def read_data(path: str | os.PathLike[str]) -> bytes:
    """The (decompressed) bytes of a rank file, refused past :data:`MAX_BYTES`."""
    path = os.fspath(path)
    try:
        with open_maybe_compressed(path) as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as e:  # gzip.BadGzipFile is an OSError
        raise FormatError(f"{path}: cannot read ({e.strerror or e}) -- check the path, or decompress the file "
                          "and open that") from None
    except (EOFError, lzma.LZMAError, zlib.error, ValueError) as e:
        raise FormatError(f"{path}: the compressed file is damaged or cut short ({e}) -- download it again") from None
    if len(data) > MAX_BYTES:
        raise FormatError(f"{path}: more than {MAX_BYTES >> 20} MiB of ranks -- not a tokenizer's rank file")
    return data


def load(path: str | os.PathLike[str]) -> dict[bytes, int]:
    """Read a ``.tiktoken`` file (compressed or not), checked with :func:`check_complete`."""
    path = os.fspath(path)
    ranks = parse(read_data(path), path)
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


def dumps_ranks(ranks: Mapping[bytes, int]) -> bytes:
    """The rank file of a rank table, in rank order (gaps stay gaps, as tiktoken allows).

    >>> dumps_ranks({b"b": 1, b"a": 0, b"ab": 5})
    b'YQ== 0\\nYg== 1\\nYWI= 5\\n'
    """
    return b"".join(b64encode(t) + b" %d\n" % r for t, r in sorted(ranks.items(), key=lambda kv: kv[1]))


def save(path: str | os.PathLike[str], model: BPEModel) -> None:
    """Write atomically."""
    data = dumps(model)
    with atomic_write(path, "wb") as f:
        f.write(data)
