"""Encoding and decoding: round trips, steps, special tokens, offsets, chars-mode markers."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig, count_text, train
from bpe_desktop.core.errors import ConfigError, SpecialTokenError
from bpe_desktop.core.tokenizers.tokenizer import UNKNOWN_ID, Tokenizer
from support import SEED_000


@pytest.fixture(scope="module")
def byte_tok(topics_text: str) -> Tokenizer:
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=800,
                      specials=("<|endoftext|>",))
    model, _ = train(count_text(topics_text[:200_000], cfg), cfg)
    return Tokenizer(model)


@settings(max_examples=200, deadline=None)
@given(s=st.text())
def test_bytes_mode_round_trips_any_unicode(byte_tok: Tokenizer, s: str) -> None:
    ids = byte_tok.encode_ordinary(s)
    assert byte_tok.decode(ids) == s
    assert all(0 <= i < byte_tok.n_vocab for i in ids)


@settings(max_examples=50, deadline=None)
@given(s=st.text(max_size=40), k=st.integers(0, 800))
def test_every_step_round_trips_and_never_gets_longer(byte_tok: Tokenizer, s: str, k: int) -> None:
    ids_k = byte_tok.encode_ordinary(s, upto=k)
    assert byte_tok.decode(ids_k) == s
    assert len(byte_tok.encode_ordinary(s, upto=k + 1)) <= len(ids_k) <= len(s.encode("utf-8"))
    assert all(byte_tok.model.merge_rank_of(i) is None or byte_tok.model.merge_rank_of(i) < k for i in ids_k)


def test_step_zero_is_raw_bytes(byte_tok: Tokenizer) -> None:
    text = "Robot 🤖 moved"
    assert [byte_tok.token_bytes(i) for i in byte_tok.encode(text, upto=0)] == [bytes([b]) for b in text.encode()]


def test_special_tokens_are_refused_unless_allowed(byte_tok: Tokenizer) -> None:
    text = "end<|endoftext|>start"
    with pytest.raises(SpecialTokenError, match="allowed_special"):
        byte_tok.encode(text)
    ids = byte_tok.encode(text, allowed_special="all")
    eot = byte_tok.special_tokens["<|endoftext|>"]
    assert eot in ids and ids.count(eot) == 1
    assert byte_tok.decode(ids) == text
    ordinary = byte_tok.encode_ordinary(text)
    assert eot not in ordinary and byte_tok.decode(ordinary) == text
    assert byte_tok.encode(text, disallowed_special=()) == ordinary


def test_offsets_cover_the_text_exactly(byte_tok: Tokenizer) -> None:
    text = "naïve café — [WARN] 0x1F3 ✓\n  indent<|endoftext|>x"
    spans = byte_tok.encode_with_offsets(text)
    data = text.encode()
    assert spans[0].start == 0 and spans[-1].end == len(data)
    for a, b in itertools.pairwise(spans):
        assert a.end == b.start
    for s in spans:
        assert byte_tok.token_bytes(s.id) == data[s.start:s.end]


def test_chars_mode_offsets_skip_dropped_spaces_and_mark_unknowns() -> None:
    model, _ = train(SEED_000, TrainConfig(merges=7))
    tok = Tokenizer(model, unknown="keep")
    text = "lowest  névest"
    spans = tok.encode_with_offsets(text)
    data = text.encode()
    assert [(tok.token_str(s.id), data[s.start:s.end].decode()) for s in spans] == [
        ("low", "low"), ("est</w>", "est"), ("n", "n"), ("<unk>", "é"), ("<unk>", "v"), ("est</w>", "est"),
    ]
    assert spans[3].id == UNKNOWN_ID
    with pytest.raises(ConfigError, match="bytes mode"):
        Tokenizer(model).encode("névest")


def test_chars_mode_decode_restores_words() -> None:
    model, _ = train(SEED_000, TrainConfig(merges=7))
    tok = Tokenizer(model)
    assert tok.decode(tok.encode("lowest newest low")) == "lowest newest low"
    glued, _ = train(SEED_000, TrainConfig(merges=7, glue_marker=True))
    tg = Tokenizer(glued)
    assert tg.decode(tg.encode("lowest newest")) == "lowest newest"
    assert tg.token_str(tg.encode("low")[-1]).endswith("</w>")


def test_upto_out_of_range() -> None:
    model, _ = train(SEED_000, TrainConfig(merges=3))
    tok = Tokenizer(model)
    assert tok.encode("newest", upto=99) == tok.encode("newest")
    with pytest.raises(ConfigError):
        tok.encode("newest", upto=-1)
