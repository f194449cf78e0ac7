"""Issue 22 through the real window: what is shown was trained on what is shown, and a saved session is
exactly what the user had.  The two scenarios of the issue, replayed as a user would, then saved and reopened.

Oracles: the core trainer (the merges a run *should* hold for its corpus and settings), the session file
read back by the core reader, and the window's own panes (corpus editor, settings form, merge table, Runs
list, status bar)."""

from __future__ import annotations

from PySide6 import QtCore

from bpe_desktop.core.formats.session_file import load_session
from bpe_desktop.core.stopping import StopReason
from bpe_desktop.gui import app as gui_app
from bpe_desktop.gui.help.tour_script import SEED_TABLE as TOUR_SEED
from bpe_desktop.gui.panes.corpus_editor import LIVE_TEXT_MS
from bpe_desktop.gui.presets import PRESETS, ROBOT_SAMPLE, SAMPLES, SEED_CONFIG, SEED_SAMPLE
from support.window import check_one_truth, click_train, shown_pairs, table_pairs, wait_finished

ROBOT_MERGES = 40  # the robot-log settings with a short budget (the run had 1,000)
SEED_TABLE = SAMPLES[SEED_SAMPLE][0]()  # what the window opens with


def pairs(records) -> list[tuple[str, str]]:
    return [(r.left, r.right) for r in records]


def train_robot_logs(qtbot, w) -> None:
    w.load_sample(ROBOT_SAMPLE)
    w.settings.set_config(PRESETS["Robot logs"].with_(merges=ROBOT_MERGES))
    click_train(qtbot, w)
    wait_finished(qtbot, w)


def click_run(qtbot, w, row: int) -> None:
    pane = w.runs.pane
    qtbot.mouseClick(pane.list.viewport(), QtCore.Qt.MouseButton.LeftButton,
                     pos=pane.list.visualItemRect(pane.list.item(row)).center())


def test_a_fresh_untouched_window_is_not_marked_modified(qtbot, window) -> None:
    qtbot.wait(3 * LIVE_TEXT_MS)  # the editor's deferred text and the base-alphabet preview have run
    assert not window.isWindowModified() and not window.sessions.modified
    window.corpus.editor.setPlainText("something typed\n")
    assert window.isWindowModified()


def test_scenario_1_the_tour_gives_the_users_work_back(qtbot, window, tmp_path) -> None:
    train_robot_logs(qtbot, window)
    s = window.session
    robot_text = SAMPLES[ROBOT_SAMPLE][0]()
    work, records, step = s.work, s.records, s.step
    before = (window.corpus.source(), window.settings.config(), pairs(records))
    tour = window.help.show_tour()  # F1
    assert window.corpus.source().text == TOUR_SEED and window.settings.config() == SEED_CONFIG
    assert s.records == [] and table_pairs(window) == []  # the tour's own piece of work: no robot merges
    check_one_truth(window)
    tour.close()
    assert s.work is work and s.records is records and s.step == step  # the user's, unchanged
    assert (window.corpus.source(), window.settings.config(), pairs(s.records)) == before
    assert window.corpus.source().text == robot_text and window.statusBar().currentMessage() != window.STALE
    check_one_truth(window)
    path = tmp_path / "robot.bpesession"
    assert window.sessions.save_to(str(path))
    doc = load_session(path)
    assert doc.corpus.text == robot_text and len(doc.model.merges) == ROBOT_MERGES  # merges beside their text
    assert all(r.corpus is not None for r in doc.runs)


def test_scenario_1_tour_opened_while_the_user_trains(qtbot, window) -> None:
    window.corpus.set_text("ab ab abc abc abcd\n" * 50, name="mine")
    window.settings.merges.setValue(5)
    click_train(qtbot, window)
    tour = window.help.show_tour()  # the run is stopped first, its merges kept
    tour.close()
    s = window.session
    assert not window.controller.running and window.corpus.source().text.startswith("ab ab")
    assert s.stop_reason in (StopReason.STOPPED, StopReason.MERGES, None) or s.records == []
    check_one_truth(window)


def test_scenario_2_switching_runs_switches_the_corpus_and_survives_a_reopen(qtbot, window, tmp_path
                                                                             ) -> None:
    window.settings.set_config(SEED_CONFIG)
    click_train(qtbot, window)  # run 1: the seed words
    wait_finished(qtbot, window)
    seed_merges = pairs(window.session.records)
    train_robot_logs(qtbot, window)  # run 2: robot logs
    robot_merges = pairs(window.session.records)
    robot_text = SAMPLES[ROBOT_SAMPLE][0]()
    s = window.session
    assert len(s.runs) == 2 and s.current == 1
    names = window.runs.pane.names()
    click_run(qtbot, window, 0)
    assert window.corpus.source().text == SEED_TABLE and window.settings.config() == SEED_CONFIG
    assert table_pairs(window) == seed_merges and window.statusBar().currentMessage() != window.STALE
    assert not window.settings.banner_shown
    check_one_truth(window)
    click_run(qtbot, window, 1)
    assert window.corpus.source().text == robot_text and table_pairs(window) == shown_pairs(window)
    assert pairs(s.records) == robot_merges
    assert window.settings.config() == PRESETS["Robot logs"].with_(merges=ROBOT_MERGES)
    check_one_truth(window)
    window.session.set_step(21)

    path = tmp_path / "two.bpesession"
    assert window.sessions.save_to(str(path))
    doc = load_session(path)
    assert [r.corpus.text for r in doc.runs] == [SEED_TABLE, robot_text]  # no "corpus": null
    assert doc.corpus.text == robot_text and doc.current_run == 1
    other = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(other)
    assert other.sessions.open_session(str(path))
    assert list(other.session.runs) == list(s.runs) and other.session.current == 1  # equal works
    assert other.runs.pane.names() == names  # not renamed "session text, …"
    assert other.corpus.source().text == robot_text and table_pairs(other) == shown_pairs(other)
    assert pairs(other.session.records) == robot_merges
    assert other.session.step == 21 and other.statusBar().currentMessage() != other.STALE
    check_one_truth(other)
    click_run(qtbot, other, 0)
    assert other.corpus.source().text == SEED_TABLE and table_pairs(other) == seed_merges
    assert other.settings.config() == SEED_CONFIG and not other.settings.banner_shown
    check_one_truth(other)
    other.close()


def test_an_edit_left_on_a_run_comes_back_with_it(qtbot, window) -> None:
    window.settings.set_config(SEED_CONFIG)
    click_train(qtbot, window)
    wait_finished(qtbot, window)
    train_robot_logs(qtbot, window)
    window.corpus.editor.setPlainText("an edit not trained on\n")  # typed over run 2's corpus
    assert window.statusBar().currentMessage() == window.STALE
    click_run(qtbot, window, 0)
    assert window.corpus.source().text == SEED_TABLE
    click_run(qtbot, window, 1)
    assert window.corpus.source().text == "an edit not trained on\n"  # the draft, kept with its run
    assert window.statusBar().currentMessage() == window.STALE  # and the window says it is not trained on
    check_one_truth(window)


def test_an_opened_tokenizer_joins_the_runs_and_asks_nothing(qtbot, window, tmp_path, questions
                                                             ) -> None:
    from bpe_desktop.core.formats import save_model

    window.sessions.enable(autosave=False, ask=True)
    window.settings.set_config(SEED_CONFIG)
    click_train(qtbot, window)
    wait_finished(qtbot, window)
    trained = window.session.work
    path = tmp_path / "tok.json"
    save_model(trained.model.truncated(4), str(path), "native", trained.records[:4])
    window.open_tokenizer(str(path))
    s = window.session
    assert questions == [] and len(s.runs) == 2 and s.runs[0] is trained  # nothing lost, nothing asked
    assert s.stop_reason is StopReason.LOADED and len(s.records) == 4
    assert window.settings.config() == s.config and not window.settings.banner_shown
    check_one_truth(window)
    window.sessions.interactive = False  # quitting over unsaved runs asks: answered, not blocking


def test_text_typed_into_a_fresh_window_is_asked_about_once_its_untrained_run_has_taken_it(
        qtbot, window, tmp_path, monkeypatch) -> None:
    from bpe_desktop.gui.session_io import dialogs

    asked: list[str] = []
    monkeypatch.setattr(dialogs, "ask_unsaved",
                        lambda _w, action, lost: asked.append(lost) or dialogs.UnsavedAnswer.CANCEL)
    window.sessions.enable(autosave=False, ask=True)
    window.corpus.editor.setPlainText("mine\nall mine\n")
    qtbot.waitUntil(lambda: window.session.source.text == "mine\nall mine\n")  # the untrained run took it
    other = tmp_path / "other.txt"
    other.write_text("other words\n", encoding="utf-8")
    window.open_corpus(str(other))  # would replace the typed text: asked, and cancelled
    assert asked == ["the text typed into the Corpus pane (2 lines, not trained on)"]
    assert window.corpus.source().text == "mine\nall mine\n"


def test_retrain_a_preset_with_its_sample_and_the_tour_ask_nothing_about_saving(qtbot, window, questions,
                                                                                monkeypatch) -> None:
    from PySide6 import QtWidgets

    from bpe_desktop.gui.session_io import dialogs
    from bpe_desktop.gui.start import preset_corpus

    asked: list[str] = []
    monkeypatch.setattr(dialogs, "ask_unsaved",
                        lambda _w, action, lost: asked.append(action) or dialogs.UnsavedAnswer.CANCEL)
    window.sessions.enable(autosave=False, ask=True)
    click_train(qtbot, window)  # the seed run
    wait_finished(qtbot, window)
    window.train_action.trigger()  # F5 again, same corpus and settings: the same run, retrained
    wait_finished(qtbot, window)
    questions.answer = QtWidgets.QMessageBox.StandardButton.Yes  # "Open the sample corpus?" Yes
    window.settings.preset.setCurrentText("Robot logs")
    assert preset_corpus.offer(window, "Robot logs") and window.corpus.name == ROBOT_SAMPLE
    window.help.show_tour().close()
    assert asked == [] and len(questions) == 1  # only the sample was offered; no "Save the session…?"
    assert len(window.session.runs) == 1 and window.session.records
