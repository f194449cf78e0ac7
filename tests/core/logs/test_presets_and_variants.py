"""Log-aware pre-tokenizer presets and "train variants on this log"."""

from __future__ import annotations

import pickle
import re
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_desktop.core.errors import Cancelled, PatternError
from bpe_desktop.core.formats import load_tokenizer, save_model
from bpe_desktop.core.logs.log_chunks import iter_chunks
from bpe_desktop.core.logs.log_variants import VariantJob, train_variant, train_variants
from bpe_desktop.core.logs.logclass import Category, classify_bytes
from bpe_desktop.core.logs.robotlogs import generate
from bpe_desktop.core.text.log_patterns import LOG_PATTERNS
from bpe_desktop.core.text.pretokenize import NAMED_PATTERNS, Pretokenizer
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer

DIGITS = re.compile(rb"\d")


@pytest.fixture(scope="module")
def log_text() -> str:
    return generate(1200, seed=8)


@pytest.fixture(scope="module")
def variants(log_text: str) -> dict[str, object]:
    return {r.job.pretokenizer: r for r in train_variants(log_text, list(LOG_PATTERNS), 300)}


def _max_digits(tok: Tokenizer) -> int:
    return max(len(DIGITS.findall(tok.token_bytes(i))) for i in range(len(tok.model.tokens)))


def test_presets_are_named_patterns_and_drop_no_character(log_text: str) -> None:
    odd = "Grüße 🤖 x=-1.5e3\r\n\t  [a]  \u00a0١٢٣ Ⅻ 'll 0xFFz 1712345678.123456789123\n\n"
    for name in LOG_PATTERNS:
        assert name in NAMED_PATTERNS
        pre = Pretokenizer.from_spec(name)
        assert pre.name == name
        for text in (log_text, odd):
            assert "".join(pre.split(text)) == text, name


def test_every_preset_trains_300_merges(variants) -> None:
    assert set(variants) == set(LOG_PATTERNS)
    for name, v in variants.items():
        assert len(v.model.merges) == 300, name
        assert v.model.pretokenizer == name
        assert sum(v.report.categories.values()) == v.report.tokens > 0


def test_digits_one_by_one_never_makes_a_multi_digit_token(variants) -> None:
    assert _max_digits(Tokenizer(variants["log-digits"].model)) == 1
    assert variants["log-digits"].digit_merges == 0
    assert variants["log-digits3"].digit_merges > 0  # what the issue complains about: "87 + 2 -> 872"
    assert _max_digits(Tokenizer(variants["log-digits3"].model)) == 3  # the cap is reached on a log
    assert _max_digits(Tokenizer(variants["log-stamps3"].model)) > 3  # timestamp pieces may grow
    assert _max_digits(Tokenizer(variants["log-numbers"].model)) > 3


def test_stamps_preset_merges_digits_only_inside_timestamps_and_hex(variants, log_text: str) -> None:
    tok = Tokenizer(variants["log-stamps"].model)
    kinds = bytearray(len(log_text.encode()))
    for s in classify_bytes(log_text):
        kinds[s.start:s.end] = bytes([s.category]) * (s.end - s.start)
    data = log_text.encode()
    multi = [t for t in tok.encode_with_offsets(log_text) if len(DIGITS.findall(data[t.start:t.end])) > 1]
    assert multi
    assert all(kinds[t.start] in (Category.TIMESTAMP, Category.HEX) or data[t.start:t.start + 2] == b"0x"
               for t in multi)


def test_punct_preset_keeps_log_punctuation_alone(variants, log_text: str) -> None:
    tok = Tokenizer(variants["log-punct"].model)
    for i in set(tok.encode_ordinary(log_text)):
        b = tok.token_bytes(i)
        assert len(b) == 1 or not any(c in b for c in b"[]():=,/"), b


def test_variant_reports_show_what_each_choice_costs(variants) -> None:
    t = {n: v.report.tokens for n, v in variants.items()}
    # every digit alone costs tokens on a log full of numbers; whole numbers save them
    assert t["log-digits"] > t["log-digits3"] > t["log-numbers"]
    # a 20-character timestamp is at least 19 digit tokens when digits stay alone
    stamps = next(e for e in variants["log-digits"].report.expensive if e.category == Category.TIMESTAMP)
    assert stamps.tokens >= 19 * stamps.occurrences
    assert variants["log-digits"].report.categories[Category.TIMESTAMP] > \
        variants["log-stamps"].report.categories[Category.TIMESTAMP]


@pytest.mark.parametrize("name", list(LOG_PATTERNS))
def test_hf_tokenizers_reads_the_exported_variant_with_the_same_tokens(variants, log_text: str, name: str,
                                                                        tmp_path: Path) -> None:
    path = tmp_path / "tokenizer.json"
    save_model(variants[name].model, path, "hf")
    ours = load_tokenizer(str(path))
    text = log_text[:20_000]
    theirs = tokenizers.Tokenizer.from_file(str(path)).encode(text, add_special_tokens=False).ids
    assert ours.encode_ordinary(text) == theirs
    assert len(theirs) == len(Tokenizer(variants[name].model).encode_ordinary(text))


def test_variants_in_worker_processes_equal_in_process(log_text: str, variants) -> None:
    job = VariantJob("log-stamps", 300)
    assert pickle.loads(pickle.dumps(job)) == job
    seen: list[tuple[str, int, int]] = []
    with ProcessPoolExecutor(max_workers=2) as ex:
        out = train_variants(log_text, ["log-digits", "log-stamps"], 300, executor=ex,
                             progress=lambda *a: seen.append(a))
    assert [r.job.pretokenizer for r in out] == ["log-digits", "log-stamps"]
    for r in out:
        mine = variants[r.job.pretokenizer]
        assert r.model.merges == mine.model.merges
        assert r.report.categories == mine.report.categories
    assert seen[-1] == ("variants", 2, 2)
    assert pickle.loads(pickle.dumps(out[0])).model.merges == out[0].model.merges


def test_bad_preset_fails_before_work_and_cancel_stops(log_text: str) -> None:
    with pytest.raises(PatternError, match="does not compile"):
        train_variants(log_text, ["log-digits", "(unclosed"], 10)
    with pytest.raises(Cancelled):
        train_variants(log_text, ["log-digits"], 10, cancel=lambda: True)
    assert train_variant(log_text[:2000], VariantJob("log-digits", 5)).report.tokens > 0


CHUNKY = st.text(alphabet=st.sampled_from(list(" \t\n\r\n[]x0.é_:-🤖'sA9")), max_size=80)


@settings(max_examples=200, deadline=None)
@given(text=CHUNKY)
def test_chunk_cuts_never_split_a_piece_of_any_named_pattern(text: str) -> None:
    chunks = list(iter_chunks(text, 1))
    assert "".join(chunks) == text
    for name in NAMED_PATTERNS:
        pre = Pretokenizer.from_spec(name)
        assert [p for c in chunks for p in pre.split(c)] == pre.split(text), name
