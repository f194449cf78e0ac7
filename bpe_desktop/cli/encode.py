"""``bpe-desktop encode``: tokenize text with a tokenizer file (any readable format or ``PRESET:PATH``),
at any step of its merge list.

Kept light on purpose: it imports no Qt, numpy or tiktoken, and a ``.tiktoken`` file is encoded from its
ranks directly (the merge list is never rebuilt here).
"""

from __future__ import annotations

import argparse
import sys

from ..core.errors import CorpusError, DisallowedSpecialError
from ..core.formats import load_tokenizer
from ..core.io.reading import WHOLE_FILE_LIMIT, read_regular
from ..core.text.regex_budget import RegexBudget
from .common import add_budget_option, budget_from_args, check_specials


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("encode", help="tokenize text with a tokenizer file")
    p.add_argument("--tokenizer", required=True, metavar="SPEC",
                   help="tokenizer file or folder in any readable format, or cl100k:PATH / gpt2:PATH")
    p.add_argument("--upto", type=int, default=None, metavar="K", help="use only the first K merges")
    p.add_argument("--ids", action="store_true", help="print ids separated by spaces instead of tokens")
    specials = p.add_mutually_exclusive_group()
    specials.add_argument("--allow-special", action="store_true", help="encode special-token text as specials")
    specials.add_argument("--no-special", action="store_true",
                          help="encode special-token text as ordinary text (tiktoken's encode_ordinary)")
    p.add_argument("--pretokenizer", default=None, metavar="NAME|REGEX",
                   help="pattern for files that hold none (.tiktoken); overrides the file's")
    p.add_argument("--special", nargs="*", default=[], metavar="TOKEN", help="add special tokens")
    p.add_argument("text", nargs="?", help="text to encode (or use --file)")
    p.add_argument("--file", metavar="F", help="read the text from a file (- for standard input)")
    add_budget_option(p)
    p.set_defaults(run=run)


def read_text_file(name: str) -> bytes:
    """``--file``'s bytes: a regular file below the size limit, or standard input for ``-``."""
    if name != "-":
        return read_regular(name, error=CorpusError, what="text file", limit=WHOLE_FILE_LIMIT)
    if sys.stdin is None or getattr(sys.stdin, "buffer", None) is None:
        raise CorpusError("standard input is closed -- pipe the text in, or give --file a file")
    data = sys.stdin.buffer.read(WHOLE_FILE_LIMIT + 1)
    if len(data) > WHOLE_FILE_LIMIT:
        raise CorpusError("standard input holds more than 1 GiB -- encode a smaller text")
    return data


def run(args: argparse.Namespace) -> int:
    check_specials(args.special)
    if (args.text is None) == (args.file is None):
        raise CorpusError("give either TEXT or --file F (exactly one) -- e.g. bpe-desktop encode --tokenizer T 'hello'")
    if args.file:
        data = read_text_file(args.file)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise CorpusError(f"{args.file}: not valid UTF-8 at byte offset {e.start} -- convert it to UTF-8") from None
    else:
        text = args.text
    tok = load_tokenizer(args.tokenizer, pretokenizer=args.pretokenizer, specials=args.special)
    allowed = "all" if args.allow_special else frozenset()
    disallowed = () if args.no_special else "all"
    budget = budget_from_args(args) or RegexBudget(what="encoding")
    fast = getattr(tok, "encode_ids_text", None)
    try:
        if args.ids and fast is not None:
            sys.stdout.write(fast(text, upto=args.upto, allowed_special=allowed, disallowed_special=disallowed,
                                  budget=budget) + "\n")
            return 0
        ids = tok.encode(text, upto=args.upto, allowed_special=allowed, disallowed_special=disallowed,
                         budget=budget)
    except DisallowedSpecialError as e:
        raise DisallowedSpecialError(
            f"the text contains the special token {e.token!r} at character {e.position} -- pass "
            "--allow-special to encode it as a special token, or --no-special to encode it as ordinary text",
            e.token, e.position,
        ) from None
    if args.ids:
        sys.stdout.write(" ".join(map(str, ids)) + "\n")
    else:
        sys.stdout.write(" ".join(map(tok.token_str, ids)) + "\n")
    return 0
