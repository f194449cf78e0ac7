"""Entry point: ``bpe-desktop`` (or ``python -m bpe_desktop``, or the bundle's executable).

With a sub-command (``train``, ``encode``, ...) it runs the CLI and never opens a window; ``--version``
prints the version; ``--selftest`` runs :mod:`bpe_desktop.selftest`; ``--help`` lists the window's options
and every registered sub-command; otherwise it starts the GUI (Qt is imported only then).  In a frozen
bundle it first lets a spawned training process take over (``multiprocessing.freeze_support``).
It parses no sub-command options itself (:mod:`bpe_desktop.cli` does).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

HELP_FLAGS = ("-h", "--help")


def _subcommands() -> list[tuple[str, str]]:
    from .cli import subcommand_summaries

    return subcommand_summaries()


def help_parser() -> argparse.ArgumentParser:
    """The window's own parser (:func:`bpe_desktop.gui.app.build_parser`) plus the options handled here,
    with every sub-command and its one-line help in the epilog."""
    from . import __version__
    from .gui.app import build_parser

    p = build_parser()
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.usage = "bpe-desktop [OPTIONS]            (opens the window)\n       bpe-desktop COMMAND [ARGS ...]   (no window)"
    p.add_argument("--selftest", action="store_true",
                   help="train the seeds' worked example in the training process, check its 7 merges and "
                        "'lowest', render the window offscreen; exit 0 if all is well")
    p.add_argument("--version", action="version", version=f"bpe-desktop {__version__}")
    subs = _subcommands()
    width = max(len(n) for n, _ in subs)
    p.epilog = ("commands (bpe-desktop COMMAND --help for their options):\n"
                + "\n".join(f"  {name.ljust(width)}  {text}" for name, text in subs)
                + "\n\nbpe-desktop-cli COMMAND ... runs the same commands from a console on every platform.")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    if getattr(sys, "frozen", False):
        import multiprocessing  # not before: a sub-command that never forks does not pay for the import

        multiprocessing.freeze_support()  # a spawned training process runs its target and exits here
    args = list(sys.argv[1:] if argv is None else argv)
    from .cli import SUBCOMMANDS  # names only: the sub-command's own module is imported by the CLI alone

    if args and (args[0] in SUBCOMMANDS or args[0] == "--version"):
        from .cli import main as cli_main

        return cli_main(args)
    if "--selftest" in args:
        from .selftest import main as selftest_main

        return selftest_main([a for a in args if a != "--selftest"])
    if any(a in HELP_FLAGS for a in args):
        help_parser().print_help()
        return 0
    from .gui.app import main as gui_main

    return gui_main(args)


if __name__ == "__main__":  # main() lets a spawned child of the bundle take over first
    sys.exit(main())
