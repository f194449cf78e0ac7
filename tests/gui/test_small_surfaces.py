"""Small things of the window seen on the way: one size rule with the CLI, and the export dialog (only the
formats the writer accepts, the name following the format, nothing written on refusal, a confirmation)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PySide6 import QtCore, QtWidgets

from bpe_desktop.core import CorpusSource, TrainConfig, Trainer, count_text
from bpe_desktop.core.errors import FormatError
from bpe_desktop.core.formats import load_model, save_model
from bpe_desktop.core.formats.csv_stats import steps_csv
from bpe_desktop.core.io.sizes import format_bytes
from bpe_desktop.gui import file_actions
from bpe_desktop.gui.export_dialog import FORMATS, ExportDialog
from support import SEED_000


def test_the_window_uses_the_cli_size_rule() -> None:
    from bpe_desktop.gui.inspect import panel
    from bpe_desktop.gui.panes import corpus_editor

    for n in (0, 999, 1_450_000, 1_520_435, 3 * 2**30):
        assert corpus_editor._size(n) == panel._size(n) == format_bytes(n)


def _trained(window, cfg: TrainConfig, text: str, step: int):
    t = Trainer(count_text(text, cfg), cfg)
    recs = t.run()
    s = window.session
    s.set_corpus(CorpusSource.from_text(text), cfg)
    s.reset_model(copy.deepcopy(t.model), recs)
    s.set_step(step)
    return s


SETTINGS = {
    "bytes-gpt2": TrainConfig(mode="bytes", pretokenizer="gpt2", merges=40),
    "chars-separate-marker": TrainConfig(merges=10),
    "chars-glued": TrainConfig(merges=10, glue_marker=True),
}


@pytest.mark.parametrize("name", SETTINGS)
def test_the_dialog_greys_exactly_the_formats_the_writer_refuses(window, tmp_path, topics_text, name) -> None:
    text = topics_text[:20_000] if SETTINGS[name].mode == "bytes" else " ".join(
        " ".join([w] * c) for w, c in SEED_000.items())
    s = _trained(window, SETTINGS[name], text, 5)
    d = ExportDialog(window, s.model.truncated(5), s.records[:5], 5, str(tmp_path))
    for k, f in enumerate(FORMATS):
        try:  # the oracle: really write it
            save_model(s.model.truncated(5), tmp_path / f"out-{f.fmt}", f.fmt, s.records[:5])
            written = True
        except FormatError as e:
            written, why = False, str(e)
        item = d.list.item(k)
        assert bool(item.flags() & QtCore.Qt.ItemFlag.ItemIsEnabled) == written, f.fmt
        if not written:
            assert why in item.toolTip() and why in d.note.text()
            assert not d.select(f.fmt)
    assert (not d.note.isHidden()) == any(d.refusals.values())


def test_the_name_follows_the_format(window, tmp_path, topics_text) -> None:
    s = _trained(window, SETTINGS["bytes-gpt2"], topics_text[:20_000], 5)
    d = ExportDialog(window, s.model.truncated(5), s.records[:5], 5, str(tmp_path))
    assert d.path.text() == str(tmp_path / "tokenizer.json")
    seen = {}
    for fmt in ("vocab-merges", "tiktoken", "gpt2", "csv", "hf"):
        assert d.select(fmt)
        seen[fmt] = Path(d.path.text()).name
    assert seen == {"vocab-merges": "tokenizer", "tiktoken": "tokenizer.tiktoken", "gpt2": "tokenizer",
                    "csv": "tokenizer.csv", "hf": "tokenizer.json"}
    d.path.setText(str(tmp_path / "mine.json"))
    assert d.select("vocab-merges") and d.path.text() == str(tmp_path / "mine")


def test_a_refused_export_leaves_no_folder(window, dialogs, tmp_path) -> None:
    s = _trained(window, SETTINGS["chars-separate-marker"], " ".join(" ".join([w] * c) for w, c in SEED_000.items()),
                 5)
    for fmt in ("gpt2", "vocab-merges"):
        target = tmp_path / fmt
        assert not file_actions.export_tokenizer(window, s, str(target), fmt)
        assert dialogs[-1][0] == "Cannot export tokenizer"
        assert not target.exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("fmt", ["vocab-merges", "csv"])
def test_export_through_the_dialog_writes_and_confirms(window, dialogs, tmp_path, topics_text, monkeypatch,
                                                       fmt) -> None:
    s = _trained(window, SETTINGS["bytes-gpt2"], topics_text[:20_000], 7)
    seen: list[ExportDialog] = []

    def exec_(self: ExportDialog) -> int:  # the user picks the format and clicks Export
        seen.append(self)
        assert self.select(fmt)
        return QtWidgets.QDialog.DialogCode.Accepted

    monkeypatch.setattr(ExportDialog, "exec", exec_)
    monkeypatch.setattr(file_actions, "_last_folder", [str(tmp_path)])
    assert file_actions.export_tokenizer(window, s)
    assert not dialogs
    path = seen[0].path.text()
    assert window.statusBar().currentMessage() == f"Exported the tokenizer at step 7 as {fmt} to {path}"
    if fmt == "csv":
        assert Path(path).read_text(encoding="utf-8") == steps_csv(s.records[:7])
    else:
        assert sorted(p.name for p in Path(path).iterdir()) == ["merges.txt", "vocab.json"]
        assert load_model(path).merges == s.model.merges[:7]


def test_cancel_writes_nothing(window, tmp_path, topics_text, monkeypatch) -> None:
    s = _trained(window, SETTINGS["bytes-gpt2"], topics_text[:20_000], 7)
    monkeypatch.setattr(ExportDialog, "exec", lambda self: QtWidgets.QDialog.DialogCode.Rejected)
    monkeypatch.setattr(file_actions, "_last_folder", [str(tmp_path)])
    window.statusBar().clearMessage()
    before = window.statusBar().currentMessage()  # (a corpus set behind the editor's back leaves it stale)
    assert not file_actions.export_tokenizer(window, s)
    assert list(tmp_path.iterdir()) == [] and window.statusBar().currentMessage() == before
    assert "xport" not in before


# --- the fit checker on status bars and tab bars ------------------------------------------------------------

def test_the_fit_check_finds_a_cut_status_message_and_accepts_an_elided_one(qtbot) -> None:
    from bpe_desktop.gui.panes.status_bar import StatusBar
    from bpe_desktop.gui.session import Session
    from support import fit_check

    long = "The corpus changed since training: press Retrain (F5) to learn from it, " * 3
    found = {}
    for kind, bar in (("plain", QtWidgets.QStatusBar()), ("ours", StatusBar(Session()))):
        win = QtWidgets.QMainWindow()
        qtbot.addWidget(win)
        win.setStatusBar(bar)
        win.resize(1000, 200)
        win.show()
        qtbot.waitExposed(win)
        bar.showMessage(long)
        found[kind] = [c.kind for c in fit_check.clipped(win) if c.kind.startswith("status")]
        if kind == "ours":
            shown = bar.shown_message()
            assert shown.endswith("…") and long.startswith(shown[:-1]) and bar.toolTip() == long
            bar.showMessage("short")
            assert bar.shown_message() == "short" and not fit_check.clipped(win)
    assert found == {"plain": ["status message"], "ours": []}


def test_the_fit_check_finds_tabs_cut_or_under_scroll_buttons_and_accepts_shared_room(qtbot) -> None:
    from bpe_desktop.gui.widgets import tab_titles
    from support import fit_check

    titles = ["Pair frequencies", "Compression", "Trade-off", "Quality"]

    def tabs(share: bool, scroll: bool, width: int) -> list[str]:
        t = QtWidgets.QTabWidget()
        qtbot.addWidget(t)
        for title in titles:
            t.addTab(QtWidgets.QWidget(), title)
        t.tabBar().setElideMode(QtCore.Qt.TextElideMode.ElideNone)
        t.tabBar().setUsesScrollButtons(scroll)
        if share:
            tab_titles.share_room(t)
        t.resize(width, 120)
        t.show()
        qtbot.waitExposed(t)
        return sorted({c.kind for c in fit_check.clipped(t)})

    # the titles need 368 px here
    assert tabs(False, True, 300) == ["tab (under the scroll buttons)"]  # the Quality sliver of the issue
    assert tabs(False, False, 300) == ["tab (cut, no …)", "tab (out of sight)"]
    assert tabs(True, True, 300) == ["tab (a sliver)"]  # elided to fewer than MIN_TAB_CHARS characters
    assert tabs(True, True, 400) == []


def test_nothing_is_cut_after_the_left_docks_widen_with_a_stale_corpus(qtbot, dialogs) -> None:
    """The window at 1280×800 with a 200-merge robot-log run, the left docks 100 px wider (what choosing a
    preset did), the corpus edited since training (the stale message), every pane brought to the front."""
    from bpe_desktop.gui import app as gui_app
    from bpe_desktop.gui import resources
    from support import fit_check

    gui_app.make_app()
    w = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    qtbot.waitExposed(w)
    text = resources.read_text(resources.ROBOT_LOGS)[:40_000]
    w.corpus.set_text(text, name="sample")
    cfg = TrainConfig(merges=200)
    t = Trainer(count_text(text, cfg), cfg)
    recs = t.run()
    w.session.set_corpus(CorpusSource.from_text(text), cfg)
    w.session.reset_model(copy.deepcopy(t.model), recs)
    left = [d for d in w.docks.values() if w.dockWidgetArea(d) == QtCore.Qt.DockWidgetArea.LeftDockWidgetArea
            and not d.isHidden()]
    w.resizeDocks(left, [d.width() + 100 for d in left], QtCore.Qt.Orientation.Horizontal)
    w.corpus.set_text(text + "\nmore", name="sample")
    qtbot.waitUntil(lambda: w.statusBar().currentMessage() == w.STALE, timeout=10_000)
    found: set[str] = set()
    for key, dock in w.docks.items():
        dock.raise_()
        for _ in range(6):
            QtWidgets.QApplication.processEvents()
        found.update(str(c) for c in fit_check.clipped(w))
        if key == "vocab":
            qtbot.waitUntil(lambda: w.vocab.table_model.audit is not None, timeout=20_000)
            w.vocab.status.resize(200, w.vocab.status.height())  # a narrow pane: parts shed, then "…"
            found.update(str(c) for c in fit_check.clipped(w))
    assert sorted(found) == [], "\n".join(sorted(found))


# --- the vocabulary pane keeps a clicked token --------------------------------------------------------------

def test_a_clicked_token_stays_selected_when_its_flags_change_with_the_step(qtbot, topics_text) -> None:
    """Filter the intermediate tokens at the last step and click one: the timeline moves to the merge that
    made it, where (the core's audit says) it is not intermediate -- the row stays, selected."""
    from bpe_desktop.core.measure.vocab_audit import TokenFlag, audit, encoded_frequencies, made_counts
    from bpe_desktop.core.tokenizers.tokenizer import Tokenizer
    from bpe_desktop.gui.vocab.pane import VocabPane
    from support import finished_session

    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=150)
    text = topics_text[:80_000]
    wc = count_text(text, cfg)
    t = Trainer(wc, cfg)
    recs = t.run()
    s = finished_session(text, cfg, wc, t.model, recs)
    pane = VocabPane(s)
    qtbot.addWidget(pane)
    pane.resize(1100, 500)
    pane.show()
    qtbot.waitExposed(pane)

    def done() -> bool:
        return not pane.busy and pane.table_model.audit is pane.feed.audit

    qtbot.waitUntil(done, timeout=30_000)
    pane.flag_boxes[TokenFlag.INTERMEDIATE].setChecked(True)
    m = pane.table_model
    assert m.rowCount() > 0
    tid = m.token_id(0)
    made = m.audit.made_by[m.rows[0]]
    enc = Tokenizer(s.model, unknown="keep")
    k = made.step
    at_k = audit(s.model, k, encoded_frequencies(enc, wc.counts, k, s.model.vocab_size_at(k)),
                 counts_when_made=made_counts(s.records), threshold=0.1, encoder=enc)
    assert not at_k.flags[at_k.ids.index(tid)] & TokenFlag.INTERMEDIATE  # the filter would hide it at step k
    pane.view.selectRow(0)  # what a click does
    assert s.step == k
    qtbot.waitUntil(lambda: done() and m.audit.step == k, timeout=30_000)
    row = m.row_of_id(tid)
    assert row is not None and pane.view.selectionModel().currentIndex().row() == row
    assert [m.token_id(r) for r in range(m.rowCount())].count(tid) == 1
    pane.flag_boxes[TokenFlag.INTERMEDIATE].setChecked(False)
    pane.flag_boxes[TokenFlag.INTERMEDIATE].setChecked(True)  # a new filter: it applies to the token too
    assert m.row_of_id(tid) is None


# --- the well-known references: bundled, cl100k ticked; a missing file is named with a hint ---------------------

@pytest.mark.parametrize("lost", [(), ("o200k_base",), ("cl100k_base", "o200k_base", "gpt2")])
def test_the_panes_offer_the_bundled_references_and_name_a_missing_one(qtbot, monkeypatch, lost) -> None:
    """*lost*: the references whose bundled rank file is (made) missing, as in a damaged install."""
    from bpe_desktop.core.formats.presets import PRESETS, bundled_path
    from bpe_desktop.gui.compare import sources
    from bpe_desktop.gui.compare.panel import ComparePanel
    from bpe_desktop.gui.inspect.panel import LogInspector
    from bpe_desktop.gui.session import Session

    gone = {PRESETS[k.preset].encoding for k in sources.KNOWN_REFERENCES if k.name in lost}
    monkeypatch.setattr(sources, "bundled_path",
                        lambda p: "/nonexistent/" + p.encoding if p.encoding in gone else bundled_path(p))
    want = [k.name for k in sources.KNOWN_REFERENCES if k.name not in lost]
    ticked = [k.name for k in sources.KNOWN_REFERENCES if k.ticked and k.name not in lost]
    assert "cl100k_base" in ticked or "cl100k_base" in lost
    compare = ComparePanel(Session())
    inspector = LogInspector(Session())
    for w in (compare, inspector):
        qtbot.addWidget(w)
    assert [r.name for r in compare.references] == want
    assert [r.name for r in compare.references if r.enabled] == ticked
    assert [n for n in inspector.checks if n in {k.name for k in sources.KNOWN_REFERENCES}] == want
    assert [n for n in want if inspector.checks[n].isChecked()] == ticked
    for label in (compare.missing_refs, inspector.missing_refs):
        assert label.isHidden() == (not lost)
        if lost:
            assert all(n in label.text() for n in lost)
            assert "reinstall" in label.toolTip() and "Add…" in label.toolTip()
    assert compare.no_refs.isHidden() == bool(want)


# --- the Log inspector marks figures of another step ------------------------------------------------------

def test_the_log_inspector_marks_figures_of_another_step_as_stale(qtbot, dialogs) -> None:
    from bpe_desktop.core.logs.robotlogs import generate
    from bpe_desktop.gui.inspect.panel import LogInspector
    from bpe_desktop.gui.session import Session

    text = generate(300, seed=3)
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", merges=80)
    t = Trainer(count_text(text, cfg), cfg)
    recs = t.run()
    s = Session()
    s.set_corpus(CorpusSource.from_text(text), cfg)
    s.reset_model(copy.deepcopy(t.model), list(recs))
    s.set_step(80)
    p = LogInspector(s)
    qtbot.addWidget(p)
    p.resize(1000, 800)
    p.show()
    qtbot.waitExposed(p)
    p.set_text(text)
    with qtbot.waitSignal(p.runner.finished, timeout=120_000):
        assert p.inspect()
    assert not p.is_stale() and p.progress.format().startswith("done:")
    s.set_step(61)
    assert p.is_stale()
    assert p.progress.format() == ("stale: your tokenizer's figures are of step 80, the timeline is at 61 -- "
                                   "press Inspect to update")
    s.set_step(80)  # back where they were taken: not stale
    assert not p.is_stale() and p.progress.format().startswith("done:")
    s.reset_model(copy.deepcopy(t.model), list(recs))  # another model (the same merges, but replaced)
    assert p.is_stale() and "since replaced" in p.progress.format()
    with qtbot.waitSignal(p.runner.finished, timeout=120_000):
        assert p.inspect()
    assert not p.is_stale()


# --- the start card in front of a restored layout ---------------------------------------------------------

def test_the_start_card_is_in_front_of_a_restored_layout(qtbot, dialogs, monkeypatch) -> None:
    """A remembered layout whose front tab beside the token stream was the Log inspector: the start card
    (on the token stream) still shows."""
    from bpe_desktop.gui import app as gui_app
    from bpe_desktop.gui import layouts, window_state

    def restore(window) -> bool:  # as a saved state would leave it
        window.tabifyDockWidget(window.docks["tokens"], window.docks["inspect"])
        window.docks["inspect"].raise_()
        layouts.state(window).restored = True
        return True

    monkeypatch.setattr(window_state, "restore", restore)
    gui_app.make_app()
    w = gui_app.make_window(remember_layout=True)
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    qtbot.waitExposed(w)
    for _ in range(6):
        QtWidgets.QApplication.processEvents()
    assert w.start_screen is not None and w.start_screen.isVisible()
    assert not w.token_view.visibleRegion().isEmpty()
    assert w.docks["inspect"].visibleRegion().isEmpty()  # behind the token stream's tab


@given(st.text(min_size=0, max_size=40), st.sampled_from(FORMATS))
def test_renamed_gives_the_format_its_extension_and_keeps_the_stem(name: str, fmt) -> None:
    from bpe_desktop.gui.export_dialog import renamed

    out = renamed(name, fmt)
    assert out.endswith(fmt.ext) and out
    assert renamed(out, fmt) == out  # choosing the same format again changes nothing
    for other in FORMATS:  # any format and back gives the same name
        assert renamed(renamed(out, other), fmt) == out


# --- choosing a preset keeps the left docks' width ----------------------------------------------------------

def test_choosing_a_preset_keeps_the_left_docks_width(qtbot, dialogs, questions, monkeypatch) -> None:
    """A trained seed run, then a preset whose settings differ: the settings banner shows (elided when narrow) and the
    left docks keep their width (a one-line banner widened them by ~90 px)."""
    from bpe_desktop.core import count_source
    from bpe_desktop.gui import app as gui_app
    from support import SEED_TABLE, fit_check

    monkeypatch.setattr(QtWidgets.QMessageBox, "exec", lambda self: 0)  # any other box: closed
    gui_app.make_app()
    w = gui_app.make_window(remember_layout=False, start_screen=False)
    qtbot.addWidget(w)
    w.resize(1440, 900)
    w.show()
    qtbot.waitExposed(w)
    cfg = TrainConfig(merges=7)
    src = CorpusSource.from_text(SEED_TABLE, word_counts=True)
    t = Trainer(count_source(src, cfg), cfg)
    recs = t.run()
    w.session.set_corpus(src, cfg)
    w.session.reset_model(copy.deepcopy(t.model), recs)
    for _ in range(10):
        QtWidgets.QApplication.processEvents()
    left = [d for d in w.docks.values() if w.dockWidgetArea(d) == QtCore.Qt.DockWidgetArea.LeftDockWidgetArea
            and not d.isHidden()]
    before = [d.width() for d in left]
    combo = w.settings.preset
    i = combo.findText("GPT-2 style")
    assert i > 0
    combo.setCurrentIndex(i)
    combo.activated.emit(i)
    for _ in range(10):
        QtWidgets.QApplication.processEvents()
    assert w.settings.banner_shown
    assert [d.width() for d in left] == before
    w.docks["settings"].raise_()
    assert [str(c) for c in fit_check.clipped(w) if "settings" in c.where] == []
