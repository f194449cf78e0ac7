"""``bpe-desktop inspect`` run as a user would: a real subprocess, tables, --json, --per-line and errors."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import tiktoken

from bpe_desktop.core.formats import load_tokenizer
from bpe_desktop.core.logs.robotlogs import generate
from support import cl100k_file
from support.cli import run_cli

run = run_cli


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    d = tmp_path_factory.mktemp("inspect")
    log = d / "robot.log"
    log.write_text(generate(600, seed=4), encoding="utf-8")
    tok = d / "tok.json"
    out = run("train", str(log), "--mode", "bytes", "--pretokenizer", "log-stamps", "--tie-break", "hf",
              "--merges", "200", "--out", str(tok))
    assert out.returncode == 0, out.stderr
    return log, tok, f"cl100k:{cl100k_file()}"


def test_json_has_the_documented_keys_and_real_counts(files) -> None:
    log, tok, cl = files
    out = run("inspect", str(log), "--tokenizer", cl, "--tokenizer", str(tok), "--json", "--top", "3")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert [t["name"] for t in doc["tokenizers"]] == ["cl100k", "tok.json"]
    text = log.read_text(encoding="utf-8")
    ranks = load_tokenizer(cl).ranks
    enc = tiktoken.Encoding(name="c", pat_str=load_tokenizer(cl).pretokenizer.pattern,
                            mergeable_ranks=ranks, special_tokens={})
    assert doc["tokenizers"][0]["tokens"] == len(enc.encode_ordinary(text))
    assert doc["tokenizers"][1]["tokens"] == len(load_tokenizer(str(tok)).encode_ordinary(text))
    for t in doc["tokenizers"]:
        for key in ("name", "tokens", "chars_per_token", "bytes_per_token", "tokens_per_line_mean",
                    "tokens_per_line_p95", "categories", "expensive"):
            assert key in t
        assert sum(t["categories"].values()) == t["tokens"]
        assert set(t["categories"]) == {"timestamp", "level", "hex", "float", "integer", "name", "word", "punct",
                                        "space"}
        assert len(t["expensive"]) == 3
    assert doc["differences"]["regions"] > 0 and len(doc["differences"]["spans"]) == 3
    assert doc["bytes"] == len(text.encode())


def test_table_and_per_line_csv(files, tmp_path: Path) -> None:
    log, tok, cl = files
    csv_path = tmp_path / "lines.csv"
    out = run("inspect", str(log), "--tokenizer", cl, "--tokenizer", str(tok), "--per-line", str(csv_path))
    assert out.returncode == 0, out.stderr
    for needle in ("tokens", "chars/token", "bytes/token", "tokens/line mean", "tokens/line p95", "timestamp",
                   "most expensive spans under cl100k", "differing spans:", "token", " vs ", "fewest tokens"):
        assert needle in out.stdout, needle
    rows = list(csv.reader(csv_path.open(encoding="utf-8")))
    assert rows[0] == ["line", "cl100k", "tok.json"]
    assert len(rows) - 1 == log.read_text(encoding="utf-8").count("\n")
    doc = json.loads(run("inspect", str(log), "--tokenizer", cl, "--tokenizer", str(tok), "--json").stdout)
    assert sum(int(r[1]) for r in rows[1:]) == doc["tokenizers"][0]["tokens"]
    assert sum(int(r[2]) for r in rows[1:]) == doc["tokenizers"][1]["tokens"]


def test_one_tokenizer_has_no_differences(files) -> None:
    log, tok, _ = files
    out = run("inspect", str(log), "--tokenizer", str(tok), "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["differences"] is None


@pytest.mark.parametrize("case", ["missing file", "bad tokenizer", "tokenizer is a log", "not utf-8", "folder",
                                  "csv in missing folder", "csv is a folder", "negative top"])
def test_user_errors_exit_2_with_one_line(files, tmp_path: Path, case: str) -> None:
    log, tok, _ = files
    binary = tmp_path / "bin.log"
    binary.write_bytes(b"[INFO] \xff\xfe oops\n")
    args = {
        "missing file": [str(tmp_path / "nope.log"), "--tokenizer", str(tok)],
        "bad tokenizer": [str(log), "--tokenizer", str(tmp_path / "nope.json")],
        "tokenizer is a log": [str(log), "--tokenizer", str(log)],
        "not utf-8": [str(binary), "--tokenizer", str(tok)],
        "folder": [str(tmp_path), "--tokenizer", str(tok)],
        "csv in missing folder": [str(log), "--tokenizer", str(tok), "--per-line", str(tmp_path / "no" / "x.csv")],
        "csv is a folder": [str(log), "--tokenizer", str(tok), "--per-line", str(tmp_path)],
        "negative top": [str(log), "--tokenizer", str(tok), "--top", "-1"],
    }[case]
    out = run("inspect", *args)
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("bpe-desktop inspect: error:"), out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""
