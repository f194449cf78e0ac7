"""Run-time hook of the bundle, in place of PyInstaller's ``pyi_rth_pyside6``.

PyInstaller's hook imports ``PySide6.QtCore`` at the start of every process of the bundle -- also the
spawned training worker (which must stay Qt-free: ``bpe-desktop --selftest`` checks it) and every CLI
command.  All it does for PySide6's PyPI wheels on Linux besides is set ``QT_PLUGIN_PATH`` (the wheel's
QtCore embeds its own qt.conf), so this hook sets only that, and Qt loads when the window needs it.
"""

import os
import sys

os.environ["QT_PLUGIN_PATH"] = os.path.join(sys._MEIPASS, "PySide6", "Qt", "plugins")
