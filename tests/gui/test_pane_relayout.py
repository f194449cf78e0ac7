"""Issue 25's latency rule, the Log inspector's part: what a Compare press changes in the pane stays in the pane.

A tokenizer added to the inspector's row (as *Compare in Log inspector* adds the extension) widened the pane's
minimum in a ``QHBoxLayout``; past the dock's width the main window laid every dock out again and repainted them
all.  The row is a :class:`~bpe_desktop.gui.widgets.flow_layout.FlowLayout` now: it wraps.  And the progress bar's
``setRange(0, 0)`` painted the window inside the click (:func:`~bpe_desktop.gui.widgets.quiet_progress.set_bar`).
Checked by geometry and by counting paint events, never by the clock.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6 import QtCore, QtWidgets

from bpe_desktop.gui.widgets.flow_layout import FlowLayout
from bpe_desktop.gui.widgets.quiet_progress import set_bar


def test_adding_tokenizers_to_the_inspector_leaves_the_other_docks_alone(window, qtbot, dialogs, tmp_path) -> None:
    window.resize(1440, 900)
    dock = window.docks["inspect"]
    dock.show()
    dock.raise_()
    pane = window.inspector
    qtbot.waitUntil(lambda: pane.isVisible() and not pane.visibleRegion().isEmpty())
    others = _settled(window, qtbot)
    width, minimum = dock.width(), pane.minimumSizeHint().width()
    names = []
    for i in range(3):  # long names, as "cl100k_extended.tiktoken (extended)": more than one line's room
        f = tmp_path / f"cl100k_extended_on_a_long_log_name_{i}.tiktoken"
        f.write_bytes(b"")
        names.append(pane.add_tokenizer(f"cl100k:{f}", f"{f.name} (extended)"))
    qtbot.wait(200)
    assert None not in names and not dialogs
    assert others == {k: window.docks[k].geometry() for k in others}
    assert dock.width() == width and pane.minimumSizeHint().width() == minimum
    boxes = [pane.checks[n] for n in pane.checks]
    strip = boxes[0].parentWidget()
    rects = [b.geometry() for b in boxes]
    assert all(strip.rect().contains(r) for r in rects), (strip.rect(), rects)  # wrapped, every box whole
    assert not any(a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1:])
    assert len({r.y() for r in rects}) > 1


def _settled(window, qtbot) -> dict[str, QtCore.QRect]:
    """The other docks' geometry once the window's own layout has settled (two looks alike)."""
    def look() -> dict[str, QtCore.QRect]:
        return {k: d.geometry() for k, d in window.docks.items() if k != "inspect" and d.isVisible()}
    last: dict[str, QtCore.QRect] = {}
    for _ in range(50):
        qtbot.wait(50)
        now = look()
        if now == last:
            break
        last = now
    return last


class _Paints(QtCore.QObject):
    def __init__(self) -> None:
        super().__init__()
        self.n = 0

    def eventFilter(self, obj: QtCore.QObject, ev: QtCore.QEvent) -> bool:
        self.n += ev.type() == QtCore.QEvent.Type.Paint
        return False


def test_set_bar_changes_the_bar_without_painting_it_there_and_then(qtbot) -> None:
    bar = QtWidgets.QProgressBar()
    qtbot.addWidget(bar)
    bar.show()
    qtbot.waitExposed(bar)
    paints = _Paints()
    bar.installEventFilter(paints)
    bar.setRange(0, 1)
    bar.setValue(1)
    QtWidgets.QApplication.processEvents()
    paints.n = 0
    bar.setRange(0, 0)  # Qt's own: the value falls outside, reset() repaints at once
    assert paints.n >= 1
    for lo, hi, value in ((0, 1, 1), (0, 0, None), (0, 1000, 0), (0, 1000, 500), (0, 1, 1)):
        QtWidgets.QApplication.processEvents()
        paints.n = 0
        set_bar(bar, lo, hi, value)
        assert paints.n == 0 and (bar.minimum(), bar.maximum()) == (lo, hi) and bar.updatesEnabled()
        if value is not None:
            assert bar.value() == value
        QtWidgets.QApplication.processEvents()
        assert paints.n >= 1  # painted on the next turn


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(widths=st.lists(st.integers(1, 120), min_size=0, max_size=12), heights=st.integers(5, 30),
       room=st.integers(120, 400))
def test_a_flow_layout_wraps_in_order_without_overlap(qtbot, widths: list[int], heights: int, room: int) -> None:
    holder = QtWidgets.QWidget()  # (not shown: the layout is asked directly; deleted with each example)
    flow = FlowLayout(holder, spacing=4)
    kids = []
    for k, w in enumerate(widths):
        kid = QtWidgets.QWidget()
        kid.setFixedSize(w, heights + k % 3)
        flow.addWidget(kid)
        kids.append(kid)
    flow.setGeometry(QtCore.QRect(0, 0, room, 1000))
    rects = [k.geometry() for k in kids]
    assert all(r.left() >= 0 and r.right() < room and r.size() == k.size() for r, k in zip(rects, kids, strict=True))
    assert not any(a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1:])
    for k in range(1, len(rects)):  # in order: right of the one before on its line, or first of a line below all
        a, b = rects[k - 1], rects[k]
        same_line = b.left() == a.right() + 1 + 4 and b.top() <= a.bottom()
        assert same_line or (b.left() == 0 and b.top() > max(r.bottom() for r in rects[:k])), (k, rects)
        assert same_line or a.right() + 4 + b.width() >= room  # wrapped only when it did not fit
    assert flow.heightForWidth(room) == (max(r.bottom() for r in rects) + 1 if rects else 0)
    assert flow.minimumSize().width() == max(widths, default=0)
    holder.deleteLater()


def test_a_hidden_token_stream_reads_a_big_corpus_file_when_shown(window, qtbot, tmp_path) -> None:
    """Its rows are read on the ``rows`` helper thread, which shares the interpreter with the GUI thread: while
    its dock is behind another tab (the Log inspector's, in the Extend flow) the read waits, and starts when
    the stream is brought to the front (counted reads, and the rows are the file's)."""
    from bpe_desktop.core import CorpusSource, TrainConfig
    from bpe_desktop.gui.stream.row_loader import THREAD_BYTES

    path = tmp_path / "big.log"
    text = "".join(f"[INFO] line {i} of a log big enough for the helper thread\n" for i in range(THREAD_BYTES // 40))
    path.write_text(text, encoding="utf-8")
    canvas = window.token_view.canvas
    window.docks["inspect"].raise_()  # the stream's dock behind the inspector's tab
    qtbot.waitUntil(lambda: canvas.visibleRegion().isEmpty())
    window.corpus.open_file(str(path))  # (a file's preview: the stream shows the run's corpus, not the editor's)
    window.corpus.publish_display_text()
    before = canvas.loader.threaded
    window.session.set_corpus(CorpusSource.from_files([path]), TrainConfig(mode="bytes", pretokenizer="gpt2"))
    qtbot.wait(100)
    assert canvas.loader.threaded == before and canvas.loader.busy and canvas.n_rows == 0  # not read: unseen
    window.docks["tokens"].raise_()
    qtbot.waitUntil(lambda: not canvas.loader.busy, timeout=30_000)
    assert canvas.loader.threaded == before + 1
    assert [canvas.row_text(r) for r in range(3)] == text.splitlines(keepends=True)[:3]


def test_a_run_shown_paints_the_merge_list_once(window, qtbot, dialogs) -> None:
    """An empty merge list given a run with more rows than it shows: its rows are painted once.  The vertical
    scroll bar used to appear then, narrowing the viewport; the stretched "token" column was resized, and
    QTableView repaints resized columns on a later turn -- every visible row painted twice."""
    from bpe_desktop.core import CorpusSource, TrainConfig, count_text, train
    from bpe_desktop.gui.work import Work
    from support import ROBOT_SAMPLE_FILE

    window.resize(1440, 900)
    text = "".join(ROBOT_SAMPLE_FILE.read_text(encoding="utf-8").splitlines(keepends=True)[:200])
    config = TrainConfig(mode="bytes", merges=120)
    model, records = train(count_text(text, config), config)
    view = window.merges.view
    _settled(window, qtbot)
    assert view.model().rowCount() == 0 and view.isVisible()
    paints = _Paints()
    view.viewport().installEventFilter(paints)
    window.session.load(Work.loaded(model, records, CorpusSource.from_text(text), config, "loaded"))
    qtbot.wait(300)
    view.viewport().removeEventFilter(paints)
    assert view.model().rowCount() == 120
    assert view.rowViewportPosition(view.rowAt(view.viewport().height() - 1)) > 0  # more rows than shown
    assert paints.n == 1


def test_a_first_run_shown_moves_no_other_button_in_the_toolbar_or_box_in_the_inspector(window, qtbot,
                                                                                       dialogs) -> None:
    """"Train" becomes "Retrain" and "yours (not trained)" becomes "yours (step N)" when a run is shown: each
    keeps the room of its longer text, so the rest of its row stays where it was -- not laid out and painted
    again unchanged (found comparing each painted widget's pixels before and after a load)."""
    from bpe_desktop.core import CorpusSource, TrainConfig, count_text, train
    from bpe_desktop.gui.work import Work
    from support import ROBOT_SAMPLE_FILE

    window.resize(1440, 900)
    dock = window.docks["inspect"]
    dock.show()
    dock.raise_()
    pane = window.inspector
    toolbar = window.findChild(QtWidgets.QToolBar, "training_toolbar")
    _settled(window, qtbot)
    own = pane.checks["yours"]

    def others() -> list[QtCore.QRect]:
        boxes = [b.geometry() for n, b in pane.checks.items() if b is not own]
        return boxes + [b.geometry() for b in toolbar.findChildren(QtWidgets.QToolButton) if b.isVisible()]

    before, text_before = others(), (own.text(), window.train_action.text())
    assert text_before == ("yours (not trained)", "Train") and len(before) > 4
    text = "".join(ROBOT_SAMPLE_FILE.read_text(encoding="utf-8").splitlines(keepends=True)[:200])
    config = TrainConfig(mode="bytes", merges=120)
    model, records = train(count_text(text, config), config)
    window.session.load(Work.loaded(model, records, CorpusSource.from_text(text), config, "loaded"))
    qtbot.wait(200)
    assert (own.text(), window.train_action.text()) == ("yours (step 120)", "Retrain")
    assert others() == before


def test_compare_in_log_inspector_paints_the_pane_on_the_next_turn(window, qtbot, dialogs, extended) -> None:
    """The press adds the extension's box (it wraps onto a second line: the tabs below move, and the pane
    repaints); that layout is the press's turn and the paint the next one's, not both in one."""
    from bpe_desktop.core import CorpusSource
    from bpe_desktop.gui.extend.open import compare_extension
    from bpe_desktop.gui.widgets.repaint_hold import repaint_held

    text, _out, done = extended
    window.resize(1440, 900)
    window.docks["inspect"].show()
    window.docks["inspect"].raise_()
    pane = window.inspector
    _settled(window, qtbot)
    paints = _Paints()
    pane.installEventFilter(paints)
    with qtbot.waitSignal(pane.runner.finished, timeout=240_000):
        assert compare_extension(window, "cl100k", done.read_as, CorpusSource.from_text(text))
        QtCore.QCoreApplication.sendPostedEvents()  # the rest of the press's turn
        assert paints.n == 0 and repaint_held(window)  # (painted here before)
        qtbot.waitUntil(lambda: paints.n > 0)
    assert not dialogs
