"""Every worker process runs below the window's priority (:mod:`bpe_desktop.gui.worker_priority`): on two cores a
busy log inspection or extension took the core the GUI thread wanted (the Extend flow's Compare phase: a 36 ms gap
with 0.5 ms of GUI CPU and no wait for a core counted -- the thread holding the interpreter was off its core).
The training worker's own test is in test_window.py."""

from __future__ import annotations

import multiprocessing as mp
import os
import sys

import pytest

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.logs.robotlogs import generate
from bpe_desktop.core.training.trainer import train
from bpe_desktop.gui.extend.job import ExtendJob
from bpe_desktop.gui.inspect import job as job_mod
from bpe_desktop.gui.worker_priority import NICENESS

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="priorities as Linux has them")


def _priority_of_this_process(_job: object) -> int:
    return os.getpriority(os.PRIO_PROCESS, 0)


def test_the_log_inspections_process_runs_below_the_window() -> None:
    """The process's body, as the runner starts it: its result (bigger than the pipe holds) waits for us to read
    it, so the process is alive while its priority is read."""
    model, _ = train({"INFO": 9, "node": 5}, TrainConfig(mode="bytes", pretokenizer="gpt2", merges=3))
    job = job_mod.InspectJob((job_mod.TokenizerChoice("t", model=model),), text=generate(20_000, seed=3))
    ctx = mp.get_context("spawn")
    conn, child = ctx.Pipe(duplex=False)
    cancel = ctx.Event()
    proc = ctx.Process(target=job_mod.run_below_the_window, args=(child, job, cancel), daemon=True)
    proc.start()
    child.close()
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    seen = mine
    try:
        msg: object = None
        while not isinstance(msg, job_mod.DoneHeader):
            assert proc.pid is not None
            seen = max(seen, os.getpriority(os.PRIO_PROCESS, proc.pid))  # (alive: it has not sent all yet)
            msg = conn.recv()
            assert not isinstance(msg, job_mod.Failed), msg
        assert job_mod.recv_done(conn, msg).inspection.reports[0].tokens > 0
    finally:
        proc.join(30)
    assert seen == max(mine, NICENESS) > 0
    assert os.getpriority(os.PRIO_PROCESS, 0) == mine


def test_the_extensions_process_runs_below_the_window(qtbot, monkeypatch) -> None:
    from bpe_desktop.gui.extend import dialog

    monkeypatch.setattr(dialog, "run", _priority_of_this_process)  # (the pool's child imports it from here)
    runner = dialog.ExtendRunner()
    got: list[object] = []
    runner.finished.connect(got.append)
    runner.failed.connect(got.append)
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    runner.start(ExtendJob("cl100k", 1, "/nonexistent/out.tiktoken"))  # (the job is not read)
    try:
        qtbot.waitUntil(lambda: got != [], timeout=60_000)
    finally:
        runner.shutdown()
    assert got == [max(mine, NICENESS)] and os.getpriority(os.PRIO_PROCESS, 0) == mine
