"""Issue 10, GUI half: sessions (save, reopen, corpus changed or gone, newer version), the modified marker
and the ask-before-losing prompt, crash recovery from an autosave, refused files, write errors.

Real windows offscreen (pytest-qt); questions are answered by replacing the ``ask_*`` functions of
``gui/session_io/dialogs.py``; error dialogs are recorded by the ``dialogs`` fixture.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest
from PySide6 import QtCore, QtWidgets

from bpe_desktop.core import TrainConfig, count_source, train
from bpe_desktop.core.counting.sources import CorpusSource
from bpe_desktop.core.formats import save_model
from bpe_desktop.core.formats.session_file import load_session
from bpe_desktop.gui import app as gui_app
from bpe_desktop.gui import layouts
from bpe_desktop.gui.session_io import autosave, dialogs
from bpe_desktop.gui.training.protocol import StopReason, TrainingState
from bpe_desktop.gui.work import run_changed
from support import ROOT as REPO

ROOT = str(REPO)
SAMPLE = os.path.join(ROOT, "resources", "samples", "robotlogs_sample.txt")
CONFIG = TrainConfig(mode="bytes", pretokenizer="cl100k", tie_break="hf", merges=30, min_frequency=2)


@pytest.fixture
def corpus_file(tmp_path):
    p = tmp_path / "logs.txt"
    with open(SAMPLE, encoding="utf-8") as f:
        p.write_text(f.read()[:60_000], encoding="utf-8")
    return p


def new_window(qtbot, corpus: str | None = None):
    gui_app.make_app()
    w = gui_app.make_window(corpus, remember_layout=False)
    qtbot.addWidget(w)
    w.resize(1200, 800)
    w.show()
    qtbot.waitExposed(w)
    return w


def trained_window(qtbot, corpus_file, step: int = 17):
    w = new_window(qtbot, str(corpus_file))
    w.settings.set_config(CONFIG)
    assert w.train()
    assert gui_app.wait_for_training(w, 120)
    w.session.set_step(step)
    return w


def layout_seen(w) -> dict[str, tuple[object, ...]]:
    """What the user sees of each dock: shown (View menu), floating, area, the docks in its tab area (in tab
    order), whether it is the front tab, and where it is (front tabs only: a tab behind is parked off-screen)."""
    out: dict[str, tuple[object, ...]] = {}
    for key, d in w.docks.items():
        front = not d.visibleRegion().isEmpty()
        out[key] = (d.toggleViewAction().isChecked(), d.isFloating(), w.dockWidgetArea(d),
                    tuple(t.objectName() for t in w.tabifiedDockWidgets(d)), front,
                    d.geometry().getRect() if front else None)
    bars = [b for b in w.findChildren(QtWidgets.QTabBar) if b.parent() is w and b.isVisible() and b.count()]
    out["tab bars"] = tuple(sorted((tuple(b.tabText(i) for i in range(b.count())), b.x(), b.y())
                                   for b in bars))  # and no stale bar of a replaced layout drawn over a pane
    return out


def assert_same_layout(seen, expected, px: int = 2) -> None:
    assert seen.keys() == expected.keys()
    seen = dict(seen)
    bars, want_bars = seen.pop("tab bars"), expected["tab bars"]
    assert [t for t, _x, _y in bars] == [t for t, _x, _y in want_bars]
    for (_t, x, y), (_w, wx, wy) in zip(bars, want_bars, strict=True):
        assert abs(x - wx) <= px and abs(y - wy) <= px, (bars, want_bars)
    for key, (*what, rect) in seen.items():
        *want, want_rect = expected[key]
        assert what == want, key
        assert (rect is None) == (want_rect is None), key
        if rect is not None:
            assert all(abs(a - b) <= px for a, b in zip(rect, want_rect, strict=True)), (key, rect, want_rect)


def test_session_round_trip_restores_merges_step_settings_and_references(qtbot, dialogs, tmp_path, corpus_file):
    ref = tmp_path / "ref.json"
    model, recs = train(count_source(CorpusSource.from_files([corpus_file]), CONFIG), CONFIG.with_(merges=10))
    save_model(model, str(ref), "native", recs)
    w = trained_window(qtbot, corpus_file)
    assert w.compare.add_reference(str(ref))
    assert w.isWindowModified() and "[*]" in w.windowTitle()
    merges, counts = list(w.session.model.merges), [r.count for r in w.session.records]
    path = tmp_path / "work.bpesession"
    assert w.sessions.save_to(str(path))
    saved_layout = layout_seen(w)
    assert not w.isWindowModified() and w.windowTitle().startswith("work.bpesession")
    doc = load_session(path)
    assert doc.corpus.files and doc.corpus.files[0].path == str(corpus_file)  # by reference, not embedded
    assert doc.corpus.text is None
    w.close()

    w2 = new_window(qtbot)
    assert w2.sessions.open_session(str(path))
    s = w2.session
    assert list(s.model.merges) == merges and [r.count for r in s.records] == counts
    assert s.step == 17 and w2.timeline.isEnabled()
    assert w2.settings.config() == CONFIG and s.config == CONFIG
    assert s.stop_reason is w.session.stop_reason is StopReason.MERGES  # why it stopped, as saved
    assert s.work == w.session.work and not w2.controller.running  # the same work, nothing retrained
    assert [r.spec for r in w2.compare.references if r.enabled and r.removable] == [str(ref)]
    assert w2.corpus.source().text == corpus_file.read_text(encoding="utf-8")
    assert not w2.isWindowModified() and dialogs == []
    # the window's own layout came back as the user sees it.  (Not the same saveState() bytes: Qt writes each
    # dock's current minimum size into them and ignores it when restoring -- qdockarealayout.cpp reads it
    # into a dummy -- and a pane's minimum follows its content, e.g. the inspector's "yours (step 17)".)
    assert_same_layout(layout_seen(w2), saved_layout)
    assert layouts.current(w2) == "Learn"


def test_a_session_opened_before_the_window_shows_keeps_its_named_layout_and_sizes(qtbot, dialogs, tmp_path):
    w = new_window(qtbot)
    layouts.apply(w, "Train")
    w.resizeDocks([w.docks["settings"]], [420], QtCore.Qt.Orientation.Horizontal)  # the user drags a splitter
    w.docks["why"].raise_()  # and brings a tab to the front
    qtbot.waitUntil(lambda: len(layout_seen(w)["tab bars"]) == 4)  # Train's four tab areas are drawn
    path = tmp_path / "train.bpesession"
    assert w.sessions.save_to(str(path))
    saved_layout = layout_seen(w)
    assert load_session(path).extras["layout_name"] == "Train"
    w.close()

    gui_app.make_app()
    w2 = gui_app.make_window(remember_layout=False)  # opened before it is shown
    qtbot.addWidget(w2)
    w2.resize(1200, 800)
    assert w2.sessions.open_session(str(path))
    w2.show()
    qtbot.waitExposed(w2)
    assert layouts.current(w2) == "Train"  # View → Layout ticks the layout the session was saved in
    qtbot.waitUntil(lambda: not w2.docks["why"].visibleRegion().isEmpty())
    assert_same_layout(layout_seen(w2), saved_layout)  # the layout's own sizes did not replace the saved ones


def test_typed_corpus_is_embedded(qtbot, dialogs, tmp_path):
    w = new_window(qtbot)
    w.corpus.set_text("hello world\nhello there\n", word_counts=False)
    path = tmp_path / "typed.bpesession"
    assert w.sessions.save_to(str(path))
    doc = load_session(path)
    assert doc.corpus.files == () and doc.corpus.text == "hello world\nhello there\n"
    w2 = new_window(qtbot)
    assert w2.sessions.open_session(str(path))
    assert w2.corpus.source().text == "hello world\nhello there\n"


@pytest.mark.parametrize("how", ["changed", "vanished"])
def test_changed_or_vanished_corpus_is_reported_not_retrained(qtbot, dialogs, tmp_path, corpus_file, monkeypatch,
                                                             how):
    w = trained_window(qtbot, corpus_file)
    merges = list(w.session.model.merges)
    path = tmp_path / "s.bpesession"
    assert w.sessions.save_to(str(path))
    w.close()
    if how == "changed":
        corpus_file.write_text("something else entirely\n", encoding="utf-8")
    else:
        moved = tmp_path / "moved.txt"
        os.replace(corpus_file, moved)
    asked = []
    answers = [dialogs_mod.CorpusAnswer.CANCEL]

    def ask(parent, problems):
        asked.append([(p.state.value, p.path) for p in problems])
        return answers.pop(0)

    monkeypatch.setattr(dialogs_mod, "ask_corpus", ask)
    w2 = new_window(qtbot)
    before = (w2.corpus.source(), list(w2.session.model.merges), w2.session.config)
    assert not w2.sessions.open_session(str(path))  # cancelled: nothing changes
    assert asked == [[("changed" if how == "changed" else "missing", str(corpus_file))]]
    assert (w2.corpus.source(), list(w2.session.model.merges), w2.session.config) == before
    if how == "changed":
        answers.append(dialogs_mod.CorpusAnswer.OPEN_ANYWAY)
        assert w2.sessions.open_session(str(path))
        assert w2.corpus.source().text == "something else entirely\n"
    else:
        answers.append(dialogs_mod.CorpusAnswer.CHOOSE)
        monkeypatch.setattr(dialogs_mod, "choose_corpus_file", lambda parent, old: str(moved))
        assert w2.sessions.open_session(str(path))
        assert w2.corpus.source().text == moved.read_text(encoding="utf-8")
    assert list(w2.session.model.merges) == merges and w2.session.step == 17
    assert not w2.controller.running and w2.session.state is TrainingState.FINISHED  # never silently retrained


dialogs_mod = dialogs


def test_newer_or_damaged_session_is_refused_with_a_dialog(qtbot, dialogs, tmp_path):
    w = new_window(qtbot)
    path = tmp_path / "s.bpesession"
    assert w.sessions.save_to(str(path))
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["version"] = 99
    raw["saved_by"] = "bpe-desktop 9.0"
    path.write_text(json.dumps(raw), encoding="utf-8")
    before = w.corpus.source()
    assert not w.sessions.open_session(str(path))
    assert dialogs[-1][0] == "Cannot open session" and "newer bpe-desktop 9.0" in dialogs[-1][1]
    (tmp_path / "junk.bpesession").write_text("{not json", encoding="utf-8")
    assert not w.sessions.open_session(str(tmp_path / "junk.bpesession"))
    assert "not valid JSON" in dialogs[-1][1]
    assert w.corpus.source() == before


def test_modified_marker_and_ask_before_losing_work(qtbot, dialogs, tmp_path, corpus_file, monkeypatch):
    """Asked only when work would really be lost, saying what: a new corpus, a retrain or an opened tokenizer
    keep the runs (the Runs list), so only typed text no run was trained on, or quitting over unsaved runs, asks."""
    w = trained_window(qtbot, corpus_file)
    w.sessions.enable(autosave=False, ask=True)
    assert w.isWindowModified() and "[*]" in w.windowTitle()
    asked: list[tuple[str, str]] = []
    answer = [dialogs_mod.UnsavedAnswer.CANCEL]
    monkeypatch.setattr(dialogs_mod, "ask_unsaved",
                        lambda parent, action, lost: asked.append((action, lost)) or answer[0])
    merges = list(w.session.model.merges)
    other = tmp_path / "other.txt"
    other.write_text("other text\n", encoding="utf-8")

    w.open_corpus(str(other))  # nothing lost: the trained run stays shown, the status bar says it is stale
    assert asked == [] and w.corpus.source().text == "other text\n"
    assert list(w.session.model.merges) == merges and w.statusBar().currentMessage() == w.STALE
    w.corpus.editor.setPlainText("typed by hand\nand more\n")  # exists nowhere else
    w.open_corpus(str(other))  # cancelled: the typed text stays
    assert asked == [("open another corpus", "the text typed into the Corpus pane (2 lines, not trained on)")]
    assert w.corpus.source().text == "typed by hand\nand more\n"
    w.close()
    assert w.isVisible()  # quitting was cancelled
    assert asked[-1] == ("quit", f"1 run with {len(merges):,} merges not saved in a session file and the text "
                                 "typed into the Corpus pane (2 lines, not trained on)")

    answer[0] = dialogs_mod.UnsavedAnswer.SAVE
    target = tmp_path / "saved.bpesession"
    monkeypatch.setattr(dialogs_mod, "choose_session_to_save", lambda parent, suggested: str(target))
    w.open_corpus(str(other))  # Save, then go on
    assert target.exists() and list(load_session(target).model.merges) == merges
    assert load_session(target).extras["drafts"]["0"]["corpus"]["text"] == "typed by hand\nand more\n"
    assert w.corpus.source().text == "other text\n"

    assert w.isWindowModified()  # the corpus changed since the save: asked again on quitting
    answer[0] = dialogs_mod.UnsavedAnswer.DISCARD
    asked.clear()
    w.close()
    assert not w.isVisible() and [a for a, _ in asked] == ["quit"]


def test_refused_files_leave_the_window_unchanged(qtbot, dialogs, tmp_path, corpus_file):
    w = trained_window(qtbot, corpus_file)
    native = tmp_path / "n.json"
    save_model(w.session.model, str(native), "native", w.session.records)
    raw = json.loads(native.read_text(encoding="utf-8"))
    raw["settings"]["pretokenizer"] = 5
    native.write_text(json.dumps(raw), encoding="utf-8")
    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf-8")
    tik = tmp_path / "t.tiktoken"
    tik.write_text("".join(f"{base64.b64encode(bytes([b, b])).decode()} {r}\n" for r, b in enumerate(range(97, 99))),
                   encoding="utf-8")
    s = w.session
    before = (list(s.model.merges), s.step, s.config, w.settings.config(), s.state, w.corpus.source())
    for path in (native, empty, tik):
        n = len(dialogs)
        w.open_tokenizer(str(path))
        assert len(dialogs) == n + 1 and dialogs[-1][0] == "Cannot open tokenizer", path
        assert str(path) in dialogs[-1][1]
        assert (list(s.model.merges), s.step, s.config, w.settings.config(), s.state, w.corpus.source()) == before
        w.token_view.canvas.viewport().repaint()  # and it still paints
    assert "pretokenizer" in dialogs[0][1] and "empty" in dialogs[1][1]


def test_write_errors_are_dialogs_and_lose_nothing(qtbot, dialogs, tmp_path, corpus_file):
    from bpe_desktop.gui import file_actions

    w = trained_window(qtbot, corpus_file)
    folder = tmp_path / "a_folder"
    folder.mkdir()
    assert not w.sessions.save_to(str(folder))
    assert dialogs[-1][0] == "Cannot save session" and "folder" in dialogs[-1][1]
    assert not w.sessions.save_to(str(tmp_path / "missing" / "s.bpesession"))
    assert not file_actions.save_tokenizer(w, w.session, str(folder))
    assert dialogs[-1][0] == "Cannot save tokenizer"
    assert not file_actions.export_tokenizer(w, w.session, str(folder), "hf")
    assert dialogs[-1][0] == "Cannot export tokenizer" and "folder" in dialogs[-1][1]
    if os.path.exists("/dev/full"):
        assert not w.sessions.save_to("/dev/full")
        assert "space" in dialogs[-1][1].lower() or "full" in dialogs[-1][1].lower()
        assert not file_actions.export_merges_csv(w, w.session, "/dev/full")
        assert not file_actions.export_tokenizer(w, w.session, "/dev/full", "tiktoken")
        assert dialogs[-1][0] == "Cannot export tokenizer"
    old = tmp_path / "keep.bpesession"
    old.write_text("previous", encoding="utf-8")
    os.chmod(tmp_path, 0o555)
    try:
        if os.geteuid() != 0:  # root writes anywhere
            assert not w.sessions.save_to(str(old))
            assert old.read_text(encoding="utf-8") == "previous"
    finally:
        os.chmod(tmp_path, 0o755)
    assert w.isWindowModified()  # nothing was saved, the work is still marked unsaved


CHILD = textwrap.dedent("""
    import json, sys, time
    from PySide6 import QtWidgets
    from bpe_desktop.core.config import TrainConfig
    from bpe_desktop.gui import app
    app.make_app()
    w = app.make_window(sys.argv[1], remember_layout=False)
    w.settings.set_config(TrainConfig(mode="bytes", pretokenizer="cl100k", tie_break="hf", merges=30,
                                      min_frequency=2))
    w.show()
    w.sessions.enable(autosave=True, ask=True)
    w.train()
    app.wait_for_training(w, 120)
    w.session.set_step(11)
    from bpe_desktop.core.formats.session_file import load_session
    saver = w.sessions.autosaver
    seen = -1
    while True:  # the step change autosaves a few seconds later
        QtWidgets.QApplication.processEvents()
        time.sleep(0.01)
        if saver.saves != seen:
            seen = saver.saves
            if seen and load_session(saver.path).step == 11:
                break
    print(json.dumps([list(m) for m in w.session.model.merges]), flush=True)
    while True:  # until killed: no clean close
        QtWidgets.QApplication.processEvents()
        time.sleep(0.05)
""")


def test_crash_recovery_offers_and_restores_the_autosave(qtbot, dialogs, tmp_path, corpus_file, monkeypatch):
    data = tmp_path / "data"
    env = {**os.environ, "PYTHONPATH": ROOT, "QT_QPA_PLATFORM": "offscreen", autosave.ENV_DIR: str(data)}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(corpus_file)], stdout=subprocess.PIPE, text=True,
                             env=env)
    try:
        line = child.stdout.readline()
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    merges = [tuple(m) for m in json.loads(line)]
    assert len(merges) == 30
    left = list(data.glob("autosave-*.bpesession"))
    assert [p.name for p in left] == [f"autosave-{child.pid}.bpesession"]

    monkeypatch.setenv(autosave.ENV_DIR, str(data))
    offered: list[list[str]] = []
    monkeypatch.setattr(dialogs_mod, "ask_restore",
                        lambda parent, texts: offered.append(texts) or (dialogs_mod.RestoreAnswer.RESTORE, 0))
    w = new_window(qtbot)
    w.sessions.enable(autosave=True, ask=False)
    assert w.sessions.offer_recovery()
    assert len(offered) == 1 and len(offered[0]) == 1 and "30 merges" in offered[0][0] and "step 11" in offered[0][0]
    assert list(w.session.model.merges) == merges and w.session.step == 11
    assert w.settings.config().pretokenizer == "cl100k" and w.corpus.source().text == corpus_file.read_text()
    assert w.isWindowModified()  # restored work is unsaved until saved
    assert left[0].exists()  # kept until its content is in this window's autosave
    qtbot.waitUntil(lambda: w.sessions.autosaver.saves >= 1, timeout=20_000)
    assert [p.name for p in data.glob("autosave-*.bpesession")] == [f"autosave-{os.getpid()}.bpesession"]
    assert list(load_session(w.sessions.autosaver.path).model.merges) == merges
    assert not w.sessions.offer_recovery()  # and nothing is offered twice


def test_clean_close_leaves_no_autosave(qtbot, dialogs, tmp_path, monkeypatch):
    monkeypatch.setenv(autosave.ENV_DIR, str(tmp_path))
    w = new_window(qtbot)
    w.sessions.enable(autosave=True, ask=False)
    w.sessions.autosaver.save_now()
    qtbot.waitUntil(lambda: w.sessions.autosaver.saves == 1, timeout=10_000)
    assert (tmp_path / f"autosave-{os.getpid()}.bpesession").exists()
    w.close()
    assert list(tmp_path.glob("autosave-*")) == []


def test_recent_lists_remove_missing_entries(qtbot, dialogs, tmp_path, corpus_file):
    from bpe_desktop.gui.session_io import recent

    w = new_window(qtbot)
    w.open_corpus(str(corpus_file))
    assert recent.entries(recent.RecentKind.CORPUS)[0] == str(corpus_file)
    gone = tmp_path / "gone.txt"
    recent.add(recent.RecentKind.CORPUS, str(gone))
    assert not w.sessions.open_recent(recent.RecentKind.CORPUS, str(gone))
    assert "no longer exists" in dialogs[-1][1]
    assert str(gone) not in recent.entries(recent.RecentKind.CORPUS)
    w.sessions._fill_recent()
    titles = [a.text() for a in w.sessions.recent_menu.actions()]
    assert "logs.txt" in titles


def test_command_line_opens_and_renders_a_session(qtbot, dialogs, tmp_path, corpus_file):
    w = trained_window(qtbot, corpus_file, step=9)
    path = tmp_path / "cli.bpesession"
    assert w.sessions.save_to(str(path))
    env = {**os.environ, "PYTHONPATH": ROOT, "QT_QPA_PLATFORM": "offscreen"}
    for args in (["--open", str(path)], [str(path)]):
        out = tmp_path / "shot.png"
        r = subprocess.run([sys.executable, "-m", "bpe_desktop", "--screenshot", str(out), "--size", "1000x700",
                            *args], capture_output=True, text=True, env=env, timeout=300)
        assert r.returncode == 0, r.stderr
        assert out.stat().st_size > 10_000
        out.unlink()
    r = subprocess.run([sys.executable, "-m", "bpe_desktop", "--screenshot", str(tmp_path / "x.png"),
                        str(tmp_path / "none.bpesession")], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 2 and "no such session file" in r.stderr and "Traceback" not in r.stderr


def test_a_named_layout_chosen_over_a_remembered_one_gets_its_own_sizes(qtbot, dialogs):
    gui_app.make_app()
    fresh = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(fresh)
    fresh.resize(1200, 800)
    layouts.apply(fresh, "Train")
    fresh.show()
    qtbot.waitExposed(fresh)
    fresh.layout().activate()
    want = layout_seen(fresh)
    w = gui_app.make_window()  # the first start: its layout (Learn) is remembered when it closes
    qtbot.addWidget(w)
    w.resize(1200, 800)
    w.show()
    qtbot.waitExposed(w)
    w.close()
    w2 = gui_app.make_window()  # `bpe-desktop --layout Train`: the remembered layout, then Train, then shown
    qtbot.addWidget(w2)
    layouts.apply(w2, "Train")
    w2.resize(1200, 800)
    w2.show()
    qtbot.waitExposed(w2)
    w2.layout().activate()
    # Train's shares, not the remembered Learn sizes (those are 28 px and more away; a few px of height
    # follow the remembered window's frame)
    assert_same_layout(layout_seen(w2), want, px=5)


def test_a_session_with_two_runs_on_a_file_reopens_as_it_was_saved(qtbot, dialogs, tmp_path, corpus_file):
    w = trained_window(qtbot, corpus_file)
    assert w.runs.whatif.forbid_and_branch(12)  # from the merge list's menu: a second run
    assert gui_app.wait_for_training(w, 120)
    assert w.settings.config() == w.session.config  # the settings show the branch (its forbidden pair)
    path = tmp_path / "two.bpesession"
    assert w.sessions.save_to(str(path))
    w2 = new_window(qtbot)
    assert w2.sessions.open_session(str(path))
    assert len(w2.runs.store.runs) == 2 and w2.session.config == w.session.config
    assert w2.corpus.source() == w2.session.source  # the shown run's corpus is the one in the editor:
    assert w2.statusBar().currentMessage() != w2.STALE  # not "the corpus changed since training"
    assert run_changed(w2.session.work, w2.settings.config(), w2.corpus.source()) == ""  # may be continued
    assert w2.settings.config() == w2.session.config
