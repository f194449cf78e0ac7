"""Replaying a merge list on long pieces (issue 26, "no quadratic paths"): the heap (replay._by_heap) gives
the scan's result on random merge lists and HF's BPE on long pieces, and its work grows as n log n --
counted in comparisons, never in seconds."""

from __future__ import annotations

import base64
import random

import pytest
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig, train
from bpe_desktop.core.formats import hf_json
from bpe_desktop.core.tokenizers import replay
from bpe_desktop.core.tokenizers.model import BPEModel
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer
from support.work_count import Counted, near_linear


@st.composite
def merge_lists(draw: st.DrawFn) -> tuple[dict[tuple[int, int], tuple[int, int]], int]:
    """(left, right) -> (rank, new id) as Tokenizer indexes a merge list: ``base`` symbols, then a merge's
    pair may name any id, even one a later merge makes (a hostile list); a repeated pair keeps its first."""
    base = draw(st.integers(1, 4))
    n = draw(st.integers(0, 25))
    ranks: dict[tuple[int, int], tuple[int, int]] = {}
    for r in range(n):
        pair = (draw(st.integers(0, base + n - 1)), draw(st.integers(0, base + n - 1)))
        ranks.setdefault(pair, (r, base + r))
    return ranks, base


@st.composite
def symbol_runs(draw: st.DrawFn, base: int) -> list[int]:
    out: list[int] = []
    for _ in range(draw(st.integers(0, 20))):
        out += [draw(st.integers(0, base - 1))] * draw(st.integers(1, 40))
    return out


@settings(max_examples=150, deadline=None)
@given(table=merge_lists(), data=st.data())
def test_heap_equals_scan_on_random_merge_lists(table, data) -> None:
    ranks, base = table
    ids = data.draw(symbol_runs(base) | st.lists(st.integers(0, base - 1), max_size=200))
    n = len(ranks) + 1
    limit = data.draw(st.integers(0, n))
    last = data.draw(st.integers(-1, limit))
    start = replay._by_scan(ranks, list(ids), last + 1, -1)  # a state the merges up to last leave
    assert replay._by_heap(ranks, list(start), limit, last) == replay._by_scan(ranks, list(start), limit, last)
    assert replay.replay(ranks, list(ids), limit) == replay._by_scan(ranks, list(ids), limit, -1)


@pytest.fixture(scope="module")
def long_word_model() -> BPEModel:
    rng = random.Random(0)
    words = {base64.b64encode(rng.randbytes(40)).decode(): 1 for _ in range(300)}
    words |= {"a" * 300: 2, "".join(rng.choice("ACGT") for _ in range(2000)): 1}
    model, _ = train(words, TrainConfig(merges=400, mode="bytes", pretokenizer="none"))
    return model


LONG = (st.binary(min_size=50, max_size=1500).map(lambda b: base64.b64encode(b).decode())
        | st.binary(min_size=50, max_size=3000).map(lambda b: "".join("ACGT"[x & 3] for x in b))
        | st.lists(st.tuples(st.sampled_from("aAC="), st.integers(1, 300)), min_size=1, max_size=8).map(
            lambda rs: "".join(c * k for c, k in rs)))


@settings(max_examples=25, deadline=None)
@given(text=LONG, upto=st.none() | st.integers(0, 400))
def test_long_pieces_equal_hf_bpe(long_word_model, text: str, upto: int | None) -> None:
    """HF's BPE (tokenizers, over the same merges: pre-tokenizer none) encodes a long piece as ours."""
    model = long_word_model
    if upto is not None:
        model = BPEModel(model.mode, list(model.base), list(model.merges[:upto]), pretokenizer="none")
    hf = tokenizers.Tokenizer.from_str(hf_json.dumps(model))
    assert Tokenizer(model).encode_piece(text) == hf.encode(text).ids


def test_work_grows_as_n_log_n(long_word_model) -> None:
    """Comparisons with ranks: the scan's search for the next rank, the heap's validity checks and its heap
    of ranks (sorting a rank's positions compares plain ints, not counted: list.sort, O(m log m))."""
    tok = Tokenizer(long_word_model)
    tok._ranks = {pair: (Counted(r), new) for pair, (r, new) in tok._ranks.items()}
    limit = len(long_word_model.merges)
    n = 400

    def pieces(n: int) -> dict[str, str]:
        rng = random.Random(n)
        return {"one letter": "a" * n, "base64": base64.b64encode(rng.randbytes(n)).decode()[:n],
                "dna": "".join(rng.choice("ACGT") for _ in range(n))}

    def work(how: str, piece: str) -> int:
        Counted.n = 0
        if how == "replay":  # what encode_piece runs: passes of the scan while cheap, then the heap
            tok.encode_piece(piece)
        else:
            run = replay._by_heap if how == "heap" else replay._by_scan
            run(tok._ranks, tok._symbols(piece), limit, -1)
        return Counted.n

    small, large = pieces(n), pieces(8 * n)
    for name, piece in small.items():
        assert len(piece) >= replay.HEAP_FROM
        for how in ("heap", "replay"):
            assert work(how, large[name]) <= near_linear(n) * work(how, piece), (name, how)
        if name == "base64":  # the scan makes a pass per merge that applies: a quadratic where that number
            # grows with the piece (base64 under merges learnt on base64; a run of one letter takes log n)
            assert work("scan", large[name]) > near_linear(n) * work("scan", piece), name
