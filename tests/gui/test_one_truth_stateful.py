"""Issue 22's invariant under random sequences of what a user does (hypothesis' stateful testing through the
real window offscreen, the real worker process): after every step the merges shown were trained on the
corpus shown with the settings shown, or the window says they were not (:func:`check_one_truth`), and every
save → reopen gives back equal works.  Bounded: a few examples of a few steps each; no clock is read.

Each rule counts what it really did (``REACHED``, hypothesis ``event()``: "switch run: switched", "branch:
branched"...): random walks this short rarely switch between two trained runs or save several, so a
scripted walk makes every rule do its thing once, the invariant checked after each step, and asserts it."""

from __future__ import annotations

import os
import tempfile
from typing import Any

import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from PySide6 import QtWidgets

from bpe_desktop.core.errors import BpeError
from bpe_desktop.core.formats import save_model
from bpe_desktop.core.formats.session_file import save_session
from bpe_desktop.gui import app as gui_app
from bpe_desktop.gui.extend.job import ExtendJob, run
from bpe_desktop.gui.extend.show import show_extension
from bpe_desktop.gui.presets import PRESETS
from bpe_desktop.gui.runs.persist import snapshot
from bpe_desktop.gui.session_io import autosave, document
from bpe_desktop.gui.session_io.dialogs import RestoreAnswer
from bpe_desktop.gui.training.protocol import TrainingState
from support.window import START_S, check_one_truth

TEXTS = ("low lower newest widest low newest\n" * 8, "ab abc abcd ab abc\n" * 12, "été naïve café été\n" * 6)
DEAD_PID = 4_000_000  # beyond pid_max: an autosave whose process is gone (a crash)
REACHED: dict[str, int] = {}  # "rule: outcome" -> how often, across the test's examples


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

    @initialize(trained=st.booleans())
    def begin(self, trained: bool) -> None:
        """Half the examples start from a trained run, so that branching and switching are reached often."""
        if trained:
            self.train(TEXTS[0], 8, "lexical")

    # -- what a user does ---------------------------------------------------------------------------------
    @rule(text=st.sampled_from(TEXTS), merges=st.integers(2, 12), tie=st.sampled_from(["lexical", "hf"]))
    def train(self, text: str, merges: int, tie: str) -> None:
        w = self.w
        w.corpus.set_text(text, name="typed")
        w.settings.merges.setValue(merges)
        w.settings.tie.setCurrentText(tie)
        before = len(w.session.runs)
        if w.train():
            _wait(w)
        self.reached("train", "trained" if w.session.records and w.session.config.merges == merges else "refused",
                     "a new run" if len(w.session.runs) > before else "in place of an untrained run")

    @rule()
    def step(self) -> None:
        w = self.w
        was = len(w.session.records), w.session.work
        w.step_once()
        self.qtbot.waitUntil(lambda: (w.session.records and w.session.state is TrainingState.PAUSED)
                             or not w.controller.running, timeout=START_S)
        w.controller.shutdown()
        self.reached("step", "stepped" if w.session.records and (w.session.work is not was[1] or
                                                                 len(w.session.records) != was[0]) else "nothing")

    @precondition(lambda self: len(self.w.session.records) >= 1)
    @rule(back=st.booleans())
    def step_timeline(self, back: bool) -> None:
        w, s = self.w, self.w.session
        k = s.step
        (w.timeline.step_back if back else w.timeline.step_forward)()
        want = max(s.origin, k - 1) if back else min(s.n_steps, k + 1)  # (an extension run: never before its original)
        assert s.step == want and w.timeline.slider.value() == want
        self.reached("timeline", ("back" if back else "forward") + (" a step" if want != k else " (at the end)"))

    @rule(data=st.data())
    def switch_run(self, data: st.DataObject) -> None:
        self.switch_to(data.draw(st.integers(0, len(self.w.session.runs) - 1)))

    def switch_to(self, index: int) -> None:
        was = self.w.session.current
        self.w.runs.whatif.switch(index)
        self.reached("switch run", "switched" if self.w.session.current != was else "the shown run")

    @precondition(lambda self: len(self.w.session.records) >= 2)
    @rule(data=st.data(), forbid=st.booleans())
    def branch(self, data: st.DataObject, forbid: bool) -> None:
        self.branch_at(data.draw(st.integers(1, len(self.w.session.records))), forbid)

    def branch_at(self, k: int, forbid: bool) -> None:
        w, s = self.w, self.w.session
        if forbid:
            ok = w.runs.whatif.forbid_and_branch(k)
        else:
            tie = "hf" if s.config.tie_break == "lexical" else "lexical"
            ok = w.runs.whatif.branch(k - 1, s.config.with_(tie_break=tie, merges=len(s.records) + 3))
        if ok:
            _wait(w)
        self.reached("forbid and branch" if forbid else "branch",
                     "branched" if ok and s.work.origin.parent is not None else "refused")

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
        self.reached("tour", "opened and closed")

    @rule(name=st.sampled_from(sorted(PRESETS)), answer=st.booleans())
    def choose_preset(self, name: str, answer: bool) -> None:
        from bpe_desktop.gui.start import preset_corpus

        box = QtWidgets.QMessageBox.StandardButton
        QtWidgets.QMessageBox.question = staticmethod(lambda *a, **k: box.Yes if answer else box.No)
        combo = self.w.settings.preset
        combo.setCurrentText(name)
        self.w.settings.set_config(PRESETS[name].with_(merges=6))
        preset_corpus.offer(self.w, name)
        self.reached("preset", "chosen")

    @rule(text=st.sampled_from(TEXTS))
    def edit_corpus(self, text: str) -> None:
        self.w.corpus.editor.setPlainText("edited\n" + text)
        self.reached("edit corpus", "over a trained run" if self.w.session.records else "untrained")

    @rule(i=st.integers(0, len(TEXTS) - 1))
    def open_corpus_file(self, i: int) -> None:
        self.w.open_corpus(self.files[i])
        self.reached("open corpus file", "opened" if self.w.corpus.path == self.files[i]
                     or self.w.corpus.source().text == TEXTS[i] else "refused")

    @precondition(lambda self: len(self.w.session.records) >= 1)
    @rule()
    def open_tokenizer(self) -> None:
        s = self.w.session
        path = os.path.join(self.dir, "tok.json")
        save_model(s.model.truncated(len(s.records)), path, "native", s.records)
        before = len(s.runs)
        self.w.open_tokenizer(path)
        self.reached("open tokenizer", "a run of its own" if len(s.runs) > before else "in place of an untrained run")

    @precondition(lambda self: len(self.w.session.records) >= 1)
    @rule(merges=st.integers(0, 6), editor=st.booleans())
    def extend(self, merges: int, editor: bool = False) -> None:
        """Extend the shown run's merge list (saved as a native file of its own) on the corpus it was trained on (the
        editor's when *editor*: its characters may be outside the original's alphabet, refused): a run whose
        timeline starts at that file (in process: the dialog's worker job, then the window's own show)."""
        w, s = self.w, self.w.session
        self.n_extended = getattr(self, "n_extended", 0) + 1
        path = os.path.join(self.dir, f"original{self.n_extended}.json")
        save_model(s.model.truncated(len(s.records)), path, "native", s.records)
        src = w.corpus.source() if editor else s.work.source
        job = ExtendJob(path, merges, path + ".extended.json", text=None if src.paths else src.text or "",
                        paths=tuple(src.paths))
        try:
            done = run(job)
        except BpeError:  # (a corpus with a character the original has no token for, a word-count table)
            self.reached("extend", "refused")
            return
        assert show_extension(w, done, src) == "" and s.work.extension is not None
        self.reached("extend", "a run from the original" if done.made else "nothing to add")

    @rule()
    def save_and_reopen(self) -> None:
        w = self.w
        path = os.path.join(self.dir, "s.bpesession")
        assert w.sessions.save_to(path)
        runs, current = snapshot(w.session.runs), w.session.current
        assert w.sessions.open_session(path)
        assert snapshot(w.session.runs) == runs and w.session.current == current
        self.reached("save and reopen", "several runs" if len(runs) > 1 else "1 run")

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
        self.reached("quit with recovery", "restored")

    @invariant()
    def one_truth(self) -> None:
        check_one_truth(self.w)
        REACHED["invariant checked"] = REACHED.get("invariant checked", 0) + 1

    def reached(self, rule_name: str, *outcomes: str) -> None:
        """Count what a rule really did (shown by ``--hypothesis-show-statistics``; the scripted walk checks
        every rule did its thing at least once)."""
        for outcome in outcomes:
            if currently_in_test_context():  # (the scripted walk runs outside hypothesis)
                event(f"{rule_name}: {outcome}")
            key = f"{rule_name}: {outcome}"
            REACHED[key] = REACHED.get(key, 0) + 1


#: what each rule must have really done at least once in the scripted walk ("rule: outcome")
EVERY_RULE = ("train: trained", "train: a new run", "step: stepped", "timeline: back a step",
              "timeline: forward a step", "switch run: switched", "branch: branched", "forbid and branch: branched",
              "tour: opened and closed", "preset: chosen", "edit corpus: over a trained run",
              "open corpus file: opened", "open tokenizer: a run of its own", "extend: a run from the original",
              "save and reopen: several runs",
              "quit with recovery: restored")


def _machine(qtbot, monkeypatch) -> None:
    monkeypatch.setattr(QtWidgets.QMessageBox, "question", QtWidgets.QMessageBox.question)  # restored after
    monkeypatch.setenv(autosave.ENV_DIR, tempfile.mkdtemp(prefix="bpe-one-truth-"))
    OneTruth.qtbot = qtbot
    REACHED.clear()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_scripted_walk_makes_every_rule_do_its_thing(qtbot, dialogs, monkeypatch) -> None:
    """Each rule once, in an order where each really acts (a switch to another run, a branch that trains, a
    save of several runs...), the invariant checked after every step: what the random walk may miss."""
    _machine(qtbot, monkeypatch)
    m = OneTruth()
    walk = [lambda: m.train(TEXTS[0], 8, "lexical"), lambda: m.step_timeline(True), lambda: m.step_timeline(False),
            lambda: m.train(TEXTS[1], 6, "hf"), lambda: m.switch_to(0), lambda: m.branch_at(3, False),
            lambda: m.switch_to(0), lambda: m.branch_at(4, True), m.step, m.tour,
            lambda: m.choose_preset(sorted(PRESETS)[0], False), lambda: m.edit_corpus(TEXTS[2]),
            lambda: m.extend(3), lambda: m.step_timeline(True), lambda: m.open_corpus_file(1), m.open_tokenizer,
            m.save_and_reopen, m.quit_with_recovery]
    try:
        for act in walk:
            act()
            m.one_truth()
    finally:
        m.teardown()
    missing = [outcome for outcome in EVERY_RULE if not REACHED.get(outcome)]
    assert not missing, (missing, REACHED)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_the_shown_merges_were_trained_on_the_shown_corpus(qtbot, dialogs, monkeypatch) -> None:
    _machine(qtbot, monkeypatch)
    run_state_machine_as_test(OneTruth, settings=settings(
        max_examples=8, stateful_step_count=8, deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]))
    assert REACHED.get("invariant checked", 0) >= 8  # (checked after every step of every example)
    print("reached:", sorted(REACHED.items()))  # (shown with -s: what the random walk exercised)
