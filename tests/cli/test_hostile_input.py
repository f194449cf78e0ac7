"""Issue 10, item 6: the CLI's smaller trust items, through subprocess.

``encode --special ""`` refused; ``--no-special`` encodes special-token text as ordinary text (the same
ids as the core's ``encode_ordinary``, tiktoken's semantics); the refusal names the CLI flags; an empty
corpus is an error, not a silent success.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bpe_desktop.core.formats import load_tokenizer
from support import ROOT as REPO

ROOT = str(REPO)


def cli(*args: str, cwd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bpe_desktop", *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": ROOT}, cwd=cwd)


@pytest.fixture
def tok(tmp_path) -> str:
    (tmp_path / "c.txt").write_text("hello world <|endoftext|> hello there\n" * 20)
    r = cli("train", "c.txt", "--mode", "bytes", "--merges", "30", "--special", "<|endoftext|>", "--out", "t.json",
            cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    return str(tmp_path / "t.json")


def test_empty_special_is_refused(tmp_path, tok: str) -> None:
    for cmd in (["encode", "--tokenizer", tok, "--special", "", "--", "hi"],
                ["convert", tok, str(tmp_path / "o.json"), "--to", "hf", "--special", ""]):
        r = cli(*cmd, cwd=str(tmp_path))
        assert r.returncode == 2 and '--special ""' in r.stderr and "empty special token" in r.stderr, r.stderr
    assert not (tmp_path / "o.json").exists()


def test_no_special_encodes_special_text_as_ordinary_text(tmp_path, tok: str) -> None:
    text = "hello <|endoftext|> world"
    refused = cli("encode", "--tokenizer", tok, "--ids", text, cwd=str(tmp_path))
    assert refused.returncode == 2
    assert "--allow-special" in refused.stderr and "--no-special" in refused.stderr
    assert "allowed_special" not in refused.stderr and "disallowed_special" not in refused.stderr
    ordinary = cli("encode", "--tokenizer", tok, "--ids", "--no-special", text, cwd=str(tmp_path))
    special = cli("encode", "--tokenizer", tok, "--ids", "--allow-special", "all", text, cwd=str(tmp_path))
    assert ordinary.returncode == 0 and special.returncode == 0
    ordinary_ids, special_ids = ordinary.stdout.split(), special.stdout.split()
    assert len(ordinary_ids) > len(special_ids)  # the special's text is cut into ordinary tokens
    assert [int(i) for i in ordinary_ids] == load_tokenizer(tok).encode_ordinary(text)
    tokens = cli("encode", "--tokenizer", tok, "--no-special", text, cwd=str(tmp_path)).stdout
    assert "<|endoftext|>" not in tokens.split() and "<|" in tokens.replace(" ", "")
    both = cli("encode", "--tokenizer", tok, "--no-special", "--allow-special", "all", text, cwd=str(tmp_path))
    assert both.returncode == 2 and "not allowed with" in both.stderr


@pytest.mark.parametrize("content,flags,message", [
    ("", [], "the corpus is empty"),
    ("   \n\n", [], "found no piece"),
    ("low 0\nlower 0\n", ["--word-counts"], "every count"),
])
def test_empty_corpus_is_an_error(tmp_path, content: str, flags: list[str], message: str) -> None:
    (tmp_path / "c.txt").write_text(content)
    for cmd in (["train", "c.txt", *flags, "--out", "o.json"], ["stats", "c.txt", *flags, "--zipf", "z.csv"]):
        r = cli(*cmd, cwd=str(tmp_path))
        assert r.returncode == 2 and message in r.stderr and "c.txt" in r.stderr, r.stderr
    assert not (tmp_path / "o.json").exists() and not (tmp_path / "z.csv").exists()
