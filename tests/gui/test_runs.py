"""Issue 14, the window's half: runs, branch at step k (in the worker), forbid and branch, compare runs.

Real widgets offscreen and the real worker process.  Oracles: a fresh core run with the same settings and
forbids (the trainer), :func:`diff_models` for the diff view, and an independently built
:class:`SegmentationHistory` for the overlaid bytes-per-token and Zipf curves.
"""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from bpe_desktop.core import Trainer, count_source
from bpe_desktop.core.formats.session_file import dumps_session, loads_session
from bpe_desktop.core.measure.run_diff import diff_models
from bpe_desktop.core.measure.stats import SegmentationHistory, compression_from_records
from bpe_desktop.gui import app as gui_app
from bpe_desktop.gui import layouts
from bpe_desktop.gui.runs import branch_dialog
from bpe_desktop.gui.runs.persist import from_document, snapshot, to_document
from bpe_desktop.gui.runs.whatif import WhatIf
from bpe_desktop.gui.training import process
from bpe_desktop.gui.training.protocol import Stage, TrainingState
from support.window import START_S, click_train, table_pairs, wait_finished

MERGES = 150


def pairs(records) -> list[tuple[str, str]]:
    return [(r.left, r.right) for r in records]


def train_text(qtbot, w, text: str, merges: int = MERGES) -> None:
    w.corpus.set_text(text, name="topics")
    w.settings.merges.setValue(merges)
    click_train(qtbot, w)
    wait_finished(qtbot, w)


def right_click_merge(qtbot, w, rank: int, action: str, monkeypatch) -> None:
    """Right-click merge *rank* in the merge list and choose the action named *action*."""
    chosen: list[str] = []

    def exec_(_self: object, menu: QtWidgets.QMenu, *_a: object) -> None:
        act = next(a for a in menu.actions() if a.objectName() == action)
        chosen.append(act.text())
        act.trigger()

    monkeypatch.setattr(WhatIf, "popup", exec_)
    view = w.merges.view
    idx = view.model().index(rank - 1, 0)
    view.scrollTo(idx)
    view.customContextMenuRequested.emit(view.visualRect(idx).center())
    assert chosen, "the context menu did not open"


@pytest.fixture
def text(topics_text: str) -> str:
    return topics_text[:40_000]


def test_branch_from_the_merge_list_equals_a_fresh_run_with_the_same_forbids(qtbot, window, text, monkeypatch
                                                                             ) -> None:
    train_text(qtbot, window, text)
    s = window.session
    src = list(s.records)
    k = 60
    forbidden = pairs(src)[k + 5]  # merged after k: forbidding it cannot change the first k merges
    stages: list[str] = []
    s.progressChanged.connect(lambda stage, *_: stages.append(stage))

    def accept(dlg: branch_dialog.BranchDialog) -> int:
        assert dlg.point.step == k
        dlg.merges.setValue(MERGES + 20)
        dlg.forbid.pairs_edit.setPlainText(" ".join(forbidden))
        assert "restarts" not in dlg.note.text()
        return QtWidgets.QDialog.DialogCode.Accepted

    monkeypatch.setattr(branch_dialog.BranchDialog, "exec", accept)
    right_click_merge(qtbot, window, k, "branchHere", monkeypatch)
    wait_finished(qtbot, window)
    assert Stage.REPLAYING in stages  # the worker replayed the first k merges, it did not retrain them
    assert s.records[:k] == src[:k]  # kept as they were (contenders included)
    cfg = s.config
    assert cfg.forbid == (forbidden,) and cfg.merges == MERGES + 20
    fresh = Trainer(count_source(s.source, cfg), cfg).run()
    assert pairs(fresh[:k]) == pairs(src[:k])
    assert fresh[k:] == s.records[k:]  # merges after k identical, record for record
    assert forbidden not in pairs(s.records)
    assert table_pairs(window) == pairs(s.records)
    assert len(window.runs.store.runs) == 2
    assert (window.runs.pane.names()[1]
            == f"branch of run 1 at {k}: up to {MERGES + 20} merges, forbid {'+'.join(forbidden)}")


def test_forbid_and_branch_never_merges_the_pair(qtbot, window, text, monkeypatch) -> None:
    train_text(qtbot, window, text)
    s = window.session
    src = list(s.records)
    rank = 40
    pair = pairs(src)[rank - 1]
    right_click_merge(qtbot, window, rank, "forbidAndBranch", monkeypatch)
    wait_finished(qtbot, window)
    assert pairs(s.records[: rank - 1]) == pairs(src[: rank - 1])
    assert pair not in pairs(s.records)
    assert len(s.records) == MERGES
    cfg = s.config
    assert cfg.forbid == (pair,)
    fresh = Trainer(count_source(s.source, cfg), cfg).run()
    # the first rank-1 merges coincide (the kept records list the pair as a runner-up, a fresh run does not)
    assert pairs(fresh[: rank - 1]) == pairs(s.records[: rank - 1])
    assert fresh[rank - 1:] == s.records[rank - 1:]
    assert window.runs.pane.names()[1] == f"branch of run 1 at {rank - 1}: forbid {'+'.join(pair)}"


def test_switching_runs_swaps_the_panes_and_back_without_retraining(qtbot, window, text, monkeypatch
                                                                    ) -> None:
    train_text(qtbot, window, text)
    s, store = window.session, window.runs.store
    first = pairs(s.records)
    window.runs.whatif.forbid_and_branch(10)
    wait_finished(qtbot, window)
    second = pairs(s.records)
    assert first != second
    s.set_step(33)
    launches: list[object] = []
    real = process.Launch
    monkeypatch.setattr(process, "Launch", lambda *a, **k: launches.append(a) or real(*a, **k))
    pane = window.runs.pane
    # the Runs dock is a tab in the secondary tab area (beside Why and Plots) of the default layout
    assert set(window.tabifiedDockWidgets(window.docks["runs"])) == {window.docks["why"], window.docks["plots"]}
    qtbot.mouseClick(pane.list.viewport(), QtCore.Qt.MouseButton.LeftButton,
                     pos=pane.list.visualItemRect(pane.list.item(0)).center())
    assert store.current == 0
    assert table_pairs(window) == first and pairs(s.records) == first
    assert s.records is store.runs[0].records  # the run itself, not a copy or a retrained one
    assert window.timeline.slider.maximum() == len(first) and s.step == len(first)
    assert s.state is TrainingState.FINISHED and not window.controller.running
    assert window.settings.config() == store.runs[0].config  # the settings show the run shown
    qtbot.mouseClick(pane.list.viewport(), QtCore.Qt.MouseButton.LeftButton,
                     pos=pane.list.visualItemRect(pane.list.item(1)).center())
    assert table_pairs(window) == second and s.step == 33  # back where it was left
    assert window.timeline.slider.value() == 33
    assert window.token_view.session.step == 33
    assert launches == []  # nothing was retrained
    # rename, and delete the shown run: its neighbour is shown
    pane.rename(0, "baseline")
    assert pane.names()[0] == "baseline"
    assert pane.list.item(0).font().bold() is False and pane.list.item(1).font().bold() is True
    pane.list.setCurrentRow(1)
    qtbot.mouseClick(pane.delete_btn, QtCore.Qt.MouseButton.LeftButton)
    assert pane.names() == ["baseline"] and pairs(s.records) == first


@pytest.mark.parametrize("name", list(layouts.LAYOUTS))
def test_the_runs_dock_has_a_tab_in_every_named_layout(qtbot, window, name) -> None:
    window.findChild(QtGui.QAction, f"layout{name}").trigger()  # View → Layout → name
    runs = window.docks["runs"]
    assert layouts.current(window) == name
    assert runs.toggleViewAction().isChecked() and not runs.isFloating()
    assert window.dockWidgetArea(runs) == QtCore.Qt.DockWidgetArea.RightDockWidgetArea
    assert window.docks["plots"] in window.tabifiedDockWidgets(runs)  # the secondary tab area of every layout

    def runs_tab_shown() -> bool:  # a tab the user can click (the tab bars follow once the layout is laid out)
        return any(b.isVisible() and "Runs" in [b.tabText(i) for i in range(b.count())]
                   for b in window.findChildren(QtWidgets.QTabBar))

    qtbot.waitUntil(runs_tab_shown)
    runs.raise_()
    qtbot.waitUntil(lambda: not runs.visibleRegion().isEmpty())
    assert runs.widget().width() > 100 and runs.widget().height() > 100


def test_compare_dialog_diff_and_overlay_show_the_core_numbers(qtbot, window, text) -> None:
    train_text(qtbot, window, text)
    window.runs.whatif.forbid_and_branch(20)
    wait_finished(qtbot, window)
    store = window.runs.store
    a, b = store.runs
    qtbot.mouseClick(window.runs.pane.compare_btn, QtCore.Qt.MouseButton.LeftButton)
    dlg = window._compare_runs_dialog
    qtbot.addWidget(dlg)
    # the merge-list diff is the core's
    core = diff_models(a.model, b.model)
    assert dlg.diff == core and core.first_divergence == 20
    assert dlg.diff_rows(1) == [(f"{m.left} + {m.right}", str(m.rank), "") for m in core.only_a]
    assert dlg.diff_rows(2) == [(f"{m.left} + {m.right}", "", str(m.rank)) for m in core.only_b]
    assert dlg.diff_rows(3) == [(f"{m.left} + {m.right}", f"{m.rank_a:,}", f"{m.rank_b:,}") for m in core.moved]
    assert f"First divergence at merge {core.first_divergence}" in dlg.diff_summary.text()
    # one curve per checked run, with the core's numbers
    comp = dlg.curve_data("compression")
    assert set(comp) == {a.id, b.id}
    for run in (a, b):
        assert comp[run.id][1] == [float(x) for x in compression_from_records(run.initial_symbols, run.records).symbols]
        history = SegmentationHistory(run.word_counts, run.model)
        assert dlg.curve_data("bytes_per_token")[run.id][1] == pytest.approx(history.tradeoff().bytes_per_token)
    dlg.step.setValue(75)
    qtbot.waitUntil(dlg.zipf_done, timeout=START_S)
    zipf = dlg.curve_data("zipf")
    for run in (a, b):
        assert zipf[run.id][1] == [float(c) for c in SegmentationHistory(run.word_counts, run.model).zipf(75).counts]
    dlg.checks.item(1).setCheckState(QtCore.Qt.CheckState.Unchecked)
    assert set(dlg.curve_data("compression")) == {a.id} and set(dlg.curve_data("bytes_per_token")) == {a.id}
    # the two token streams, at the same step
    tabs = dlg.tabs
    tabs.setCurrentIndex(2)
    upper, lower = dlg.views
    assert upper.session.step == lower.session.step == 75
    assert upper.session.model is a.model and lower.session.model is b.model
    assert upper.visible_tokens() and upper.visible_tokens() != lower.visible_tokens()


def test_branch_dialog_says_when_a_change_restarts_from_zero(qtbot, window, text) -> None:
    train_text(qtbot, window, text, 30)
    from bpe_desktop.core.training.branch import BranchPoint

    s = window.session
    dlg = branch_dialog.BranchDialog(s.config, BranchPoint.from_model(s.model, 20, s.records))
    qtbot.addWidget(dlg)
    ok = dlg.buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Ok)
    assert ok.text() == "Branch at 20" and ok.isEnabled()
    dlg.pretok.setCurrentText("gpt2")
    assert "Changing pretokenizer restarts from step 0" in dlg.note.text()
    assert ok.text() == "Train from step 0" and dlg.restart() is not None
    dlg.pretok.setCurrentText(s.config.pretokenizer)
    dlg.merges.setValue(10)  # a budget that ends before the branch step
    assert not ok.isEnabled() and "ends before step 20" in dlg.note.text()
    dlg.merges.setValue(40)
    dlg.forbid.pairs_edit.setPlainText("onlyone")
    assert not ok.isEnabled() and not dlg.forbid.error_label.isHidden()


def test_settings_forbid_fields_reach_the_trainer(qtbot, window, dialogs) -> None:
    w = window
    w.settings.forbid.pairs_edit.setPlainText("e s\nl o")
    w.settings.forbid.regex_edit.setText("^ne")
    assert w.settings.config().forbid == (("e", "s"), ("l", "o"))
    click_train(qtbot, w)
    wait_finished(qtbot, w)
    made = pairs(w.session.records)
    assert ("e", "s") not in made and ("l", "o") not in made
    assert not any(r.token.startswith("ne") for r in w.session.records)
    w.settings.forbid.regex_edit.setText("(unclosed")
    assert not w.settings.forbid.error_label.isHidden()
    assert w.train() is False and dialogs and "forbid pattern" in dialogs[-1][1]


def test_runs_survive_the_session_document(qtbot, window, text) -> None:
    train_text(qtbot, window, text, 60)
    window.runs.whatif.forbid_and_branch(30)
    wait_finished(qtbot, window)
    window.runs.pane.rename(0, "baseline")
    window.session.set_step(44)
    store = window.runs.store
    s = window.session
    doc = to_document(snapshot(s.runs), s.current)
    back = loads_session(dumps_session(doc))
    works, current = from_document(back)
    assert works == list(s.runs) and current == s.current  # what was saved is what is read back
    other = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(other)
    other.session.load(works[current], runs=works)
    got = other.runs.store
    assert [r.name for r in got.runs] == [r.name for r in store.runs]
    assert [pairs(r.records) for r in got.runs] == [pairs(r.records) for r in store.runs]
    assert [r.records for r in got.runs] == [r.records for r in store.runs]
    assert [r.config for r in got.runs] == [r.config for r in store.runs]
    assert got.current == 1 and other.session.step == 44 and table_pairs(other) == pairs(store.runs[1].records)
    assert got.runs[1].origin.parent == got.runs[0].id and got.runs[1].origin.step == 29
    other.runs.whatif.switch(0)
    assert table_pairs(other) == pairs(store.runs[0].records)
    # a restored run (its words not counted yet) still branches in the worker
    other.runs.whatif.forbid_and_branch(30)
    qtbot.waitUntil(lambda: other.session.state is TrainingState.FINISHED and not other.controller.running,
                    timeout=START_S)
    assert pairs(other.session.records) == pairs(store.runs[1].records)
    other.close()


def test_branch_entries_are_disabled_while_training(qtbot, window, text) -> None:
    train_text(qtbot, window, text, 20)
    menu = window.runs.whatif.merge_menu(5, window.merges.view)
    acts = {a.objectName(): a for a in menu.actions()}
    assert acts["branchHere"].isEnabled() and acts["forbidAndBranch"].isEnabled()
    btn = window.timeline.findChild(QtWidgets.QToolButton, "branchButton")
    assert btn.isEnabled()
    window.step_once()  # a new paused run, one merge
    qtbot.waitUntil(lambda: len(window.session.records) == 1 and window.session.state is TrainingState.PAUSED,
                    timeout=START_S)
    menu = window.runs.whatif.merge_menu(1, window.merges.view)
    assert not any(a.isEnabled() for a in menu.actions())
    assert not btn.isEnabled()
    assert window.runs.whatif.branch(0, window.session.config) is False  # refused with a message
    window.controller.shutdown()


def test_runs_survive_save_session_and_open_session_in_the_window(qtbot, window, text, tmp_path
                                                                  ) -> None:
    """The whole path a user takes: File → Save session in one window, File → Open session in another."""
    train_text(qtbot, window, text, 60)
    window.runs.whatif.forbid_and_branch(30)
    wait_finished(qtbot, window)
    store = window.runs.store
    assert len(store.runs) == 2
    path = tmp_path / "two_runs.json"
    assert window.sessions.save_to(str(path))
    other = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(other)
    other.sessions.interactive = False
    assert other.sessions.open_session(str(path))
    got = other.runs.store
    assert [r.name for r in got.runs] == [r.name for r in store.runs]
    assert [pairs(r.records) for r in got.runs] == [pairs(r.records) for r in store.runs]
    assert got.current == store.current and table_pairs(other) == pairs(store.current_run.records)
    # a session with one run replaces the runs of the window it is opened in
    one = tmp_path / "one_run.json"
    window.runs.store.remove(0)
    assert len(window.runs.store.runs) == 1 and window.sessions.save_to(str(one))
    assert other.sessions.open_session(str(one))
    assert len(other.runs.store.runs) == 1
    assert pairs(other.session.records) == pairs(window.session.records)
    other.close()


def test_a_run_s_row_says_its_settings_and_its_merges_as_it_is_made_switched_and_reopened(qtbot, window, tmp_path
                                                                                          ) -> None:
    from support.window import check_run_labels

    pane = window.runs.pane
    assert window.settings.merges.value() == 7  # the seed settings, before anything is trained
    assert pane.list.item(0).text() == "1. whitespace, chars, up to 7 merges   —   not trained yet"
    window.settings.merges.setValue(1)
    assert pane.list.item(0).text() == "1. whitespace, chars, up to 1 merge   —   not trained yet"
    click_train(qtbot, window)
    wait_finished(qtbot, window)
    assert pane.list.item(0).text() == "1. whitespace, chars, up to 1 merge   —   1 merge"
    window.settings.merges.setValue(5)
    click_train(qtbot, window)  # a second run beside the first
    wait_finished(qtbot, window)
    assert [pane.list.item(i).text() for i in range(2)] == [
        "1. whitespace, chars, up to 1 merge   —   1 merge", "2. up to 5 merges   —   5 merges"]
    window.runs.whatif.switch(0)
    check_run_labels(window)
    pane.list.resize(160, 120)  # narrower than the rows: elided in the middle, nothing scrolled out of sight
    qtbot.waitUntil(lambda: pane.list.viewport().width() < 160)
    pane.list.doItemsLayout()
    room = pane.list.viewport().width()
    assert pane.list.horizontalScrollBar().maximum() == 0
    assert all(pane.list.visualItemRect(pane.list.item(i)).right() < room for i in range(2))
    path = tmp_path / "labels.bpesession"
    assert window.sessions.save_to(str(path))
    other = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(other)
    assert other.sessions.open_session(str(path))
    assert [other.runs.pane.list.item(i).text() for i in range(2)] == [pane.list.item(i).text() for i in range(2)]
    check_run_labels(other)
    other.close()


def test_compare_runs_opens_again_after_it_was_closed(qtbot, window) -> None:
    """A closed Compare dialog is deleted (it deletes on close): opening it again, and closing the window, must
    not touch the deleted one (both raised 'Internal C++ object already deleted')."""
    from bpe_desktop.gui.runs.install import open_compare, shown_compare

    click_train(qtbot, window)
    wait_finished(qtbot, window)
    first = open_compare(window, window.runs.store)
    assert shown_compare(window) is first
    first.close()
    qtbot.waitUntil(lambda: shown_compare(window) is None, timeout=START_S)
    again = open_compare(window, window.runs.store)
    assert shown_compare(window) is again and again.isVisible()
    again.close()
    window.close()  # (its close ends an open Compare's processes: here none is open)
