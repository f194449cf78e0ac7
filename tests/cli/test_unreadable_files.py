"""Issue 26, items 4, 7 and 8 on the command line: FIFOs, devices, folders, unreadable files, bad
compressed data and a closed standard input are one line on stderr and exit 2 -- no traceback, no hang.

Every subprocess has a generous timeout as a hang guard only (the refusals are immediate).
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import textwrap

import pytest

from support import ROOT, SEED_TABLE

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def cli(*args: str, cwd: str, shell_tail: str = "") -> subprocess.CompletedProcess[str]:
    if shell_tail:  # e.g. "<&-": run through sh so that standard input can be closed
        cmd = " ".join([sys.executable, "-m", "bpe_desktop", *(f"'{a}'" for a in args), shell_tail])
        return subprocess.run(["sh", "-c", cmd], capture_output=True, text=True, env=ENV, cwd=cwd, timeout=120)
    return subprocess.run([sys.executable, "-m", "bpe_desktop", *args], capture_output=True, text=True,
                          env=ENV, cwd=cwd, timeout=120, stdin=subprocess.DEVNULL)


def one_line_refusal(r: subprocess.CompletedProcess[str], *words: str) -> None:
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and r.stderr.count("\n") == 1, r.stderr
    for w in words:
        assert w in r.stderr, r.stderr


@pytest.fixture
def tok(tmp_path) -> str:
    (tmp_path / "w.txt").write_text(SEED_TABLE + "\n")
    r = cli("train", "w.txt", "--word-counts", "--merges", "5", "--out", "t.json", cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    return str(tmp_path / "t.json")


def test_encode_tokenizer_fifo_and_devices_are_refused(tmp_path, tok: str) -> None:
    os.mkfifo(tmp_path / "pipe")
    for spec in ("pipe", "cl100k:pipe", "/dev/zero", "cl100k:/dev/zero", "/dev/urandom"):
        one_line_refusal(cli("encode", "--tokenizer", spec, "hi", cwd=str(tmp_path)), "not a regular file")


def test_encode_file_fifo_device_folder_are_refused(tmp_path, tok: str) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "d").mkdir()
    for f, why in (("pipe", "not a regular file"), ("/dev/zero", "not a regular file"), ("d", "is a folder")):
        one_line_refusal(cli("encode", "--tokenizer", tok, "--file", f, cwd=str(tmp_path)), why)


def test_encode_file_dash_reads_standard_input(tmp_path, tok: str) -> None:
    r = subprocess.run([sys.executable, "-m", "bpe_desktop", "encode", "--tokenizer", tok, "--file", "-", "--ids"],
                       input="low lower", capture_output=True, text=True, env=ENV, cwd=str(tmp_path), timeout=120)
    direct = cli("encode", "--tokenizer", tok, "--ids", "low lower", cwd=str(tmp_path))
    assert r.returncode == 0 and r.stdout == direct.stdout and r.stdout.strip(), r.stderr


def test_encode_file_without_permission_is_refused(tmp_path, tok: str) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("low lower")
    secret.chmod(0)
    os.chmod(tmp_path, 0o755)
    os.chmod(tok, 0o644)
    if os.geteuid() != 0:
        r = cli("encode", "--tokenizer", tok, "--file", str(secret), cwd=str(tmp_path))
    else:  # root reads anything: drop to nobody after importing, as test_safe_writes does
        code = textwrap.dedent(f"""
            import os, sys
            from bpe_desktop.cli import main
            import bpe_desktop.cli.encode, bpe_desktop.core.formats, encodings.idna
            os.setgroups([]); os.setgid(65534); os.setuid(65534)
            sys.exit(main(["encode", "--tokenizer", {tok!r}, "--file", {str(secret)!r}]))
        """)
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, cwd="/",
                           timeout=120)
    one_line_refusal(r, "permission denied", str(secret))


@pytest.mark.parametrize("cmd", [["train", "-", "--merges", "3", "--out", "t.json"], ["count", "-", "--out", "o.tsv"]])
def test_closed_standard_input_is_a_one_line_error(tmp_path, cmd: list[str]) -> None:
    one_line_refusal(cli(*cmd, cwd=str(tmp_path), shell_tail="<&-"), "standard input is closed")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_bad_deflate_data_names_the_file(tmp_path, jobs: str) -> None:
    good = gzip.compress(b"low lower newest\n" * 2000)
    bad = good[:20] + bytes(b ^ 0x5A for b in good[20:60]) + good[60:]  # header intact, stream damaged
    (tmp_path / "c.txt.gz").write_bytes(bad)
    r = cli("train", "c.txt.gz", "--merges", "3", "--jobs", jobs, "--out", "t.json", cwd=str(tmp_path))
    one_line_refusal(r, "c.txt.gz", "cannot decompress")


def test_a_fifo_corpus_is_refused_by_train_and_count(tmp_path, tok: str) -> None:
    os.mkfifo(tmp_path / "pipe")
    for cmd in (["train", "pipe", "--merges", "3", "--jobs", "2", "--out", "t.json"],
                ["count", "pipe", "--out", "o.tsv"],
                ["train", "/dev/zero", "--merges", "3", "--out", "t.json"],
                ["analyze", "--tokenizer", tok, "/dev/zero"], ["analyze", "--tokenizer", tok, "pipe"]):
        one_line_refusal(cli(*cmd, cwd=str(tmp_path)), "not a regular file")


@pytest.mark.parametrize("content", ["", "\n\n", "   \n"])
def test_analyze_on_an_empty_text_reports_undefined_rates_not_nan(tmp_path, tok: str, content: str) -> None:
    """Issue 26, item 13: the text report said ``nan``; now ``n/a`` and why (--json gives null already)."""
    (tmp_path / "empty.txt").write_text(content)
    r = cli("analyze", "--tokenizer", tok, "empty.txt", cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "nan" not in r.stdout.lower() and "the rates below are undefined" in r.stdout, r.stdout
    assert "bytes per token     n/a" in r.stdout and "tokens              0" in r.stdout
