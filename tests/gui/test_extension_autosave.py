"""The autosave offer names an extension run's merges and step as its timeline counts them (from the original:
"cl100k + 1,000 new merges … at step 700", not the model's 100,700), from the document alone; a damaged entry
falls back to the plain line (opening it says what is wrong)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

from bpe_desktop.gui import app as gui_app
from bpe_desktop.gui.session_io import autosave, autosave_files
from bpe_desktop.gui.session_io import dialogs as dialogs_mod
from support.extension import tiny_extension


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_the_offer_counts_an_extension_run_from_its_original(qtbot, dialogs, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(autosave.ENV_DIR, str(tmp_path))
    gui_app.make_app()
    w = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(w)
    w.show()
    w.sessions.enable(autosave=True, ask=False)
    run = tiny_extension()
    w.session.load(run)
    assert w.session.step == w.session.origin + 1 == 3  # its one new merge (the model's third)
    saver = w.sessions.autosaver
    saver.save_now()
    qtbot.waitUntil(lambda: saver.saves >= 1, timeout=20_000)
    left = autosave_files.autosave_path(str(tmp_path), _dead_pid())  # as a crashed window leaves it
    shutil.copyfile(saver.path, left)
    offered: list[list[str]] = []
    monkeypatch.setattr(dialogs_mod, "ask_restore",
                        lambda parent, texts: offered.append(list(texts)) or (dialogs_mod.RestoreAnswer.LATER, 0))
    w.sessions.offer_recovery()
    assert len(offered) == 1 and offered[0][0].endswith(": tiny + 1 new merge on typed text, at step 1"), offered

    doc = json.loads(open(left, encoding="utf-8").read())  # a damaged entry: the plain line, no crash
    next(iter(doc["extras"]["extensions"].values()))["step"] = "7"
    with open(left, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    line = autosave_files.describe(left, os.path.getmtime(left))
    assert "new merges" not in line and line.endswith("merges on typed text, at step 0")
