"""Byte ids numbered by byte value (``byte_ids="raw"``): a tokenizer trained here has the ids minbpe and
rustbpe give -- checked against straightforward references of both written here, against tiktoken built
from our exported ranks and against HF tokenizers reading our tokenizer.json."""

from __future__ import annotations

import itertools
import json.decoder
import pydoc_data.topics
from collections import Counter
from pathlib import Path

import pytest
import regex
import tiktoken
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig, count_text, train
from bpe_desktop.core.errors import ConfigError
from bpe_desktop.core.formats import load_model, save_model
from bpe_desktop.core.formats.tiktoken_file import load as load_ranks
from bpe_desktop.core.text.pretokenize import GPT2_PATTERN
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer
from support import ROOT

TEXT = (Path(pydoc_data.topics.__file__).read_text()[:40000] + Path(json.decoder.__file__).read_text()
        + (ROOT / "resources" / "samples" / "robotlogs_sample.txt").read_text()[:8000]
        + "naïve café 👍🏽 e\u0301 日本語 Привет\n" * 20)
TESTS = [Path(pydoc_data.topics.__file__).read_text()[60000:70000], "naïve 👍🏽 e\u0301 日本語 🇫🇷", "", " \n\t x"]


def _reference(text: str, n: int, rule: str) -> dict[tuple[int, int], int]:
    """minbpe's RegexTokenizer.train (rule "minbpe": ties go to the pair seen first, ``max(stats,
    key=stats.get)``) or rustbpe's (rule "rustbpe": ties go to the smallest pair of ids).  Fed line by line,
    as our corpus counting reads a text (no piece crosses a line end)."""
    # Equal chunks are counted once with their number (first-seen order kept: a pair's first appearance, which
    # minbpe's ties follow, is the same), so the reference recounts distinct chunks, not every occurrence.
    weights = Counter(tuple(c.encode("utf-8")) for line in text.splitlines(keepends=True)
                      for c in regex.findall(GPT2_PATTERN, line))
    chunks = [list(c) for c in weights]
    counts = list(weights.values())
    merges: dict[tuple[int, int], int] = {}
    for i in range(n):
        stats: dict[tuple[int, int], int] = {}
        for ids, w in zip(chunks, counts, strict=True):
            for pair in itertools.pairwise(ids):
                stats[pair] = stats.get(pair, 0) + w
        if not stats:
            break
        pair = (max(stats, key=stats.__getitem__) if rule == "minbpe"
                else min(stats, key=lambda p: (-stats[p], p)))
        idx = 256 + i
        merges[pair] = idx
        new_chunks = []
        for ids in chunks:
            out, k = [], 0
            while k < len(ids):
                if k + 1 < len(ids) and (ids[k], ids[k + 1]) == pair:
                    out.append(idx)
                    k += 2
                else:
                    out.append(ids[k])
                    k += 1
            new_chunks.append(out)
        chunks = new_chunks
    return merges


def _ours(text: str, n: int, tie_break: str):
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break=tie_break, merges=n,
                      byte_ids="raw")
    model, _ = train(count_text(text, cfg).counts, cfg)
    return model


@pytest.mark.parametrize(("rule", "tie_break"), [("minbpe", "first-seen"), ("rustbpe", "hf")])
def test_merges_and_ids_equal_the_reference(rule: str, tie_break: str) -> None:
    model = _ours(TEXT, 400, tie_break)
    assert model.byte_ids == "raw" and model.tokens[:256] == [bytes([b]) for b in range(256)]
    expected = _reference(TEXT, 400, rule)
    assert {pair: 256 + k for k, pair in enumerate(model.merges)} == expected


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet="ab c\né👍", max_size=60), st.integers(0, 20))
def test_any_text_equals_the_references(text: str, n: int) -> None:
    for rule, tie_break in (("minbpe", "first-seen"), ("rustbpe", "hf")):
        model = _ours(text, n, tie_break)
        assert {pair: 256 + k for k, pair in enumerate(model.merges)} == _reference(text, n, rule)


def test_exported_ranks_and_tokenizer_json_give_the_same_ids(tmp_path: Path) -> None:
    model = _ours(TEXT, 600, "hf")
    ours = Tokenizer(model)
    save_model(model, tmp_path / "raw.tiktoken", "tiktoken")
    ranks = load_ranks(tmp_path / "raw.tiktoken")
    assert all(ranks[bytes([b])] == b for b in range(256))  # a raw rank file: rank = byte value
    enc = tiktoken.Encoding("raw", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={})
    save_model(model, tmp_path / "tokenizer.json", "hf")
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    for text in TESTS:
        ids = ours.encode(text)
        assert enc.encode_ordinary(text) == ids
        assert hf.encode(text).ids == ids
        assert ours.decode(ids) == text


def test_native_files_keep_the_numbering_and_it_converts_both_ways(tmp_path: Path) -> None:
    model = _ours(TEXT, 200, "hf")
    save_model(model, tmp_path / "raw.json", "native")
    back = load_model(str(tmp_path / "raw.json"))
    assert back.byte_ids == "raw" and back.merges == model.merges
    gpt2 = model.with_byte_ids("gpt2")
    assert gpt2.byte_ids == "gpt2" and [gpt2.tokens[i] for i in range(256, 456)] == model.tokens[256:456]
    assert Tokenizer(gpt2).decode(Tokenizer(gpt2).encode(TESTS[0])) == TESTS[0]
    assert gpt2.with_byte_ids("raw").merges == model.merges
    with pytest.raises(ConfigError, match="byte numbering"):
        TrainConfig(mode="bytes", byte_ids="ebcdic")
