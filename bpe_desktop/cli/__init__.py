"""The command-line interface: ``bpe-desktop SUBCOMMAND ...`` over the same core as the window.

Each sub-command lives in its own module with ``add_parser(subparsers)``; this module only dispatches and
turns user errors (:class:`BpeError`) into one line on stderr and exit status 2, never a traceback; Ctrl-C
exits 130 and SIGTERM 143, both after stopping any helper process (:mod:`bpe_desktop.core.io.lifetime`).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from .. import __version__
from ..core.errors import BpeError, Cancelled
from ..core.io.lifetime import Terminated, sigterm_as_interrupt

#: every sub-command, in the order ``--help`` lists them; each is the module of that name in this package
SUBCOMMANDS = ("train", "encode", "decode", "stats", "convert", "count", "diff", "analyze", "inspect", "sample")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with *only* a sub-command's name, just that one is imported (a faster start), and with
    ``--version`` none (argparse prints the version and exits before any sub-command is parsed)."""
    p = argparse.ArgumentParser(
        prog="bpe-desktop",
        description="Watch byte-pair encoding learn a tokenizer. Without a sub-command, opens the window.",
    )
    p.add_argument("--version", action="version", version=f"bpe-desktop {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name in (only,) if only in SUBCOMMANDS else () if only == "--version" else SUBCOMMANDS:
        importlib.import_module(f"{__name__}.{name}").add_parser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        with sigterm_as_interrupt():  # SIGTERM unwinds like Ctrl-C: helper processes are stopped
            return int(args.run(args))
    except BpeError as e:
        sys.stderr.write(f"bpe-desktop {args.command}: error: {e}\n")
        return 2
    except Cancelled:
        sys.stderr.write(f"bpe-desktop {args.command}: cancelled\n")
        return 130
    except Terminated as e:
        sys.stderr.write(f"bpe-desktop {args.command}: terminated\n")
        return e.exit_code
    except KeyboardInterrupt:
        sys.stderr.write(f"bpe-desktop {args.command}: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0


def subcommand_summaries() -> list[tuple[str, str]]:
    """``(name, one-line help)`` of every registered sub-command, read from the parser the modules build
    (so a module named in :data:`SUBCOMMANDS` appears in ``bpe-desktop --help`` by itself)."""
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return [(a.dest, (a.help or "").strip()) for a in sub._choices_actions]
