"""Keep Qt's platform chatter off the user's terminal: a Qt message handler that drops the platform plugin's
warnings ("This plugin does not support propagateSizeHints()" from offscreen, xcb's notes) and passes every
other message on to stderr as Qt would.

Critical and fatal messages always pass, whatever their category.  It leaves out logging to files and
changing Qt's own logging rules (``QT_LOGGING_RULES`` still applies before the handler sees a message).
"""

from __future__ import annotations

import sys

from PySide6 import QtCore

#: categories whose debug, info and warning messages are dropped (Qt's platform plugins) ...
QUIET_CATEGORIES = ("qt.qpa", "qt.glx", "qt.xkb")
#: ... except these: why the platform plugin cannot load (missing X libraries) is the user's business
KEPT_CATEGORIES = ("qt.qpa.plugin",)
#: messages dropped whatever their category (some plugins log without one)
QUIET_MESSAGES = ("This plugin does not support propagateSizeHints()",
                  "This plugin does not support raise()", "This plugin does not support grabbing the keyboard")

_M = QtCore.QtMsgType
_PREFIX = {_M.QtDebugMsg: "", _M.QtInfoMsg: "", _M.QtWarningMsg: "Warning: ", _M.QtCriticalMsg: "Critical: ",
           _M.QtFatalMsg: "Fatal: "}
dropped: list[str] = []  # messages filtered out (the tests read it; at most the last 100)


def is_platform_noise(kind: QtCore.QtMsgType, category: str | None, message: str) -> bool:
    """True for a platform plugin's debug/info/warning message, never for a critical or fatal one."""
    if kind in (_M.QtCriticalMsg, _M.QtFatalMsg):
        return False
    cat = category or ""

    def under(names: tuple[str, ...]) -> bool:
        return any(cat == c or cat.startswith(c + ".") for c in names)

    if under(KEPT_CATEGORIES):
        return False
    return under(QUIET_CATEGORIES) or message.strip() in QUIET_MESSAGES


def _handler(kind: QtCore.QtMsgType, context: QtCore.QMessageLogContext, message: str) -> None:
    if is_platform_noise(kind, context.category, message):
        dropped.append(message)
        del dropped[:-100]
        return
    sys.stderr.write(f"{_PREFIX.get(kind, '')}{message}\n")


def install() -> None:
    """Route Qt's messages through the filter (idempotent)."""
    QtCore.qInstallMessageHandler(_handler)
