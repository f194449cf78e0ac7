"""PyInstaller's entry script for the bundle: ``dist/bpe-desktop/bpe-desktop`` runs ``bpe_desktop.__main__``.

``multiprocessing.freeze_support()`` comes first, before anything imports Qt: the window's training worker is
a *spawn* child, which in a bundle is this same executable started with ``--multiprocessing-fork``; it must
run its target and exit without opening a window.  Nothing else happens here.
"""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()
    from bpe_desktop.__main__ import main

    sys.exit(main())
