"""Waiting for a pair plot's CSV that the statistics process writes: a progress dialog until it is written.

A big corpus's step has millions of pairs, held only in the plots' statistics process
(:mod:`.remote_history`), which writes the CSV itself (atomically: the file is whole or left as it was).
:func:`wait_for_export` shows how far it has got, polling the process from a timer (the window stays live),
and says what went wrong if nothing was written.  Closing the dialog stops waiting, not the writing: the file
still appears once written.  It leaves out asking where to write (the plots pane) and the writing itself
(:mod:`.stats_worker`).
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from .feed import PlotFeed
from .remote_history import ExportState

POLL_MS = 50  # how often the dialog reads the process's answers
POLL_S = 0.004  # and for how long at most


def progress_text(state: ExportState) -> str:
    """What the dialog says of *state*.

    >>> progress_text(ExportState(8000, "z.csv", done=20_000, total=2_059_624, started=True))
    'Writing pairs at step 8,000: 20,000 of 2,059,624 rows…'
    >>> progress_text(ExportState(8000, "z.csv"))
    'Waiting for the pair counts to reach step 8,000…'
    """
    if state.total:
        return f"Writing pairs at step {state.step:,}: {state.done:,} of {state.total:,} rows…"
    if state.started:
        return f"Ordering every pair at step {state.step:,} for the CSV…"
    return f"Waiting for the pair counts to reach step {state.step:,}…"


def wait_for_export(parent: QtWidgets.QWidget, feed: PlotFeed, state: ExportState) -> None:
    """Show a progress dialog over *parent* until *state* is finished (the event loop runs meanwhile); a warning
    if nothing was written."""
    if not state.finished:
        dialog = QtWidgets.QProgressDialog(progress_text(state), "Close", 0, 0, parent)
        dialog.setWindowTitle("Export pairs plot")
        dialog.setWindowModality(QtCore.Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(0)
        dialog.setAutoReset(False)  # (all rows written is not the end: the process's answer is, after the rename)
        dialog.setAutoClose(False)
        timer = QtCore.QTimer(dialog)

        def poll() -> None:
            feed.poll(POLL_S)
            if state.total:
                dialog.setRange(0, state.total)
                dialog.setValue(state.done)
            dialog.setLabelText(progress_text(state))
            if state.finished:
                dialog.accept()

        timer.timeout.connect(poll)
        timer.start(POLL_MS)
        dialog.exec()
        timer.stop()
        dialog.deleteLater()
    if state.finished and state.error:
        QtWidgets.QMessageBox.warning(parent, "Export failed", state.error)
