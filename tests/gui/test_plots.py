"""The plots pane with real widgets: plotted data equals the core's numbers; live updates are throttled;
exports produce valid PNG, SVG and CSV files."""

from __future__ import annotations

import csv
import itertools
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from bpe_desktop.core import CorpusSource, TrainConfig, Trainer, count_text
from bpe_desktop.core.errors import BpeError
from bpe_desktop.core.io.csv_table import csv_text
from bpe_desktop.core.measure.stats import (
    ZIPF_COLUMNS,
    SegmentationHistory,
    compression_from_records,
    drawn_ranks,
    recount_pairs,
)
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer
from bpe_desktop.gui.plots import panel as panel_mod
from bpe_desktop.gui.plots.feed import building_note
from bpe_desktop.gui.plots.panel import PlotsPanel
from bpe_desktop.gui.session import Session
from bpe_desktop.gui.training.protocol import TrainingState
from bpe_desktop.gui.widgets.token_labels import token_label
from support.plots import panel_for

MERGES = 200


@pytest.fixture(scope="module")
def trained(topics_text, trained_on):
    return trained_on(topics_text, TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=MERGES))


def make_session(trained, *, records=True, word_counts=True) -> Session:
    _text, wc, t, recs = trained
    cfg = trained.config
    s = Session()
    s.set_config(cfg)
    s.set_counted(wc if word_counts else None, s.initial_symbols, s.held_out)
    s.set_counted(s.word_counts, t.initial_symbols, s.held_out)
    if records:
        s.reset_model(t.model.truncated(0))
        s.append_records(recs)
        s.set_step(s.n_steps)  # the controller follows the end while training
    else:  # a model opened from a file: merges but no records
        s.reset_model(t.model.truncated(MERGES))
    return s


def orig(item) -> tuple[np.ndarray, np.ndarray]:
    ds = item.getOriginalDataset()
    return np.asarray(ds[0]), np.asarray(ds[1])


def drawn(full: SegmentationHistory, k: int, model) -> object:
    """What the pair plot draws at step *k* (the oracle: the whole table's same ranks, the pair merged next ringed)."""
    return full.zipf(k).view(model.merges[k] if k < len(model.merges) else None)


def wait_zipf_at(qtbot, panel: PlotsPanel, step: int) -> None:
    qtbot.waitUntil(lambda: panel.zipf.data is not None and panel.zipf.data.step == step, timeout=10_000)


def test_zipf_plot_shows_the_true_pair_counts_at_the_current_step(qtbot, trained) -> None:
    _text, wc, t, _ = trained
    s = make_session(trained)
    panel = panel_for(qtbot, s)
    wait_zipf_at(qtbot, panel, MERGES)
    s.set_step(37)
    wait_zipf_at(qtbot, panel, 37)
    x, y = orig(panel.zipf.curve)
    # the counts plotted == a from-scratch count over the Tokenizer's segmentation at step 37
    tok = Tokenizer(t.model)
    toks = t.model.tokens
    scratch = recount_pairs(([toks[i] for i in tok.encode_piece(w, upto=37)], c) for w, c in wc.counts.items())
    assert panel.zipf.data.n_pairs == len(scratch)
    ranks = drawn_ranks(len(scratch))  # the curve: each of the first ranks, then log-spaced ones
    assert x.tolist() == ranks and ranks[0] == 1 and ranks[-1] == len(scratch)
    assert y.astype(int).tolist() == [sorted(scratch.values(), reverse=True)[r - 1] for r in ranks]
    # the displayed (log-mode) data is the log10 of those numbers
    _dx, dy = panel.zipf.curve.getData()
    assert np.allclose(dy[:5], np.log10(y[:5]))
    # the pair about to be merged is ringed at its rank and count
    z = panel.zipf.data
    nxt = t.model.merges[37]
    r = z.next_rank
    assert r is not None and r == SegmentationHistory(wc, t.model).zipf(37).rank_of(nxt) and z.next_pair == nxt
    nx, ny = orig(panel.zipf.next)
    assert (nx.tolist(), ny.tolist()) == ([r], [scratch[(toks[nxt[0]], toks[nxt[1]])]])
    # the fitted line has the slope shown in the title
    fx, fy = orig(panel.zipf.fit)
    slope = (np.log10(fy[1]) - np.log10(fy[0])) / (np.log10(fx[1]) - np.log10(fx[0]))
    assert slope == pytest.approx(z.slope)
    assert f"slope {z.slope:.2f}" in panel.zipf.key.textItem.toPlainText()
    # top pairs labelled, in rank order
    box = panel.zipf.top_box.textItem.toPlainText()
    a, b = (token_label(t, s.model.mode) for t in z.top[0])  # written as the other panes write them
    assert f"{a} + {b}" in box


def test_compression_and_tradeoff_plots_equal_the_records(qtbot, trained) -> None:
    _text, wc, t, recs = trained
    s = make_session(trained)
    panel = panel_for(qtbot, s)
    qtbot.waitUntil(lambda: panel.tradeoff.data is not None, timeout=10_000)
    x, y = orig(panel.compression.symbols)
    assert x.tolist() == list(range(MERGES + 1))
    assert y.astype(int).tolist() == [t.initial_symbols] + [r.symbols_after for r in recs]
    mx, my = orig(panel.compression.merged)
    assert mx.tolist() == list(range(1, MERGES + 1))
    assert my.astype(int).tolist() == [r.merged for r in recs]
    hist = SegmentationHistory(wc, t.model)
    tr = hist.tradeoff()
    vx, vy = orig(panel.tradeoff.tpw)
    assert vx.astype(int).tolist() == tr.vocab_sizes
    assert np.allclose(vy, tr.tokens_per_word)
    assert np.allclose(orig(panel.tradeoff.bpt)[1], tr.bytes_per_token)
    # the current step is marked on every plot and follows scrubbing
    s.set_step(120)
    assert panel.compression.step_line.value() == 120
    assert panel.compression.step_line_bottom.value() == 120
    assert orig(panel.compression.here)[1].tolist() == [recs[119].symbols_after]
    assert panel.tradeoff.lines[0].value() == recs[119].vocab_size


def test_the_compression_and_trade_off_curves_are_drawn_in_turns_of_their_own(qtbot, trained) -> None:
    """Each curve of a long run is several ms to set: one a turn, so their sum never makes one gap (counted)."""
    s = make_session(trained)
    panel = panel_for(qtbot, s)
    drawn_in: list[tuple[int, str]] = []  # (the refresh turn, the plot)
    for plot in (panel.compression, panel.tradeoff):
        real = plot.set_data
        plot.set_data = lambda *a, real=real, name=plot.name, **k: (drawn_in.append((panel.slices, name)),
                                                                     real(*a, **k))[1]
    qtbot.waitUntil(lambda: panel.tradeoff.data is not None and panel.compression.data is not None, timeout=10_000)
    # the history's arrival changes the trade-off only (the compression curve is the records'): not drawn again
    assert [n for _, n in drawn_in].count(panel.compression.name) == 1
    s.append_records([])  # (the curves marked again: drawn again, one a turn)
    s.reset_model(s.model)
    qtbot.waitUntil(lambda: len(drawn_in) >= 4, timeout=10_000)
    names = [n for _, n in drawn_in]
    assert names.count(panel.compression.name) >= 2 and names.count(panel.tradeoff.name) >= 2
    turns = [t for t, _ in drawn_in]
    assert len(set(turns)) == len(turns)  # (never both in one turn)


def test_model_without_records_gets_its_curves_from_the_history(qtbot, trained) -> None:
    _, wc, t, recs = trained
    s = make_session(trained, records=False)
    panel = panel_for(qtbot, s)
    qtbot.waitUntil(lambda: panel.compression.data is not None and len(panel.compression.data.steps) == MERGES + 1,
                    timeout=10_000)
    assert panel.compression.data == compression_from_records(t.initial_symbols, recs)
    assert s.step == 0  # reset_model without records puts the timeline at step 0
    wait_zipf_at(qtbot, panel, 0)
    assert panel.zipf.data == drawn(SegmentationHistory(wc, t.model), 0, t.model)


def test_live_training_bursts_are_coalesced(qtbot, trained) -> None:
    _, _wc, t, recs = trained
    s = make_session(trained, records=False)
    s.reset_model(t.model.truncated(0))
    s.set_state(TrainingState.TRAINING)
    panel = panel_for(qtbot, s)
    qtbot.wait(50)
    before = panel.refreshes
    for i in range(0, MERGES, 4):  # 50 bursts in one event-loop turn, as a fast worker delivers them
        s.append_records(recs[i : i + 4])
        s.set_step(s.n_steps)
    def drawn_to_the_end() -> bool:  # (the pair plot and the curves are drawn in turns of their own)
        ds = panel.compression.symbols.getOriginalDataset()[0]
        return panel.zipf.data is not None and panel.zipf.data.step == MERGES and ds is not None and len(ds) > MERGES

    qtbot.waitUntil(drawn_to_the_end, timeout=10_000)
    assert panel.refreshes - before <= 10  # not one redraw per burst
    x, y = orig(panel.compression.symbols)
    assert len(x) == MERGES + 1 and int(y[-1]) == recs[-1].symbols_after


def test_in_memory_text_without_word_counts_is_counted_by_the_pane(qtbot) -> None:
    s = Session()
    text = "low low low low low lower lower newest newest newest widest widest widest"
    s.set_corpus(CorpusSource.from_text(text), TrainConfig(merges=5))
    t = Trainer(count_text(text, TrainConfig()), TrainConfig(merges=5))
    recs = t.run()
    s.reset_model(t.model.truncated(0))
    s.append_records(recs)
    s.set_step(5)
    panel = panel_for(qtbot, s)
    wait_zipf_at(qtbot, panel, 5)
    assert panel.zipf.data == drawn(SegmentationHistory(count_text(text, TrainConfig()), t.model), 5, t.model)


def test_file_corpus_before_counting_shows_a_note_not_a_crash(qtbot, topics_file) -> None:
    s = Session()
    s.set_corpus(CorpusSource.from_files([topics_file]))
    panel = panel_for(qtbot, s)
    qtbot.waitUntil(lambda: "counted" in panel.zipf.plot.titleLabel.text, timeout=5_000)
    assert panel.zipf.data is None and panel.compression.data is None


def test_exports_write_valid_png_svg_and_csv(qtbot, trained, tmp_path) -> None:
    _, wc, t, _ = trained
    s = make_session(trained)
    panel = panel_for(qtbot, s)
    s.set_step(50)
    wait_zipf_at(qtbot, panel, 50)
    whole = SegmentationHistory(wc, t.model).zipf(50)  # (the pair plot's CSV is every pair, not what it draws)
    for plot in (panel.zipf, panel.compression, panel.tradeoff):
        png, svg, csv_path = (tmp_path / f"{plot.name}.{k}" for k in ("png", "svg", "csv"))
        panel.export("png", png, plot)
        panel.export("svg", svg, plot)
        panel.export("csv", csv_path, plot)
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        img = QtGui.QImage(str(png))
        assert not img.isNull() and img.width() == 1400
        root = ET.parse(svg).getroot()
        assert root.tag.endswith("svg")
        assert len(list(root.iter())) > 20  # real drawing, not an empty document
        text = csv_path.read_text(encoding="utf-8")
        rows = whole.rows() if plot is panel.zipf else plot.csv_rows()
        assert text == csv_text(plot.csv_header, rows)
        assert text.count("\n") == len(rows) + 1 > 2
    with open(tmp_path / "pairs.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    assert tuple(rows[0]) == ZIPF_COLUMNS and len(rows) - 1 == len(whole.counts) == panel.zipf.data.n_pairs
    assert [(int(r), a, b, int(c)) for r, a, b, c in rows[1:]] == whole.rows()
    with pytest.raises(BpeError, match=r"PlotsPanel\.export"):  # (the plot itself holds no table to write)
        panel.zipf.export_csv(tmp_path / "drawn.csv")
    assert not (tmp_path / "drawn.csv").exists()
    with pytest.raises(BpeError):
        panel.export("png", tmp_path / "missing" / "x.png", panel.zipf)


def test_export_errors_are_shown_in_a_dialog(qtbot, trained, tmp_path, monkeypatch) -> None:
    s = make_session(trained)
    panel = panel_for(qtbot, s)
    bad = str(tmp_path / "no-such-folder" / "x.svg")
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName", lambda *a, **k: (bad, ""))
    shown = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "warning", lambda *a, **k: shown.append(a[2]))
    panel.buttons["svg"].click()
    assert shown and "does not exist" in shown[0]


def test_screenshot_renders(qtbot, trained, tmp_path) -> None:
    s = make_session(trained)
    panel = panel_for(qtbot, s)
    s.set_step(80)
    wait_zipf_at(qtbot, panel, 80)
    for i in range(3):
        panel.tabs.setCurrentIndex(i)
        qtbot.wait(10)
        img = panel.grab().toImage()
        assert not img.isNull() and img.width() == 900
        # something other than the white background was drawn in the plot area
        colours = {img.pixelColor(x, y).name() for x in range(100, 800, 7) for y in range(80, 500, 7)}
        assert len(colours) > 3


# -- live training while the statistics catch up in slices ---------------------------------------------
def test_zipf_shown_while_catching_up_is_always_exact_for_its_own_step(qtbot, trained) -> None:
    _text, wc, t, recs = trained
    s = make_session(trained, records=False)
    s.reset_model(t.model.truncated(0))
    s.set_state(TrainingState.TRAINING)
    panel = panel_for(qtbot, s)
    full = SegmentationHistory(wc, t.model)
    seen: set[int] = set()
    for i in range(0, MERGES, 20):  # records arrive faster than the pane's slices replay them
        s.append_records(recs[i : i + 20])
        s.set_step(s.n_steps)
        qtbot.wait(20)
        z = panel.zipf.data
        if z is not None and z.step not in seen:
            seen.add(z.step)
            assert z == full.zipf(z.step).view(z.next_pair) and z.next_pair == s.model.merges[z.step]
            title = panel.zipf.plot.titleLabel.text
            assert f"step {z.step:,}" in title
            assert ("catching up" in title) == (z.step < s.step)
    wait_zipf_at(qtbot, panel, MERGES)
    qtbot.waitUntil(lambda: "catching up" not in panel.zipf.plot.titleLabel.text, timeout=10_000)
    assert panel.zipf.data == drawn(full, MERGES, t.model)
    assert panel.slices > panel.refreshes  # the work was spread over more slices than redraws


def test_scrubbing_during_a_sliced_recount_shows_the_new_step(qtbot, trained) -> None:
    _text, wc, t, _ = trained
    s = make_session(trained)
    panel = panel_for(qtbot, s)
    wait_zipf_at(qtbot, panel, MERGES)
    full = SegmentationHistory(wc, t.model)
    for a, b in ((10, 150), (3, 4), (199, 0)):
        panel.feed.history._cache.clear()  # force full recounts, which take several slices
        s.set_step(a)
        panel.refresh()  # one slice of step a's recount, then the user moves on
        s.set_step(b)
        wait_zipf_at(qtbot, panel, b)
        assert panel.zipf.data == drawn(full, b, t.model)


# -- legibility ------------------------------------------------------------------------------------------
def _tick_labels(axis) -> list[tuple[float, str]]:
    lo, hi = axis.range
    size = axis.width() if axis.orientation in ("top", "bottom") else axis.height()
    values = [v for _spacing, vs in axis.tickValues(lo, hi, size) for v in vs]
    strings = axis.tickStrings(values, 1.0, 1.0)
    return [((v - lo) / (hi - lo) * size, text) for v, text in zip(values, strings, strict=True)]


@pytest.mark.parametrize("width", [900, 420])
def test_log_axes_show_round_numbers_that_do_not_collide(qtbot, width) -> None:
    s = Session()
    text = "low low low low low lower lower newest newest newest widest widest widest"
    s.set_corpus(CorpusSource.from_text(text), TrainConfig(merges=7))
    t = Trainer(count_text(text, TrainConfig()), TrainConfig(merges=7))
    s.reset_model(t.model.truncated(0))
    s.append_records(t.run())
    s.set_step(3)
    panel = panel_for(qtbot, s)
    panel.resize(width, 340)
    wait_zipf_at(qtbot, panel, 3)
    qtbot.wait(50)
    fm = QtGui.QFontMetrics(panel.zipf.plot.getAxis("bottom").style.get("tickFont") or panel.font())
    for name in ("bottom", "left"):
        ticks = _tick_labels(panel.zipf.plot.getAxis(name))
        assert len(ticks) >= 2, name
        for _pos, label in ticks:
            v = float(label.replace(",", "").replace("k", "e3"))
            assert v >= 1 and v == round(v), label  # no "0.91", no "10¹"
            assert str(int(v)).rstrip("0") in {"1", "2", "3", "4", "5", "6", "7", "8", "9"}, label
        if name == "bottom":  # neighbouring labels leave room for their text
            for (p0, l0), (p1, l1) in itertools.pairwise(ticks):
                assert p1 - p0 >= (fm.horizontalAdvance(l0) + fm.horizontalAdvance(l1)) / 2, (l0, l1)


@pytest.mark.parametrize("width", [900, 420])
def test_key_and_top_pairs_never_cover_the_curve(qtbot, trained, width) -> None:
    s = make_session(trained)
    panel = panel_for(qtbot, s)
    panel.resize(width, 380)
    s.set_step(20)
    wait_zipf_at(qtbot, panel, 20)
    qtbot.wait(50)
    z = panel.zipf
    view = z.plot.vb.sceneBoundingRect()
    card = QtCore.QRectF(z.viewport().rect())
    for box in (z.top_box, z.key):
        r = box.sceneBoundingRect()
        assert box.textItem.toPlainText().strip()
        assert not r.intersects(view), (width, r, view)
        assert card.contains(r), (width, r, card)  # legible: inside the card, not cut off
    assert card.contains(z.plot.sceneBoundingRect())
    # a long title widens the layout for a while; a shorter one later gives the room back
    z.set_data(z.data, note="catching up with a rather long explanation of what is going on here")
    z.set_data(panel.feed.zipf(20))
    qtbot.wait(20)
    assert card.contains(z.plot.sceneBoundingRect()), (width, z.plot.sceneBoundingRect(), card)


def test_a_new_model_empties_the_old_history_in_slices(qtbot, trained) -> None:
    _text, wc, t, recs = trained
    s = make_session(trained)
    panel = panel_for(qtbot, s)
    wait_zipf_at(qtbot, panel, MERGES)
    old = panel.feed.history
    assert old is not None and old.wcounts
    s.reset_model(t.model.truncated(0))  # Retrain: the old history goes, a new one is built
    s.append_records(recs[:50])
    s.set_step(50)
    wait_zipf_at(qtbot, panel, 50)
    qtbot.waitUntil(lambda: not s.trash.pending)  # the session's trash empties it, a slice a turn
    assert not old.wcounts and not old._segs
    assert panel.feed.history is not old
    assert panel.zipf.data == drawn(SegmentationHistory(wc, t.model), 50, s.model)


def test_a_hidden_pane_computes_but_draws_only_once_shown(qtbot, trained) -> None:
    """Behind another tab the pane keeps building its statistics but sets no plot data and moves no marks
    (that cost ~3.6 ms a frame during playback); shown again, it draws the step it is at."""
    s = make_session(trained)
    panel = panel_for(qtbot, s)
    s.set_step(30)
    wait_zipf_at(qtbot, panel, 30)
    qtbot.waitUntil(lambda: not panel.feed.history.pending, timeout=10_000)
    panel.hide()
    drawn = panel.refreshes
    s.set_step(150)
    qtbot.wait(300)
    assert panel.refreshes == drawn and panel.zipf.data.step == 30  # nothing drawn while hidden
    assert panel.compression.step_line.value() == 30
    panel.show()
    wait_zipf_at(qtbot, panel, 150)
    qtbot.waitUntil(lambda: panel.compression.step_line.value() == 150, timeout=5000)
    assert panel.refreshes > drawn


def test_a_hidden_pane_computes_nothing_while_a_run_streams(qtbot, trained) -> None:
    """Behind another tab during a run the statistics wait (their slices lengthened the window's busiest
    moments); the end of the run starts them, and they reach the last step."""
    s = make_session(trained, records=False)
    s.reset_model(trained[2].model.truncated(0))
    s.set_state(TrainingState.TRAINING)
    panel = PlotsPanel(s)
    qtbot.addWidget(panel)  # never shown
    s.append_records(trained[3])
    s.set_step(s.n_steps)
    qtbot.wait(300)
    assert panel.slices == 0 and panel.feed.history is None
    s.set_state(TrainingState.FINISHED)
    qtbot.waitUntil(lambda: panel.feed.history is not None and not panel.feed.history.pending, timeout=10_000)
    assert panel.feed.history.n_merges == MERGES and panel.refreshes == 0  # computed, not drawn


def test_zipf_data_a_slice_recounted_is_drawn_on_the_next_turn(qtbot, trained, monkeypatch) -> None:
    """Recounting the pairs and drawing them (4-5 ms, then a repaint) never share a turn of the event loop."""
    from bpe_desktop.gui.plots import panel as panel_mod

    monkeypatch.setattr(panel_mod, "DRAW_AFTER_S", 0.0)  # every recount counts as long
    s = make_session(trained)
    panel = panel_for(qtbot, s)
    panel._timer.stop()  # the test drives the turns itself
    drawn: list[int] = []  # the turn (panel.slices) of each drawing
    real_set = panel.zipf.set_data
    monkeypatch.setattr(panel.zipf, "set_data", lambda *a, **k: (drawn.append(panel.slices), real_set(*a, **k)))
    for _ in range(2000):  # turns, as the timer would run them, until the plot shows the step
        panel.refresh()
        if panel.zipf.data is not None and panel.zipf.data.step == MERGES:
            break
    assert panel.zipf.data is not None and panel.feed.latest_zipf is panel.zipf.data
    s.set_step(20)
    panel.refresh()  # recounts step 20 (it may take a few turns) ...
    while panel._zipf_ready is None and panel.zipf.data.step != 20:
        panel.refresh()
    assert panel.zipf.data.step == MERGES and panel.feed.latest_zipf.step == 20  # ... not drawn in that turn
    turn = panel.slices
    panel.refresh()
    assert panel.zipf.data.step == 20 and drawn[-1] == turn + 1  # the next turn draws it


def test_grouped_axis_writes_large_whole_numbers_with_separators(qtbot) -> None:
    """An extension's vocabulary sizes (100,260) read with separators; small or fractional ticks stay as
    pyqtgraph writes them."""
    import pyqtgraph as pg

    from bpe_desktop.gui.plots.common import GroupedAxis

    ax, plain = GroupedAxis("bottom"), pg.AxisItem("bottom")
    assert ax.tickStrings([100_260.0, 100_270.0], 1.0, 10.0) == ["100,260", "100,270"]
    for values, spacing in (([0.5, 1.0, 1.5], 0.5), ([10.0, 20.0], 10.0), ([10_000.5, 10_001.0], 0.5)):
        assert ax.tickStrings(values, 1.0, spacing) == plain.tickStrings(values, 1.0, spacing)


def test_the_plots_say_they_are_counting_while_a_big_history_is_built(qtbot, trained, monkeypatch) -> None:
    """A corpus of millions of pieces takes minutes of slices to build its history: meanwhile the pair plot and
    the status line say so (an empty chart with a bare title looked like a corpus without pairs)."""
    s = make_session(trained)
    feed = PlotsPanel(s).feed
    n = len(s.word_counts.counts)
    assert n > 2_000  # several units of a few hundred words: one call with no budget runs one unit
    assert feed.advance(budget_s=0.0) is True
    assert feed.history is None and feed.note == building_note(n) == f"counting pairs in {n:,} pieces…"
    calls = 1
    while feed.history is None:
        feed.advance(budget_s=0.0)
        calls += 1
    assert calls > 2 and feed.note == ""  # done: no note; its numbers are the history's
    monkeypatch.setattr(panel_mod, "SLICE_S", 0.0)  # the panel's slices: one unit of work each (see above)
    monkeypatch.setattr(panel_mod, "IDLE_SLICE_S", 0.0)
    panel = panel_for(qtbot, make_session(trained))
    panel.feed.advance(budget_s=0.0)
    panel.refresh()  # (the panel's own throttled call) shows the note in the pair plot's title while it builds
    assert panel.feed.history is None and "counting pairs in" in panel.zipf.plot.titleLabel.text
    monkeypatch.undo()
    wait_zipf_at(qtbot, panel, s.n_steps)
    assert "counting" not in panel.zipf.plot.titleLabel.text


def test_the_pair_plot_is_painted_a_turn_after_it_is_drawn(qtbot, trained) -> None:
    """Setting the pair plot's data (its curve, labels and table) is one turn and painting it the next, as a run
    shown is (``hold_repaint``): the two together were the longest gap of a big log's catch-up."""
    from bpe_desktop.gui.widgets.repaint_hold import repaint_held

    s = make_session(trained)
    panel = panel_for(qtbot, s)
    held: list[bool] = []
    real = panel._draw_zipf

    def draw(*a):  # type: ignore[no-untyped-def]
        real(*a)
        held.append(repaint_held(panel))

    panel._draw_zipf = draw  # type: ignore[method-assign]
    wait_zipf_at(qtbot, panel, MERGES)
    assert held and all(held)
    qtbot.waitUntil(lambda: not repaint_held(panel))  # (and then painted: the hold lasts one turn)
