"""Issue 22's invariant under random sequences of what a user does (hypothesis' stateful testing through the
real window offscreen, the real worker process): after every step the merges shown were trained on the
corpus shown with the settings shown, or the window says they were not (:func:`check_one_truth`), and every
save → reopen gives back equal works.  Bounded: a few examples of a few steps each; no clock is read."""

from __future__ import annotations

import os
import tempfile
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test
from PySide6 import QtWidgets

from bpe_desktop.core.formats import save_model
from bpe_desktop.core.formats.session_file import save_session
from bpe_desktop.gui import app as gui_app
from bpe_desktop.gui.presets import PRESETS
from bpe_desktop.gui.runs.persist import snapshot
from bpe_desktop.gui.session_io import autosave, document
from bpe_desktop.gui.session_io.dialogs import RestoreAnswer
from bpe_desktop.gui.training.protocol import TrainingState
from support.window import START_S, check_one_truth

TEXTS = ("low lower newest widest low newest\n" * 8, "ab abc abcd ab abc\n" * 12, "été naïve café été\n" * 6)
DEAD_PID = 4_000_000  # beyond pid_max: an autosave whose process is gone (a crash)


def _wait(w) -> None:
    OneTruth.qtbot.waitUntil(lambda: not w.controller.running and not w.session.state.active, timeout=START_S)


class OneTruth(RuleBasedStateMachine):
    qtbot: Any = None  # the test's (set before the machine runs)

    def __init__(self) -> None:
        super().__init__()
        gui_app.make_app()
        self.dir = tempfile.mkdtemp(prefix="bpe-one-truth-")
        self.w = self._window()
        self.files = []
        for i, text in enumerate(TEXTS):
            path = os.path.join(self.dir, f"corpus{i}.txt")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            self.files.append(path)

    def _window(self):
        w = gui_app.make_window(remember_layout=False)
        w.sessions.interactive = False
        w.show()
        return w

    def teardown(self) -> None:
        self.w.controller.shutdown()
        self.w.close()
        self.w.deleteLater()

    # -- what a user does ---------------------------------------------------------------------------------
    @rule(text=st.sampled_from(TEXTS), merges=st.integers(2, 12), tie=st.sampled_from(["lexical", "hf"]))
    def train(self, text: str, merges: int, tie: str) -> None:
        w = self.w
        w.corpus.set_text(text, name="typed")
        w.settings.merges.setValue(merges)
        w.settings.tie.setCurrentText(tie)
        if w.train():
            _wait(w)

    @rule()
    def step(self) -> None:
        w = self.w
        w.step_once()
        self.qtbot.waitUntil(lambda: (w.session.records and w.session.state is TrainingState.PAUSED)
                             or not w.controller.running, timeout=START_S)
        w.controller.shutdown()

    @rule(data=st.data())
    def switch_run(self, data: st.DataObject) -> None:
        runs = self.w.session.runs
        self.w.runs.whatif.switch(data.draw(st.integers(0, len(runs) - 1)))

    @precondition(lambda self: len(self.w.session.records) >= 2)
    @rule(data=st.data(), forbid=st.booleans())
    def branch(self, data: st.DataObject, forbid: bool) -> None:
        w, s = self.w, self.w.session
        k = data.draw(st.integers(1, len(s.records)))
        if forbid:
            ok = w.runs.whatif.forbid_and_branch(k)
        else:
            tie = "hf" if s.config.tie_break == "lexical" else "lexical"
            ok = w.runs.whatif.branch(k - 1, s.config.with_(tie_break=tie, merges=len(s.records) + 3))
        if ok:
            _wait(w)

    @rule()
    def tour(self) -> None:
        s = self.w.session
        s.keep_drafts()  # an untrained run is what the window holds: its corpus and settings, now
        runs, current = s.runs, s.current
        saved = [(r.records, r.step, r.source, r.config) for r in runs]
        t = self.w.help.show_tour()
        check_one_truth(self.w)
        t.close()
        assert all(a is b for a, b in zip(s.runs, runs, strict=True)) and s.current == current
        assert [(r.records, r.step, r.source, r.config) for r in s.runs] == saved  # given back unchanged

    @rule(name=st.sampled_from(sorted(PRESETS)), answer=st.booleans())
    def choose_preset(self, name: str, answer: bool) -> None:
        from bpe_desktop.gui.start import preset_corpus

        box = QtWidgets.QMessageBox.StandardButton
        QtWidgets.QMessageBox.question = staticmethod(lambda *a, **k: box.Yes if answer else box.No)
        combo = self.w.settings.preset
        combo.setCurrentText(name)
        self.w.settings.set_config(PRESETS[name].with_(merges=6))
        preset_corpus.offer(self.w, name)

    @rule(text=st.sampled_from(TEXTS))
    def edit_corpus(self, text: str) -> None:
        self.w.corpus.editor.setPlainText("edited\n" + text)

    @rule(i=st.integers(0, len(TEXTS) - 1))
    def open_corpus_file(self, i: int) -> None:
        self.w.open_corpus(self.files[i])

    @precondition(lambda self: len(self.w.session.records) >= 1)
    @rule()
    def open_tokenizer(self) -> None:
        s = self.w.session
        path = os.path.join(self.dir, "tok.json")
        save_model(s.model.truncated(len(s.records)), path, "native", s.records)
        self.w.open_tokenizer(path)

    @rule()
    def save_and_reopen(self) -> None:
        w = self.w
        path = os.path.join(self.dir, "s.bpesession")
        assert w.sessions.save_to(path)
        runs, current = snapshot(w.session.runs), w.session.current
        assert w.sessions.open_session(path)
        assert snapshot(w.session.runs) == runs and w.session.current == current

    @rule()
    def quit_with_recovery(self) -> None:
        w = self.w
        w.controller.shutdown()
        for old in autosave.orphans():
            os.remove(old.path)
        save_session(autosave.autosave_path(DEAD_PID), document.to_doc(document.capture(w), w.sessions.hashes))
        runs, current = snapshot(w.session.saved_runs()[0]), w.session.saved_runs()[1]
        w.sessions.ask_before_discarding = False
        w.close()  # (its own autosave is discarded: the dead one stays, as after a crash)
        w.deleteLater()
        self.w = self._window()
        assert self.w.sessions.offer_recovery(RestoreAnswer.RESTORE)
        assert snapshot(self.w.session.runs) == runs and self.w.session.current == current

    @invariant()
    def one_truth(self) -> None:
        check_one_truth(self.w)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_the_shown_merges_were_trained_on_the_shown_corpus(qtbot, dialogs, monkeypatch) -> None:
    monkeypatch.setattr(QtWidgets.QMessageBox, "question", QtWidgets.QMessageBox.question)  # restored after
    monkeypatch.setenv(autosave.ENV_DIR, tempfile.mkdtemp(prefix="bpe-one-truth-"))
    OneTruth.qtbot = qtbot
    run_state_machine_as_test(OneTruth, settings=settings(
        max_examples=8, stateful_step_count=8, deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]))
