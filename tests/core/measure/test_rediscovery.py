"""Rediscovery (``core/measure/rediscovery.py``) on a small example worked by hand, and on a run trained on the
robot-log sample against cl100k, with tiktoken deciding which tokens cl100k has and at which rank."""

from __future__ import annotations

from collections import Counter

import pytest
import tiktoken

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.counting.pieces import count_text
from bpe_desktop.core.formats import load
from bpe_desktop.core.measure.rediscovery import SharedToken, rediscover
from bpe_desktop.core.text.pretokenize import Pretokenizer
from bpe_desktop.core.tokenizers.model import BYTE_BASE, BPEModel
from bpe_desktop.core.tokenizers.ranks import RankTokenizer
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer
from bpe_desktop.core.training.trainer import train
from support import ROBOT_SAMPLE_FILE
from support.cli import run_cli


def model_of(pairs: list[tuple[bytes, bytes]]) -> BPEModel:
    """A bytes-mode model whose merges join the given byte strings, in order."""
    m = BPEModel("bytes", list(BYTE_BASE), pretokenizer="gpt2")
    ids = {t: i for i, t in enumerate(m.base)}
    for a, b in pairs:
        m.extend_merges([(ids[a], ids[b])])
        ids[a + b] = len(ids)
    return m


def test_a_small_example_worked_by_hand() -> None:
    # the reference makes ab, abc, xy; the run makes ab, abd, x y -> xy at its 3rd merge, and dd
    ref = Tokenizer(model_of([(b"a", b"b"), (b"ab", b"c"), (b"x", b"y")]))
    run = Tokenizer(model_of([(b"a", b"b"), (b"ab", b"d"), (b"x", b"y"), (b"d", b"d")]))
    words = {"abd": 3, "xy": 2, "dd": 1, "ab": 1}  # 9 + 4 + 2 + 2 = 17 bytes
    r = rediscover(run, ref, words)
    assert r.n_reference == 3
    assert r.found == (1, 1, 2, 2)
    assert [r.share_at(k) for k in (0, 1, 3, 4, 99)] == [0.0, 1 / 3, 2 / 3, 2 / 3, 2 / 3]
    assert r.shared == (SharedToken("ab", 1, 1), SharedToken("xy", 3, 3))
    # abd covers 3 x 3 bytes, dd 1 x 2 bytes
    assert [(t.token, t.rank_here, t.occurrences, t.bytes_covered) for t in r.lacking] == [
        ("abd", 2, 3, 9), ("dd", 4, 1, 2)]
    assert r.corpus_bytes == 17 and r.lacking[0].corpus_share == 9 / 17
    assert rediscover(run, ref).lacking[0].occurrences == 0  # without a corpus: the run's order, no coverage
    assert [t.token for t in rediscover(run, ref).lacking] == ["abd", "dd"]


def test_an_extension_counts_its_steps_from_its_original() -> None:
    # the same run read as an extension whose original made ab and abd: step 0 is the original, made "at 0"
    ref = Tokenizer(model_of([(b"a", b"b"), (b"ab", b"c"), (b"x", b"y")]))
    run = Tokenizer(model_of([(b"a", b"b"), (b"ab", b"d"), (b"x", b"y"), (b"d", b"d")]))
    words = {"abd": 3, "xy": 2, "dd": 1, "ab": 1}
    whole, r = rediscover(run, ref, words), rediscover(run, ref, words, start=2)
    assert r.found == whole.found == (1, 1, 2, 2) and r.n_steps == 2
    assert [r.found_at(k) for k in (-1, 0, 1, 2, 99)] == [1, 1, 2, 2, 2]
    assert [r.share_at(k) for k in (0, 1, 2)] == [1 / 3, 2 / 3, 2 / 3]
    assert r.curve_rows() == [(0, 1, 1 / 3), (1, 2, 2 / 3), (2, 2, 2 / 3)]
    assert whole.curve_rows() == [(k, f, f / 3) for k, f in enumerate(whole.found, 1)]  # (no step 0 row)
    assert r.shared == (SharedToken("ab", 0, 1), SharedToken("xy", 1, 3))
    assert [(t.token, t.rank_here, t.bytes_covered) for t in r.lacking] == [("abd", 0, 9), ("dd", 2, 2)]


@pytest.fixture(scope="module")
def logs_vs_cl100k():
    text = ROBOT_SAMPLE_FILE.read_text(encoding="utf-8")
    config = TrainConfig(mode="bytes", pretokenizer="cl100k", merges=400)
    words = count_text(text, config)
    model, _ = train(words, config)
    ref = load("cl100k").tokenizer
    return text, Tokenizer(model), ref, rediscover(Tokenizer(model), ref, words.counts)


def test_a_log_run_against_cl100k_agrees_with_tiktoken(logs_vs_cl100k) -> None:
    text, run, ref, r = logs_vs_cl100k
    assert isinstance(ref, RankTokenizer)
    pattern = Pretokenizer.from_spec("cl100k").pattern
    assert pattern is not None
    enc = tiktoken.Encoding(name="c", pat_str=pattern, mergeable_ranks=ref.ranks, special_tokens={})
    assert r.n_reference == enc.n_vocab - 256
    made = [run.token_bytes(i) for i in run.model.merge_token_ids]
    in_cl100k = [b for b in made if b in enc._mergeable_ranks]  # tiktoken's own table
    assert r.found[-1] == len(set(in_cl100k)) == len(r.shared)
    for s in r.shared:
        assert enc.encode_single_token(run.token_bytes(_id(run, s.rank_here))) == 255 + s.rank_there
    for t in r.lacking:
        with pytest.raises(KeyError):
            enc.encode_single_token(run.token_bytes(_id(run, t.rank_here)))
    # coverage: the run's encoding of the whole text, counted directly
    counts = Counter(run.token_bytes(i) for i in run.encode_ordinary(text))
    for t in r.lacking[:20]:
        b = run.token_bytes(_id(run, t.rank_here))
        assert t.occurrences == counts[b] and t.bytes_covered == counts[b] * len(b)
    assert [t.bytes_covered for t in r.lacking] == sorted((t.bytes_covered for t in r.lacking), reverse=True)
    assert 0 < len(r.lacking) < 400  # a log run relearns most of its tokens from cl100k, not all


def _id(run: Tokenizer, rank: int) -> int:
    return run.model.merge_token_ids[rank - 1]


def test_diff_reference_on_the_command_line(tmp_path) -> None:
    out = tmp_path / "run.json"
    r = run_cli("train", str(ROBOT_SAMPLE_FILE), "--mode", "bytes", "--pretokenizer", "cl100k", "--merges", "100",
                "--out", str(out))
    assert r.returncode == 0, r.stderr
    d = run_cli("diff", str(out), "--reference", "cl100k", "--corpus", str(ROBOT_SAMPLE_FILE), "--limit", "3")
    assert d.returncode == 0, d.stderr
    assert "reference: cl100k [tiktoken] (100,000 merged tokens)" in d.stdout
    assert "'[INFO'" in d.stdout.split("shared tokens")[0]  # cl100k has no [INFO; it covers the most bytes
    bad = run_cli("diff", str(out), str(out), "--reference", "cl100k")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_diff_reference_on_an_extension_of_cl100k_counts_from_cl100k(tmp_path) -> None:
    """``train --extend cl100k`` writes a rank file with its new ranks after cl100k's specials (no merge list can be
    recovered from it): ``diff FILE --reference`` compares its ranks, encodes the corpus by tiktoken's rule (the
    oracle: tiktoken reading the file) and counts steps from cl100k."""
    import json

    import tiktoken.load

    from bpe_desktop.core.formats.presets import CL100K_SPECIALS

    lines = ROBOT_SAMPLE_FILE.read_text(encoding="utf-8").splitlines(keepends=True)
    corpus = tmp_path / "logs.txt"
    corpus.write_text("".join(lines[:300]), encoding="utf-8")
    out = tmp_path / "ext.tiktoken"
    r = run_cli("train", str(corpus), "--extend", "cl100k", "--merges", "4", "--out", str(out))
    assert r.returncode == 0, r.stderr
    d = run_cli("diff", f"cl100k:{out}", "--reference", "cl100k", "--corpus", str(corpus), "--json")
    assert d.returncode == 0, d.stderr
    doc = json.loads(d.stdout)
    ranks = tiktoken.load.load_tiktoken_bpe(str(out))
    first = min(rank for rank in ranks.values() if rank >= 100_256)  # (after the specials: 100,277)
    assert first == max(CL100K_SPECIALS.values()) + 1
    assert doc["extends"] == "cl100k" and doc["start"] == first - 256 and doc["n_reference"] == 100_000
    assert doc["found"][doc["start"] - 1] == 100_000 and len(doc["found"]) == doc["start"] + 4
    pattern = Pretokenizer.from_spec("cl100k").pattern
    assert pattern is not None
    enc = tiktoken.Encoding(name="e", pat_str=pattern, mergeable_ranks=ranks, special_tokens=CL100K_SPECIALS)
    made = Counter(enc.decode_single_token_bytes(t) for t in enc.encode_ordinary(corpus.read_text(encoding="utf-8")))
    new = {rank: b for b, rank in ranks.items() if rank >= first}
    assert sorted((t["rank_here"], t["occurrences"]) for t in doc["lacking"]) == [
        (rank - first + 1, made[new[rank]]) for rank in sorted(new)]
    assert doc["shared"][0]["rank_here"] == 0  # cl100k's own tokens: made at step 0
    text = run_cli("diff", f"cl100k:{out}", "--reference", "cl100k", "--limit", "2")
    assert text.returncode == 0, text.stderr
    assert "(cl100k + 4 new merges)" in text.stdout and "made by step k: 0: 100000 (100.00%)" in text.stdout
    assert "cl100k -> 1 " in text.stdout
