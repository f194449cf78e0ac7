"""Issue 26, items 1-3: autosaves live until their content is safe elsewhere, and autosave never stops silently.

* Restoring deletes nothing at once: an orphan goes only when this window's next autosave (or a saved
  session) holds its content; every orphan is offered, newest first, with its time and corpus; the others
  stay; ``--screenshot --restore`` deletes nothing; a window killed right after restoring leaves the orphan.
* A writer killed mid-save (``kill -9`` in fsync) leaves a ``.tmp`` that the next start removes, while a
  live writer's is kept.
* A corpus file name that is not UTF-8 is saved and autosaved losslessly; an autosave that fails for any
  reason says so in the status bar and at the next Save session, and the next change tries again.
* A data folder that is a file, under a file or immutable: the window starts, autosave is off and says why.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from bpe_desktop.core import TrainConfig, train
from bpe_desktop.core.formats.session_file import SessionCorpus, SessionDoc, load_session, save_session
from bpe_desktop.gui import app as gui_app
from bpe_desktop.gui.session_io import autosave, autosave_files, dialogs
from support import ROOT

TABLE = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def _orphan(folder, text: str, merges: int, mtime: float) -> str:
    """An autosave left by a process that is gone: typed text *text*, *merges* merges."""
    cfg = TrainConfig(merges=merges)
    model, recs = train(TABLE, cfg)
    path = autosave_files.autosave_path(str(folder), _dead_pid())
    save_session(path, SessionDoc(SessionCorpus.from_text(text), cfg, model, tuple(recs), merges))
    os.utime(path, (mtime, mtime))
    return path


def _window(qtbot, autosaving: bool = True):
    gui_app.make_app()
    w = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.sessions.enable(autosave=autosaving, ask=False)
    return w


@pytest.fixture
def data(tmp_path, monkeypatch):
    folder = tmp_path / "data"
    folder.mkdir()
    monkeypatch.setenv(autosave.ENV_DIR, str(folder))
    return folder


def test_every_orphan_is_offered_newest_first_and_only_the_restored_one_goes_once_saved_again(
        qtbot, dialogs, data, monkeypatch) -> None:
    older = _orphan(data, "older corpus text", 2, 1_700_000_000)
    newer = _orphan(data, "newer corpus text", 4, 1_700_000_600)
    offered: list[list[str]] = []
    monkeypatch.setattr(dialogs_mod, "ask_restore",
                        lambda parent, texts: offered.append(list(texts)) or (dialogs_mod.RestoreAnswer.RESTORE, 0))
    w = _window(qtbot)
    assert w.sessions.offer_recovery()
    assert len(offered[0]) == 2
    assert "4 merges" in offered[0][0] and "typed text" in offered[0][0] and "2 merges" in offered[0][1]
    assert "2023-11-14" in offered[0][0] or "2023-11-15" in offered[0][0]  # its time (local)
    assert w.corpus.source().text == "newer corpus text" and len(w.session.model.merges) == 4
    assert os.path.exists(newer) and os.path.exists(older)  # a crash now still finds both
    saver = w.sessions.autosaver
    qtbot.waitUntil(lambda: saver.saves >= 1, timeout=20_000)
    assert not os.path.exists(newer) and os.path.exists(older)  # in our autosave now; the other one stays
    assert len(load_session(saver.path).model.merges) == 4

    w2 = _window(qtbot)  # the next start offers the one left (ours belongs to a live process)
    offered.clear()
    monkeypatch.setattr(dialogs_mod, "ask_restore",
                        lambda parent, texts: offered.append(list(texts)) or (dialogs_mod.RestoreAnswer.DISCARD, 0))
    assert not w2.sessions.offer_recovery()
    assert len(offered[0]) == 1 and "2 merges" in offered[0][0]
    assert not os.path.exists(older)  # discarded: the user said so
    assert os.path.exists(saver.path)


def test_a_restored_orphan_goes_when_the_session_is_saved(qtbot, dialogs, data, tmp_path) -> None:
    orphan = _orphan(data, "some text", 3, 1_700_000_000)
    w = _window(qtbot, autosaving=False)
    assert w.sessions.offer_recovery(dialogs_mod.RestoreAnswer.RESTORE)
    assert os.path.exists(orphan)
    assert w.sessions.save_to(str(tmp_path / "kept.bpesession"))
    assert not os.path.exists(orphan)


def test_a_window_closed_before_it_autosaved_keeps_the_orphan(qtbot, dialogs, data) -> None:
    orphan = _orphan(data, "some text", 3, 1_700_000_000)
    w = _window(qtbot)
    assert w.sessions.offer_recovery(dialogs_mod.RestoreAnswer.RESTORE)
    w.close()
    assert os.path.exists(orphan)
    assert [o.path for o in autosave.orphans()] == [orphan]  # offered again


def test_screenshot_with_restore_deletes_nothing(qtbot, dialogs, data, tmp_path) -> None:
    orphan = _orphan(data, "some text", 3, 1_700_000_000)
    out = tmp_path / "out.png"
    assert gui_app.main(["--screenshot", str(out), "--restore", "--size", "800x600"]) == 0
    assert out.exists() and os.path.exists(orphan)
    assert [o.path for o in autosave.orphans()] == [orphan]


RESTORE_AND_HANG = textwrap.dedent("""
    import time
    from PySide6 import QtWidgets
    from bpe_desktop.gui import app
    from bpe_desktop.gui.session_io.dialogs import RestoreAnswer
    app.make_app()
    w = app.make_window(remember_layout=False)
    w.show()
    w.sessions.enable(autosave=True, ask=True)
    print("restored" if w.sessions.offer_recovery(RestoreAnswer.RESTORE) else "nothing", flush=True)
    while True:
        QtWidgets.QApplication.processEvents()
        time.sleep(0.05)
""")


def test_a_crash_right_after_restoring_still_leaves_the_autosave(data) -> None:
    orphan = _orphan(data, "precious text", 3, 1_700_000_000)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen", autosave.ENV_DIR: str(data)}
    child = subprocess.Popen([sys.executable, "-c", RESTORE_AND_HANG], stdout=subprocess.PIPE, text=True, env=env)
    try:
        line = child.stdout.readline()
        assert line.strip() == "restored"
        assert [o.path for o in autosave_files.orphans(str(data))] == []  # the child holds it: not offered twice
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    found = autosave_files.orphans(str(data))
    assert orphan in [o.path for o in found]
    assert load_session(orphan).corpus.text == "precious text"


WRITE_AND_STALL = textwrap.dedent("""
    import os, sys, time
    from bpe_desktop.core import TrainConfig
    from bpe_desktop.core.formats.session_file import SessionCorpus, SessionDoc, save_session
    from bpe_desktop.gui.session_io import autosave_files
    folder = sys.argv[1]
    assert autosave_files.claim(autosave_files.lock_path(folder, os.getpid()))  # as a window does
    def stall(fd):
        print("writing", flush=True)
        time.sleep(3600)
    os.fsync = stall
    save_session(autosave_files.autosave_path(folder, os.getpid()),
                 SessionDoc(SessionCorpus.from_text("x" * 100_000), TrainConfig()))
""")


def _stalled_writer(data):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-c", WRITE_AND_STALL, str(data)], stdout=subprocess.PIPE, text=True,
                             env=env)
    assert child.stdout.readline().strip() == "writing"
    return child


def _temps(data) -> list[str]:
    return sorted(p.name for p in data.iterdir() if p.name.endswith(".tmp"))


def test_a_writer_killed_mid_save_leaves_no_stray_temporary(qtbot, dialogs, data) -> None:
    killed, alive = _stalled_writer(data), _stalled_writer(data)
    try:
        assert len(_temps(data)) == 2
        killed.send_signal(signal.SIGKILL)
        killed.wait()
        w = _window(qtbot)  # the next start cleans what the dead writer left, not what the live one writes
        assert _temps(data) == [t for t in _temps(data) if t.startswith(f".autosave-{alive.pid}.")]
        assert len(_temps(data)) == 1
        assert not os.path.exists(autosave_files.lock_path(str(data), killed.pid))
        assert not w.sessions.offer_recovery(dialogs_mod.RestoreAnswer.LATER)  # no autosave was completed
    finally:
        alive.send_signal(signal.SIGKILL)
        alive.wait()
    autosave_files.clean_stale(str(data))
    assert _temps(data) == []


def test_a_corpus_file_name_that_is_not_utf8_saves_and_autosaves_losslessly(qtbot, dialogs, data, tmp_path) -> None:
    raw = os.path.join(os.fsencode(tmp_path), b"caf\xe9 \xff.txt")
    with open(raw, "wb") as f:
        f.write(b"low low lower newest widest\n" * 20)
    gui_app.make_app()
    w = gui_app.make_window(os.fsdecode(raw), remember_layout=False)
    qtbot.addWidget(w)
    w.show()
    w.sessions.enable(autosave=True, ask=False)
    target = tmp_path / "s.bpesession"
    assert w.sessions.save_to(str(target)) and dialogs == []
    assert os.fsencode(load_session(target).corpus.files[0].path) == raw
    saver = w.sessions.autosaver
    saver.save_now()
    qtbot.waitUntil(lambda: saver.saves == 1 or bool(saver.last_error), timeout=20_000)
    assert saver.last_error == "" and os.fsencode(load_session(saver.path).corpus.files[0].path) == raw


def test_an_autosave_that_fails_for_any_reason_says_so_and_tries_again(qtbot, dialogs, data, tmp_path,
                                                                       monkeypatch) -> None:
    from bpe_desktop.gui.session_io import document

    w = _window(qtbot)
    saver = w.sessions.autosaver
    real = document.to_doc

    def broken(*a: object) -> object:
        raise RuntimeError("a bug in to_doc")
    monkeypatch.setattr(document, "to_doc", broken)
    saver.save_now()
    qtbot.waitUntil(lambda: bool(saver.last_error), timeout=20_000)
    assert "RuntimeError: a bug in to_doc" in saver.last_error
    assert saver.label.isVisible() and saver.label.text() == "Autosave failed"
    assert "Autosave failed" in w.statusBar().currentMessage()
    monkeypatch.setattr(document, "to_doc", real)
    assert w.sessions.save_to(str(tmp_path / "s.bpesession"))  # the next save says it too
    assert "autosave is not working" in w.statusBar().currentMessage()
    saver.save_now()  # and the autosave thread is not dead: the next try works
    qtbot.waitUntil(lambda: saver.saves == 1, timeout=20_000)
    assert saver.last_error == "" and not saver.label.isVisible()


def _immutable(path) -> bool:
    return subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode == 0


@pytest.mark.parametrize("kind", ["a file", "under a file", "read-only"])
def test_an_unusable_data_folder_leaves_autosave_off_and_says_why(qtbot, dialogs, tmp_path, monkeypatch,
                                                                  kind: str) -> None:
    spot = tmp_path / "spot"
    locked = None
    if kind == "a file":
        spot.write_text("x")
        folder, words = spot, "is a file"
    elif kind == "under a file":
        spot.write_text("x")
        folder, words = spot / "sub" / "data", "is a file"
    else:
        spot.mkdir()
        if os.geteuid() != 0:
            os.chmod(spot, 0o555)
        elif not _immutable(spot):
            pytest.skip("chattr +i is not available here")
        locked, folder, words = spot, spot, "cannot be written"
    monkeypatch.setenv(autosave.ENV_DIR, str(folder))
    try:
        w = _window(qtbot)  # what the program does at start: no exception
        assert not w.sessions.offer_recovery()
        saver = w.sessions.autosaver
        assert not saver.enabled and words in saver.off_reason and str(folder) in saver.off_reason
        assert saver.label.isVisible() and saver.label.text() == "Autosave is off"
        assert "Autosave is off" in w.statusBar().currentMessage() and "BPE_DESKTOP_DATA_DIR" in saver.off_reason
        w.sessions.mark_modified()
        saver.save_now()
        assert saver.saves == 0
        w.close()
    finally:
        if locked is not None:
            subprocess.run(["chattr", "-i", str(locked)], capture_output=True)
            os.chmod(locked, 0o755)


def test_the_session_limits_are_the_settings_panes(qtbot, dialogs) -> None:
    from bpe_desktop.core.formats.session_check import LIMITS

    w = _window(qtbot, autosaving=False)
    s = w.settings
    assert {"merges": s.merges.maximum(), "vocab_size": s.vocab.maximum(), "min_frequency": s.min_freq.maximum()
            } == LIMITS


dialogs_mod = dialogs


def test_the_restore_question_lists_every_autosave_and_answers_for_the_one_chosen(qtbot) -> None:
    from PySide6 import QtCore

    box = dialogs_mod.RestoreBox(None, ["saved 2026-12-01 10:00:00: 4 merges", "saved 2026-11-30 09:00:00: 2 merges"])
    qtbot.addWidget(box)
    assert [box.list.item(i).text() for i in range(box.list.count())][1].endswith("2 merges")
    assert box.index == 0  # the newest is chosen
    box.list.setCurrentRow(1)
    discard = next(b for b, a in box.buttons.items() if a is dialogs_mod.RestoreAnswer.DISCARD)
    QtCore.QTimer.singleShot(0, discard.click)
    box.exec()
    assert (box.answer, box.index) == (dialogs_mod.RestoreAnswer.DISCARD, 1)
