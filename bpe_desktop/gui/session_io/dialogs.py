"""The questions sessions ask: a corpus that changed or vanished, unsaved work, restore after a crash.

Each question is built by a ``*_box`` function (a :class:`QMessageBox` that screenshots and tests can
inspect) and asked by an ``ask_*`` function that returns an enum; tests replace the ``ask_*`` functions
(``monkeypatch.setattr(dialogs, "ask_unsaved", ...)``).  It decides nothing itself.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Sequence
from html import escape

from PySide6 import QtWidgets

from ...core.formats.session_file import CorpusCheck, CorpusState

MB = QtWidgets.QMessageBox


class CorpusAnswer(enum.Enum):
    OPEN_ANYWAY = "open anyway"  # keep the saved merges, show the file as it is now (or no text)
    CHOOSE = "choose"  # pick the corpus file somewhere else
    CANCEL = "cancel"


class UnsavedAnswer(enum.Enum):
    SAVE = "save"
    DISCARD = "discard"
    CANCEL = "cancel"


class RestoreAnswer(enum.Enum):
    RESTORE = "restore"
    DISCARD = "discard"  # delete the autosave
    LATER = "later"  # keep it, ask again next start


def corpus_box(parent: QtWidgets.QWidget | None, problems: Sequence[CorpusCheck]
               ) -> tuple[MB, dict[object, CorpusAnswer]]:
    gone = all(p.state is CorpusState.MISSING for p in problems)
    box = MB(MB.Icon.Warning, "The corpus is not as it was", "", MB.StandardButton.NoButton, parent)
    box.setObjectName("corpusChangedBox")
    what = "is gone" if gone else "changed"
    box.setText(f"<b>The corpus file this session was trained on {what} since the session was saved.</b>")
    box.setInformativeText(
        "\n".join(p.message for p in problems) + "\n\nThe saved merges can be opened as they are (nothing is "
        "retrained; " + ("the token view stays empty" if gone else "the token view shows the file as it is now")
        + "), or you can point to the corpus file.")
    anyway = box.addButton("Open with the saved merges", MB.ButtonRole.AcceptRole)
    choose = box.addButton("Choose the corpus file…", MB.ButtonRole.ActionRole)
    cancel = box.addButton(MB.StandardButton.Cancel)
    box.setDefaultButton(anyway)
    return box, {anyway: CorpusAnswer.OPEN_ANYWAY, choose: CorpusAnswer.CHOOSE, cancel: CorpusAnswer.CANCEL}


def ask_corpus(parent: QtWidgets.QWidget | None, problems: Sequence[CorpusCheck]) -> CorpusAnswer:
    box, answers = corpus_box(parent, problems)
    box.exec()
    return answers.get(box.clickedButton(), CorpusAnswer.CANCEL)


def choose_corpus_file(parent: QtWidgets.QWidget | None, old_path: str) -> str:
    path, _ = QtWidgets.QFileDialog.getOpenFileName(parent, f"Where is {os.path.basename(old_path)}?",
                                                    os.path.dirname(old_path), "All files (*)")
    return path


def unsaved_box(parent: QtWidgets.QWidget | None, action: str, lost: str = ""
                ) -> tuple[MB, dict[object, UnsavedAnswer]]:
    """*lost*: what would be lost, as :func:`..work.what_would_be_lost` says it."""
    box = MB(MB.Icon.Question, "Unsaved work", "", MB.StandardButton.NoButton, parent)
    box.setObjectName("unsavedBox")
    box.setText(f"<b>To {action} would lose {escape(lost)}.</b>" if lost
                else "<b>The session has changes that are not saved.</b>")
    box.setInformativeText(f"Save the session before you {action}?")
    save = box.addButton(MB.StandardButton.Save)
    discard = box.addButton(MB.StandardButton.Discard)
    cancel = box.addButton(MB.StandardButton.Cancel)
    box.setDefaultButton(save)
    return box, {save: UnsavedAnswer.SAVE, discard: UnsavedAnswer.DISCARD, cancel: UnsavedAnswer.CANCEL}


def ask_unsaved(parent: QtWidgets.QWidget | None, action: str, lost: str = "") -> UnsavedAnswer:
    box, answers = unsaved_box(parent, action, lost)
    box.exec()
    return answers.get(box.clickedButton(), UnsavedAnswer.CANCEL)


class RestoreBox(QtWidgets.QDialog):
    """Every orphaned autosave, newest first (the newest chosen), with Restore / Discard / Not now."""

    def __init__(self, parent: QtWidgets.QWidget | None, descriptions: Sequence[str]) -> None:
        super().__init__(parent)
        self.setObjectName("restoreBox")
        self.setWindowTitle("Restore unsaved work?")
        self.answer = RestoreAnswer.LATER
        lay = QtWidgets.QVBoxLayout(self)
        many = len(descriptions) > 1
        head = QtWidgets.QLabel("<b>bpe-desktop did not close properly last time.</b><br>"
                                + (f"{len(descriptions)} autosaved sessions were found, newest first. Restore "
                                   "the one chosen? The others are kept and offered again next time."
                                   if many else "An autosaved session was found. Restore it?"), self)
        head.setWordWrap(True)
        lay.addWidget(head)
        self.list = QtWidgets.QListWidget(self)
        self.list.addItems(list(descriptions))
        self.list.setCurrentRow(0)
        lay.addWidget(self.list)
        buttons = QtWidgets.QDialogButtonBox(self)
        self.buttons: dict[QtWidgets.QAbstractButton, RestoreAnswer] = {
                        buttons.addButton("Restore", QtWidgets.QDialogButtonBox.ButtonRole.AcceptRole):
                        RestoreAnswer.RESTORE,
                        buttons.addButton(QtWidgets.QDialogButtonBox.StandardButton.Discard): RestoreAnswer.DISCARD,
                        buttons.addButton("Not now", QtWidgets.QDialogButtonBox.ButtonRole.RejectRole):
                        RestoreAnswer.LATER}
        buttons.clicked.connect(self._clicked)
        lay.addWidget(buttons)

    def _clicked(self, button: QtWidgets.QAbstractButton) -> None:
        self.answer = self.buttons.get(button, RestoreAnswer.LATER)
        self.accept()

    @property
    def index(self) -> int:
        return self.list.currentRow()


def ask_restore(parent: QtWidgets.QWidget | None, descriptions: Sequence[str]) -> tuple[RestoreAnswer, int]:
    """(what to do, with which of *descriptions*: an index)."""
    box = RestoreBox(parent, descriptions)
    box.exec()
    return box.answer, box.index


def choose_session_to_save(parent: QtWidgets.QWidget | None, suggested: str) -> str:
    path, _ = QtWidgets.QFileDialog.getSaveFileName(parent, "Save session", suggested,
                                                    "bpe-desktop session (*.bpesession);;All files (*)")
    if path and not os.path.splitext(path)[1]:
        path += ".bpesession"
    return path


def choose_session_to_open(parent: QtWidgets.QWidget | None) -> str:
    path, _ = QtWidgets.QFileDialog.getOpenFileName(parent, "Open session", "",
                                                    "bpe-desktop session (*.bpesession *.json);;All files (*)")
    return path
