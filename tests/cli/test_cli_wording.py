"""What the CLI prints besides its results: tables whose columns never touch, progress rates that were
measured, a line after ``sample --out``, one size rule, the branch warning for a forbidden kept merge, and
the README's command lines doing what their comments say (real subprocesses, real files)."""

from __future__ import annotations

import io
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_desktop.core.formats import load
from bpe_desktop.core.io.sizes import format_bytes
from bpe_desktop.core.logs.robotlogs import generate
from support import ROBOT_SAMPLE_FILE, ROOT, cl100k_file

UNITS = {"bytes": 1, "byte": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "PB": 10**15}


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bpe_desktop", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def ok(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    r = run(*args, cwd=cwd)
    assert r.returncode == 0, r.stderr
    return r


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The robot-log sample, bytes mode, 200 merges."""
    out = tmp_path_factory.mktemp("wording") / "src.json"
    ok("train", str(ROBOT_SAMPLE_FILE), "--mode", "bytes", "--merges", "200", "--out", str(out))
    return out


# --- sizes ------------------------------------------------------------------------------------------------

@given(st.integers(min_value=0, max_value=10**18))
def test_a_size_reads_back_within_its_three_digits(n: int) -> None:
    text = format_bytes(n)
    figure, unit = text.split(" ")
    value = float(figure) * UNITS[unit]
    if unit in ("bytes", "byte"):
        assert value == n
    else:
        assert 1 <= float(figure) < 1000 or unit == "PB"
        assert len(figure.replace(".", "")) == 3 or unit == "PB"  # three significant digits
        assert abs(value - n) <= 0.005 * n  # rounded to nearest at the third digit


def test_count_says_the_size_of_what_it_read(tmp_path: Path) -> None:
    f = tmp_path / "c.txt"
    line = "robot arm moved 12 cm\n"
    f.write_text(line * (1_450_000 // len(line)) + "x" * (1_450_000 % len(line)), encoding="utf-8")
    assert f.stat().st_size == 1_450_000
    out = ok("count", str(f), "--out", str(tmp_path / "t.tsv"), "--jobs", "1").stdout
    assert "from 1.45 MB " in out


# --- progress ---------------------------------------------------------------------------------------------

def test_a_rate_is_reported_only_once_time_was_measured(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hand-moved clock: the printer is made at t=10, a stage reports at t=10 (no time passed: no rate),
    then at 12 (2 s since the printer was made); the next stage starts where the last report was."""
    import argparse

    from bpe_desktop.cli import common

    now = [10.0]
    monkeypatch.setattr(common.time, "monotonic", lambda: now[0])
    err = io.StringIO()
    monkeypatch.setattr(common.sys, "stderr", err)
    emit = common.progress_printer(argparse.Namespace(progress="jsonl"))
    assert emit is not None
    emit("counting", 1 << 20, 4 << 20)
    now[0] = 12.0
    emit("counting", 4 << 20, 4 << 20)
    now[0] = 12.5
    emit("merging", 50, 100)
    lines = [json.loads(x) for x in err.getvalue().splitlines()]
    assert [x["rate"] for x in lines] == [None, (4 << 20) / 2, 50 / 0.5]
    assert lines[0]["eta_s"] is None and lines[2]["eta_s"] == 0.5


def test_jsonl_rates_of_a_real_run_are_null_or_finite(tmp_path: Path) -> None:
    r = ok("train", str(ROBOT_SAMPLE_FILE), "--mode", "bytes", "--merges", "50", "--out", str(tmp_path / "t.json"),
           "--progress", "jsonl")
    lines = [json.loads(x) for x in r.stderr.splitlines()]
    assert lines and {x["stage"] for x in lines} == {"counting", "merging"}
    for x in lines:
        # 10^11 bytes (or merges) a second is beyond any memory bus: the old first line said 10^15
        assert x["rate"] is None or 0 <= x["rate"] < 1e11, x


# --- sample -----------------------------------------------------------------------------------------------

def test_sample_says_what_it_wrote(tmp_path: Path) -> None:
    out = tmp_path / "s.log"
    said = ok("sample", "robotlogs", "--lines", "321", "--seed", "5", "--out", str(out)).stdout
    data = out.read_bytes()
    assert data.count(b"\n") == 321
    assert said == f"wrote 321 lines of robotlogs (seed 5), {format_bytes(len(data))}, to {out}\n"
    to_stdout = ok("sample", "robotlogs", "--lines", "321", "--seed", "5").stdout
    assert to_stdout.encode() == data  # without --out, stdout is the text and nothing else


# --- inspect's table --------------------------------------------------------------------------------------

def test_inspect_columns_never_touch_and_match_the_json(tmp_path: Path, source: Path) -> None:
    log = tmp_path / "big.log"
    log.write_text(generate(6000, seed=2), encoding="utf-8")  # counts in the hundreds of thousands
    specs = (f"cl100k:{cl100k_file()}", str(source))
    args = ["inspect", str(log)] + [a for s in specs for a in ("--tokenizer", s)]
    table = ok(*args).stdout.splitlines()
    doc = json.loads(ok(*args, "--json").stdout)
    cells = r"(\d[\d,]*) +(\d+\.\d)%"
    start = next(i for i, ln in enumerate(table) if ln.startswith("tokens per category")) + 1
    rows = table[start:start + len(doc["tokenizers"][0]["categories"])]
    for ln in rows:
        m = re.fullmatch(r"(\S+) \[[\d,]+\] +" + r"  +".join([cells] * len(specs)), ln)
        assert m, f"columns run together: {ln!r}"
        cat = m.group(1)
        for k, t in enumerate(doc["tokenizers"]):
            assert int(m.group(1 + 2 * k + 1).replace(",", "")) == t["categories"][cat]


# --- branch -----------------------------------------------------------------------------------------------

def test_a_forbidden_kept_merge_is_warned_and_changes_nothing(tmp_path: Path, source: Path) -> None:
    merges = load(str(source)).model.merges
    rank = 30  # a merge inside the 100 kept
    left, right = load(str(source)).model.merge_pairs_text()[rank - 1]
    b = tmp_path / "b.json"
    r = ok("train", str(ROBOT_SAMPLE_FILE), "--from", str(source), "--at", "100", "--forbid", f"{left} {right}",
           "--out", str(b))
    assert f"(merge {rank}) is forbidden but among the 100 kept merges" in r.stderr
    assert f"--at {rank - 1} or less" in r.stderr
    assert load(str(b)).model.merges == merges  # what the warning says: the forbid changed nothing


def test_a_forbidden_later_merge_is_not_warned_and_counted_in_the_singular(tmp_path: Path, source: Path) -> None:
    model = load(str(source)).model
    left, right = model.merge_pairs_text()[100]  # merge 101, after the 100 kept
    b = tmp_path / "b.json"
    r = ok("train", str(ROBOT_SAMPLE_FILE), "--from", str(source), "--at", "100", "--forbid", f"{left} {right}",
           "--out", str(b))
    assert "warning" not in r.stderr
    assert "; 1 forbidden pair skipped;" in r.stdout
    assert load(str(b)).model.merges[:100] == model.merges[:100] != load(str(b)).model.merges


# --- analyze ----------------------------------------------------------------------------------------------

def test_analyze_says_how_it_shows_tokens_and_whose_counts_intermediate_uses(source: Path) -> None:
    out = ok("analyze", str(ROBOT_SAMPLE_FILE), "--tokenizer", str(source)).stdout
    assert "· a space" in out and "Ġ for a space" in out
    assert "counted on its training corpus" in out
    encoded = ok("encode", "--tokenizer", str(source), "a b").stdout
    assert "Ġ" in encoded  # the rendering the legend names for encode


# --- the README's command lines ---------------------------------------------------------------------------

def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## Command line", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    return [ln for ln in block.replace("\\\n", " ").splitlines() if ln.startswith("bpe-desktop ")]


def test_readme_convert_line_writes_the_files_its_comment_names(tmp_path: Path, source: Path) -> None:
    line = next(ln for ln in _readme_commands() if ln.startswith("bpe-desktop convert"))
    fmt = re.search(r"--to (\S+)", line).group(1)
    files = re.findall(r"[\w.]+\.(?:json|txt|bpe)", line.split("#", 1)[1])
    ok("convert", str(source), str(tmp_path / "out"), "--to", fmt)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(files)


def test_readme_branch_example_changes_the_merges(tmp_path: Path) -> None:
    """Train the source, branch it, diff them, as the README writes them, from a folder holding the sample
    at the path the README names."""
    (tmp_path / "resources" / "samples").mkdir(parents=True)
    (tmp_path / "resources" / "samples" / "robotlogs_sample.txt").write_bytes(ROBOT_SAMPLE_FILE.read_bytes())
    raw = [shlex.split(ln.split("  #", 1)[0])[1:] for ln in _readme_commands()]
    branch = next(k for k, a in enumerate(raw) if "--from" in a)
    assert raw[branch - 1][0] == "train" and raw[branch + 1][0] == "diff"
    for argv in raw[branch - 1:branch + 1]:
        assert "warning" not in ok(*argv, cwd=tmp_path).stderr
    d = run(*raw[branch + 1], cwd=tmp_path)
    assert d.returncode == 1, d.stdout + d.stderr  # 1: the two merge lists differ
