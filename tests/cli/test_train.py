"""The CLI's train and encode sub-commands, run as a user would (a real subprocess for exit codes)."""

from __future__ import annotations

import csv
import json

from bpe_desktop.cli import main
from support.cli import run_cli

run = run_cli


def test_train_seed_table_writes_tokenizer_and_steps(tmp_path, capsys) -> None:
    table = tmp_path / "words.txt"
    table.write_text("low 5\nlower 2\nnewest 6\nwidest 3\n", encoding="utf-8")
    out, steps = tmp_path / "seed.json", tmp_path / "steps.csv"
    assert main(["train", str(table), "--word-counts", "--merges", "7", "--out", str(out),
                 "--steps", str(steps)]) == 0
    rows = list(csv.reader(steps.open()))
    assert rows[0] == ["rank", "left", "right", "token", "count", "merged", "symbols_after", "vocab_size",
                       "words_touched"]
    assert [r[3] for r in rows[1:]] == ["es", "est", "est</w>", "lo", "low", "ew", "ewest</w>"]
    assert [int(r[6]) for r in rows[1:]] == [86, 77, 68, 61, 54, 48, 42]
    assert json.loads(out.read_text())["settings"]["tie_break"] == "lexical"
    capsys.readouterr()
    assert main(["encode", "--tokenizer", str(out), "lowest"]) == 0
    assert capsys.readouterr().out.split() == ["low", "est</w>"]
    assert main(["encode", "--tokenizer", str(out), "--upto", "3", "lowest"]) == 0
    assert capsys.readouterr().out.split() == ["l", "o", "w", "est</w>"]


def test_train_bytes_and_encode_ids_round_trip(tmp_path, topics_file, capsys) -> None:
    out = tmp_path / "b.json"
    assert main(["train", str(topics_file), "--mode", "bytes", "--merges", "200", "--tie-break", "hf",
                 "--out", str(out), "--progress", "jsonl"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    stages = [json.loads(line)["stage"] for line in err]
    assert stages[0] == "counting" and stages[-1] == "merging"
    assert main(["encode", "--tokenizer", str(out), "--ids", "Hello, robot 🤖"]) == 0
    ids = [int(x) for x in capsys.readouterr().out.split()]
    from bpe_desktop.core.formats import load_tokenizer

    assert load_tokenizer(str(out)).decode(ids) == "Hello, robot 🤖"


def test_user_errors_are_one_line_and_exit_2(tmp_path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\n\xfe\n")
    cases = [
        (["train", str(tmp_path / "missing.txt"), "--out", str(tmp_path / "o.json")], "no such file"),
        (["train", str(bad), "--out", str(tmp_path / "o.json")], "not valid UTF-8 at byte offset 3"),
        (["train", str(bad), "--pretokenizer", "(x", "--out", "o.json"], "position 2"),
        (["encode", "--tokenizer", str(bad), "x"], "bpe-desktop"),
    ]
    for args, msg in cases:
        r = run(*args)
        assert r.returncode == 2, (args, r.stderr)
        assert msg in r.stderr
        assert "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1


def test_the_kernels_batches_write_the_pure_paths_files(tmp_path, topics_file, monkeypatch, capsys) -> None:
    """train on the kernel (many merges per call, records written in C) and in pure Python: the same tokenizer
    and steps files byte for byte, through a forbid, a minimum-frequency stop, a vocabulary target, a branch."""
    from bpe_desktop.core.training.kernel_trainer import PURE_ENV, kernel_built

    if not kernel_built():
        return  # nothing to compare: the pure path is the only one
    base = tmp_path / "base.json"
    assert main(["train", str(topics_file), "--mode", "bytes", "--merges", "120", "--out", str(base)]) == 0
    runs = (["--mode", "bytes", "--pretokenizer", "gpt2", "--merges", "400", "--forbid-regex", "^.h"],
            ["--tie-break", "lexical", "--vocab-size", "5000", "--min-frequency", "30"],
            ["--mode", "bytes", "--vocab-size", "300"],
            ["--mode", "bytes", "--from", str(base), "--at", "50", "--tie-break", "subword-nmt", "--merges", "200"])
    for i, opts in enumerate(runs):
        files = []
        for pure in ("0", "1"):
            monkeypatch.setenv(PURE_ENV, pure)
            out, steps = tmp_path / f"{i}-{pure}.json", tmp_path / f"{i}-{pure}.csv"
            assert main(["train", str(topics_file), *opts, "--out", str(out), "--steps", str(steps)]) == 0
            files.append((out.read_bytes(), steps.read_bytes()))
        assert files[0] == files[1] and len(files[0][1].splitlines()) > 40
    said = capsys.readouterr().out
    assert "below the minimum frequency 30" in said and "reached vocabulary size 300" in said
