"""The command line as a user runs it: ``python -m bpe_desktop ARGS`` in a fresh process of this checkout (for
exit codes, stderr lines and start-up), with the output as text.

Tests that need stdin, bytes output or another working folder build their own call."""

from __future__ import annotations

import os
import subprocess
import sys

from . import ROOT


def run_cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``bpe-desktop ARGS`` in a subprocess that imports this checkout (never a stale installed copy)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    return subprocess.run([sys.executable, "-m", "bpe_desktop", *args], capture_output=True, text=True,
                          env=env, timeout=timeout)
