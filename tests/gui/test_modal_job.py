"""Opening a big tokenizer (o200k: 200k merges recovered from its ranks) runs on a helper thread behind a
modal progress dialog: the GUI thread keeps serving events meanwhile, Cancel stops the job and changes
nothing, and a job's error reaches the caller as if it had run inline."""

from __future__ import annotations

import threading

import pytest
from PySide6 import QtCore, QtWidgets

from bpe_desktop.core.tokenizers.ranks import PROGRESS_EVERY, RankTokenizer, recover_merges_prefix
from bpe_desktop.gui import file_actions, modal_job
from bpe_desktop.gui.session import Session


def _dialog() -> QtWidgets.QProgressDialog | None:
    return next((w for w in QtWidgets.QApplication.topLevelWidgets()
                 if isinstance(w, QtWidgets.QProgressDialog) and w.isVisible()), None)


def test_the_job_runs_off_the_gui_thread_while_the_gui_thread_serves_events(qtbot) -> None:
    served = threading.Event()  # set by a timer on the GUI thread: the job waits for it
    QtCore.QTimer.singleShot(0, served.set)
    seen: list[object] = []

    def job(progress: modal_job.Progress) -> str:
        seen.append(threading.current_thread())
        assert served.wait(30), "the GUI thread served no event while the job ran"
        progress.step(1, 2)
        return "done"

    assert modal_job.run_modal(None, "Working", job) == "done"
    assert seen and seen[0] is not threading.main_thread()
    assert _dialog() is None  # closed


class _OnHide(QtCore.QObject):
    """When a progress dialog hides, start a timer due at once (as input, or any timer, falls due)."""

    def __init__(self, seen: list[str]) -> None:
        super().__init__()
        self.seen = seen

    def eventFilter(self, obj: QtCore.QObject, ev: QtCore.QEvent) -> bool:
        if ev.type() == QtCore.QEvent.Type.Hide and isinstance(obj, QtWidgets.QProgressDialog):
            self.seen.append("dialog closed")
            QtCore.QTimer.singleShot(0, lambda: self.seen.append("a timer due then"))
        return False


def test_the_call_returns_a_turn_after_the_dialog_closed(qtbot) -> None:
    """Closing the dialog and what the caller does with the result (showing a run: the window's biggest
    change) fall in different turns: a timer due when the dialog closed runs before the call returns."""
    seen: list[str] = []
    watch = _OnHide(seen)
    app = QtWidgets.QApplication.instance()
    app.installEventFilter(watch)
    try:
        assert modal_job.run_modal(None, "Working", lambda _p: threading.Event().wait(0.2) or "done") == "done"
        seen.append("returned")
    finally:
        app.removeEventFilter(watch)
    assert seen[:3] == ["dialog closed", "a timer due then", "returned"], seen  # (the timer last before)
    assert _dialog() is None


def test_input_in_the_turn_after_the_dialog_closed_is_dropped(qtbot) -> None:
    """The dialog has closed but the caller does not have the result yet: a key typed then changes nothing
    (as while the dialog showed), and once the call has returned keys reach the window again."""
    from PySide6 import QtTest

    edit = QtWidgets.QLineEdit()
    qtbot.addWidget(edit)
    edit.show()
    typed: list[str] = []

    class TypeOnHide(QtCore.QObject):
        def eventFilter(self, obj: QtCore.QObject, ev: QtCore.QEvent) -> bool:
            if ev.type() == QtCore.QEvent.Type.Hide and isinstance(obj, QtWidgets.QProgressDialog):
                QtCore.QTimer.singleShot(0, lambda: (QtTest.QTest.keyClicks(edit, "late"), typed.append("typed")))
            return False

    watch = TypeOnHide()
    app = QtWidgets.QApplication.instance()
    app.installEventFilter(watch)
    try:
        assert modal_job.run_modal(None, "Working", lambda _p: threading.Event().wait(0.1) or "done") == "done"
    finally:
        app.removeEventFilter(watch)
    assert typed == ["typed"] and edit.text() == ""
    QtTest.QTest.keyClicks(edit, "now")
    assert edit.text() == "now"


def test_cancel_raises_cancelled_and_the_dialog_shows_progress(qtbot) -> None:
    shown: list[tuple[str, int, int]] = []

    def press_cancel() -> None:
        d = _dialog()
        if d is None or d.maximum() == 0:  # not up yet, or no count shown yet: look again
            QtCore.QTimer.singleShot(5, press_cancel)
            return
        shown.append((d.labelText(), d.value(), d.maximum()))
        d.findChild(QtWidgets.QPushButton).click()  # the Cancel button, as the user presses it

    QtCore.QTimer.singleShot(0, press_cancel)
    steps = [0]

    def job(progress: modal_job.Progress) -> None:
        progress.stage = "Counting"
        while True:  # until cancelled
            steps[0] += 1
            progress.step(steps[0] % 100, 100)
            threading.Event().wait(0.001)

    with pytest.raises(modal_job.Cancelled):
        modal_job.run_modal(None, "Working", job)
    assert shown and shown[0][0] == "Counting" and shown[0][2] == 100


def test_a_jobs_error_reaches_the_caller(qtbot) -> None:
    def job(progress: modal_job.Progress) -> None:
        raise ValueError("bad")

    with pytest.raises(ValueError, match="bad"):
        modal_job.run_modal(None, "Working", job)


def test_recovery_reports_progress_and_stops_when_it_raises() -> None:
    ranks = {bytes([b]): b for b in range(256)}
    for k in range(3 * PROGRESS_EVERY):  # the 676 two-capital tokens, then each of them + a small letter
        ranks[bytes([65 + k % 26, 65 + (k // 26) % 26, 97 + (k // 676) % 26])[: 2 + (k >= 676)]] = len(ranks)
    calls: list[tuple[int, int]] = []
    base, merges, outside = recover_merges_prefix(ranks, lambda d, t: calls.append((d, t)))
    assert calls and all(t == len(ranks) - 256 for _, t in calls) and calls == sorted(calls)
    assert (base, merges, outside) == recover_merges_prefix(ranks)

    class Stop(Exception):
        pass

    def stop(d: int, t: int) -> None:
        raise Stop

    tok = RankTokenizer(ranks, "gpt2")
    with pytest.raises(Stop):
        tok.recover(stop)
    assert not tok.has_model  # nothing kept
    assert tok.recover().merges == merges and tok.has_model


def test_cancelled_open_changes_nothing(qtbot, dialogs, monkeypatch) -> None:
    """File → Open well-known tokenizer on o200k, cancelled while its merges are recovered."""
    s = Session()
    parent = QtWidgets.QWidget()
    qtbot.addWidget(parent)
    before = s.model
    real = RankTokenizer.recover

    def recover(self: RankTokenizer, progress=None):  # cancel at the first report, as the button would
        def cancelled(done: int, total: int) -> None:
            raise modal_job.Cancelled

        return real(self, cancelled)

    monkeypatch.setattr(RankTokenizer, "recover", recover)
    assert file_actions._read_in_background("o200k")
    assert file_actions.open_tokenizer(parent, s, "o200k") is None
    assert s.model is before and not dialogs


def test_a_file_read_in_the_background_still_asks_for_its_pattern(qtbot, dialogs, monkeypatch, tmp_path) -> None:
    """The question is asked on the GUI thread between two runs of the job (a rank file of no known encoding)."""
    from bpe_desktop.core.formats.presets import PRESETS, bundled_data

    path = tmp_path / "mine.tiktoken"
    path.write_bytes(b"".join(bundled_data(PRESETS["gpt2"]).splitlines(keepends=True)[:300]))
    monkeypatch.setattr(file_actions, "BACKGROUND_BYTES", 0)
    asked: list[str] = []

    def get_item(parent, title, label, items, current=0, editable=True):
        asked.append(threading.current_thread().name)
        return "cl100k", True

    monkeypatch.setattr(QtWidgets.QInputDialog, "getItem", staticmethod(get_item))
    s = Session()
    parent = QtWidgets.QWidget()
    qtbot.addWidget(parent)
    assert file_actions._read_in_background(str(path))
    model = file_actions.open_tokenizer(parent, s, str(path))
    assert model is not None and model.pretokenizer == "cl100k" and len(model.merges) == 300 - 256
    assert asked == [threading.main_thread().name] and not dialogs
