"""Issue 26, item 11: SIGTERM to ``count`` / ``train --jobs 2`` (what ``docker stop`` and systemd send)
stops the counting workers as Ctrl-C does, and a parent killed outright (SIGKILL) takes them with it: no
worker survives and the output pipe closes (anything capturing the output no longer hangs).

The workers are made to wait forever (their counting function is replaced before the command runs, in
the command's own process) so that the signal always arrives while they are alive; the parent's code is
the real one.  The timeouts are hang guards only.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time

import psutil
import pytest

from support import ROOT

CODE = textwrap.dedent("""
    import os, sys, time
    import bpe_desktop.core.counting.parallel_count as pc
    from bpe_desktop.cli import main

    def stuck(k, *args):
        open(os.path.join(sys.argv[1], f"worker{k}"), "w").write(str(os.getpid()))
        time.sleep(3600)

    pc._count_stretch = stuck
    pc.MIN_BYTES_PER_JOB = 1
    sys.exit(main(sys.argv[2:]))
""")


def _start(tmp_path, cmd: list[str]) -> tuple[subprocess.Popen[bytes], list[int]]:
    (tmp_path / "c.txt").write_text("low lower newest widest\n" * 2000)
    proc = subprocess.Popen([sys.executable, "-c", CODE, str(tmp_path), *cmd], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
    for _ in range(1200):  # hang guard: the workers write their pids as they start
        if len(list(tmp_path.glob("worker*"))) == 2:
            break
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    time.sleep(0.2)  # let each worker finish writing its pid
    pids = [int((tmp_path / f"worker{k}").read_text()) for k in range(2)]
    assert all(psutil.pid_exists(p) for p in pids)
    return proc, pids


def _finish(proc: subprocess.Popen[bytes], pids: list[int]) -> tuple[bytes, bytes]:
    """The output once every holder of the pipes closed them; on a hang, kill everything and fail."""
    try:
        return proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        for p in [proc.pid, *pids]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, signal.SIGKILL)
        proc.communicate()
        pytest.fail("the output pipe stayed open: a worker outlived its parent")


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _assert_workers_gone(pids: list[int]) -> None:
    for _ in range(200):  # hang guard
        if all(_gone(p) for p in pids):
            return
        time.sleep(0.05)
    for p in pids:
        if not _gone(p):
            os.kill(p, signal.SIGKILL)
    pytest.fail("a counting worker outlived its parent")


COMMANDS = [["count", "c.txt", "--jobs", "2", "--out", "o.tsv"],
            ["train", "c.txt", "--jobs", "2", "--merges", "5", "--out", "t.json"]]


@pytest.mark.parametrize("cmd", COMMANDS, ids=["count", "train"])
def test_sigterm_stops_the_workers_and_closes_the_output(tmp_path, cmd: list[str]) -> None:
    proc, pids = _start(tmp_path, cmd)
    proc.send_signal(signal.SIGTERM)
    _, err = _finish(proc, pids)
    assert proc.returncode == 143, err
    assert b"terminated" in err and b"Traceback" not in err, err
    _assert_workers_gone(pids)
    assert not (tmp_path / cmd[cmd.index("--out") + 1]).exists()


def test_workers_die_with_a_parent_killed_outright(tmp_path) -> None:
    proc, pids = _start(tmp_path, COMMANDS[0])
    proc.kill()
    _finish(proc, pids)
    _assert_workers_gone(pids)
