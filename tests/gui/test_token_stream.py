"""The token-stream view with real widgets (offscreen): what is drawn at given steps, animation, hover, click."""

from __future__ import annotations

import copy

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from bpe_desktop.core import CorpusSource, TrainConfig, Trainer
from bpe_desktop.core.counting.pieces import count_text
from bpe_desktop.core.text.lines import split_lines
from bpe_desktop.core.tokenizers.tokenizer import UNKNOWN_ID
from bpe_desktop.gui.session import Session
from bpe_desktop.gui.stream.view import TokenStreamView
from bpe_desktop.gui.training.protocol import TrainingState

SEED_TABLE = "low 5\nlower 2\nnewest 6\nwidest 3"


@pytest.fixture
def seed_view(qtbot, clock, seeded):
    s, t, recs = seeded
    view = TokenStreamView(s)
    view.canvas.timing.clock = clock  # the tests move time by hand (clock.advance)
    qtbot.addWidget(view)
    view.resize(900, 300)
    view.show()
    qtbot.waitExposed(view)
    s.reset_model(copy.deepcopy(t.model), recs)
    return s, view


def go(session: Session, view: TokenStreamView, k: int) -> None:
    session.set_step(k)
    view.canvas.finish_animation()


def row_of(view: TokenStreamView, word: str) -> list[str]:
    words = [view.canvas.row_text(vr.row) for vr in view.canvas.screen_rows.rows()]
    return view.visible_tokens()[words.index(word)]


def test_word_table_shows_each_word_once_with_its_segmentation(seed_view) -> None:
    s, view = seed_view
    assert view.canvas.kind == "words"
    go(s, view, 0)
    assert len(view.visible_tokens()) == 4
    assert row_of(view, "newest") == ["n", "e", "w", "e", "s", "t", "</w>"]
    go(s, view, 3)
    assert " ".join(row_of(view, "newest")) == "n e w est</w>"
    assert " ".join(row_of(view, "widest")) == "w i d est</w>"
    go(s, view, 5)
    assert row_of(view, "lower") == ["low", "e", "r", "</w>"]
    go(s, view, 7)
    assert row_of(view, "newest") == ["n", "ewest</w>"]
    go(s, view, 1)  # backwards too
    assert row_of(view, "newest") == ["n", "e", "w", "es", "t", "</w>"]


def test_header_names_the_current_merge(seed_view) -> None:
    s, view = seed_view
    go(s, view, 3)
    text = view.header.text()  # plain text painted in parts (no HTML to escape)
    assert text.startswith("step 3 of 7") and "est + </w> → est</w>" in text and "count 9" in text


def test_single_step_animates_and_finishes(seed_view, qtbot) -> None:
    s, view = seed_view
    view.set_animation_duration(150)
    go(s, view, 2)
    view.canvas.timing.clock.advance(10)  # as if the user paused before stepping
    s.set_step(3)
    assert view.animating
    seen = []
    view.canvas.animation.valueChanged.connect(lambda v: seen.append(v))
    qtbot.waitUntil(lambda: not view.animating, timeout=3000)
    assert seen and 0.0 < min(seen) and max(seen) <= 1.0
    assert " ".join(row_of(view, "newest")) == "n e w est</w>"
    # and stepping back splits again (progress runs 1 -> 0)
    view.canvas.timing.clock.advance(10)
    s.set_step(2)
    assert view.animating
    qtbot.waitUntil(lambda: not view.animating, timeout=3000)
    assert row_of(view, "newest") == ["n", "e", "w", "est", "</w>"]


def test_animation_frames_draw_both_halves_and_glow(seed_view, qtbot) -> None:
    s, view = seed_view
    view.set_animation_duration(10_000)
    go(s, view, 2)
    view.canvas.timing.clock.advance(10)
    s.set_step(3)  # est + </w>
    canvas = view.canvas
    canvas.hold_animation_at(0.3)
    img = canvas.viewport().grab().toImage()
    # the glow colour (amber) is somewhere on screen mid-animation, and not after it finished
    def has_glow(image: QtGui.QImage) -> bool:
        for y in range(0, image.height(), 2):
            for x in range(0, image.width(), 2):
                c = image.pixelColor(x, y)
                if c.red() > 230 and 150 < c.green() < 225 and c.blue() < 120:
                    return True
        return False

    assert has_glow(img)
    canvas.finish_animation()
    assert not view.animating
    assert not has_glow(canvas.viewport().grab().toImage())


def test_jumps_and_fast_play_never_fall_behind(seed_view, qtbot) -> None:
    s, view = seed_view
    view.set_animation_duration(400)
    go(s, view, 0)
    s.set_step(7)  # a jump is drawn at once
    assert not view.animating
    assert row_of(view, "newest") == ["n", "ewest</w>"]
    go(s, view, 0)
    view.canvas.timing.clock.advance(10)
    skipped = view.canvas.animations_skipped
    for k in range(1, 8):  # steps every ~10 ms: much faster than a 400 ms animation
        view.canvas.timing.clock.advance(0.01)
        s.set_step(k)
        qtbot.wait(10)
    assert view.canvas.animations_skipped > skipped
    qtbot.waitUntil(lambda: not view.animating, timeout=2000)
    assert view.canvas.shown_step == 7
    assert row_of(view, "newest") == ["n", "ewest</w>"]


def test_play_speed_sets_duration(seed_view) -> None:
    _, view = seed_view
    view.set_play_speed(2)
    assert view.canvas.animation_duration() == 425
    view.set_play_speed(0.5)
    assert view.canvas.animation_duration() == 600  # capped
    view.set_play_speed(100)
    assert view.canvas.animation_duration() == 8  # 850 ms / 100: under the 50 ms floor, steps are just redrawn


def test_hover_tooltip_tells_text_id_rank_and_count(seed_view, qtbot) -> None:
    s, view = seed_view
    go(s, view, 7)
    canvas = view.canvas
    rows = [canvas.row_text(vr.row) for vr in canvas.screen_rows.rows()]
    r = canvas.screen_rows.rows()[rows.index("widest")].row
    pos = canvas.screen_rows.box_center(r, 3)  # est</w>
    hit = canvas.screen_rows.token_at(pos)
    assert hit is not None and hit[1].label == "est</w>"
    tip = canvas.tooltip_text(hit[1])
    assert "est</w>" in tip and f"id {s.model.token_ids['est</w>']}" in tip
    assert "merge 3: est + </w>" in tip and "count when created: 9" in tip
    # the real event path shows it
    ev = QtGui.QHelpEvent(QtCore.QEvent.Type.ToolTip, pos, canvas.viewport().mapToGlobal(pos))
    canvas.viewportEvent(ev)
    assert "count when created: 9" in QtWidgets.QToolTip.text()
    base = canvas.screen_rows.token_at(canvas.screen_rows.box_center(r, 0))
    assert base is not None and "base symbol" in canvas.tooltip_text(base[1])


def test_click_shows_derivation_tree_and_highlights_occurrences(seed_view, qtbot) -> None:
    s, view = seed_view
    go(s, view, 7)
    canvas = view.canvas
    rows = [canvas.row_text(vr.row) for vr in canvas.screen_rows.rows()]
    r = canvas.screen_rows.rows()[rows.index("newest")].row
    qtbot.mouseClick(canvas.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=canvas.screen_rows.box_center(r, 1))
    assert canvas.selected == s.model.token_ids["ewest</w>"]
    assert view.derivation_items() == [
        (0, "ewest</w>"), (1, "ew"), (2, "e"), (2, "w"), (1, "est</w>"), (2, "est"), (3, "es"), (4, "e"),
        (4, "s"), (3, "t"), (2, "</w>"),
    ]
    assert "5 merges from 6 symbols" in view.tree_title.text()  # ranks 1, 2, 3, 6, 7
    # est</w> occurs twice on screen at step 3 (newest, widest)
    go(s, view, 3)
    r2 = canvas.screen_rows.rows()[rows.index("widest")].row
    qtbot.mouseClick(canvas.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=canvas.screen_rows.box_center(r2, 3))
    assert view.find_status.text() == "2 on screen"
    # clicking empty space clears the selection
    qtbot.mouseClick(canvas.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=QtCore.QPoint(850, 280))
    assert canvas.selected is None


def test_find_box_selects_token_and_scrolls_to_it(qtbot, topics_text) -> None:
    s = Session()
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", merges=200)
    text = topics_text[:40_000]
    s.set_corpus(CorpusSource.from_text(text), cfg)
    t = Trainer(count_text(text, cfg), cfg)
    recs = t.run()
    view = TokenStreamView(s)
    qtbot.addWidget(view)
    view.resize(800, 300)
    view.show()
    s.reset_model(copy.deepcopy(t.model), recs)
    qtbot.keyClicks(view.find_box, "·the")
    qtbot.keyClick(view.find_box, QtCore.Qt.Key.Key_Return)
    tid = s.model.token_ids[b" the"]
    assert view.canvas.selected == tid
    row = view.canvas.first_row()
    assert any(seg.id == tid for seg in view.canvas.row_segments(row))
    view.find_box.setText("zzzz-not-a-token")
    assert view.find_next() is None and "no token" in view.find_status.text()


def test_large_text_encodes_only_visible_rows(qtbot, topics_text) -> None:
    big = topics_text * 5  # ≈ 3.7 MB
    s, view = _topics_view(qtbot, topics_text, merges=150, shown=big)
    canvas = view.canvas
    lines = split_lines(big)
    assert canvas.n_rows == len(lines) > 50_000
    canvas.viewport().repaint()
    on_screen = len(canvas.screen_rows.rows())
    assert 3 <= on_screen < 40
    assert canvas.rows_encoded <= on_screen
    before = canvas.rows_encoded
    s.set_step(40)  # a jump: one screenful more
    canvas.viewport().repaint()
    assert canvas.rows_encoded - before <= on_screen + 2
    # scroll to the middle: what is drawn is that part of the text, tokenized at step 40
    mid = len(lines) // 2
    canvas.scroll_to_row(mid)
    canvas.viewport().repaint()
    vis = canvas.screen_rows.rows()
    assert vis[0].row == mid
    tok = s.tokenizer
    for vr in vis:
        ids = [b.seg.id for b in vr.layout.boxes]
        assert ids == tok.encode(lines[vr.row], upto=40)
        assert tok.decode(ids) == lines[vr.row]
    assert canvas.rows_encoded < 4 * on_screen + 10


def test_bytes_mode_shows_partial_utf8_as_hex(qtbot) -> None:
    s = Session()
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", merges=3)
    text = "€ a€b\n"
    s.set_corpus(CorpusSource.from_text(text), cfg)
    t = Trainer(count_text(text, cfg), cfg)
    recs = t.run()
    view = TokenStreamView(s)
    qtbot.addWidget(view)
    view.show()
    s.reset_model(copy.deepcopy(t.model), recs)
    go(s, view, 0)
    assert view.visible_tokens()[0][:3] == ["⟨e2⟩", "⟨82⟩", "⟨ac⟩"]
    assert all("\ufffd" not in label for row in view.visible_tokens() for label in row)
    go(s, view, s.n_steps)
    # whatever the merges made, the boxes still spell the line
    assert s.tokenizer.decode(view.canvas.screen_rows.ids()[0]) == text


def test_chars_mode_unknown_characters_are_shown(qtbot, seeded) -> None:
    s, t, recs = seeded
    s.set_corpus(CorpusSource.from_text("lowest zoo\n"), TrainConfig(merges=7))
    view = TokenStreamView(s)
    qtbot.addWidget(view)
    view.show()
    s.reset_model(copy.deepcopy(t.model), recs)
    ids = view.canvas.screen_rows.ids()[0]
    assert view.visible_tokens()[0] == ["low", "est</w>", "z", "o", "o", "</w>"]
    assert ids[2] == UNKNOWN_ID
    hit = view.canvas.screen_rows.token_at(view.canvas.screen_rows.box_center(0, 2))
    assert hit is not None and "unknown" in view.canvas.tooltip_text(hit[1])


def test_streamed_records_and_corpus_change(qtbot, seeded) -> None:
    s, t, recs = seeded
    view = TokenStreamView(s)
    qtbot.addWidget(view)
    view.show()
    model = copy.deepcopy(t.model)
    model.merges = model.merges[:3]
    model.invalidate()
    s.reset_model(model, recs[:3])
    assert " ".join(row_of(view, "newest")) == "n e w est</w>"
    s.append_records(recs[3:])  # training goes on; the step stays where it was
    assert " ".join(row_of(view, "newest")) == "n e w est</w>"
    go(s, view, 7)
    assert row_of(view, "newest") == ["n", "ewest</w>"]
    s.set_corpus(CorpusSource.from_text("a b\n"), TrainConfig())
    assert view.canvas.kind == "text" and view.canvas.n_rows == 1


def test_file_corpus_without_editor_text_is_read_for_display(qtbot, topics_file) -> None:
    s = Session()
    s.set_corpus(CorpusSource.from_files([topics_file]), TrainConfig(mode="bytes", pretokenizer="gpt2"))
    view = TokenStreamView(s)
    qtbot.addWidget(view)
    view.show()
    assert view.canvas.n_rows == len(split_lines(topics_file.read_text(encoding="utf-8")))
    assert view.canvas.note == ""  # < 4 MB: all of it
    assert view.visible_tokens()[0]  # byte tokens at step 0


def test_animation_of_an_end_of_word_merge_in_running_text(qtbot, clock, seeded) -> None:
    """est + </w>: the marker covers no characters of the text (an empty span) and still animates."""
    s, t, recs = seeded
    s.set_corpus(CorpusSource.from_text("newest widest lowest\n"), TrainConfig(merges=7))
    view = TokenStreamView(s)
    qtbot.addWidget(view)
    view.resize(700, 200)
    view.show()
    s.reset_model(copy.deepcopy(t.model), recs)
    go(s, view, 2)
    assert view.visible_tokens()[0][:5] == ["n", "e", "w", "est", "</w>"]
    view.set_animation_duration(10_000)
    view.canvas.timing.clock = clock
    s.set_step(3)
    for p in (0.1, 0.4, 0.6, 0.9):
        view.canvas.hold_animation_at(p)
        view.canvas.viewport().repaint()  # pytest-qt fails the test on an exception inside paintEvent
    view.canvas.finish_animation()
    assert view.visible_tokens()[0][:5] == ["n", "e", "w", "est</w>", "w"]


# -- the view inside the main window: playback speed and live editor text -----------------------------------


def train_seed_in_window(qtbot, w) -> None:
    """Press Train (a real worker process) and wait for the 7 seed merges."""
    w.train_action.trigger()
    qtbot.waitUntil(lambda: w.session.state in (TrainingState.FINISHED, TrainingState.ERROR)
                    and not w.controller.running, timeout=30_000)
    assert w.session.state is TrainingState.FINISHED, w.session.error
    assert w.session.n_steps == 7


def test_timeline_speed_drives_the_token_animation(window, qtbot, clock, seeded) -> None:
    from bpe_desktop.gui.panes.timeline import SPEEDS

    w = window
    canvas = w.token_view.canvas
    canvas.timing.clock = clock
    combo = w.timeline.speed
    seen: list[float] = []
    w.timeline.speedChanged.connect(seen.append)
    # the window passes the initial speed on creation: 85 % of one step at the combo's speed
    assert canvas.animation_duration() == int(850 / combo.currentData())
    combo.setCurrentIndex(SPEEDS.index(2))
    assert seen == [2.0] and canvas.animation_duration() == 425
    combo.setCurrentIndex(SPEEDS.index(1))
    assert canvas.animation_duration() == 600  # capped
    # and an actual step animates for that long (a model opened into the session, no worker needed)
    s, t, recs = seeded
    w.session.set_corpus(s.source, TrainConfig(merges=7))
    w.session.reset_model(copy.deepcopy(t.model), recs)
    w.session.set_step(2)
    canvas.finish_animation()
    clock.advance(10)  # as if the user waited before stepping
    w.timeline.fwd_btn.click()
    assert w.token_view.animating and canvas.animation.duration() == 600
    combo.setCurrentIndex(SPEEDS.index(500))
    assert canvas.animation_duration() == 1  # 850 ms / 500 steps/s: too short to animate, steps are redrawn
    canvas.finish_animation()
    clock.advance(10)
    w.timeline.fwd_btn.click()
    assert not w.token_view.animating and w.session.step == 4


def test_edited_text_is_shown_with_the_current_model(window, qtbot) -> None:
    w = window
    train_seed_in_window(qtbot, w)
    s, view = w.session, w.token_view
    model, n_records = s.model, len(s.records)
    assert view.canvas.kind == "words" and view.canvas.n_rows == 4
    # type a new row into the word-count table: it appears ~300 ms later, tokenized at step 7
    editor = w.corpus.editor
    editor.moveCursor(QtGui.QTextCursor.MoveOperation.End)
    qtbot.keyClick(editor, QtCore.Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "lowest 4")
    qtbot.waitUntil(lambda: view.canvas.n_rows == 5, timeout=3000)
    assert row_of(view, "lowest") == ["low", "est</w>"]
    assert s.display_text is not None and s.display_text.endswith("lowest 4")
    # not retrained, model kept; the status bar still offers Retrain
    assert s.model is model and len(s.records) == n_records and s.state is TrainingState.FINISHED
    assert "Retrain" in w.statusBar().currentMessage()
    # the timeline still moves the edited view
    go(s, view, 0)
    assert row_of(view, "lowest") == ["l", "o", "w", "e", "s", "t", "</w>"]
    go(s, view, 7)
    # a half-typed row ("zed" without a count) keeps the last table that parsed and says what is wrong
    qtbot.keyClick(editor, QtCore.Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "zed")
    qtbot.waitUntil(lambda: view.canvas.note != "", timeout=3000)
    assert view.canvas.n_rows == 5
    # running text: characters the chars-mode alphabet lacks are unknown boxes
    w.corpus.table_toggle.click()
    editor.selectAll()
    qtbot.keyClicks(editor, "lowest zebra")
    qtbot.waitUntil(lambda: view.canvas.kind == "text" and view.canvas.row_text(0) == "lowest zebra",
                    timeout=3000)
    assert view.visible_tokens()[0][:2] == ["low", "est</w>"]
    ids = view.canvas.screen_rows.ids()[0]
    assert ids.count(UNKNOWN_ID) == 3  # z, b, a
    assert s.tokenizer.decode([i for i in ids if i != UNKNOWN_ID]).replace(" ", "") == "lowester"
    assert s.model is model and len(s.records) == n_records


def test_untrained_editor_text_shows_base_symbols_and_train_shows_the_source(window, qtbot) -> None:
    w = window
    view = w.token_view
    w.corpus.set_text("lowest lower\n", word_counts=False)
    w.corpus.publish_display_text()
    # step 0 before any training: the text cut into its base symbols (characters, then the marker), not a blank
    assert view.canvas.n_rows == 1 and view.canvas.note == ""
    assert view.visible_tokens()[0] == [*"lowest", "</w>", *"lower", "</w>"]
    assert UNKNOWN_ID not in view.canvas.screen_rows.ids()[0]
    assert "base symbols only" in view.header.text() and not w.session.records
    w.settings.mode.setCurrentText("bytes")  # the settings decide what the base symbols are
    assert view.visible_tokens()[0][:3] == ["l", "o", "w"] and w.session.model.mode == "bytes"
    w.settings.mode.setCurrentText("chars")
    train_seed_in_window(qtbot, w)
    assert w.session.display_text is None  # the trained source is the editor's text
    assert view.canvas.note == "" and view.canvas.row_text(0).rstrip() == "lowest lower"
    tokens = view.visible_tokens()[0]  # trained on this very text: 7 merges make fewer boxes than characters
    assert "".join(tokens).replace("</w>", " ").split() == ["lowest", "lower"] and len(tokens) < 11


def test_display_text_equal_to_the_source_is_not_an_edit() -> None:
    s = Session()
    s.set_corpus(CorpusSource.from_text("a b\n"), TrainConfig())
    fired: list[str] = []
    s.displayTextChanged.connect(fired.append)
    s.set_display_text("a b\n", word_counts=False)
    assert s.display_text is None and fired == []
    s.set_display_text("a b c\n", word_counts=False)
    assert s.display_text == "a b c\n" and fired == ["a b c\n"]
    s.set_display_text("a b c\n", word_counts=False)  # unchanged: no second signal
    assert fired == ["a b c\n"]
    s.set_corpus(CorpusSource.from_text("a b c\n"), TrainConfig())
    assert s.display_text is None


def test_box_pictures_are_reused_and_show_the_selection(seed_view) -> None:
    s, view = seed_view
    go(s, view, 3)
    c = view.canvas
    c.viewport().repaint()
    made = c.boxes.pixmaps_made
    assert made > 0
    c.viewport().repaint()  # the same screen again: every box picture comes from the cache
    assert c.boxes.pixmaps_made == made
    vr = next(v for v in c.screen_rows.rows() if c.row_text(v.row) == "newest")
    box = next(b for b in vr.layout.boxes if b.seg.label == "est</w>")
    x, y = int(box.x + box.w / 2), int(vr.top + box.y) + 1
    want = c.boxes.special_pens[0].color()  # the selection border

    def near(col: QtGui.QColor) -> bool:
        return abs(col.red() - want.red()) + abs(col.green() - want.green()) + abs(col.blue() - want.blue()) < 90

    def border_is_selected() -> bool:  # the top border, a few pixels down from the box's top
        img = c.viewport().grab().toImage()
        return any(near(img.pixelColor(x, yy)) for yy in range(y - 2, y + 3))

    assert not border_is_selected()
    c.select(box.seg.id)
    c.viewport().repaint()
    assert c.boxes.pixmaps_made > made  # the selected token gets its own picture (thicker border)
    assert border_is_selected()


def test_box_pictures_outlive_a_retrain_of_the_same_kind(qtbot, seed_view, seeded) -> None:
    """A new run (Retrain) shows the same base symbols at step 0: their pictures are not drawn again; a model
    of another kind (other base symbols) starts afresh."""
    from bpe_desktop.core.tokenizers.model import BPEModel

    s, view = seed_view
    _s, t, _recs = seeded
    c = view.canvas

    def shown() -> None:  # a new model's screen is drawn ahead (.ahead), then painted
        qtbot.waitUntil(lambda: not c.ahead.pending and c.viewport().updatesEnabled())
        c.viewport().repaint()

    go(s, view, 0)
    shown()
    s.reset_model(BPEModel.empty(s.config))  # a retrain starts: an empty model while the corpus is counted ...
    shown()
    made = c.boxes.pixmaps_made
    s.reset_model(copy.deepcopy(t.model).truncated(0))  # ... then the same mode and alphabet: all drawn before
    shown()
    assert c.boxes.pixmaps_made == made
    other = BPEModel(mode="chars", base=["x", *t.model.base])  # one more base symbol: ids shift
    s.reset_model(other)
    shown()
    assert c.boxes.pixmaps_made > made


def _topics_view(
    qtbot, topics_text: str, merges: int = 120, shown: str | None = None
) -> tuple[Session, TokenStreamView]:
    """A shown view of *shown* (default: the first 200 KB of the topics), trained on the first 30 KB."""
    text = topics_text[:200_000] if shown is None else shown
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", merges=merges)
    t = Trainer(count_text(text[:30_000], cfg), cfg)
    recs = t.run()
    s = Session()
    s.set_corpus(CorpusSource.from_text(text), cfg)
    view = TokenStreamView(s)
    qtbot.addWidget(view)
    view.resize(900, 400)
    view.show()
    qtbot.waitExposed(view)
    s.reset_model(copy.deepcopy(t.model), recs)
    c = view.canvas  # painted once (the window is exposed), after its screen was drawn ahead (.ahead)
    qtbot.waitUntil(lambda: c.boxes.pixmaps_made > 0 and not c.ahead.pending and c.viewport().updatesEnabled())
    return s, view


def _show_rows(canvas, first: int, n: int) -> int:
    """Scroll page by page through rows first..first+n, painting each page; returns the next row."""
    row = first
    while row < first + n:
        canvas.scroll_to_row(row)
        canvas.viewport().repaint()
        row += max(1, len(canvas.screen_rows.rows()) - 1)  # lays the page out if the paint was coalesced
    return row


def _show_top(canvas) -> list[int]:
    """Scroll to the first row and lay out the screen; returns the rows on it."""
    canvas.scroll_to_row(0)
    return [vr.row for vr in canvas.screen_rows.rows()]


def test_cached_rows_add_no_gc_tracked_objects(qtbot, topics_text) -> None:
    """The view's caches hold rows as untracked tuples: showing many more rows adds (almost) nothing that a
    full garbage collection must scan -- not one object per token as a list of Segment / Box objects did."""
    gc_mod = pytest.importorskip("gc")
    s, view = _topics_view(qtbot, topics_text)
    canvas = view.canvas
    s.set_step(80)
    canvas.finish_animation()
    row = _show_rows(canvas, 0, 300)  # warm up: box pictures, labels and colours of the common tokens
    gc_mod.collect()
    gc_mod.collect()
    before_objects, before_rows = len(gc_mod.get_objects()), len(canvas.caches.segments)
    _show_rows(canvas, row, 1500)
    gc_mod.collect()
    gc_mod.collect()  # a tuple whose items were still tracked at the first pass is untracked at the next
    added_rows = len(canvas.caches.segments) - before_rows
    tokens = sum(len(segs) // 4 for segs in canvas.caches.segments.values())
    added_objects = len(gc_mod.get_objects()) - before_objects
    assert added_rows >= 1400 and tokens > 10 * added_rows  # the caches did take in those rows, many tokens each
    assert not any(gc_mod.is_tracked(v) for v in canvas.caches.segments.values())
    assert not any(gc_mod.is_tracked(v) for v in canvas.caches.layouts.values())
    assert not any(gc_mod.is_tracked(k) for k in canvas.caches.segments)
    # what remains per new row (a new token's box picture) is well under one a row
    assert added_objects < 0.5 * added_rows, (added_objects, added_rows, tokens)
    # the query API still gives real objects (made on demand)
    assert all(vr.layout.boxes for vr in canvas.screen_rows.rows())


def test_row_caches_are_least_recently_used_and_bounded(qtbot, topics_text, monkeypatch) -> None:
    from bpe_desktop.gui.stream import canvas as token_canvas
    from bpe_desktop.gui.stream import painting

    monkeypatch.setattr(token_canvas, "CACHE_ROWS", 60)
    monkeypatch.setattr(painting, "BOX_PIXMAP_LIMIT", 80)
    s, view = _topics_view(qtbot, topics_text, merges=40)
    canvas = view.canvas
    top = _show_top(canvas)
    assert len(top) > 3
    _show_rows(canvas, 100, 40)  # fewer than the cap: the first screen is still cached
    before = canvas.rows_encoded
    assert _show_top(canvas) == top and canvas.rows_encoded == before
    _show_rows(canvas, 200, 300)  # far more than the cap
    assert len(canvas.caches.segments) <= 60 and len(canvas.caches.layouts) <= 60
    assert len(canvas.caches.pictures) <= 80 < canvas.boxes.pixmaps_made
    # the rows just shown are the ones kept: showing them again encodes nothing
    last = canvas.first_row()
    before = canvas.rows_encoded
    canvas.scroll_to_row(last - 5)
    canvas.screen_rows.rows()
    assert canvas.rows_encoded == before
    # a row pushed out is encoded again when shown again, and the same
    assert _show_top(canvas) == top
    assert canvas.rows_encoded == before + len(top)
    assert [b.seg.id for b in canvas.screen_rows.rows()[0].layout.boxes] == s.tokenizer.encode(
        canvas.row_text(0), upto=s.step
    )


def test_retraining_on_the_same_file_reuses_the_split_rows(qtbot, tmp_path, monkeypatch) -> None:
    """Train/Retrain sets the corpus again (as the controller does); an unchanged corpus file must not be
    re-read and re-split (15 ms of GUI time for a 4 MB file), a changed one must."""
    import os

    import bpe_desktop.gui.stream.rows as tc
    from bpe_desktop.core import CorpusSource, TrainConfig, Trainer, count_source
    from bpe_desktop.gui.session import Session
    from bpe_desktop.gui.stream.view import TokenStreamView

    corpus = tmp_path / "c.txt"
    corpus.write_text("low lower newest\nwidest low\n" * 50, encoding="utf-8")
    reads = []
    real = tc.read_display_text
    monkeypatch.setattr(tc, "read_display_text", lambda *a, **k: reads.append(a) or real(*a, **k))
    s = Session()
    view = TokenStreamView(s)
    qtbot.addWidget(view)
    cfg = TrainConfig(merges=5)

    def train() -> None:
        src = CorpusSource.from_files([corpus])  # a new, equal source each time, as the editor makes it
        s.set_corpus(src, cfg)
        t = Trainer(count_source(src, cfg), cfg)
        s.reset_model(t.model, t.run())

    train()
    train()
    assert len(reads) == 1
    assert view.visible_tokens()[0][0] == "low"
    corpus.write_text("newest widest\n", encoding="utf-8")  # the file changed on disk: read it again
    os.utime(corpus, ns=(1, 1))
    train()
    assert len(reads) == 2
    assert view.visible_tokens()[0][0] != "low"


def test_a_followed_step_is_encoded_in_a_turn_of_its_own_then_painted(qtbot, seed_view) -> None:
    """While a run streams, the step jumps (the controller follows the newest merge): the rows on screen are
    encoded on a later event-loop turn than the step change, and the repaint after that draws them."""
    s, view = seed_view
    canvas = view.canvas
    go(s, view, 0)
    qtbot.wait(20)
    s.set_state(TrainingState.TRAINING)
    before = canvas.rows_encoded
    paints: list[int] = []

    class Paints(QtCore.QObject):
        def eventFilter(self, obj: QtCore.QObject, ev: QtCore.QEvent) -> bool:
            if ev.type() == QtCore.QEvent.Type.Paint:
                paints.append(canvas.rows_encoded)
            return False

    spy = Paints()
    canvas.viewport().installEventFilter(spy)
    s.set_step(5)  # a jump (not one step: no animation) to a step not shown before
    assert canvas.rows_encoded == before  # nothing encoded inside the step change
    qtbot.waitUntil(lambda: bool(paints))
    assert paints[0] == canvas.rows_encoded > before  # encoded first, painted after, nothing encoded in the paint
    assert row_of(view, "lower") == ["low", "e", "r", "</w>"]
    s.set_state(TrainingState.FINISHED)
    before = canvas.rows_encoded
    paints.clear()
    s.set_step(2)  # not streaming: as before, the paint encodes what it draws
    qtbot.waitUntil(lambda: bool(paints))
    canvas.viewport().removeEventFilter(spy)
    assert row_of(view, "newest") == ["n", "e", "w", "est", "</w>"]


def test_a_retrain_on_the_same_rows_and_base_keeps_step_0_encoded(qtbot, topics_text) -> None:
    """The Train press shows step 0 of the same rows at once; another base alphabet encodes them again."""
    s, view = _topics_view(qtbot, topics_text)
    canvas = view.canvas
    cfg = s.config
    go(s, view, 0)
    top = _show_top(canvas)
    before = canvas.rows_encoded
    s.set_corpus(CorpusSource.from_text(s.source.text), cfg)  # what Train does: the same text, a fresh model
    s.reset_model(copy.deepcopy(s.model))
    assert _show_top(canvas) == top and canvas.rows_encoded == before  # step 0: nothing encoded again
    first = canvas.row_ids(top[0])
    go(s, view, 0)
    chars = TrainConfig(mode="chars", pretokenizer="gpt2", end_of_word="")  # another base: all encoded again
    s.set_corpus(CorpusSource.from_text(s.source.text), chars)
    assert _show_top(canvas) == top and canvas.rows_encoded == before + len(top)
    assert canvas.row_ids(top[0]) != first  # (chars over no alphabet yet: unknown ids, not bytes')
