"""``bpe-desktop encode``: tokenize text with a tokenizer file (any readable format, a bundled encoding's name
or ``PRESET:PATH``), at any step of its merge list, as tiktoken's ``encode`` does.

Special tokens: refused unless allowed (``--allow-special NAME``, repeatable, or ``all``; ``--no-special``
encodes them as ordinary text).  ``--bytes`` reads the input as bytes and encodes them as tiktoken's
``_encode_bytes`` (any bytes, not only UTF-8); ``--offsets`` prints each token's byte span and the
character offset tiktoken's ``decode_with_offsets`` gives.  Kept light on purpose: it imports no Qt, numpy
or tiktoken, and a ``.tiktoken`` file is encoded from its ranks directly (the merge list is never rebuilt).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..core.choices import Mode
from ..core.errors import ConfigError, CorpusError, DisallowedSpecialError
from ..core.formats import load_tokenizer
from ..core.io.reading import WHOLE_FILE_LIMIT, read_regular
from ..core.text.regex_budget import RegexBudget
from ..core.tokenizers.any_tokenizer import AnyTokenizer
from ..core.tokenizers.ranks import RankTokenizer
from .common import add_budget_option, add_tokenizer_file_options, budget_from_args, tokenizer_kwargs

TOKENIZER_HELP = ("tokenizer file or folder in any readable format, a bundled encoding (gpt2, p50k, cl100k, "
                  "o200k), or PRESET:PATH such as o200k:o200k_base.tiktoken")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("encode", help="tokenize text with a tokenizer file")
    p.add_argument("--tokenizer", required=True, metavar="SPEC", help=TOKENIZER_HELP)
    p.add_argument("--upto", type=int, default=None, metavar="K", help="use only the first K merges")
    p.add_argument("--ids", action="store_true", help="print ids separated by spaces instead of tokens")
    p.add_argument("--offsets", action="store_true",
                   help="print one line per token: id, byte start, byte end, character offset (as tiktoken's "
                   "decode_with_offsets), token -- separated by tabs")
    specials = p.add_mutually_exclusive_group()
    specials.add_argument("--allow-special", action="append", default=None, metavar="NAME",
                          help="encode this special token's text as the special token (repeatable; 'all' for "
                          "every one)")
    specials.add_argument("--no-special", action="store_true",
                          help="encode special-token text as ordinary text (tiktoken's encode_ordinary)")
    p.add_argument("--bytes", action="store_true",
                   help="read the input (--file, or standard input with --file -) as bytes and encode any bytes, "
                   "UTF-8 or not, as tiktoken's _encode_bytes (special-token text is ordinary text)")
    add_tokenizer_file_options(p)
    p.add_argument("text", nargs="?", help="text to encode (or use --file)")
    p.add_argument("--file", metavar="F", help="read the text from a file (- for standard input)")
    add_budget_option(p)
    p.set_defaults(run=run)


def _read(args: argparse.Namespace) -> bytes:
    """The input's bytes: TEXT, a regular file below the size limit (``--file``), or standard input (``-``)."""
    if (args.text is None) == (args.file is None):
        raise CorpusError("give either TEXT or --file F (exactly one) -- e.g. bpe-desktop encode --tokenizer T 'hello'")
    if args.file is None:
        return str(args.text).encode("utf-8", "surrogateescape")
    if args.file != "-":
        return read_regular(args.file, error=CorpusError, what="text file", limit=WHOLE_FILE_LIMIT)
    if sys.stdin is None or getattr(sys.stdin, "buffer", None) is None:
        raise CorpusError("standard input is closed -- pipe the text in, or give --file a file")
    data = sys.stdin.buffer.read(WHOLE_FILE_LIMIT + 1)
    if len(data) > WHOLE_FILE_LIMIT:
        raise CorpusError("standard input holds more than 1 GiB -- encode a smaller text")
    return data


def _allowed(args: argparse.Namespace, tok: AnyTokenizer) -> str | frozenset[str]:
    names = args.allow_special or []
    if "all" in names:
        return "all"
    unknown = [n for n in names if n not in tok.special_tokens]
    if unknown:
        have = ", ".join(sorted(tok.special_tokens)) or "none"
        raise ConfigError(f"--allow-special {unknown[0]}: not a special token of this tokenizer (it has {have}) "
                          "-- name one of those, or 'all'; add a special with --special NAME[=ID]")
    return frozenset(names)


def offsets_lines(tok: AnyTokenizer, ids: Sequence[int]) -> str:
    """One ``id  byte_start  byte_end  char_offset  token`` line per token; the character offset is
    tiktoken's ``decode_with_offsets`` rule (a token starting inside a character gets that character)."""
    out = []
    pos = chars = 0
    for i in ids:
        data = tok.token_bytes(i)
        char_at = max(0, chars - (bool(data) and 0x80 <= data[0] < 0xC0))
        out.append(f"{i}\t{pos}\t{pos + len(data)}\t{char_at}\t{tok.token_str(i)}\n")
        pos += len(data)
        chars += sum(1 for c in data if not 0x80 <= c < 0xC0)
    return "".join(out)


def run(args: argparse.Namespace) -> int:
    kwargs = tokenizer_kwargs(args)
    data = _read(args)
    tok = load_tokenizer(args.tokenizer, **kwargs)
    budget = budget_from_args(args) or RegexBudget(what="encoding")
    if args.bytes:
        if args.allow_special:
            raise ConfigError("--bytes encodes special-token text as ordinary text, as tiktoken's _encode_bytes "
                              "-- leave out --allow-special, or drop --bytes")
        ids = _encode_bytes(tok, data, args.upto, budget, args.file)
    else:
        try:
            text = data.decode("utf-8") if args.file is not None else str(args.text)
        except UnicodeDecodeError as e:
            raise CorpusError(f"{args.file}: not valid UTF-8 at byte offset {e.start} -- convert it to UTF-8, or "
                              "pass --bytes to encode the bytes themselves (as tiktoken's _encode_bytes)") from None
        allowed = _allowed(args, tok)
        disallowed = () if args.no_special else "all"
        fast = getattr(tok, "encode_ids_text", None)
        try:
            if args.ids and not args.offsets and fast is not None:
                sys.stdout.write(fast(text, upto=args.upto, allowed_special=allowed, disallowed_special=disallowed,
                                      budget=budget) + "\n")
                return 0
            ids = tok.encode(text, upto=args.upto, allowed_special=allowed, disallowed_special=disallowed,
                             budget=budget)
        except DisallowedSpecialError as e:
            raise DisallowedSpecialError(
                f"the text contains the special token {e.token!r} at character {e.position} -- pass "
                f"--allow-special '{e.token}' (or --allow-special all) to encode it as a special token, or "
                "--no-special to encode it as ordinary text",
                e.token, e.position,
            ) from None
    if args.offsets:
        sys.stdout.write(offsets_lines(tok, ids))
    elif args.ids:
        sys.stdout.write(" ".join(map(str, ids)) + "\n")
    else:
        sys.stdout.write(" ".join(map(tok.token_str, ids)) + "\n")
    return 0


def _encode_bytes(tok: AnyTokenizer, data: bytes, upto: int | None, budget: RegexBudget,
                  source: str | None) -> list[int]:
    if isinstance(tok, RankTokenizer):
        return tok.encode_bytes(data, upto, budget=budget)
    if tok.mode != Mode.BYTES:
        raise ConfigError("--bytes needs a byte-level tokenizer; this one is chars-mode -- drop --bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CorpusError(f"{source or 'the text'}: not valid UTF-8 at byte offset {e.start} -- only .tiktoken "
                          "rank files encode bytes that are not UTF-8 (as tiktoken's _encode_bytes); convert it "
                          "to UTF-8") from None
    return tok.encode_ordinary(text, upto, budget=budget)
