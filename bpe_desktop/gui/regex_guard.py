"""Small regex budgets for work the window does on its own thread, and the one way it reports a timeout.

A custom pre-tokenizer can backtrack catastrophically (``(a+)+$`` on a long run of ``a``).  Training runs in
the worker process under the core's budget for the whole job; everything the window encodes itself (each
row of the token view, the compare pane's text) runs under one of the budgets made here, on inputs that are
bounded (display rows are at most ``stream.rows.MAX_ROW_CHARS`` long, the compare text
``compare.panel.TEXT_LIMIT``); the plots never count a custom-pattern corpus themselves (the worker does).
A sound pattern needs well under a millisecond per row.  The ``regex`` engine overshoots short
timeouts (on the catastrophic ``(a+)+$``, to about twice the timeout), so the budgets
are sized for the stall, not the nominal time; the first timeout stops the screenful.

:func:`report_timeout` shows the error once per pattern (a dialog, deferred out of any paint); callers
also show it inline where the result would have been, never an empty view.  The ``regex`` module releases
the GIL only with ``concurrent=True``, which the core does not use, so a thread would not keep the window
responsive: the bound is the budget.  It leaves out the core's budgets (:mod:`bpe_desktop.core.text.regex_budget`).
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from ..core.text.regex_budget import RegexBudget

#: seconds one row of the token view may spend inside a custom pattern
PAINT_BUDGET_S = 0.008
#: seconds one compare-pane encoding may spend inside a custom pattern
TEXT_BUDGET_S = 0.02


def paint_budget() -> RegexBudget:
    return RegexBudget(PAINT_BUDGET_S, what="drawing the token view")


def text_budget(what: str) -> RegexBudget:
    return RegexBudget(TEXT_BUDGET_S, what=what)


_reported: set[tuple[int, str]] = set()


def report_timeout(parent: QtWidgets.QWidget, message: str) -> None:
    """Show *message* in an error dialog, once per window and message, after the current event."""
    from . import file_actions  # the window's one error dialog (tests patch QMessageBox.critical)

    key = (id(parent.window()), message)
    if key in _reported:
        return
    _reported.add(key)

    def show() -> None:
        file_actions.show_error(parent.window(), "Custom pre-tokenizer timed out",
                                f"{message}\n\nThe token view shows nothing until the pattern is fixed.")

    QtCore.QTimer.singleShot(0, show)


def forget_reports() -> None:
    """Report every timeout again (after the pattern or the model changed)."""
    _reported.clear()
