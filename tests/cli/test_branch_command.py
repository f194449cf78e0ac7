"""``train --from X --at K`` and ``--forbid``/``--forbid-regex`` run as a user would (real subprocesses)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bpe_desktop.core.formats import load
from support import ROOT
from support.cli import run_cli

SAMPLE = ROOT / "resources" / "samples" / "robotlogs_sample.txt"


run = run_cli


def ok(*args: str) -> str:
    r = run(*args)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """The robot-log sample, bytes mode (GPT-2 pattern by default), first-seen ties, 300 merges."""
    out = tmp_path_factory.mktemp("src") / "x.json"
    ok("train", str(SAMPLE), "--mode", "bytes", "--tie-break", "first-seen", "--merges", "300", "--out", str(out),
       "--steps", str(out.with_suffix(".csv")))
    return out


def doc(path: Path) -> dict:
    """The file's JSON, with ``stats`` as one dict per merge whatever the native version stores."""
    d = json.loads(path.read_text(encoding="utf-8"))
    d["stats"] = load(str(path)).stats
    return d


def test_from_at_k_with_unchanged_settings_reproduces_the_run_exactly(source, tmp_path) -> None:
    y = tmp_path / "y.json"
    # settings left out are the file's (bytes, gpt2, first-seen), the budget its 300 merges
    out = ok("train", str(SAMPLE), "--from", str(source), "--at", "120", "--out", str(y), "--steps",
             str(tmp_path / "y.csv"))
    assert f"300 merges (kept the first 120 of {source}, reached 300 merges)" in out
    assert doc(y) == doc(source)  # settings, merges and every per-merge record, runner-ups included
    assert (tmp_path / "y.csv").read_text() == source.with_suffix(".csv").read_text()
    # the same with every setting spelled out, and from the very end (Train further by 0) or the start
    z = tmp_path / "z.json"
    ok("train", str(SAMPLE), "--mode", "bytes", "--pretokenizer", "gpt2", "--tie-break", "first-seen", "--merges",
       "300", "--from", str(source), "--at", "0", "--out", str(z))
    assert doc(z) == doc(source)
    ok("train", str(SAMPLE), "--from", str(source), "--out", str(z))
    assert doc(z) == doc(source)


def test_from_at_k_in_chars_mode_on_a_word_table(tmp_path) -> None:
    table = tmp_path / "words.txt"
    table.write_text("low 5\nlower 2\nnewest 6\nwidest 3\n", encoding="utf-8")
    x, y = tmp_path / "x.json", tmp_path / "y.json"
    ok("train", str(table), "--word-counts", "--glue-marker", "--merges", "9", "--out", str(x))
    ok("train", str(table), "--word-counts", "--from", str(x), "--at", "4", "--out", str(y))
    assert doc(y) == doc(x)


def test_branch_with_a_forbid_equals_a_fresh_run_with_it(source, tmp_path) -> None:
    merges = doc(source)["merges"]
    banned = merges[150]  # a merge the source made after the branch step
    pair = f"{banned[0]} {banned[1]}"  # bytes-mode symbols have no spaces (Ġ), so no escape is needed
    b, f = tmp_path / "b.json", tmp_path / "f.json"
    out = ok("train", str(SAMPLE), "--from", str(source), "--at", "120", "--forbid", pair, "--out", str(b))
    assert "300 merges (kept the first 120" in out
    ok("train", str(SAMPLE), "--mode", "bytes", "--tie-break", "first-seen", "--merges", "300", "--forbid", pair,
       "--out", str(f))
    got, fresh = doc(b), doc(f)
    assert got["merges"][:120] == merges[:120] == fresh["merges"][:120]
    assert got["merges"] == fresh["merges"] and banned not in got["merges"]
    # the same records after k; before k the branch keeps the source's (the fresh run's runner-ups differ
    # there: they leave the forbidden pair out)
    assert got["stats"][120:] == fresh["stats"][120:]
    assert got["stats"][:120] == doc(source)["stats"][:120]
    r = run("diff", str(source), str(b))
    assert r.returncode == 1 and "first divergence at merge 151" in r.stdout


def test_forbid_options_on_the_seed_table(tmp_path) -> None:
    table = tmp_path / "words.txt"
    table.write_text("low 5\nlower 2\nnewest 6\nwidest 3\n", encoding="utf-8")
    y, steps = tmp_path / "y.json", tmp_path / "steps.csv"
    ok("train", str(table), "--word-counts", "--merges", "3", "--forbid", "e s", "--out", str(y), "--steps", str(steps))
    assert doc(y)["merges"] == [["s", "t"], ["e", "st"], ["est", "</w>"]]  # see test_forbid
    # two-letter tokens forbidden: of the 9-ties e s, s t, t </w> only t</w> may be made; then e s (9, still
    # forbidden) and s t</w> (9) lead, and st</w> is not two letters
    ok("train", str(table), "--word-counts", "--merges", "2", "--forbid-regex", "^[a-z]{2}$", "--out", str(y))
    assert doc(y)["merges"] == [["t", "</w>"], ["s", "t</w>"]]
    # a space inside a symbol: chars mode, no pre-tokenization (the line is one piece), "\ " in the pair;
    # a+space (3) is forbidden, so space+b (3) goes first
    text = tmp_path / "t.txt"
    text.write_text("a b a b a b\n", encoding="utf-8")
    ok("train", str(text), "--pretokenizer", "none", "--end-of-word", "", "--merges", "4",
       "--forbid", "a \\ ", "--out", str(y))
    assert ["a", " "] not in doc(y)["merges"] and [" ", "b"] in doc(y)["merges"]


def test_user_errors_are_one_line_and_exit_2(source, tmp_path) -> None:
    hf = tmp_path / "x.hf.json"
    ok("convert", str(source), str(hf), "--to", "hf")
    other = tmp_path / "other.txt"
    other.write_text("".join(SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)[5:]), encoding="utf-8")
    o = str(tmp_path / "o.json")
    s, x = str(SAMPLE), str(source)
    cases = [
        (["train", s, "--at", "5", "--out", o], "--at K needs --from TOKENIZER"),
        (["train", s, "--from", x, "--at", "301", "--out", o], "the run has merges 0 to 300"),
        (["train", s, "--from", x, "--at", "-1", "--out", o], "the run has merges 0 to 300"),
        (["train", s, "--from", x, "--at", "120", "--merges", "50", "--out", o], "ends before the branch step 120"),
        (["train", s, "--from", x, "--mode", "chars", "--out", o], "mode bytes -> chars"),
        (["train", s, "--from", x, "--pretokenizer", "cl100k", "--out", o], "pretokenizer gpt2 -> cl100k"),
        (["train", s, "--from", x, "--special", "<|endoftext|>", "--out", o], "specials none -> <|endoftext|>"),
        (["train", str(other), "--from", x, "--at", "10", "--out", o], "branch on the corpus the source was"),
        (["train", s, "--from", str(hf), "--out", o], "branch from a native tokenizer file"),
        (["train", s, "--from", str(tmp_path / "missing.json"), "--out", o], "no such file"),
        (["train", s, "--forbid", "a", "--out", o], "not two symbols separated by one space"),
        (["train", s, "--forbid", "a\\x b", "--out", o], "unknown escape \\x"),
        (["train", s, "--mode", "bytes", "--forbid", "\\ t h", "--out", o], "write ' t' as 'Ġt'"),
        (["train", s, "--forbid-regex", "(\\d+", "--out", o], "missing ) at position 4"),
        (["train", s, "--forbid-regex", "", "--out", o], "forbid pattern is empty"),
    ]
    for args, msg in cases:
        r = run(*args)
        assert r.returncode == 2, (args, r.stderr)
        assert msg in r.stderr, (args, r.stderr)
        assert "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
    assert not Path(o).exists()  # nothing written by a refused command
