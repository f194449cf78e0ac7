"""``bpe-desktop --selftest``: passes on a working installation and names the check that fails otherwise.

Each run is a subprocess (the self-test spawns a training process and opens a window of its own); the broken
conditions are real ones injected from outside the self-test: a seed table that is not the seed's, and a
training process that cannot start.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support import ROOT


def _run(code: str | None = None, args: tuple[str, ...] = ("--selftest",)) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    cmd = [sys.executable, "-c", code] if code else [sys.executable, "-m", "bpe_desktop", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=240)


def test_selftest_passes_every_check() -> None:
    r = _run()
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    for name in ("resources", "worker", "encode", "window"):
        assert any(ln.split()[:2] == ["ok", name] for ln in lines), r.stdout
    assert "'lowest' -> low | est</w>" in r.stdout
    assert "no Qt loaded" in r.stdout  # the training process stayed Qt-free
    assert "trained 7 merges through the window's controller" in r.stdout
    assert lines[-1].startswith("self-test passed")


def test_a_seed_table_that_is_not_the_seeds_fails_at_the_worker(tmp_path: Path) -> None:
    table = tmp_path / "seed.txt"
    table.write_text("low 5\nlower 2\nnewest 6\nwidest 1\n", encoding="utf-8")  # e+s now 7, w+e 8 wins
    r = _run(
        "import sys\n"
        "import bpe_desktop.gui.resources as res, pathlib\n"
        f"res.SEED_TABLE = pathlib.Path({str(table)!r})\n"
        "from bpe_desktop.selftest import main\n"
        "sys.exit(main())\n"
    )
    assert r.returncode == 1, r.stdout + r.stderr
    assert "FAIL  worker" in r.stdout
    assert "the training process gave 7 merges [w+e 8," in r.stdout
    assert "seed 000 has [e+s 9, es+t 9, est+</w> 9" in r.stdout
    assert "self-test FAILED at 'worker'" in r.stdout.splitlines()[-1]
    assert "ok    window" not in r.stdout  # it stops at the first failure


def test_a_training_process_that_cannot_start_is_reported_not_waited_for() -> None:
    r = _run(
        "import sys, multiprocessing.spawn as spawn\n"
        "spawn.set_executable('/bin/false')  # every spawned child exits at once with status 1\n"
        "from bpe_desktop.selftest import main\n"
        "sys.exit(main())\n"
    )
    assert r.returncode == 1, r.stdout + r.stderr
    assert "FAIL  worker    the training process ended without finishing (exit code 1, 0 merges received)" in r.stdout


def test_a_missing_bundled_file_is_named() -> None:
    r = _run(
        "import sys, pathlib\n"
        "import bpe_desktop.gui.resources as res\n"
        "res.ICON = pathlib.Path('/nonexistent/bpe-desktop.svg')\n"
        "from bpe_desktop.selftest import main\n"
        "sys.exit(main())\n"
    )
    assert r.returncode == 1
    assert "FAIL  resources missing bundled file(s): /nonexistent/bpe-desktop.svg" in r.stdout


def test_selftest_takes_no_other_arguments() -> None:
    r = _run(args=("--selftest", "--corpus", "x.txt"))
    assert r.returncode == 2
    assert "--selftest takes no other arguments" in r.stderr


def test_a_display_platform_without_a_display_is_reported_not_aborted() -> None:
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    r = subprocess.run([sys.executable, "-m", "bpe_desktop", "--selftest"], capture_output=True, text=True,
                       env={**env, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "xcb"}, cwd=ROOT, timeout=240)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "FAIL  window    QT_QPA_PLATFORM=xcb but DISPLAY is not set" in r.stdout
    assert "ok    encode" in r.stdout  # the checks before it ran
