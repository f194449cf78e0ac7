"""Help menu: the tour runs through every page on the real window, the algorithm text is README's, and the
shortcut list is read from the window's own actions."""

from __future__ import annotations

import dataclasses
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6 import QtCore, QtGui

from bpe_desktop.gui.training.protocol import TrainingState
from support import ROOT, SHARED

SEED_FILE = SHARED / "seeds" / "000-bpe-lesson-worked-example.txt"


def seed_table() -> list[tuple[str, str, int]]:
    """The seed's own table of the seven merges ("| 1 | e + s → es | 9 | ..."), parsed from its text when the
    seed file is here, else the table as the lesson prints it."""
    rows = [("e", "s", 9), ("es", "t", 9), ("est", "</w>", 9), ("l", "o", 7), ("lo", "w", 7), ("e", "w", 6),
            ("ew", "est</w>", 6)]
    if SEED_FILE.is_file():
        parsed = re.findall(r"^\| (\d) \| (\S+) \+ (\S+) → \S+ \| (\d+) \|", SEED_FILE.read_text(), re.M)
        assert len(parsed) == 7
        rows = [(a, b, int(c)) for _k, a, b, c in parsed]
    return rows


def test_the_tour_runs_to_its_end_with_the_seeds_merges(window, qtbot) -> None:
    w = window
    # another finished run with more than seven merges: the tour must not take it for the seed's
    w.corpus.set_text("abcdefghij klmnopqrst\n", name="other")
    w.settings.tie.setCurrentText("first-seen")
    w.settings.merges.setValue(12)
    w.train_action.trigger()
    qtbot.waitUntil(lambda: w.session.state is TrainingState.FINISHED and not w.controller.running,
                    timeout=30_000)
    assert len(w.session.records) >= 7
    w.resize(1440, 900)  # room beside every pane
    qtbot.waitUntil(lambda: w.size() == QtCore.QSize(1440, 900))
    tour = w.help.show_tour()
    qtbot.addWidget(tour)
    assert tour.isVisible() and tour.index == 0
    assert not tour.isWindow() and tour.parentWidget() is w  # a bubble inside the window
    shown: list[tuple[str, str, int]] = []
    framed: list[str] = []
    buttons: set[tuple[int, int, int, int]] = set()
    for i in range(len(tour.pages)):
        page = tour.pages[i]
        assert tour.index == i and tour.counter.text() == f"{i + 1} / {len(tour.pages)}"
        dock = w.docks[page.dock]
        assert tour.frame.isVisible() and tour.frame.target is dock  # the pane being talked about is framed
        assert tour.frame.geometry() == QtCore.QRect(dock.mapTo(w, QtCore.QPoint(0, 0)), dock.size())
        framed.append(page.dock)
        if page.step == 0:
            qtbot.waitUntil(lambda: tour.next_btn.isEnabled(), timeout=30_000)  # trains the seed, then Next
            assert w.session.step == 0 and w.token_view.visible_tokens()[0] == ["l", "o", "w", "</w>"]
        # beside the framed pane, not over it, inside the window's pane area; the buttons stay put
        assert tour._room().contains(tour.geometry()) and not tour.geometry().intersects(tour.frame.geometry())
        assert tour.body_area.verticalScrollBar().maximum() == 0  # the page's text fits the bubble
        buttons.add((*tour.size().toTuple(), *tour.back_btn.mapTo(tour, QtCore.QPoint(0, 0)).toTuple()))
        if tour.next_btn.isVisible():
            buttons.add((*tour.size().toTuple(), *tour.next_btn.mapTo(tour, QtCore.QPoint(0, 0)).toTuple()))
        if page.merge is not None:
            assert w.session.step == page.step
            got = tour.shown_merge()
            assert got == page.merge
            shown.append(got)
            r = w.session.records[page.step - 1]
            body = tour.body.text()
            assert "differs from the seed" not in body
            if r.ties:  # the tie and the rule that broke it, from the run's own record
                assert "tie at" in body and "lexical rule takes" in body
        if i < len(tour.pages) - 1:
            assert tour.next_btn.isVisible() and not tour.robot_btn.isVisible()
            qtbot.mouseClick(tour.next_btn, QtCore.Qt.MouseButton.LeftButton)
    assert shown == seed_table()  # the 7 merges the tour showed are the seed's table
    assert len(buttons) == 2, buttons  # one bubble size, Back and Next each at one place on every page
    assert w.session.config.tie_break == "lexical" and w.corpus.table_toggle.isChecked()
    assert {"corpus", "settings", "tokens", "why"} <= set(framed)
    # the end offers the robot-log sample
    assert not tour.next_btn.isVisible() and tour.robot_btn.isVisible()
    qtbot.mouseClick(tour.back_btn, QtCore.Qt.MouseButton.LeftButton)
    assert tour.index == len(tour.pages) - 2
    qtbot.mouseClick(tour.next_btn, QtCore.Qt.MouseButton.LeftButton)
    qtbot.mouseClick(tour.robot_btn, QtCore.Qt.MouseButton.LeftButton)
    assert not tour.isVisible() and not tour.frame.isVisible()
    assert w.corpus.name.startswith("Robot logs") and w.session.config.mode == "bytes"
    assert w.session.state in (TrainingState.COUNTING, TrainingState.TRAINING, TrainingState.FINISHED)
    w.controller.shutdown()


def test_the_tour_says_so_when_the_run_differs_from_the_seed(window, qtbot) -> None:
    tour = window.help.show_tour()
    qtbot.addWidget(tour)
    tour.go(1)
    tour.go(2)
    qtbot.waitUntil(lambda: tour.next_btn.isEnabled(), timeout=30_000)
    page = tour.pages[3]
    window.session.records[0] = dataclasses.replace(window.session.records[0], left="s", right="t")  # not seed
    tour.go(3)
    assert page.merge == ("e", "s", 9) and "differs from the seed" in tour.body.text()
    tour.close()


def test_algorithm_help_is_the_readme_section(window) -> None:
    from bpe_desktop.gui.help.algorithm import ALGORITHM_MD

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("## The algorithm, exactly\n")
    section = readme[start:readme.index("\n## ", start + 1)].split("\n", 1)[1].strip()
    assert ALGORITHM_MD.strip() == section  # edit both together
    dlg = window.help.show_algorithm()
    text = dlg.browser.toPlainText()
    assert "The algorithm, exactly" in text and "Tie-break rules" in text and "overlaps" in text
    assert "**" not in text  # rendered, not shown as Markdown source
    dlg.close()


def test_shortcut_list_has_every_action_with_a_key(window) -> None:
    dlg = window.help.show_shortcuts()
    rows = dlg.rows()
    native = QtGui.QKeySequence.SequenceFormat.NativeText
    expected = {(a.shortcut().toString(native), a.text().replace("&", "").rstrip("…").strip())
                for a in window.findChildren(QtGui.QAction) if not a.shortcut().isEmpty()}
    assert len(expected) >= 12
    assert expected <= set(rows)
    for sc in window.findChildren(QtGui.QShortcut):  # the timeline's window-wide keys too, with names
        keys = sc.key().toString(native)
        assert any(k == keys and name and name != keys for k, name in rows), keys
    assert ("F5", "Train") in rows and ("F1", "Tour: BPE on four words") in rows
    assert len(rows) == len(set(rows))
    dlg.close()


def test_platform_warnings_are_filtered_but_errors_pass() -> None:
    from bpe_desktop.gui.qt_messages import is_platform_noise

    M = QtCore.QtMsgType
    assert is_platform_noise(M.QtWarningMsg, "default", "This plugin does not support propagateSizeHints()")
    assert is_platform_noise(M.QtWarningMsg, "qt.qpa.xcb", "QXcbConnection: XCB error: 3 (BadWindow)")
    assert not is_platform_noise(M.QtCriticalMsg, "qt.qpa.xcb", "could not connect to display")
    assert not is_platform_noise(M.QtWarningMsg, "default", "QPainter::begin: Paint device returned engine == 0")
    assert not is_platform_noise(M.QtFatalMsg, "qt.qpa.plugin", "Could not load the Qt platform plugin")
    assert not is_platform_noise(M.QtWarningMsg, "qt.qpa.plugin", "xcb-cursor0 or libxcb-cursor0 is needed")


@settings(max_examples=60, deadline=None)
@given(win=st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(1, 40), st.integers(1, 40)),
       size=st.tuples(st.integers(1, 30), st.integers(1, 30)),
       avoid=st.tuples(st.integers(-5, 45), st.integers(-5, 45), st.integers(1, 40), st.integers(1, 40)),
       gap=st.integers(0, 3))
def test_the_tour_bubble_goes_beside_the_pane_when_any_spot_in_the_window_is_beside_it(win, size, avoid, gap
                                                                                        ) -> None:
    from bpe_desktop.gui.help.tour import bubble_spot

    window, avoid_r, sz = QtCore.QRect(*win), QtCore.QRect(*avoid), QtCore.QSize(*size)
    near = avoid_r.adjusted(-gap, -gap, gap, gap)

    def covered(r: QtCore.QRect) -> int:
        c = r.intersected(avoid_r)
        return c.width() * c.height() if c.isValid() else 0

    # every spot inside the window, by brute force: which are beside the pane, and the least covered
    spots = [QtCore.QRect(x, y, *size) for x in range(win[0], win[0] + win[2] - size[0] + 1)
             for y in range(win[1], win[1] + win[3] - size[1] + 1)]
    got = QtCore.QRect(bubble_spot(window, sz, avoid_r, gap), sz)
    if not spots:  # wider (taller) than the window: at its left (top) edge, inside it along the other axis
        if size[0] > win[2]:
            assert got.x() == win[0]
        else:
            assert win[0] <= got.x() and got.right() <= window.right()
        if size[1] > win[3]:
            assert got.y() == win[1]
        else:
            assert win[1] <= got.y() and got.bottom() <= window.bottom()
        return
    assert window.contains(got)
    if any(not r.intersects(near) for r in spots):
        assert not got.intersects(near)
    else:
        assert covered(got) == min(covered(r) for r in spots)
