"""Issue 26 item 13: a big session file is read, decoded, parsed and validated on a helper thread behind
the modal progress dialog (gui/modal_job.py), not on the GUI thread; it opens as it was saved, a refused
one changes nothing and shows its dialog, and Cancel changes nothing and shows none."""

from __future__ import annotations

import json
import threading

import pytest
from PySide6 import QtCore, QtWidgets

from bpe_desktop.core.formats import session_file
from bpe_desktop.core.io import reading
from bpe_desktop.gui import app as gui_app
from bpe_desktop.gui.session_io import manager

TEXT = "".join(f"[WARN] [17123456{i:04d}.5] [nav2]: é {i}\n" for i in range(3000))  # ~120 KB typed


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> list[threading.Thread]:
    """Sessions over 4 KB count as big, read in 8 KB pieces; the threads load_session ran on."""
    monkeypatch.setattr(manager, "BACKGROUND_BYTES", 4096)
    monkeypatch.setattr(reading, "PIECE_BYTES", 8192)
    monkeypatch.setattr(session_file, "PIECE_BYTES", 8192)
    threads: list[threading.Thread] = []
    real = manager.load_session

    def load(path: str, step=None):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread())
        return real(path, step)

    monkeypatch.setattr(manager, "load_session", load)
    return threads


def _saved(qtbot, tmp_path):  # type: ignore[no-untyped-def]
    gui_app.make_app()
    w = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(w)
    w.corpus.editor.setPlainText(TEXT)
    path = tmp_path / "big.bpesession"
    assert w.sessions.save_to(str(path))
    w2 = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(w2)
    w2.corpus.editor.setPlainText("low 5\nlower 2\n")
    return path, w2


def _state(w):  # type: ignore[no-untyped-def]
    s = w.session
    return (list(s.model.merges), s.step, s.config, w.settings.config(), s.state, w.corpus.source(), w.windowTitle())


def test_a_big_session_is_read_off_the_gui_thread_and_opens_as_saved(qtbot, dialogs, tmp_path, small_limits):
    path, w2 = _saved(qtbot, tmp_path)
    assert w2.sessions.open_session(str(path))
    assert len(small_limits) == 1 and small_limits[0] is not threading.main_thread()
    assert w2.corpus.source().text == TEXT and w2.session.work.source.text == TEXT
    assert dialogs == []


def test_a_small_session_is_read_here(qtbot, dialogs, tmp_path, small_limits, monkeypatch):
    monkeypatch.setattr(manager, "BACKGROUND_BYTES", 1 << 30)
    path, w2 = _saved(qtbot, tmp_path)
    assert w2.sessions.open_session(str(path))
    assert small_limits == [threading.main_thread()] and w2.corpus.source().text == TEXT


@pytest.mark.parametrize("damage", ["merges", "utf-8", "json"])
def test_a_refused_big_session_changes_nothing(qtbot, dialogs, tmp_path, small_limits, damage):
    path, w2 = _saved(qtbot, tmp_path)
    data = path.read_bytes()
    if damage == "merges":
        raw = json.loads(data)
        raw["settings"]["merges"] = 2**40
        data = json.dumps(raw).encode()
    elif damage == "utf-8":
        data = data[:-20] + b"\xff" + data[-19:]  # in the last piece
    else:
        data = data[:-2]
    path.write_bytes(data)
    before = _state(w2)
    assert not w2.sessions.open_session(str(path))
    assert small_limits and small_limits[0] is not threading.main_thread()
    assert len(dialogs) == 1 and dialogs[0][0] == "Cannot open session" and str(path) in dialogs[0][1]
    assert _state(w2) == before


def test_cancel_changes_nothing(qtbot, dialogs, tmp_path, small_limits, monkeypatch):
    path, w2 = _saved(qtbot, tmp_path)
    steps = [0]

    def slow(path: str, step=None):  # type: ignore[no-untyped-def]
        while True:  # reports until the user cancels
            steps[0] += 1
            step(steps[0] % 100, 100)
            threading.Event().wait(0.002)

    monkeypatch.setattr(manager, "load_session", slow)

    def press_cancel() -> None:
        d = next((x for x in QtWidgets.QApplication.topLevelWidgets()
                  if isinstance(x, QtWidgets.QProgressDialog) and x.isVisible()), None)
        if d is None:
            QtCore.QTimer.singleShot(5, press_cancel)
            return
        d.findChild(QtWidgets.QPushButton).click()

    QtCore.QTimer.singleShot(0, press_cancel)
    before = _state(w2)
    assert not w2.sessions.open_session(str(path))
    assert steps[0] > 0 and dialogs == [] and _state(w2) == before
