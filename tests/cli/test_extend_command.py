"""``train CORPUS --extend TOKENIZER --merges N --out FILE`` as a user runs it: the file it writes is read by
tiktoken with our ids (and by ``encode --tokenizer cl100k:FILE``); options that would change the tokenizer's
pipeline, a missing --merges and a tokenizer that cannot be extended exactly are one-line refusals (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tiktoken
import tiktoken.load

from bpe_desktop.core.formats.presets import CL100K_SPECIALS
from bpe_desktop.core.text.pretokenize import Pretokenizer
from support import ROBOT_SAMPLE_FILE
from support.cli import run_cli

LINES = ROBOT_SAMPLE_FILE.read_text(encoding="utf-8").splitlines(keepends=True)


def test_extend_cl100k_writes_a_rank_file_tiktoken_reads(tmp_path: Path) -> None:
    corpus, held = tmp_path / "train.log", "".join(LINES[1500:1600])
    corpus.write_text("".join(LINES[:1500]), encoding="utf-8")
    out, steps = tmp_path / "cl100k_logs.tiktoken", tmp_path / "steps.csv"
    r = run_cli("train", str(corpus), "--extend", "cl100k", "--merges", "40", "--out", str(out), "--steps", str(steps))
    assert r.returncode == 0, r.stderr
    assert "40 new merges on cl100k" in r.stdout and f"open it as cl100k:{out}" in r.stdout
    assert len(steps.read_text(encoding="utf-8").splitlines()) == 41  # a header and a row per merge
    pattern = Pretokenizer.from_spec("cl100k").pattern
    assert pattern is not None
    enc = tiktoken.Encoding(name="x", pat_str=pattern, mergeable_ranks=tiktoken.load.load_tiktoken_bpe(str(out)),
                            special_tokens=CL100K_SPECIALS)
    text_file = tmp_path / "held.log"
    text_file.write_text(held, encoding="utf-8")
    e = run_cli("encode", "--tokenizer", f"cl100k:{out}", "--ids", "--file", str(text_file))
    assert e.returncode == 0, e.stderr
    assert list(map(int, e.stdout.split())) == enc.encode_ordinary(held)
    assert max(enc.encode_ordinary(held)) > 100276  # new ranks are used, after cl100k's specials


@pytest.mark.parametrize(("extra", "msg"), [
    (["--merges", "5", "--mode", "bytes"], "--mode does not go with --extend"),
    (["--merges", "5", "--format", "hf"], "--format does not go with --extend"),
    (["--merges", "5", "--pretokenizer", "gpt2"], "--pretokenizer does not go with --extend"),
    ([], "--extend needs --merges N"),
])
def test_refusals_are_one_line(tmp_path: Path, extra: list[str], msg: str) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text("hello world\n", encoding="utf-8")
    r = run_cli("train", str(corpus), "--extend", "cl100k", "--out", str(tmp_path / "o.tiktoken"), *extra)
    assert r.returncode == 2 and msg in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (tmp_path / "o.tiktoken").exists()


def test_ignore_merges_is_refused_naming_the_component(tmp_path: Path) -> None:
    vocab = {chr(c): i for i, c in enumerate(range(97, 123))} | {"ab": 26}
    doc = {"version": "1.0", "added_tokens": [], "normalizer": None, "pre_tokenizer": {"type": "WhitespaceSplit"},
           "post_processor": None, "decoder": None,
           "model": {"type": "BPE", "vocab": vocab, "merges": ["a b"], "ignore_merges": True}}
    tok = tmp_path / "tokenizer.json"
    tok.write_text(json.dumps(doc), encoding="utf-8")
    corpus = tmp_path / "c.txt"
    corpus.write_text("abc abc abd\n", encoding="utf-8")
    r = run_cli("train", str(corpus), "--extend", str(tok), "--merges", "2", "--out", str(tmp_path / "o.json"))
    assert r.returncode == 2 and "ignore_merges" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
