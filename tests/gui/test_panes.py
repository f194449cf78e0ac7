"""Panes on their own: corpus editor, settings form, merge table model at scale, timeline playback."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from PySide6 import QtCore

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.errors import PatternError
from bpe_desktop.core.records import MergeRecord
from bpe_desktop.core.tokenizers.model import BPEModel
from bpe_desktop.core.training.trainer import Trainer
from bpe_desktop.gui.panes import corpus_editor
from bpe_desktop.gui.panes.corpus_editor import CorpusEditor
from bpe_desktop.gui.panes.merge_list import MergeListPane
from bpe_desktop.gui.panes.settings import CUSTOM, SettingsPanel
from bpe_desktop.gui.panes.status_bar import StatusBar
from bpe_desktop.gui.panes.timeline import TimelinePane
from bpe_desktop.gui.presets import PRESETS
from bpe_desktop.gui.session import Session
from bpe_desktop.gui.training.protocol import TrainingState


@pytest.fixture
def session(qtbot) -> Session:
    return Session()


def test_editor_detects_word_count_tables(qtbot, session) -> None:
    ed = CorpusEditor(session)
    qtbot.addWidget(ed)
    ed.set_text("low 5\nlower 2\n")
    assert ed.table_toggle.isChecked() and ed.source().word_counts
    ed.set_text("the low road\nis lower\n")
    assert not ed.table_toggle.isChecked()
    src = ed.source()
    assert src.text == "the low road\nis lower\n" and not src.word_counts and not src.paths
    # typing a table switches the toggle (after the debounce) until the user sets it by hand
    ed.editor.setPlainText("newest 6\nwidest 3\n")
    qtbot.waitUntil(lambda: ed.table_toggle.isChecked(), timeout=5000)
    ed.table_toggle.click()
    assert not ed.source().word_counts
    ed.editor.setPlainText("low 5\n")
    qtbot.wait(400)
    assert not ed.table_toggle.isChecked()


def test_large_file_is_a_read_only_preview(qtbot, session, topics_file: Path, monkeypatch) -> None:
    monkeypatch.setattr(corpus_editor, "LARGE_FILE_BYTES", 10_000)
    monkeypatch.setattr(corpus_editor, "PREVIEW_BYTES", 4_000)
    ed = CorpusEditor(session)
    qtbot.addWidget(ed)
    ed.open_file(str(topics_file))
    assert ed.editor.isReadOnly()
    assert len(ed.editor.toPlainText()) <= 4_000
    assert ed.source().paths == (str(topics_file),)
    assert "preview" in ed.notice.text()


def test_small_file_and_invalid_utf8(qtbot, session, tmp_path: Path) -> None:
    ed = CorpusEditor(session)
    qtbot.addWidget(ed)
    good = tmp_path / "words.txt"
    good.write_text("low 5\nlower 2\n", encoding="utf-8")
    ed.open_file(str(good))
    assert not ed.editor.isReadOnly() and ed.source().text == "low 5\nlower 2\n" and ed.source().word_counts
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("caf\xe9 au lait\n".encode("latin-1"))
    ed.open_file(str(bad))
    assert ed.editor.isReadOnly() and ed.source().paths == (str(bad),)  # the trainer reads the bytes
    with pytest.raises(Exception, match="no such file"):
        ed.open_file(str(tmp_path / "missing.txt"))


def test_settings_round_trip_presets_and_errors(qtbot, session) -> None:
    panel = SettingsPanel(session)
    qtbot.addWidget(panel)
    for name, cfg in PRESETS.items():
        panel.set_config(cfg)
        assert panel.config() == cfg
        assert panel.preset.currentText() == name
    custom = TrainConfig(mode="chars", pretokenizer=r"\w+|\S", end_of_word="", tie_break="first-seen",
                         merges=None, vocab_size=300, min_frequency=3, specials=("<s>", "</s>"))
    panel.set_config(custom)
    assert panel.config() == custom
    assert panel.preset.currentText() == "(custom settings)"
    panel.pretok.setCurrentText(CUSTOM)
    panel.regex.setText("a**")
    assert panel.regex_error.isVisibleTo(panel) and panel.error()
    with pytest.raises(PatternError):
        panel.config()
    panel.mode.setCurrentText("bytes")
    assert not panel.marker.isEnabled()


def _records(n: int) -> tuple[BPEModel, list[MergeRecord]]:
    """A model whose every merge is a+b (ids stay consistent) and n records for it."""
    model = BPEModel(mode="chars", base=["a", "b"])
    recs = [MergeRecord(k, "a", "b", "ab", 0, 1, 2, 10_000 - k % 7, 5, 1000 - k, 3, 1) for k in range(1, n + 1)]
    return model, recs


def test_merge_table_handles_tens_of_thousands_of_rows(qtbot, session) -> None:
    pane = MergeListPane(session)
    qtbot.addWidget(pane)
    model, recs = _records(40_000)
    session.reset_model(model)
    inserted: list[tuple[int, int]] = []
    pane.table_model.rowsInserted.connect(lambda _p, a, b: inserted.append((a, b)))
    for i in range(0, len(recs), 5_000):
        session.append_records(recs[i : i + 5_000])
    assert pane.table_model.rowCount() == 40_000
    assert inserted[0] == (0, 4_999) and inserted[-1] == (35_000, 39_999)  # incremental, not resets
    assert pane.count_label.text() == "40,000 merges"
    idx = pane.table_model.index(39_999, 0)
    assert idx.data() == 40_000
    session.set_step(12_345)
    assert pane.view.currentIndex().row() == 12_344
    pane.resize(400, 300)
    pane.show()
    session.set_step(0)  # nothing applied: no row selected, merge 1 (the next) in view
    assert not pane.view.selectionModel().hasSelection()
    assert pane.view.rowAt(0) == 0
    pane.set_filter("zz")
    assert pane.proxy.rowCount() == 0 and pane.count_label.text() == "0 of 40,000"


def test_timeline_play_reaches_the_end_and_stops(qtbot, session) -> None:
    t = Trainer({"low": 5, "lower": 2, "newest": 6, "widest": 3}, TrainConfig(merges=7))
    recs = t.run()
    session.reset_model(t.model.truncated(0))
    session.append_records(recs)
    tl = TimelinePane(session)
    qtbot.addWidget(tl)
    bar = StatusBar(session)
    qtbot.addWidget(bar)
    session.set_step(0)
    tl.speed.setCurrentIndex(tl.speed.count() - 1)
    tl.play_btn.click()
    assert tl.playing
    qtbot.waitUntil(lambda: not tl.playing, timeout=10_000)
    assert session.step == 7 and tl.slider.value() == 7
    assert bar.step_label.text() == "step 7/7"
    tl.jump.setValue(3)
    assert session.step == 3
    assert bar.vocab_label.text() == f"vocab {t.model.vocab_size_at(3)}"
    assert tl.label.text().endswith(f"vocabulary {t.model.vocab_size_at(3)}")


def test_status_bar_shows_progress_and_eta(qtbot, session) -> None:
    bar = StatusBar(session)
    qtbot.addWidget(bar)
    bar.show()
    session.set_state(TrainingState.COUNTING)
    session.set_progress("counting", 10, 100)
    assert bar.progress.isVisible() and bar.progress.text.startswith("counting 10%")
    assert bar.progress.fraction == pytest.approx(0.1)
    session.set_progress("merging", 0, 0, 0.0)
    assert bar.progress.fraction is None  # unknown total: busy indicator
    session.set_state(TrainingState.FINISHED)
    assert not bar.progress.isVisible()
    assert QtCore.QCoreApplication.instance() is not None


def test_bytes_mode_tokens_are_shown_decoded(qtbot, session) -> None:
    t = Trainer({" the": 5, " then": 2, "é": 3}, TrainConfig(mode="bytes", pretokenizer="gpt2", merges=4))
    recs = t.run()
    session.reset_model(t.model.truncated(0))
    session.append_records(recs)
    pane = MergeListPane(session)
    qtbot.addWidget(pane)
    shown_tokens = [pane.table_model.index(r, 3).data() for r in range(len(recs))]
    plain = [pane.table_model.index(r, 3).data(QtCore.Qt.ItemDataRole.UserRole) for r in range(len(recs))]
    raw = [t.model.tokens[r.token_id] for r in recs]  # the bytes each merge made
    assert plain == [b.decode("utf-8", "replace") for b in raw]
    assert all("Ġ" not in s for s in shown_tokens) and any("·" in s for s in shown_tokens)
    pane.set_filter(" th")
    assert pane.proxy.rowCount() == sum(b.startswith(b" th") for b in raw) > 0


def test_settings_banner_shows_only_when_the_form_differs_from_a_trained_run(qtbot, seeded) -> None:
    import copy

    s, t, recs = seeded
    panel = SettingsPanel(s)
    qtbot.addWidget(panel)
    panel.set_config(s.config)
    s.reset_model(copy.deepcopy(t.model), recs)
    s.set_state(TrainingState.FINISHED)
    assert not panel.banner_shown  # the form is the run's settings
    panel.merges.setValue(s.config.merges + 3)
    assert panel.banner_shown  # changed after training: the banner offers to retrain
    panel.set_config(s.config)
    assert not panel.banner_shown


def test_why_and_merge_list_coalesce_fast_playback_and_show_where_it_stopped(qtbot, session, topics_text) -> None:
    """At 500 steps/s the explanation (whose relayout costs ~2 ms a frame) is redrawn a few times a second,
    not at every frame; the step playback stops at is explained; stepping by hand is explained at once."""
    from bpe_desktop.gui.panes.merge_list import PLAYBACK_EVERY_MS
    from bpe_desktop.gui.panes.why import TRAINING_EVERY_MS, WhyPanel

    t = Trainer({w: 1 for w in topics_text.split()[:20_000]}, TrainConfig(merges=400))
    recs = t.run()
    session.reset_model(t.model.truncated(0))
    session.append_records(recs)
    tl = TimelinePane(session)
    why = WhyPanel(session)
    merges = MergeListPane(session)
    for w in (tl, why, merges):
        qtbot.addWidget(w)
        w.show()
    session.set_step(0)
    tl.speed.setCurrentIndex(tl.speed.count() - 1)  # 500 steps/s
    before = why.refreshes
    rows: list[int] = []
    merges.view.selectionModel().currentRowChanged.connect(lambda cur, _prev: rows.append(cur.row()))
    steps: list[int] = []
    session.stepChanged.connect(steps.append)
    started = time.perf_counter()
    tl.play_btn.click()
    qtbot.waitUntil(lambda: not tl.playing, timeout=20_000)
    played_s = time.perf_counter() - started
    assert session.step == 400 and len(steps) > 10
    assert why.refreshes - before <= played_s * 1000 / TRAINING_EVERY_MS + 2 < len(steps)
    qtbot.waitUntil(lambda: why.title.text().startswith("Merge 400:"), timeout=2_000)
    assert session.playback_rate == 0
    qtbot.waitUntil(lambda: merges.view.currentIndex().row() == 399, timeout=2_000)  # the table caught up too
    assert len(rows) <= played_s * 1000 / PLAYBACK_EVERY_MS + 2 < len(steps)  # ... a few times a second
    assert merges.table_model.index(398, 0).data(QtCore.Qt.ItemDataRole.ForegroundRole) is None  # not greyed
    session.set_step(17)
    assert why.title.text().startswith("Merge 17:")  # at once: not playing
