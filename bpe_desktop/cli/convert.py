"""``bpe-desktop convert IN OUT --to FORMAT``: read a tokenizer in any readable format, write it in another.

The same readers and writers as the window and ``train --format``; the input may be ``PRESET:PATH``
(``cl100k:cl100k_base.tiktoken``).  It does not change the merges: a format that cannot express the
tokenizer refuses it with the format that can.
"""

from __future__ import annotations

import argparse
import sys

from ..core.errors import FormatError
from ..core.formats import WRITE_FORMATS, load, save_model
from ..core.io.atomic import check_writable
from .common import check_specials


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("convert", help="convert a tokenizer file to another format")
    p.add_argument("input", metavar="IN", help="tokenizer file or folder (any readable format), or PRESET:PATH "
                   "with PRESET cl100k or gpt2")
    p.add_argument("output", metavar="OUT", help="where to write (a folder for gpt2 / vocab-merges)")
    p.add_argument("--to", required=True, choices=WRITE_FORMATS, help="output format")
    p.add_argument("--pretokenizer", default=None, metavar="NAME|REGEX",
                   help="pattern for inputs that hold none (.tiktoken); overrides the file's")
    p.add_argument("--special", nargs="*", default=[], metavar="TOKEN", help="add special tokens")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    check_specials(args.special)
    if args.to in ("gpt2", "vocab-merges") and not args.output.endswith(".json"):
        check_writable(args.output, folder=True)
    else:
        check_writable(args.output)
    loaded = load(args.input, pretokenizer=args.pretokenizer, specials=args.special)
    if getattr(getattr(loaded.tokenizer, "bpe", None), "prefix", ""):
        raise FormatError(f"{args.input}: a tokenizer.json with a continuing_subword_prefix cannot be written in "
                          "another format (none of them has such a prefix) -- use the file as it is")
    reason = getattr(loaded.tokenizer, "plain_reason", None)
    if reason is not None:  # the merges alone, written without the pipeline, would tokenize otherwise
        raise FormatError(f"{args.input}: its pipeline ({reason}) cannot be written with its merges in any format "
                          "we write, and the merges alone tokenize differently -- use the file as it is")
    model = loaded.model
    save_model(model, args.output, args.to, loaded.stats, special_ids=loaded.special_ids)
    print(f"read {args.input} ({loaded.fmt}, {len(model.merges)} merges, vocabulary {loaded.tokenizer.n_vocab}); "
          f"wrote {args.output} ({args.to})")
    if args.to == "tiktoken":
        sys.stderr.write(
            f"note: a .tiktoken file holds neither the pattern ({model.pretokenizer}) nor the special tokens "
            f"-- read it back with --pretokenizer {model.pretokenizer!r}"
            + (f" --special {' '.join(model.specials)}" if model.specials else "") + "\n"
        )
    return 0
