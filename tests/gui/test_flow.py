"""The first minutes (issue 11, behaviour): the start screen, presets that bring their corpus, and messages
that are true when shown -- stale-corpus notice, Train further, counts, plurals, rates, empty states."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys

import pytest
from PySide6 import QtCore, QtWidgets

from bpe_desktop.core import CorpusSource, TrainConfig, Trainer, count_source
from bpe_desktop.gui import app as gui_app
from bpe_desktop.gui import wording
from bpe_desktop.gui.presets import PRESETS, ROBOT_SAMPLE, SAMPLES
from bpe_desktop.gui.training.protocol import StopReason, TrainingState
from support import ROOT

SEED_MERGES = [("e", "s"), ("es", "t"), ("est", "</w>"), ("l", "o"), ("lo", "w"), ("e", "w"), ("ew", "est</w>")]


def wait_finished(qtbot, w) -> None:
    qtbot.waitUntil(lambda: w.session.state in (TrainingState.FINISHED, TrainingState.ERROR)
                    and not w.controller.running, timeout=60_000)
    assert w.session.state is TrainingState.FINISHED, w.session.error


def click(qtbot, button) -> None:
    qtbot.mouseClick(button, QtCore.Qt.MouseButton.LeftButton)


# -- start screen -------------------------------------------------------------------------------------------
def test_start_screen_offers_the_seed_preselected_one_click_trains_it(window, qtbot) -> None:
    start = window.start_screen
    assert start.isVisible() and start.train_btn.isVisible()
    assert window.corpus.editor.toPlainText().split() == ["low", "5", "lower", "2", "newest", "6", "widest", "3"]
    assert set(start.sample_btns) == {"Robot logs", "English prose", "Python source"} and start.open_btn.isVisible()
    # the step-0 rows above the card stay visible
    assert start.geometry().top() > window.token_view.splitter.geometry().top()
    click(qtbot, start.train_btn)
    assert not start.isVisible()
    wait_finished(qtbot, window)
    assert [(r.left, r.right) for r in window.session.records] == SEED_MERGES


def test_start_screen_sample_button_trains_the_sample_with_its_preset(window, qtbot) -> None:
    start = window.start_screen
    window.settings.merges.setValue(3)
    click(qtbot, start.sample_btns["Robot logs"])
    assert not start.isVisible()
    assert window.corpus.name == ROBOT_SAMPLE
    assert window.session.config == PRESETS["Robot logs"]
    assert window.session.source.text == SAMPLES[ROBOT_SAMPLE][0]()
    window.controller.shutdown()


def test_start_screen_goes_when_the_corpus_is_edited_and_not_shown_for_a_named_corpus(
        window, qtbot, tmp_path) -> None:
    window.corpus.editor.insertPlainText("hello ")
    assert not window.start_screen.isVisible()
    f = tmp_path / "c.txt"
    f.write_text("a b c\n", encoding="utf-8")
    w = gui_app.make_window(str(f), remember_layout=False)
    qtbot.addWidget(w)
    assert getattr(w, "start_screen", None) is None


def test_start_screen_python_source_sample_is_python() -> None:
    text = SAMPLES["Python source (standard library)"][0]()
    assert len(text) > 50_000 and "def " in text and "import " in text
    compile(text.split("\n\n\n")[0], "<sample>", "exec")  # real Python, not prose


# -- presets that bring their corpus ------------------------------------------------------------------------
def choose_preset(window, name: str) -> None:
    combo = window.settings.preset
    i = combo.findText(name)
    combo.setCurrentIndex(i)
    combo.activated.emit(i)  # what a user's choice emits


def test_robot_logs_preset_on_the_seed_offers_and_opens_the_robot_sample(window, questions) -> None:
    questions.answer = QtWidgets.QMessageBox.StandardButton.Yes
    choose_preset(window, "Robot logs")
    assert len(questions) == 1 and "Robot logs" in questions[0] and ROBOT_SAMPLE in questions[0]
    assert window.corpus.name == ROBOT_SAMPLE and not window.corpus.table_toggle.isChecked()
    assert window.settings.config() == PRESETS["Robot logs"]
    choose_preset(window, "Robot logs")  # already open: nothing asked
    assert len(questions) == 1


def test_preset_never_replaces_the_users_own_text(window, questions) -> None:
    window.corpus.set_text("my own log line 1\nmy own log line 2\n", name="<editor>")
    choose_preset(window, "Robot logs")
    assert not questions and window.corpus.editor.toPlainText().startswith("my own log")
    questions.answer = QtWidgets.QMessageBox.StandardButton.No
    window.load_sample("English prose (Python's documentation)")
    choose_preset(window, "Robot logs")  # a bundled sample: asked, answered No -> settings only
    assert len(questions) == 1 and window.corpus.name.startswith("English prose")
    assert window.settings.config() == PRESETS["Robot logs"]


def test_preset_option_alone_opens_its_sample(qtbot, dialogs) -> None:
    w = gui_app.make_window(None, 20, preset="Robot logs", remember_layout=False)
    qtbot.addWidget(w)
    assert w.corpus.name == ROBOT_SAMPLE and w.settings.config() == PRESETS["Robot logs"].with_(merges=20)
    assert getattr(w, "start_screen", None) is None


def test_screenshot_with_preset_trains_the_sample_and_prints_no_qt_chatter(tmp_path) -> None:
    out = tmp_path / "robot.png"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    env.pop("QT_LOGGING_RULES", None)
    r = subprocess.run([sys.executable, "-m", "bpe_desktop", "--screenshot", str(out), "--preset", "Robot logs",
                        "--merges", "20"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "propagateSizeHints" not in r.stderr and "This plugin" not in r.stderr
    assert r.stderr == ""


# -- honest status ------------------------------------------------------------------------------------------
def test_stale_corpus_notice_follows_the_corpus_not_a_timer(window, qtbot, questions) -> None:
    w = window
    bar = w.statusBar()
    stale = w.STALE
    w.train_action.trigger()
    wait_finished(qtbot, w)
    assert bar.currentMessage() != stale  # the run just finished on this very corpus
    trained = w.corpus.editor.toPlainText()
    w.corpus.editor.appendPlainText("lowest 1")
    assert bar.currentMessage() == stale
    w.corpus.editor.undo()  # back to the trained text: the notice goes at once
    assert w.corpus.editor.toPlainText() == trained and bar.currentMessage() == ""
    w.corpus.editor.appendPlainText("lowest 1")
    assert bar.currentMessage() == stale
    w.train_action.trigger()  # Retrain: while it runs and after, the corpus is the trained one
    assert bar.currentMessage() == ""
    wait_finished(qtbot, w)
    assert bar.currentMessage() == ""


def test_train_further_after_an_undone_edit_says_what_is_true(window, qtbot, questions) -> None:
    w = window
    w.settings.merges.setValue(3)
    w.train_action.trigger()
    wait_finished(qtbot, w)
    assert w.session.stop_reason is StopReason.MERGES
    w.corpus.editor.appendPlainText("lowest 1")  # the idle worker is freed for the new corpus
    w.corpus.editor.undo()
    assert w.train_further(2) is False
    text = questions[-1]
    assert "stopped, failed, or opened from a file" not in text
    assert "process of this run has ended" in text and "corpus changes" in text
    w.controller.stop()


@pytest.mark.parametrize("reason", list(StopReason))
def test_cannot_continue_is_specific_to_the_reason(reason: StopReason) -> None:
    alive = wording.cannot_continue(reason, process_alive=True)
    gone = wording.cannot_continue(reason, process_alive=False)
    if reason.can_continue:
        assert alive == "" and "ended" in gone
    else:
        assert alive == gone and alive and " or " not in alive
    assert wording.cannot_continue(StopReason.LOADED, process_alive=False).count("file") == 1


def test_counting_a_new_corpus_does_not_show_the_old_symbol_count(seeded, qtbot) -> None:
    from bpe_desktop.gui.panes.status_bar import StatusBar

    s, t, recs = seeded
    s.set_counted(s.word_counts, 95, s.held_out)
    s.reset_model(t.model, recs)
    bar = StatusBar(s)
    qtbot.addWidget(bar)
    assert bar.tokens_label.text() == "tokens 42"
    from bpe_desktop.gui.panes.why import WhyPanel

    why = WhyPanel(s)
    qtbot.addWidget(why)
    s.set_corpus(CorpusSource.from_text("a b c\n"), TrainConfig())
    s.set_state(TrainingState.COUNTING)
    assert s.initial_symbols == 0 and bar.tokens_label.text() == "tokens –"
    assert bar.ratio_label.text() == "compression –"
    assert why.title.text() == "Counting the corpus…" and "Press Train" not in why.text()  # it is training


def test_plurals_and_rates() -> None:
    assert wording.plural(1, "merge") == "1 merge" and wording.plural(2, "merge") == "2 merges"
    assert wording.plural(1_000, "merge") == "1,000 merges" and wording.plural(0, "merge") == "0 merges"
    assert wording.rate(1, 0.001) is None  # one Step is not a rate
    assert wording.rate(500, 0.1) is None  # nor a tenth of a second
    assert wording.rate(600, 1.5) == 400.0
    assert wording.rate_text(0) == "" and wording.rate_text(1.2) == "1 merge/s"
    assert wording.rate_text(1147.0) == "1,147 merges/s"
    t = Trainer({"low": 5}, TrainConfig(merges=1))
    t.run()
    assert t.stop_reason == "reached 1 merge"


def test_single_step_shows_no_rate_and_one_merge(window, qtbot) -> None:
    w = window
    w.step_once()
    qtbot.waitUntil(lambda: len(w.session.records) == 1 and w.session.state is TrainingState.PAUSED,
                    timeout=60_000)
    qtbot.wait(50)
    assert w.statusBar().rate_label.text() == ""
    assert w.session.merges_per_s == 0.0
    assert w.merges.count_label.text() == "1 merge"
    assert w.timeline.speed.itemText(0) == "1 step/s" and w.timeline.speed.itemText(1) == "2 steps/s"
    w.controller.stop()


# -- empty states -------------------------------------------------------------------------------------------
def test_pair_plot_says_what_is_true_before_training_and_for_a_loaded_tokenizer(
        window, qtbot, tmp_path, dialogs) -> None:
    from bpe_desktop.core.formats import save_model

    title = window.plots.zipf.plot.titleLabel
    window.docks["plots"].raise_()  # in front of its tab group: a hidden plots pane draws nothing

    def said() -> str:  # the title, or in full in its tooltip when the plot is too narrow for it
        return f"{title.text} | {title.toolTip()}"

    qtbot.waitUntil(lambda: "Train (F5) to see pair frequencies" in said(), timeout=10_000)
    assert "empty" not in said()
    cfg = TrainConfig(merges=7)
    tr = Trainer(count_source(CorpusSource.from_text("low 5\nlower 2\nnewest 6\nwidest 3\n", word_counts=True),
                              cfg), cfg)
    tr.run()
    path = tmp_path / "codes.txt"
    save_model(tr.model, path, "subword-nmt")  # a codes file records no counts
    window.open_tokenizer(str(path))
    assert not dialogs
    qtbot.waitUntil(lambda: "no corpus statistics for a loaded tokenizer" in said(), timeout=10_000)
    m = window.merges.table_model
    assert m.rowCount() == 7
    assert [m.index(0, c).data() for c in (4, 5)] == ["–", "–"]  # not 0: the file does not say
    assert "does not record" in m.index(0, 4).data(QtCore.Qt.ItemDataRole.ToolTipRole)
    assert multiprocessing.active_children() == []


# -- play follows the merge ---------------------------------------------------------------------------------
FAR_LINE = 400  # the only line with "zqx" (1-based)


def far_corpus() -> str:
    lines = ["ab ab ab cd cd"] * 600
    lines[FAR_LINE - 1] = "zqx zqx zqx zqx"  # q+x, then qx+</w>, z+qx</w>: only here, far down
    return "\n".join(lines) + "\n"


def test_stepping_forward_scrolls_to_a_merge_that_happens_only_far_down(window, qtbot) -> None:
    w = window
    w.corpus.set_text(far_corpus(), name="far")
    w.settings.merges.setValue(12)
    w.train_action.trigger()
    wait_finished(qtbot, w)
    s, canvas = w.session, w.token_view.canvas
    k = next(r.rank for r in s.records if (r.left, r.right) == ("q", "x"))
    tid = s.model.merge_token_ids[k - 1]
    assert s.records[k - 1].count == 4
    for follow in (False, True):
        w.follow_merges.action.setChecked(follow)
        s.set_step(k - 1)
        canvas.scroll_to_row(0)
        qtbot.wait(10)
        assert not any(tid in row for row in canvas.screen_rows.ids())
        w.timeline.step_forward()  # as playing does, one merge forward
        on_screen = any(tid in row for row in canvas.screen_rows.ids())
        if follow:
            assert canvas.first_row() == FAR_LINE - 1 and on_screen
        else:
            assert canvas.first_row() == 0 and not on_screen
    # a merge already on screen does not move the view
    s.set_step(0)
    canvas.scroll_to_row(0)
    w.timeline.step_forward()
    assert canvas.first_row() == 0
    assert w.follow_merges.action in next(
        m for m in w.menuBar().findChildren(QtWidgets.QMenu) if m.title() == "&View").actions()


def test_why_pane_counts_words_in_the_singular(seeded, qtbot) -> None:
    import copy

    from bpe_desktop.gui.panes.why import WhyPanel

    s, t, recs = seeded
    s.reset_model(copy.deepcopy(t.model), recs)
    why = WhyPanel(s)
    qtbot.addWidget(why)
    s.set_step(7)  # ew + est</w>: only in newest
    assert recs[6].words_touched == 1
    assert "Replaced 6 occurrences in 1 distinct word:" in why.detail.text()
    s.set_step(1)  # e + s: in newest and widest
    assert "in 2 distinct words:" in why.detail.text()


def test_while_a_new_corpus_is_counted_the_stream_shows_base_symbols_not_unknowns(window, qtbot) -> None:
    from bpe_desktop.core.tokenizers.tokenizer import UNKNOWN_ID

    w = window
    w.corpus.set_text("héllo wörld\nnaïve café\n", name="accents")
    w.train_action.trigger()  # the worker starts counting; its model has not arrived yet
    s, view = w.session, w.token_view
    assert s.state is TrainingState.COUNTING and not s.records and s.preview_base
    ids = view.canvas.screen_rows.ids()
    assert ids and all(UNKNOWN_ID not in row for row in ids)
    assert view.visible_tokens()[0] == [*"héllo", "</w>", *"wörld", "</w>"]
    wait_finished(qtbot, w)
    assert not s.preview_base and s.records  # the trainer's model replaced the preview
