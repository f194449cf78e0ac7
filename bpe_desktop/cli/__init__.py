"""The command-line interface: ``bpe-desktop SUBCOMMAND ...`` over the same core as the window.

Each sub-command lives in its own module with ``add_parser(subparsers)``; this module only dispatches and
turns user errors (:class:`BpeError`) into one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .. import __version__
from ..core.errors import BpeError, Cancelled
from . import convert, count, encode, stats, train

SUBCOMMAND_MODULES = [train, encode, stats, convert, count]
SUBCOMMANDS = ("train", "encode", "convert", "stats", "count")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="bpe-desktop",
        description="Watch byte-pair encoding learn a tokenizer. Without a sub-command, opens the window.",
    )
    p.add_argument("--version", action="version", version=f"bpe-desktop {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for m in SUBCOMMAND_MODULES:
        m.add_parser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return int(args.run(args))
    except BpeError as e:
        sys.stderr.write(f"bpe-desktop {args.command}: error: {e}\n")
        return 2
    except Cancelled:
        sys.stderr.write(f"bpe-desktop {args.command}: cancelled\n")
        return 130
    except KeyboardInterrupt:
        sys.stderr.write(f"bpe-desktop {args.command}: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
