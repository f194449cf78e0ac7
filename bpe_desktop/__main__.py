"""Entry point: ``bpe-desktop`` (or ``python -m bpe_desktop``).

With a sub-command (``train``, ``encode``, ``convert``, ``stats``) it runs the CLI and never opens a window;
otherwise it starts the GUI (Qt is imported only then).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    from .cli import SUBCOMMANDS

    if args and (args[0] in SUBCOMMANDS or args[0] == "--version"):
        from .cli import main as cli_main

        return cli_main(args)
    from .gui.app import main as gui_main

    return gui_main(args)


if __name__ == "__main__":
    sys.exit(main())
