"""Training → Extend a tokenizer on this corpus…: the dialog extends cl100k on the editor's robot logs in a worker
process, writes a rank file tiktoken reads with our ids, and shows cl100k and the extension side by side in the
Log inspector (fewer tokens for the extension on the same log); a word-count table is refused with a dialog."""

from __future__ import annotations

import os

import tiktoken
import tiktoken.load

from bpe_desktop.core.formats import load
from bpe_desktop.core.formats.presets import CL100K_SPECIALS
from bpe_desktop.core.text.pretokenize import Pretokenizer
from bpe_desktop.gui.extend.open import extend_dialog
from support import ROBOT_SAMPLE_FILE

WAIT_MS = 240_000  # a ceiling for a stuck worker, not a speed limit


def test_extend_cl100k_on_the_corpus_and_compare(window, qtbot, tmp_path) -> None:
    text = ROBOT_SAMPLE_FILE.read_text(encoding="utf-8")
    window.corpus.set_text(text, name="robot logs", word_counts=False)
    dlg = extend_dialog(window)
    assert dlg.spec() == "cl100k"
    out = tmp_path / "cl100k_logs.tiktoken"
    dlg.out.setText(str(out))
    dlg.merges.setValue(40)
    with qtbot.waitSignal(dlg.runner.finished, timeout=WAIT_MS):
        assert dlg.start()
    assert dlg.runner.worker_pids and os.getpid() not in dlg.runner.worker_pids
    done = dlg.done_result
    assert done is not None and done.made == 40 and done.read_as == f"cl100k:{out}"
    assert "40 new merges on cl100k" in dlg.status.text() and done.tokens_after < done.tokens_before
    pattern = Pretokenizer.from_spec("cl100k").pattern
    assert pattern is not None
    enc = tiktoken.Encoding(name="x", pat_str=pattern, mergeable_ranks=tiktoken.load.load_tiktoken_bpe(str(out)),
                            special_tokens=CL100K_SPECIALS)
    assert load(done.read_as).tokenizer.encode_ordinary(text) == enc.encode_ordinary(text)
    assert len(enc.encode_ordinary(text)) == done.tokens_after
    dlg.grab().save(str(tmp_path / "extend_dialog.png"))

    pane = window.inspector
    with qtbot.waitSignal(pane.runner.finished, timeout=WAIT_MS):
        dlg.compare_button.click()
    ticked = [n for n, box in pane.checks.items() if box.isChecked()]
    assert ticked == ["cl100k_base", "cl100k_logs.tiktoken (extended)"]
    qtbot.waitUntil(lambda: pane.done is not None)
    reports = {r.name: r for r in pane.done.inspection.reports}
    assert reports["cl100k_logs.tiktoken (extended)"].tokens == len(enc.encode_ordinary(text))
    assert reports["cl100k_logs.tiktoken (extended)"].tokens < reports["cl100k_base"].tokens
    dlg.close()


def test_a_word_count_table_is_refused(window, dialogs) -> None:
    dlg = extend_dialog(window)  # the window opens on the seeds' word-count table
    assert not dlg.start()
    assert dialogs[-1][0] == "Cannot extend" and "word-count table" in dialogs[-1][1]
    dlg.close()


def test_extend_on_the_log_from_the_inspector(window, qtbot, tmp_path, monkeypatch) -> None:
    """The Log inspector's *Extend on this log…* opens the dialog on the log it shows (a file, not the editor's
    corpus), and Compare shows cl100k and the extension on that log.  The heavy parts stay off the GUI thread:
    the worker's merge list crosses as one array and is unpacked on a helper thread (the run's new tokens are the
    written file's new ranks, read by tiktoken), and Compare does not read the extended rank file in the window
    (the worker does; only a bare ``.tiktoken`` path is read there, to ask for its pattern)."""
    import threading

    import numpy as np
    from PySide6 import QtWidgets

    from bpe_desktop.core import formats
    from bpe_desktop.gui import file_actions
    from bpe_desktop.gui.extend.job import PackedRun

    main = threading.current_thread()
    unpacked_on: list[threading.Thread] = []
    real_unpack = PackedRun.unpack

    def unpack(self: PackedRun, *a: object, **k: object) -> object:
        unpacked_on.append(threading.current_thread())
        return real_unpack(self, *a, **k)

    monkeypatch.setattr(PackedRun, "unpack", unpack)
    read_here: list[str] = []  # specs read by formats.load on the GUI thread
    real_load = formats.load

    def load_spy(spec: str, *a: object, **k: object) -> object:
        if threading.current_thread() is main:
            read_here.append(str(spec))
        return real_load(spec, *a, **k)

    monkeypatch.setattr(formats, "load", load_spy)

    pane = window.inspector
    pane.use_sample()
    button = next(b for b in pane.findChildren(QtWidgets.QPushButton) if b.text() == "Extend on this log…")
    button.click()
    dlg = window.findChild(QtWidgets.QDialog, "extend_dialog")
    assert dlg is not None and dlg.source.paths == (str(ROBOT_SAMPLE_FILE),)
    dlg.out.setText(str(tmp_path / "e.tiktoken"))
    dlg.merges.setValue(10)
    with qtbot.waitSignal(dlg.runner.finished, timeout=WAIT_MS):
        assert dlg.start()
    assert dlg.done_result is not None and dlg.done_result.made == 10
    work = window.session.work  # the extension is a run over that log, its timeline from cl100k
    assert work.extension is not None and work.source.paths == (str(ROBOT_SAMPLE_FILE),)
    assert window.session.n_steps - window.session.origin == 10 and window.timeline.slider.minimum() == work.start
    assert dlg.done_result.lines == len(ROBOT_SAMPLE_FILE.read_text(encoding="utf-8").splitlines())
    packed = dlg.done_result.run
    assert isinstance(packed, PackedRun) and isinstance(packed.merges, np.ndarray) and not packed.shell.merges
    assert packed.merges.shape == (100_010, 2) and unpacked_on and main not in unpacked_on
    ranks = tiktoken.load.load_tiktoken_bpe(str(tmp_path / "e.tiktoken"))
    first = dlg.done_result.first_id
    by_rank = {r: b for b, r in ranks.items() if r >= first}
    assert [window.session.model.tokens[100_256 + k] for k in range(10)] == [by_rank[first + k] for k in range(10)]
    with qtbot.waitSignal(pane.runner.finished, timeout=WAIT_MS):
        dlg.compare_button.click()
    assert pane.path == str(ROBOT_SAMPLE_FILE)
    reports = pane.done.inspection.reports
    assert [r.name for r in reports] == ["cl100k_base", "e.tiktoken (extended)"]
    assert reports[1].tokens == dlg.done_result.tokens_after < reports[0].tokens == dlg.done_result.tokens_before
    assert not [spec for spec in read_here if "e.tiktoken" in spec]  # the worker read it, not the window
    asked: list[str] = []  # the bare path has no pattern: the pane offers cl100k's (here: cancelled), reading it here
    monkeypatch.setattr(QtWidgets.QMessageBox, "question", staticmethod(
        lambda parent, title, text, *a: asked.append(text) or QtWidgets.QMessageBox.StandardButton.Cancel))
    monkeypatch.setattr(file_actions, "ask_pretokenizer", lambda parent, why: asked.append(why) or "")
    assert pane.add_tokenizer(str(tmp_path / "e.tiktoken")) is None
    assert len(asked) == 1 and "extends cl100k_base" in asked[0] and "cl100k:FILE" in asked[0]
    assert read_here == [str(tmp_path / "e.tiktoken")]
    dlg.close()
