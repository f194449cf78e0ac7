"""GUI fixtures: a seeded session, recorded dialogs and questions, the main window as the program opens it.

Qt is imported inside the fixtures, so collecting the other areas never loads it."""

from __future__ import annotations

import pytest

from support import SEED_TABLE


@pytest.fixture
def seeded():
    """(session, trainer, records): a session on the seeds' word-count table (7 merges) and a trainer that
    ran to the end (its model is not in the session yet: ``session.reset_model(copy.deepcopy(t.model), recs)``)."""
    from bpe_desktop.core import CorpusSource, TrainConfig, Trainer, count_source
    from bpe_desktop.gui.session import Session

    s = Session()
    cfg = TrainConfig(merges=7)
    s.set_corpus(CorpusSource.from_text(SEED_TABLE, word_counts=True), cfg)
    t = Trainer(count_source(s.source, cfg), cfg)
    return s, t, t.run()


@pytest.fixture
def dialogs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Record error dialogs instead of blocking on them."""
    from PySide6 import QtWidgets

    shown: list[tuple[str, str]] = []

    def critical(parent: object, title: str, text: str, *a: object, **k: object) -> int:
        shown.append((title, text))
        return 0

    monkeypatch.setattr(QtWidgets.QMessageBox, "critical", staticmethod(critical))
    return shown


class Asked(list):
    """The questions asked so far; ``answer`` is what the next one gets."""

    answer: object = None


@pytest.fixture
def questions(monkeypatch: pytest.MonkeyPatch) -> Asked:
    """Record yes/no questions instead of blocking on them (answered No unless a test says otherwise)."""
    from PySide6 import QtWidgets

    asked = Asked()
    asked.answer = QtWidgets.QMessageBox.StandardButton.No

    def question(parent: object, title: str, text: str, *a: object, **k: object) -> object:
        asked.append(text)
        return asked.answer

    monkeypatch.setattr(QtWidgets.QMessageBox, "question", staticmethod(question))
    return asked


@pytest.fixture
def window(qtbot, dialogs):
    """The main window as the program opens it (the seeds' table, seed settings), shown; closed after."""
    from bpe_desktop.gui import app as gui_app

    gui_app.make_app()
    w = gui_app.make_window()
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.close()


EXTENDED_MERGES = 5  # the merges of the ``extended`` fixture


@pytest.fixture(scope="session")
def extended(tmp_path_factory):
    """(the corpus, the written file, the extension job's result): cl100k + EXTENDED_MERGES merges on the first 300
    lines of the robot-log sample, the job run in-process (its spawn path is tested in test_extension_run.py);
    shared by the extension tests, which only read it."""
    from bpe_desktop.gui.extend.job import ExtendJob, run
    from support import ROBOT_SAMPLE_FILE

    text = "".join(ROBOT_SAMPLE_FILE.read_text(encoding="utf-8").splitlines(keepends=True)[:300])
    out = tmp_path_factory.mktemp("ext") / "e.tiktoken"
    return text, out, run(ExtendJob("cl100k", EXTENDED_MERGES, str(out), text=text))


@pytest.fixture(autouse=True)
def _free_closed_windows():
    """Free what earlier tests closed before this one starts.

    pytest-qt closes a test's widgets and asks Qt to delete them later; those deletions run here, and when
    many parentless widgets are left (pyqtgraph's menus belong to the Python objects of their plots, which
    the GUI's gc policy may have frozen) a full collection frees them -- otherwise thousands of dead
    windows' menus stay, and each app-wide restyle (View -> Theme) repolishes them all."""
    from PySide6 import QtCore, QtWidgets

    app = QtWidgets.QApplication.instance()
    if app is not None:
        QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
        if len(app.topLevelWidgets()) > 150:
            import gc

            gc.unfreeze()
            gc.collect()
            QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    yield
