"""The robot-log generator and ``bpe-desktop sample robotlogs``: deterministic, varied, parseable logs."""

from __future__ import annotations

import re
from pathlib import Path

from bpe_desktop.core.logs.logclass import Category, classify
from bpe_desktop.core.logs.robotlogs import LEVELS, generate, iter_lines
from support import ROOT
from support.cli import run_cli

SAMPLE = ROOT / "resources" / "samples" / "robotlogs_sample.txt"
HEADER = re.compile(r"\[(?P<level>[A-Z]+)\] \[(?P<ts>\d{10}\.\d{9})\] \[(?P<node>[a-z0-9_]+)\]: (?P<msg>.+)")


run = run_cli


def test_same_seed_same_text_other_seed_other_text() -> None:
    a, b, c = generate(800, seed=5), generate(800, seed=5), generate(800, seed=6)
    assert a == b
    assert a != c
    assert generate(1200, seed=5).startswith(a)  # a longer log starts with the shorter one
    assert "".join(iter_lines(800, seed=5)) == a
    assert a.count("\n") == 800 and a.endswith("\n")
    assert generate(0, seed=5) == ""


def test_every_line_parses_header_fields_classify_as_expected() -> None:
    text = generate(3000, seed=2)
    last_ts = 0.0
    previous_level = None
    continuation = 0
    for line in text.splitlines():
        m = HEADER.fullmatch(line)
        if m is None:  # a stack-trace line: indented, and only after an ERROR entry
            assert line.startswith("  ") and previous_level == "ERROR", line
            continuation += 1
            continue
        previous_level = m["level"]
        assert m["level"] in LEVELS
        ts = float(m["ts"])
        assert ts > last_ts  # time moves forward
        last_ts = ts
        spans = [(s.category, line[s.start:s.end]) for s in classify(line)]
        # the classifier types the header's fields: level, timestamp, node name
        assert spans[1] == (Category.LEVEL, m["level"])
        assert spans[5] == (Category.TIMESTAMP, m["ts"])
        assert spans[9][1] == m["node"] and spans[9][0] in (Category.NAME, Category.WORD)
    assert continuation > 20  # multi-line errors are present


def test_variety_of_messages() -> None:
    text = generate(3000, seed=3)
    levels = {m["level"] for m in map(HEADER.fullmatch, text.splitlines()) if m}
    assert levels == set(LEVELS)
    for needle in ("data=[", "E0x", "Traceback (most recent call last):", "#0 0x", "SoC", "odom x=", "/robot/motors/"):
        assert needle in text, needle
    assert len({m["node"] for m in map(HEADER.fullmatch, text.splitlines()) if m}) >= 15
    cats = {s.category for s in classify(text)}
    assert cats == set(Category)


def test_cli_sample_stdout_and_out_file(tmp_path: Path) -> None:
    out = run("sample", "robotlogs", "--lines", "250", "--seed", "9")
    assert out.returncode == 0 and out.stdout == generate(250, seed=9)
    f = tmp_path / "log.txt"
    assert run("sample", "robotlogs", "--lines", "250", "--seed", "9", "--out", str(f)).returncode == 0
    assert f.read_text(encoding="utf-8") == out.stdout


def test_cli_sample_errors_are_one_line(tmp_path: Path) -> None:
    bad = run("sample", "robotlogs", "--lines", "-3")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--lines" in bad.stderr
    missing = run("sample", "robotlogs", "--lines", "3", "--out", str(tmp_path / "no" / "x.txt"))
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "does not exist" in missing.stderr
    folder = run("sample", "robotlogs", "--lines", "3", "--out", str(tmp_path))
    assert folder.returncode == 2 and folder.stderr.count("\n") == 1
    if Path("/proc").is_dir():  # a folder where no file can be created
        proc = run("sample", "robotlogs", "--lines", "3", "--out", "/proc/x.txt")
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "cannot write" in proc.stderr


def test_bundled_sample_is_the_documented_command() -> None:
    assert SAMPLE.read_text(encoding="utf-8") == generate(1800, seed=12)
