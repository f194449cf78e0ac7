"""PLACEHOLDER (being written by the token-stream-view work, issue 5): the animated token-stream view."""

from __future__ import annotations

from PySide6 import QtWidgets

from .session import Session


class TokenStreamView(QtWidgets.QWidget):
    def __init__(self, session: Session, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        QtWidgets.QVBoxLayout(self).addWidget(QtWidgets.QLabel("token stream (coming)"))
