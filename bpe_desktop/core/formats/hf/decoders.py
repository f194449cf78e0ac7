"""HF decoders, read from their ``tokenizer.json`` objects: token strings back to text, as ``tokenizers``
decodes them.

Read: ``ByteLevel``, ``Metaspace``, ``ByteFallback``, ``Fuse``, ``Strip``, ``Replace``, ``BPEDecoder``,
``WordPiece`` (with its ``cleanup``) and ``Sequence``; any other (``CTC``...) is refused with its name.  A
decoder has two faces: :attr:`Decoder.chain` is HF's ``decode_chain`` on the whole token list (what
``decode`` returns, joined), :attr:`Decoder.one` what one token stands for on its own (the bytes a token
view shows: ``<0x0A>`` is a newline, ``▁the`` is `` the``, ``##ing`` is ``ing``; position-dependent steps
such as ``Strip``, Metaspace's first-token rule and the space WordPiece puts before a word are left out
there).  With no decoder, HF joins the tokens with spaces.  It does not encode.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import regex

from ...errors import FormatError
from ...text.byte_level import text_to_bytes
from .normalizers import pattern_of

Chain = Callable[[list[str]], list[str]]
One = Callable[[str | bytes], str | bytes]  # bytes once a step has produced raw bytes
_HEX = regex.compile(r"\+?[0-9A-Fa-f]+")


@dataclass(frozen=True)
class Decoder:
    chain: Chain
    one: One

    def decode(self, tokens: list[str]) -> str:
        return "".join(self.chain(tokens))


def _byte_of(token: str) -> int | None:
    """The byte a ``<0xNN>`` token stands for (Rust's ``u8::from_str_radix`` on ``NN``), else ``None``."""
    if len(token) == 6 and token.startswith("<0x") and token.endswith(">") and _HEX.fullmatch(token[3:5]):
        v = int(token[3:5], 16)
        return v if v < 256 else None
    return None


def text_bytes(t: str) -> bytes:
    """A token in GPT-2's byte alphabet as bytes (any other token: its UTF-8), as the ByteLevel decoder reads it."""
    try:
        return text_to_bytes(t)
    except KeyError:
        return t.encode("utf-8", "surrogateescape")


def _byte_level_chain(tokens: list[str]) -> list[str]:
    return [b"".join(text_bytes(t) for t in tokens).decode("utf-8", "replace")]


def _byte_fallback_chain(tokens: list[str]) -> list[str]:
    out: list[str] = []
    pending = bytearray()

    def flush() -> None:
        if pending:
            try:
                out.append(pending.decode("utf-8"))
            except UnicodeDecodeError:
                out.extend("\ufffd" * len(pending))
            pending.clear()

    for t in tokens:
        b = _byte_of(t)
        if b is not None:
            pending.append(b)
        else:
            flush()
            out.append(t)
    flush()
    return out


def _per_token(f: Callable[[str], str]) -> One:
    return lambda t: f(t) if isinstance(t, str) else t


def strip_chain(content: str, start: int, stop: int) -> Chain:
    def one(token: str) -> str:
        i = 0
        while i < min(start, len(token)) and token[i] == content:
            i += 1
        j = len(token)
        for _ in range(stop):
            if j > i and token[j - 1] == content:
                j -= 1
            else:
                break
        return token[i:j]

    return lambda tokens: [one(t) for t in tokens]


def _metaspace(rep: str, prepend: bool) -> Chain:
    return lambda tokens: ["".join("" if c == rep and i == 0 and prepend else (" " if c == rep else c) for c in t)
                           for i, t in enumerate(tokens)]


def _bpe_suffix(suffix: str) -> Chain:
    return lambda tokens: [t.replace(suffix, "" if i == len(tokens) - 1 else " ") for i, t in enumerate(tokens)]


#: HF's ``wordpiece::cleanup``, in its order
_CLEANUP = ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"), (" 'm", "'m"),
            (" do not", " don't"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"))


def _wordpiece(prefix: str, cleanup: bool) -> Chain:
    """HF's WordPiece decoder: a token after the first loses the prefix, or gets a space before it."""
    def one(i: int, t: str) -> str:
        if i:
            t = t[len(prefix):] if t.startswith(prefix) else " " + t
        if cleanup:
            for a, b in _CLEANUP:
                t = t.replace(a, b)
        return t

    return lambda tokens: [one(i, t) for i, t in enumerate(tokens)]


def _int(obj: dict[str, Any], key: str, what: str, source: str) -> int:
    v = obj.get(key, 0)
    if type(v) is not int or v < 0:
        raise FormatError(f"{source}: {what}: \"{key}\" must be a count, not {v!r:.40}")
    return v


def read_decoder(obj: Any, source: str) -> Decoder | None:
    """The decoder an HF ``decoder`` object describes (``None`` for none)."""
    if obj is None:
        return None
    if not isinstance(obj, dict):
        raise FormatError(f"{source}: decoder must be an object or null, not {obj!r:.40}")
    kind = obj.get("type")
    what = f'decoder "{kind}"'
    if kind == "ByteLevel":
        return Decoder(_byte_level_chain, lambda t: text_bytes(t) if isinstance(t, str) else t)
    if kind == "ByteFallback":
        return Decoder(_byte_fallback_chain,
                       lambda t: bytes([b]) if isinstance(t, str) and (b := _byte_of(t)) is not None else t)
    if kind == "Fuse":
        return Decoder(lambda tokens: ["".join(tokens)], lambda t: t)
    if kind == "Metaspace":
        rep = obj.get("replacement", "\u2581")
        if not isinstance(rep, str) or len(rep) != 1:
            raise FormatError(f"{source}: {what}: the replacement must be one character, not {rep!r:.40}")
        scheme = obj.get("prepend_scheme")
        prepend = scheme != "never" if scheme is not None else bool(obj.get("add_prefix_space", True))
        return Decoder(_metaspace(rep, prepend), _per_token(lambda t: t.replace(rep, " ")))
    if kind == "Strip":
        content = obj.get("content", " ")
        if not isinstance(content, str) or len(content) != 1:
            raise FormatError(f"{source}: {what}: \"content\" must be one character, not {content!r:.40}")
        return Decoder(strip_chain(content, _int(obj, "start", what, source), _int(obj, "stop", what, source)),
                       lambda t: t)
    if kind == "Replace":
        pat = pattern_of(obj.get("pattern"), what, source)
        content = obj.get("content")
        if not isinstance(content, str):
            raise FormatError(f"{source}: {what} needs a text \"content\"")
        return Decoder(lambda tokens: [pat.sub(lambda _m: content, t) for t in tokens],
                       _per_token(lambda t: pat.sub(lambda _m: content, t)))
    if kind == "BPEDecoder":
        suffix = obj.get("suffix", "</w>")
        if not isinstance(suffix, str):
            raise FormatError(f"{source}: {what}: \"suffix\" must be text")
        if not suffix:
            return Decoder(lambda tokens: tokens, lambda t: t)
        return Decoder(_bpe_suffix(suffix), _per_token(lambda t: t.replace(suffix, " ")))
    if kind == "WordPiece":
        prefix, cleanup = obj.get("prefix", "##"), obj.get("cleanup", True)
        if not isinstance(prefix, str) or not isinstance(cleanup, bool):
            raise FormatError(f"{source}: {what}: \"prefix\" must be text and \"cleanup\" true or false")
        return Decoder(_wordpiece(prefix, cleanup),
                       _per_token(lambda t: t[len(prefix):] if prefix and t.startswith(prefix) else t))
    if kind == "Sequence":
        items = obj.get("decoders")
        if not isinstance(items, list):
            raise FormatError(f"{source}: {what} needs a list \"decoders\"")
        parts = [d for d in (read_decoder(o, source) for o in items) if d is not None]

        def chain(tokens: list[str]) -> list[str]:
            for d in parts:
                tokens = d.chain(tokens)
            return tokens

        def one(t: str | bytes) -> str | bytes:
            for d in parts:
                t = d.one(t)
            return t

        return Decoder(chain, one)
    raise FormatError(f"{source}: {what} is not supported -- this program reads the decoders ByteLevel, "
                      "Metaspace, ByteFallback, Fuse, Strip, Replace, BPEDecoder, WordPiece and Sequence")
