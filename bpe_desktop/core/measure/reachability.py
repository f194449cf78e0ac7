"""Tokens that ordinary encoding never gives back, and tokens whose bytes are not text on their own.

* **not decodable alone**: a byte-level token whose bytes are not valid UTF-8 by themselves (a piece of a
  multi-byte character; GPT-2 has 344 of them, cl100k 773);
* **unreachable** (Land & Bartolo's "Fishing for Magikarp"): decode the token to text (invalid UTF-8
  becoming U+FFFD, as ``tiktoken``'s ``decode`` does), encode that text the ordinary way, pre-tokenizer
  included -- the result is not exactly that one token.  So every token not decodable alone is
  unreachable too, and so is a token whose text the pre-tokenizer splits when it stands alone.

The check is fast because it never encodes more than one piece per token: a token whose text the
pre-tokenizer splits is settled by the split, and a rank table (tiktoken's rule) returns a whole piece
that is a token as that token, so cl100k's 100k tokens take a few tenths of a second.

In chars mode a token without the end-of-word marker stands for the inside of a word: its text is
encoded as a word fragment (its characters without the marker), and a token that ends with the marker
as a whole word.  This module only decides; it does not count frequencies (see :mod:`.vocab_audit`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from ..choices import Mode
from ..text.pretokenize import Pretokenizer
from ..tokenizers.model import BPEModel, Token, bytes_token, text_token
from ..tokenizers.tokenizer import Tokenizer
from .stats import Job, finish


class PieceEncoder(Protocol):
    """What the check needs of a tokenizer, in the model's ids (:class:`~.tokenizer.Tokenizer` and
    :class:`~.ranks.RankTokenizer` both are)."""

    pretokenizer: Pretokenizer

    def encode_piece(self, piece: str, upto: int | None = None) -> list[int]: ...


def ordinary_count(model: BPEModel, step: int | None = None) -> int:
    """How many non-special ids exist at *step* (they are ``0..n-1``: tokens are numbered as made)."""
    k = len(model.merges) if step is None else max(0, min(step, len(model.merges)))
    return model.vocab_size_at(k) - len(model.specials)


def is_undecodable(token: Token) -> bool:
    """True when the token's bytes are not valid UTF-8 on their own.

    >>> is_undecodable(b"\\xe2\\x80"), is_undecodable(b" the"), is_undecodable("est</w>")
    (True, False, False)
    """
    try:
        if isinstance(token, bytes):
            token.decode("utf-8")
        else:
            token.encode("utf-8")
    except UnicodeError:
        return True
    return False


def undecodable_ids(model: BPEModel, step: int | None = None) -> list[int]:
    """The ids (existing at *step*) whose tokens are not decodable alone."""
    tokens = model.tokens
    return [i for i in range(ordinary_count(model, step)) if is_undecodable(tokens[i])]


def _fragment_encoder(model: BPEModel) -> Tokenizer:
    """A tokenizer over the same ids that adds no end-of-word marker: it encodes the inside of a word."""
    twin = BPEModel(mode=model.mode, base=model.base, merges=model.merges, pretokenizer=model.pretokenizer)
    return Tokenizer(twin, unknown="keep")


def unreachable_ids(model: BPEModel, step: int | None = None, encoder: PieceEncoder | None = None) -> list[int]:
    """The ids (existing at *step*) whose decoded text does not encode back to exactly that one token.

    *encoder* encodes in *model*'s ids (default: ``Tokenizer(model)``, merge-list replay); pass the
    :class:`~.ranks.RankTokenizer` a rank file was read into to follow tiktoken's rule.

    >>> from bpe_desktop.core.tokenizers.model import BYTE_BASE
    >>> m = BPEModel.from_token_pairs("bytes", BYTE_BASE, [(b"a", b"b"), (b"b", b"c"), (b"a", b"bc")],
    ...                               pretokenizer="gpt2")
    >>> bad = unreachable_ids(m)  # the 128 bytes >= 0x80 are not text alone; "abc" encodes as ab + c
    >>> len(bad), [m.token_str(i) for i in bad if i >= 256]
    (129, ['abc'])
    """
    return finish(unreachable_steps(model, step, encoder, 1 << 30))


def unreachable_steps(
    model: BPEModel, step: int | None = None, encoder: PieceEncoder | None = None, chunk: int = 1024
) -> Job[list[int]]:
    """:func:`unreachable_ids` in small units: yields after every *chunk* tokens, returns the ids."""
    k = len(model.merges) if step is None else max(0, min(step, len(model.merges)))
    enc: PieceEncoder = encoder if encoder is not None else Tokenizer(model, unknown="keep")
    split = enc.pretokenizer.split
    tokens = model.tokens
    out: list[int] = []
    if model.mode == Mode.BYTES:
        for i in range(ordinary_count(model, k)):
            if i % chunk == chunk - 1:
                yield
            data = bytes_token(tokens[i])
            text = data.decode("utf-8", "replace")
            if text.encode("utf-8") != data or split(text) != [text]:
                out.append(i)
            elif enc.encode_piece(text, k) != [i]:
                out.append(i)
        return out
    marker = model.end_of_word
    fragment = _fragment_encoder(model) if marker else None
    for i in range(ordinary_count(model, k)):
        if i % chunk == chunk - 1:
            yield
        t = text_token(tokens[i])
        final = not marker or t.endswith(marker)
        text = t[: -len(marker)] if marker and final else t
        if is_undecodable(t):
            out.append(i)
        elif text == "":  # the marker alone: what a word's end is when nothing merged into it
            if enc.encode_piece("", k) != [i]:
                out.append(i)
        elif split(text) != [text]:
            out.append(i)
        elif (enc if final or fragment is None else fragment).encode_piece(text, k) != [i]:  # (no marker: final)
            out.append(i)
    return out


def brute_force_unreachable(
    encode_ordinary: Callable[[str], list[int]], decode: Callable[[list[int]], str], ids: Sequence[int]
) -> list[int]:
    """The definition, for checks and benchmarks: ``encode_ordinary(decode([i])) != [i]`` for each id
    (with tiktoken's ``Encoding`` methods, or ours)."""
    enc, dec = encode_ordinary, decode
    return [i for i in ids if enc(dec([i])) != [i]]
