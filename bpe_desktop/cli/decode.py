"""``bpe-desktop decode``: token ids back to text, as tiktoken's ``decode`` (and ``decode_bytes``) do.

Ids come from the command line or a file (``-``: standard input), separated by spaces, commas or newlines
(what ``encode --ids`` prints).  An id that is no token of the tokenizer is refused, never decoded as
U+FFFD; bytes that are not UTF-8 become U+FFFD (tiktoken's ``errors="replace"``) unless ``--errors strict``
refuses them or ``--bytes`` writes the bytes themselves.  Only argument plumbing lives here.
"""

from __future__ import annotations

import argparse
import re
import sys

from ..core.errors import ConfigError, CorpusError
from ..core.formats import load_tokenizer
from ..core.tokenizers.any_tokenizer import AnyTokenizer
from ..core.tokenizers.ranks import RankTokenizer
from .common import add_tokenizer_file_options, tokenizer_kwargs
from .encode import TOKENIZER_HELP


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("decode", help="turn token ids back into text")
    p.add_argument("--tokenizer", required=True, metavar="SPEC", help=TOKENIZER_HELP)
    p.add_argument("ids", nargs="*", metavar="ID", help="token ids (or use --file)")
    p.add_argument("--file", metavar="F", help="read the ids from a file (- for standard input)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--errors", choices=["replace", "strict"], default="replace",
                     help="bytes that are not UTF-8: replace (U+FFFD, tiktoken's default) or strict (refuse)")
    out.add_argument("--bytes", action="store_true", help="write the decoded bytes as they are (decode_bytes)")
    add_tokenizer_file_options(p)
    p.set_defaults(run=run)


def _ids(args: argparse.Namespace) -> list[int]:
    if bool(args.ids) == (args.file is not None):
        raise CorpusError("give either IDs or --file F (exactly one) -- e.g. bpe-desktop decode --tokenizer o200k "
                          "24912 2375")
    if args.file is None:
        words = [w for a in args.ids for w in re.split(r"[\s,]+", a) if w]
    else:
        try:
            text = sys.stdin.read() if args.file == "-" else open(args.file, encoding="utf-8").read()
        except OSError as e:
            raise CorpusError(f"{args.file}: cannot read ({e.strerror}) -- check the path") from None
        except UnicodeDecodeError as e:
            raise CorpusError(f"{args.file}: not text (byte offset {e.start}) -- give the ids as text") from None
        words = [w for w in re.split(r"[\s,]+", text) if w]
    out = []
    for k, w in enumerate(words):
        if not (w.isascii() and w.isdigit()):
            raise CorpusError(f"item {k + 1} ({w[:20]!r}) is not a token id -- ids are whole numbers of 0 or more")
        out.append(int(w))
    return out


def _check_ids(tok: AnyTokenizer, ids: list[int]) -> None:
    known = tok.has_id if isinstance(tok, RankTokenizer) else (lambda i: 0 <= i < tok.n_vocab)
    for k, i in enumerate(ids):
        if not known(i):
            raise ConfigError(f"id {i} (item {k + 1}) is no token of this tokenizer (ids 0..{tok.n_vocab - 1}, "
                              "some unused) -- was it encoded with another tokenizer?")


def run(args: argparse.Namespace) -> int:
    kwargs = tokenizer_kwargs(args)
    ids = _ids(args)
    tok = load_tokenizer(args.tokenizer, **kwargs)
    _check_ids(tok, ids)
    data = tok.decode_bytes(ids)
    if args.bytes:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        return 0
    try:
        text = data.decode("utf-8", args.errors)
    except UnicodeDecodeError as e:
        raise CorpusError(f"the tokens decode to bytes that are not UTF-8 (byte offset {e.start}) -- use "
                          "--errors replace (U+FFFD) or --bytes") from None
    sys.stdout.write(text + "\n")
    return 0
