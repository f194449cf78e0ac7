"""``bpe-desktop encode``: tokenize text with a tokenizer file, at any step of its merge list."""

from __future__ import annotations

import argparse
import sys

from ..core.errors import CorpusError
from ..core.formats import load_tokenizer


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("encode", help="tokenize text with a tokenizer file")
    p.add_argument("--tokenizer", required=True, metavar="FILE", help="tokenizer file (any readable format)")
    p.add_argument("--upto", type=int, default=None, metavar="K", help="use only the first K merges")
    p.add_argument("--ids", action="store_true", help="print ids separated by spaces instead of tokens")
    p.add_argument("--allow-special", action="store_true", help="encode special-token text as specials")
    p.add_argument("text", nargs="?", help="text to encode (or use --file)")
    p.add_argument("--file", metavar="F", help="read the text from a file")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if (args.text is None) == (args.file is None):
        raise CorpusError("give either TEXT or --file F (exactly one) -- e.g. bpe-desktop encode --tokenizer T 'hello'")
    if args.file:
        try:
            with open(args.file, encoding="utf-8", newline="") as f:
                text = f.read()
        except FileNotFoundError:
            raise CorpusError(f"{args.file}: no such file -- check the path") from None
        except UnicodeDecodeError as e:
            raise CorpusError(f"{args.file}: not valid UTF-8 at byte offset {e.start} -- convert it to UTF-8") from None
    else:
        text = args.text
    tok = load_tokenizer(args.tokenizer)
    ids = tok.encode(text, upto=args.upto, allowed_special="all" if args.allow_special else frozenset())
    out = sys.stdout
    if args.ids:
        out.write(" ".join(map(str, ids)))
        out.write("\n")
    else:
        out.write(" ".join(tok.token_str(i) for i in ids))
        out.write("\n")
    return 0
