"""tiktoken's rank rule on long pieces (issue 26, "no quadratic paths"): the heap (rank_bpe._by_heap and
_rank_bpe.c) gives the scan's result and tiktoken's, on small random rank tables and on cl100k, and its work
grows as n log n -- counted in comparisons, never in seconds."""

from __future__ import annotations

import base64
import random

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st
from tiktoken.load import load_tiktoken_bpe

from bpe_desktop.core.tokenizers import rank_bpe
from support import cl100k_file
from support.rank_rule import naive_byte_pair
from support.work_count import Counted, near_linear

BIG = 1 << 40  # a max_rank above every rank


def _one_piece(ranks: dict[bytes, int]) -> tiktoken.Encoding:
    """tiktoken with *ranks* and a pattern that keeps any text one piece."""
    return tiktoken.Encoding("one-piece", pat_str=r"[\s\S]+", mergeable_ranks=ranks, special_tokens={})


def _tiktoken_ids(enc: tiktoken.Encoding, ranks: dict[bytes, int], data: bytes) -> list[int]:
    """tiktoken's ids for *data* as one piece (it takes a whole piece that is a token as that token first,
    as RankTokenizer does before the rule, so callers compare pieces that are not tokens; it panics on b"")."""
    assert data and data not in ranks
    return enc._encode_single_piece(data)


def _ours(ranks: dict[bytes, int], data: bytes, max_rank: int, how: str) -> list[int]:
    if how == "c":
        return rank_bpe.piece_ids(ranks, data, max_rank)
    parts = [data[i : i + 1] for i in range(len(data))]
    run = rank_bpe._by_heap if how == "heap" else rank_bpe._by_scan
    return [ranks[p] for p in run(ranks, parts, max_rank)]


HOWS = ["heap", "scan", *(["c"] if rank_bpe._compiled is not None else [])]


@st.composite
def runs(draw: st.DrawFn, alphabet: bytes, max_runs: int = 30, max_run: int = 120, min_runs: int = 0) -> bytes:
    """Bytes made of runs of one byte (long runs are where ties between equal pairs are)."""
    out = bytearray()
    for _ in range(draw(st.integers(min_runs, max_runs))):
        out += bytes([draw(st.sampled_from(alphabet))]) * draw(st.integers(1, max_run))
    return bytes(out)


@st.composite
def rank_tables(draw: st.DrawFn) -> tuple[dict[bytes, int], bytes]:
    """A random tiktoken table: all 256 bytes and up to 40 longer tokens over a small alphabet, ranks a
    random permutation (single bytes need not come first); and that alphabet."""
    alphabet = bytes(draw(st.lists(st.integers(0, 255), min_size=1, max_size=4, unique=True)))
    longer = draw(st.lists(st.binary(min_size=2, max_size=6).map(lambda b: bytes(alphabet[x % len(alphabet)]
                                                                                for x in b)),
                           max_size=40, unique=True))
    tokens = [bytes([b]) for b in range(256)] + [t for t in longer]
    order = draw(st.permutations(range(len(tokens))))
    return {t: r for t, r in zip(tokens, order, strict=True)}, alphabet


@settings(max_examples=40, deadline=None)
@given(table=rank_tables(), data=st.data())
def test_heap_scan_compiled_naive_and_tiktoken_agree_on_random_tables(table, data) -> None:
    ranks, alphabet = table
    piece = data.draw(runs(alphabet) | st.binary(max_size=300).map(lambda b: bytes(alphabet[x % len(alphabet)]
                                                                                    for x in b)))
    cut = data.draw(st.integers(0, len(ranks) + 1))
    expected = [ranks[p] for p in naive_byte_pair(ranks, piece, cut)]
    for how in HOWS:
        assert _ours(ranks, piece, cut, how) == expected, how
    if piece and piece not in ranks:  # tiktoken takes a whole piece that is a token as it; the rule may not
        assert _tiktoken_ids(_one_piece(ranks), ranks, piece) == _ours(ranks, piece, BIG, "heap")


@settings(max_examples=40, deadline=None)
@given(data=runs(b"ab", max_run=40), ab=st.integers(0, 5), ba=st.integers(0, 5))
def test_equal_ranks_tie_to_the_leftmost(data: bytes, ab: int, ba: int) -> None:
    """A table where different pairs share a rank (tiktoken refuses one; a Mapping may hold it): every way
    takes the leftmost of the lowest, as the naive rule does."""
    ranks = {b"a": 10, b"b": 11, b"aa": 2, b"ab": ab, b"ba": ba, b"bb": 2, b"aab": 3, b"abab": 3, b"aaaa": 1}
    expected = [ranks[p] for p in naive_byte_pair(ranks, data, BIG)]
    for how in HOWS:
        assert _ours(ranks, data, BIG, how) == expected, how


@pytest.fixture(scope="module")
def cl100k_ranks() -> dict[bytes, int]:
    return load_tiktoken_bpe(cl100k_file())


LONG = (runs(b"a \n0=", max_runs=12, max_run=400, min_runs=2)
        | st.binary(min_size=200, max_size=1500).map(lambda b: base64.b64encode(b))
        | st.binary(min_size=200, max_size=3000).map(lambda b: bytes(b"ACGT"[x & 3] for x in b))
        | st.binary(min_size=40, max_size=600))


@settings(max_examples=25, deadline=None)
@given(piece=LONG)
def test_long_pieces_equal_tiktoken_on_cl100k(cl100k_ranks, piece: bytes) -> None:
    if piece in cl100k_ranks:  # a run of spaces that is a token: tiktoken takes it whole (see _tiktoken_ids)
        return
    expected = _tiktoken_ids(_one_piece(cl100k_ranks), cl100k_ranks, piece)
    assert rank_bpe.piece_ids(cl100k_ranks, piece, BIG) == expected
    assert rank_bpe.piece_ids(cl100k_ranks, piece, BIG, pure=True) == expected  # the heap (40 bytes or more)


def long_pieces(n: int) -> dict[str, bytes]:
    rng = random.Random(n)
    return {"one letter": b"a" * n, "base64": base64.b64encode(rng.randbytes(n))[:n],
            "dna": bytes(rng.choice(b"ACGT") for _ in range(n))}


def test_python_heap_work_grows_as_n_log_n(cl100k_ranks) -> None:
    counted = {t: Counted(r) for t, r in cl100k_ranks.items()}
    n = 100  # (counted comparisons are slow: the scan at 8n takes a second)

    def work(how: str, piece: bytes) -> int:
        Counted.n = 0
        _ours(counted, piece, BIG, how)
        return Counted.n

    for name, piece in long_pieces(n).items():
        long = long_pieces(8 * n)[name]
        assert work("heap", long) <= near_linear(n) * work("heap", piece), name
        assert work("scan", long) > near_linear(n) * work("scan", piece), name  # the counter sees a quadratic
        assert len(piece) >= rank_bpe.HEAP_FROM  # piece_ids takes the heap at this length
        Counted.n = 0
        rank_bpe.piece_ids(counted, piece, BIG, pure=True)
        assert Counted.n == work("heap", piece)


@pytest.mark.skipif(rank_bpe._compiled is None, reason="the rank encoder is not built (python setup.py build_ext "
                    "--inplace); .ci/run checks that it is")
def test_compiled_work_grows_as_n_log_n(cl100k_ranks) -> None:
    compiled = rank_bpe._compiled
    assert compiled is not None
    n = 4000

    def work(piece: bytes) -> int:
        before = compiled.comparisons()
        compiled.encode(cl100k_ranks, piece, BIG)
        return compiled.comparisons() - before

    for name, piece in long_pieces(n).items():
        assert 0 < work(long_pieces(8 * n)[name]) <= near_linear(n) * work(piece), name
