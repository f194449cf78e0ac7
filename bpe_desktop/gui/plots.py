"""PLACEHOLDER (being written by the live-plots work, issue 6): Zipf, compression and trade-off plots."""

from __future__ import annotations

from PySide6 import QtWidgets

from .session import Session


class PlotsPanel(QtWidgets.QWidget):
    def __init__(self, session: Session, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        QtWidgets.QVBoxLayout(self).addWidget(QtWidgets.QLabel("plots (coming)"))
