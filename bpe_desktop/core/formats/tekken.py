"""Reading Mistral's tekken JSON (mistral-common's ``tekken.json``) with mistral-common's ``Tekkenizer`` ids.

A tekken file holds tiktoken-style ranks (``vocab``: rank, base64 ``token_bytes``), the pre-tokenizer
pattern and the special tokens, which are numbered first: a text token's id is its rank plus
``default_num_special_tokens``, and only the first ``default_vocab_size - default_num_special_tokens``
ranks are used.  A file without a ``special_tokens`` list (version v7 and older) gets mistral-common's
historical twenty (``<unk>``, ``<s>``, ``</s>``, ``[INST]``...); the rest up to the number of specials are
``<SPECIAL_k>`` fillers, as mistral-common makes them.  As in mistral-common, special tokens are never cut
out of a text (it encodes ``<s>`` as characters) unless the caller allows them by name.

The image and audio sections are not read.  This module does not write tekken files.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
from collections.abc import Collection
from typing import Any, Literal

from ..errors import FormatError
from ..text.regex_budget import RegexBudget
from ..tokenizers.ranks import RankTokenizer
from ..tokenizers.renumber import RenumberedTokenizer
from .textio import read_text

#: mistral-common's ``Tekkenizer.DEPRECATED_SPECIAL_TOKENS``: the specials of files that list none
LEGACY_SPECIALS = (
    "<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]", "[PREFIX]", "[MIDDLE]",
    "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]",
)


def looks_like_tekken(head: bytes) -> bool:
    """Whether a JSON file's head looks like a tekken file (a ``config`` with tekken's keys, a ``vocab``)."""
    return bool(re.search(rb'"default_num_special_tokens"\s*:', head) or
                (re.search(rb'"vocab"\s*:\s*\[', head) and re.search(rb'"token_bytes"\s*:', head)))


class TekkenTokenizer(RenumberedTokenizer):
    """Rank-table encoding with tekken's numbering; special tokens are text unless allowed by name."""

    def encode(
        self,
        text: str,
        *,
        upto: int | None = None,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
        budget: RegexBudget | None = None,
    ) -> list[int]:
        """Encode as ``Tekkenizer.encode(text, bos=False, eos=False)``; the specials named in
        *allowed_special* are cut out as their ids."""
        if not allowed_special:
            return self.encode_ordinary(text, upto, budget=budget)
        return super().encode(text, upto=upto, allowed_special=allowed_special, disallowed_special=(),
                              budget=budget)


def _int(doc: dict[str, Any], key: str, source: str) -> int:
    v = doc.get(key)
    if type(v) is not int or v < 0:
        raise FormatError(f"{source}: config.{key} must be a whole number, not {v!r:.40} -- the file is damaged")
    return v


def _version(v: object) -> int:
    m = re.fullmatch(r"v(\d+)", v) if isinstance(v, str) else None
    return int(m.group(1)) if m else -1


def load(path: str | os.PathLike[str]) -> TekkenTokenizer:
    """Read a tekken JSON file."""
    source = os.fspath(path)
    try:
        doc = json.loads(read_text(source))
    except json.JSONDecodeError as e:
        raise FormatError(f"{source}: not valid JSON ({e.msg} at line {e.lineno}) -- the file is "
                          "damaged") from None
    if not (isinstance(doc, dict) and isinstance(doc.get("config"), dict) and isinstance(doc.get("vocab"), list)):
        raise FormatError(f"{source}: a tekken file needs 'config' and 'vocab' -- is this mistral-common's "
                          "tekken.json?")
    config, vocab = doc["config"], doc["vocab"]
    pattern = config.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        raise FormatError(f"{source}: config.pattern (the pre-tokenizer) is missing -- the file is damaged")
    size = _int(config, "default_vocab_size", source)
    n_special = _int(config, "default_num_special_tokens", source)
    n_ranks = size - n_special
    if not 256 <= n_ranks <= len(vocab):
        raise FormatError(f"{source}: default_vocab_size {size} minus {n_special} specials leaves {n_ranks} "
                          f"ranks, but the file has {len(vocab)} (and at least 256 are needed) -- the file is damaged")
    ranks: dict[bytes, int] = {}
    for r, entry in enumerate(vocab[:n_ranks]):
        if not isinstance(entry, dict) or entry.get("rank") != r or not isinstance(entry.get("token_bytes"), str):
            raise FormatError(f"{source}: vocab entry {r} is not {{rank: {r}, token_bytes: ...}} -- the file "
                              "is damaged")
        try:
            tok = base64.b64decode(entry["token_bytes"], validate=True)
        except (binascii.Error, ValueError):
            raise FormatError(f"{source}: vocab entry {r}'s token_bytes is not base64 -- the file is "
                              "damaged") from None
        if (r < 256 and tok != bytes([r])) or not tok or tok in ranks:
            raise FormatError(f"{source}: vocab entry {r} ({tok[:20]!r}) is "
                              + ("not the single byte of its rank" if r < 256 else "empty or repeated")
                              + " -- the file is damaged")
        ranks[tok] = r
    listed = doc.get("special_tokens")
    if listed is None:
        if _version(config.get("version")) > 7:
            raise FormatError(f"{source}: a tekken file of version {config.get('version')} must list its "
                              "special tokens -- the file is incomplete")
        names = list(LEGACY_SPECIALS[:n_special])
    else:
        if not isinstance(listed, list):
            raise FormatError(f"{source}: special_tokens must be a list -- the file is damaged")
        names = []
        for k, s in enumerate(listed):
            name = s.get("token_str") if isinstance(s, dict) else None
            if not isinstance(s, dict) or s.get("rank") != k or not isinstance(name, str) or not name:
                raise FormatError(f"{source}: special token {k} is not {{rank: {k}, token_str: ...}} -- the "
                                  "file is damaged")
            names.append(name)
    names += [f"<SPECIAL_{k}>" for k in range(len(names), n_special)]
    if len(names) != n_special or len(set(names)) != n_special:
        raise FormatError(f"{source}: {len(names)} special tokens for {n_special} places, or one listed twice "
                          "-- the file is damaged")
    inner = RankTokenizer(ranks, pattern, {s: n_ranks + k for k, s in enumerate(names)},
                          name=os.path.basename(source))
    return TekkenTokenizer(inner, [*range(n_special, n_special + n_ranks), *range(n_special)])
