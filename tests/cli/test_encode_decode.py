"""Issue 23 on the command line: the bundled encodings by name, encode/decode as tiktoken offers them
(``--allow-special NAME``, ``--bytes``, ``--offsets``, ``decode``), and the one-line refusal of a rank file
that is no known encoding on every command that reads one.  tiktoken (its ranks from the bundled files,
read by its own loader) is the oracle."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import tiktoken
import tiktoken.load

from bpe_desktop.core.formats.presets import O200K_SPECIALS, PRESETS, bundled_data
from bpe_desktop.core.text.pretokenize import O200K_PATTERN
from support import ROOT

TEXT = "Grüße 🤖 e\u0301 <|endoftext|> naïve <|endofprompt|> 日本語\n"


def cli(*args: str, cwd: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "bpe_desktop", *args], capture_output=True, input=stdin,
                          env={**os.environ, "PYTHONPATH": ROOT}, cwd=cwd)


@pytest.fixture(scope="module")
def o200k_file(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("o200k") / "o200k_base.tiktoken"
    path.write_bytes(bundled_data(PRESETS["o200k"]))
    return str(path)


@pytest.fixture(scope="module")
def enc(o200k_file: str) -> tiktoken.Encoding:
    ranks = tiktoken.load.load_tiktoken_bpe(o200k_file, expected_hash=PRESETS["o200k"].sha256)
    return tiktoken.Encoding("o200k_base", pat_str=O200K_PATTERN, mergeable_ranks=ranks, special_tokens=O200K_SPECIALS)


def ids(r: subprocess.CompletedProcess[bytes]) -> list[int]:
    assert r.returncode == 0, r.stderr
    return [int(x) for x in r.stdout.split()]


def test_allow_special_takes_a_subset(tmp_path: Path, enc: tiktoken.Encoding) -> None:
    one = cli("encode", "--tokenizer", "o200k", "--ids", "--allow-special", "<|endoftext|>", "--no-special", TEXT,
              cwd=str(tmp_path))
    assert one.returncode == 2 and b"not allowed with" in one.stderr
    refused = cli("encode", "--tokenizer", "o200k", "--ids", "--allow-special", "<|endoftext|>", TEXT,
                  cwd=str(tmp_path))
    assert refused.returncode == 2 and b"<|endofprompt|>" in refused.stderr and len(refused.stderr.splitlines()) == 1
    both = cli("encode", "--tokenizer", "o200k", "--ids", "--allow-special", "<|endoftext|>", "--allow-special",
               "<|endofprompt|>", TEXT, cwd=str(tmp_path))
    assert ids(both) == enc.encode(TEXT, allowed_special={"<|endoftext|>", "<|endofprompt|>"})
    assert ids(both)[ids(both).index(199999) + 1 :] != []  # the real id, not 199998
    every = cli("encode", "--tokenizer", "o200k", "--ids", "--allow-special", "all", TEXT, cwd=str(tmp_path))
    assert ids(every) == enc.encode(TEXT, allowed_special="all")
    bad = cli("encode", "--tokenizer", "o200k", "--allow-special", "<|nope|>", TEXT, cwd=str(tmp_path))
    assert bad.returncode == 2 and b"not a special token of this tokenizer" in bad.stderr


def test_offsets_are_tiktokens(tmp_path: Path, enc: tiktoken.Encoding) -> None:
    r = cli("encode", "--tokenizer", "o200k", "--offsets", "--allow-special", "all", TEXT, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    rows = [line.split("\t") for line in r.stdout.decode().splitlines()]
    want_ids = enc.encode(TEXT, allowed_special="all")
    _, char_offsets = enc.decode_with_offsets(want_ids)
    assert [int(row[0]) for row in rows] == want_ids
    assert [int(row[3]) for row in rows] == char_offsets
    spans = [(int(row[1]), int(row[2])) for row in rows]
    data = TEXT.encode()
    assert [data[a:b] for a, b in spans] == [enc.decode_single_token_bytes(i) for i in want_ids]


def test_bytes_input_is_encode_bytes(tmp_path: Path, enc: tiktoken.Encoding) -> None:
    data = "hello wörld ".encode() + b"\xff\xfe \x80" + "🤖".encode()[:3] + b"  \n"
    (tmp_path / "b.bin").write_bytes(data)
    r = cli("encode", "--tokenizer", "o200k", "--ids", "--bytes", "--file", "b.bin", cwd=str(tmp_path))
    assert ids(r) == enc._encode_bytes(data)
    piped = cli("encode", "--tokenizer", "o200k", "--ids", "--bytes", "--file", "-", cwd=str(tmp_path), stdin=data)
    assert ids(piped) == enc._encode_bytes(data)
    text_mode = cli("encode", "--tokenizer", "o200k", "--ids", "--file", "b.bin", cwd=str(tmp_path))
    assert text_mode.returncode == 2 and b"--bytes" in text_mode.stderr


def test_decode_is_tiktokens(tmp_path: Path, enc: tiktoken.Encoding) -> None:
    want = enc.encode(TEXT, allowed_special="all")
    r = cli("decode", "--tokenizer", "o200k", *map(str, want), cwd=str(tmp_path))
    assert r.returncode == 0 and r.stdout.decode() == enc.decode(want) + "\n"
    (tmp_path / "ids.txt").write_text(",".join(map(str, want)))
    assert cli("decode", "--tokenizer", "o200k", "--file", "ids.txt", cwd=str(tmp_path)).stdout.decode()[:-1] == TEXT
    cut = enc.encode("🤖")[:1]  # a token that ends inside a character
    raw = cli("decode", "--tokenizer", "o200k", "--bytes", *map(str, cut), cwd=str(tmp_path))
    assert raw.stdout == enc.decode_bytes(cut)
    replaced = cli("decode", "--tokenizer", "o200k", *map(str, cut), cwd=str(tmp_path))
    assert replaced.stdout.decode()[:-1] == enc.decode(cut)
    strict = cli("decode", "--tokenizer", "o200k", "--errors", "strict", *map(str, cut), cwd=str(tmp_path))
    assert strict.returncode == 2 and b"not UTF-8" in strict.stderr
    for bad in ("199998", "300000", "x1"):  # 199998 lies between the ranks and <|endoftext|>: no token
        r = cli("decode", "--tokenizer", "o200k", bad, cwd=str(tmp_path))
        assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and b"Traceback" not in r.stderr, bad


def test_every_command_refuses_a_rank_file_without_a_pattern(tmp_path: Path, enc: tiktoken.Encoding) -> None:
    lines = bundled_data(PRESETS["gpt2"]).splitlines(keepends=True)
    (tmp_path / "mine.tiktoken").write_bytes(b"".join(lines[:1000]))
    (tmp_path / "log.txt").write_text("[INFO] [1732891234.98] [nav2]: Received path with 300 poses\n" * 5)
    commands = [
        ("encode", "--tokenizer", "mine.tiktoken", "hello"),
        ("analyze", "log.txt", "--tokenizer", "mine.tiktoken"),
        ("inspect", "log.txt", "--tokenizer", "mine.tiktoken"),
        ("diff", "mine.tiktoken", "gpt2"),
        ("decode", "--tokenizer", "mine.tiktoken", "104"),
    ]
    for command in commands:
        r = cli(*command, cwd=str(tmp_path))
        assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and b"--pretokenizer" in r.stderr, command
        ok = cli(*command, "--pretokenizer", "gpt2", cwd=str(tmp_path))
        assert ok.returncode == (1 if command[0] == "diff" else 0), (command, ok.stderr)  # diff: 1 = they differ
    r = cli("encode", "--tokenizer", "mine.tiktoken", "--pretokenizer", "o200k", "--special", "<|endoftext|>=5000",
            "--ids", "--allow-special", "all", "hi<|endoftext|>", cwd=str(tmp_path))
    assert ids(r)[-1] == 5000


def test_preset_prefix_on_a_file_that_exists(tmp_path: Path, o200k_file: str, enc: tiktoken.Encoding) -> None:
    r = cli("encode", "--tokenizer", f"o200k:{o200k_file}", "--ids", TEXT.split("<")[0], cwd=str(tmp_path))
    assert ids(r) == enc.encode(TEXT.split("<")[0])
    r = cli("encode", "--tokenizer", f"o300k:{o200k_file}", "--ids", "hi", cwd=str(tmp_path))
    assert r.returncode == 2 and b"not a preset" in r.stderr and b"no such file" not in r.stderr


def test_analyze_a_file_whose_last_rank_is_no_merge(tmp_path: Path) -> None:
    (tmp_path / "multilingual.tiktoken").write_bytes(bundled_data(PRESETS["gpt2"]) + b"= 50256\n")  # as Whisper's
    (tmp_path / "t.txt").write_text("Hello robot, status OK\n" * 3)
    r = cli("analyze", "t.txt", "--tokenizer", "multilingual.tiktoken", "--pretokenizer", "gpt2", "--json",
            cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["not_merges"] == [{"id": 50256, "text": ""}] and doc["step"] == 50000


@pytest.mark.slow
def test_analyze_inspect_and_diff_on_o200k(tmp_path: Path, enc: tiktoken.Encoding) -> None:
    text = Path(ROOT, "resources/samples/robotlogs_sample.txt").read_text(encoding="utf-8")[:20_000]
    (tmp_path / "log.txt").write_text(text, encoding="utf-8")
    a = cli("analyze", "log.txt", "--tokenizer", "o200k", "--json", cwd=str(tmp_path))
    assert a.returncode == 0, a.stderr
    assert json.loads(a.stdout)["tokens"] == sum(len(enc.encode_ordinary(line)) for line in text.splitlines(True))
    i = cli("inspect", "log.txt", "--tokenizer", "o200k", "--tokenizer", "cl100k", "--json", cwd=str(tmp_path))
    assert i.returncode == 0, i.stderr
    assert json.loads(i.stdout)["tokenizers"][0]["tokens"] == len(enc.encode_ordinary(text))
    d = cli("diff", "cl100k", "o200k", "--json", cwd=str(tmp_path))
    assert d.returncode == 1 and json.loads(d.stdout)["merges_b"] == 199998 - 256
