"""Without the compiled kernel the command line trains in pure Python, says so once on stderr, and writes the
same tokenizer; with it, it says nothing.  (The kernel's absence is simulated: its import fails.)"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bpe_desktop.core.training.kernel_trainer import kernel_built
from support import ROOT
from support.cli import run_cli

NO_KERNEL = ("import runpy, sys; sys.modules['bpe_desktop.core.training._kernel'] = None; "
             "sys.argv = ['bpe-desktop', *sys.argv[1:]]; runpy.run_module('bpe_desktop', run_name='__main__')")


def _without_kernel(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", NO_KERNEL, *args], capture_output=True, text=True, env=env,
                          timeout=120)


@pytest.mark.skipif(not kernel_built(), reason="the compiled kernel is not built")
def test_pure_python_is_announced_once_and_trains_the_same_merges(tmp_path) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text("the low road is lower than the newest road\n" * 20, encoding="utf-8")
    fast, slow = tmp_path / "fast.json", tmp_path / "slow.json"
    r = run_cli("train", str(corpus), "--out", str(fast), "--merges", "20")
    assert r.returncode == 0 and "pure Python" not in r.stderr, r.stderr
    r = _without_kernel("train", str(corpus), "--out", str(slow), "--merges", "20")
    assert r.returncode == 0, r.stderr
    notes = [ln for ln in r.stderr.splitlines() if "pure Python" in ln]
    assert notes == ["bpe-desktop: note: the compiled training kernel is not built (it needs a C compiler when "
                     "installing): training runs in pure Python -- same merges, slower"]
    assert slow.read_bytes() == fast.read_bytes()
    r = _without_kernel("--selftest")
    trainer = [ln for ln in r.stdout.splitlines() if ln.split()[1:2] == ["trainer"]]
    assert trainer == ["  ok    trainer   pure Python (the compiled training kernel is not built)"], r.stdout
