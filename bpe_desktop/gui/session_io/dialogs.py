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


def restore_box(parent: QtWidgets.QWidget | None, description: str) -> tuple[MB, dict[object, RestoreAnswer]]:
    box = MB(MB.Icon.Question, "Restore unsaved work?", "", MB.StandardButton.NoButton, parent)
    box.setObjectName("restoreBox")
    box.setText("<b>bpe-desktop did not close properly last time.</b>")
    box.setInformativeText(f"An autosaved session was found:\n{description}\n\nRestore it?")
    restore = box.addButton("Restore", MB.ButtonRole.AcceptRole)
    discard = box.addButton(MB.StandardButton.Discard)
    later = box.addButton("Not now", MB.ButtonRole.RejectRole)
    box.setDefaultButton(restore)
    return box, {restore: RestoreAnswer.RESTORE, discard: RestoreAnswer.DISCARD, later: RestoreAnswer.LATER}


def ask_restore(parent: QtWidgets.QWidget | None, description: str) -> RestoreAnswer:
    box, answers = restore_box(parent, description)
    box.exec()
    return answers.get(box.clickedButton(), RestoreAnswer.LATER)


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
