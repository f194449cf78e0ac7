"""Issue 26, item 12: ``count --engine dask`` options are checked before any cluster starts: ``--jobs``
has a cap (10000 ran out of file descriptors, 895 stderr lines, then hung), ``--blocksize`` must be a
positive size (``lots`` and ``0`` were ValueError / ZeroDivisionError tracebacks), and an unreachable
scheduler is one line on stderr with nothing of Dask's logging, after --scheduler-timeout seconds (default 10).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bpe_desktop.core.counting.parallel_count import max_jobs
from support import ROOT


def cli(tmp_path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "c.txt").write_text("low lower newest\n" * 10)
    return subprocess.run([sys.executable, "-m", "bpe_desktop", "count", "c.txt", "--out", "o.tsv", *args],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          cwd=tmp_path, timeout=300)


def one_line(r: subprocess.CompletedProcess[str], *words: str) -> None:
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert all(w in r.stderr for w in words), r.stderr


@pytest.mark.parametrize("engine", ["dask", "local"])
def test_jobs_has_a_cap(tmp_path, engine: str) -> None:
    one_line(cli(tmp_path, "--engine", engine, "--jobs", "10000"), "--jobs 10000", f"1..{max_jobs()}")
    one_line(cli(tmp_path, "--engine", engine, "--jobs", "0"), "--jobs must be 1 or more")


@pytest.mark.parametrize("size", ["lots", "0", "-5", "0.0001B", ""])
def test_blocksize_must_be_a_positive_size(tmp_path, size: str) -> None:
    one_line(cli(tmp_path, "--engine", "dask", "--blocksize", size, "--jobs", "1"), "--blocksize", "e.g. 64MiB")
    assert not (tmp_path / "o.tsv").exists()


def test_an_unreachable_scheduler_is_one_line(tmp_path) -> None:
    one_line(cli(tmp_path, "--engine", "dask", "--scheduler", "tcp://127.0.0.1:1", "--scheduler-timeout", "1"),
             "cannot reach the Dask scheduler", "after 1")


@pytest.mark.parametrize("seconds", ["0", "-1", "nan", "inf", "1e400", "3601"])
def test_scheduler_timeout_must_be_in_range(tmp_path, seconds: str) -> None:
    one_line(cli(tmp_path, "--engine", "dask", "--scheduler", "tcp://127.0.0.1:1", "--scheduler-timeout", seconds),
             "--scheduler-timeout", "out of range")


def test_scheduler_timeout_needs_a_scheduler(tmp_path) -> None:
    one_line(cli(tmp_path, "--engine", "dask", "--scheduler-timeout", "3"), "--scheduler-timeout needs --scheduler")
