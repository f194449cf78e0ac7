"""The tokenizer's step caches: a piece encoded at step k by continuing from an earlier step's encoding, and
merges appended to the model after the tokenizer was built, give exactly what a fresh tokenizer gives."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig, Trainer, count_text
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer

CONFIGS = {
    "bytes-gpt2": TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=600),
    "chars-whitespace": TrainConfig(merges=600),
}


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def trained(request, topics_text: str):
    cfg = CONFIGS[request.param]
    text = topics_text[:150_000]
    t = Trainer(count_text(text, cfg), cfg)
    t.run()
    return t.model, topics_text[150_000:200_000]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.integers(0, 600), min_size=2, max_size=12), start=st.integers(0, 45_000))
def test_any_order_of_steps_encodes_as_a_fresh_tokenizer(trained, steps: list[int], start: int) -> None:
    model, text = trained
    line = text[start:start + 300]
    tok = Tokenizer(model, unknown="keep")  # one tokenizer walking the steps: later steps continue earlier ones
    for k in steps:
        fresh = Tokenizer(model, unknown="keep")
        assert tok.encode_with_offsets(line, upto=k) == fresh.encode_with_offsets(line, upto=k)
        assert tok.encode_ordinary(line, upto=k) == fresh.encode_ordinary(line, upto=k)


def test_a_step_continued_from_an_earlier_one_reuses_it(trained) -> None:
    """The continuation really happens (not a silent re-encode from the characters up): a poisoned entry in
    the earlier step's cache shows up in the later step's encoding."""
    model, text = trained
    tok = Tokenizer(model, unknown="keep")
    piece = next(p for p in tok.pretokenizer.split(text[:2000]) if len(tok.encode_ordinary(p, upto=600)) > 1)
    tok.encode_ordinary(piece, upto=10)
    tok._caches[10][piece] = (5, 5, 5)  # what step 10 "said"
    assert tok.encode_ordinary(piece, upto=11)[:1] == [5]


def test_merges_appended_after_the_tokenizer_was_built(trained) -> None:
    model, text = trained
    line = text[:4000]
    growing = copy.deepcopy(model.truncated(0))
    tok = Tokenizer(growing, unknown="keep")
    for upto in (0, 7, 50, 51, 300, 600):
        growing.extend_merges(model.merges[len(growing.merges):upto])
        tok.follow_model()
        assert tok.n_merges == upto
        for k in {0, upto // 2, upto}:
            assert tok.encode_with_offsets(line, upto=k) == Tokenizer(model, unknown="keep").encode_with_offsets(
                line, upto=k)
        assert tok.special_tokens == Tokenizer(growing).special_tokens
