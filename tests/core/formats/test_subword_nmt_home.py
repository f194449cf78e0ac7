"""subword-nmt's own behaviour reproduced: ``learn_bpe`` on real text gives the codes our ``subword-nmt`` tie
rule learns, line for line, and ``apply_bpe`` segments as a loaded codes file does -- tabs and no-break
spaces inside words, unknown characters passed through."""

from __future__ import annotations

import io
import json.decoder
import pydoc_data.topics
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from subword_nmt.apply_bpe import BPE
from subword_nmt.learn_bpe import learn_bpe

from bpe_desktop.core import TrainConfig, count_text, train
from bpe_desktop.core.formats import load, save_model
from bpe_desktop.core.tokenizers.tokenizer import UNKNOWN_ID
from support import ROOT

TEXT = (Path(pydoc_data.topics.__file__).read_text()[:120000] + Path(json.decoder.__file__).read_text()
        + (ROOT / "resources" / "samples" / "robotlogs_sample.txt").read_text()[:20000]
        + "naïve\u00a0café tab\there e\u0301 👍🏽 日本語 x\x0by\n" * 30)
CONFIG = TrainConfig(mode="chars", pretokenizer="subword-nmt", end_of_word="</w>", glue_marker=True,
                     tie_break="subword-nmt", merges=1200, min_frequency=2)


def _their_codes(text: str, n: int, min_frequency: int = 2) -> str:
    out = io.StringIO()
    learn_bpe(io.StringIO(text), out, n, min_frequency=min_frequency)
    return out.getvalue()


def _our_codes(text: str, config: TrainConfig, tmp_path: Path) -> str:
    model, _ = train(count_text(text, config).counts, config)
    save_model(model, tmp_path / "codes.txt", "subword-nmt")
    with open(tmp_path / "codes.txt", encoding="utf-8", newline="") as f:
        return f.read()


def test_learn_bpe_golden_output(tmp_path: Path) -> None:
    theirs = _their_codes(TEXT, 1200)
    assert theirs.count("\n") > 1000  # the run is long enough to meet many ties
    assert _our_codes(TEXT, CONFIG, tmp_path) == theirs


def test_learn_bpe_stops_at_its_min_frequency(tmp_path: Path) -> None:
    text = "low lower lowest newer newest wider widest\n" * 3
    cfg = CONFIG.with_(merges=500, min_frequency=4)
    assert _our_codes(text, cfg, tmp_path) == _their_codes(text, 500, min_frequency=4)


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="ab c\u00a0\t\n\x0b", max_size=80), st.integers(1, 30))
def test_learn_bpe_on_any_text(tmp_path_factory: pytest.TempPathFactory, text: str, n: int) -> None:
    words = [w for line in text.split("\n") for w in line.strip("\r\n ").split(" ") if w]
    assume(any(len(w) > 1 for w in words))  # learn_bpe itself fails on a text without a pair
    assert _our_codes(text, CONFIG.with_(merges=n), tmp_path_factory.mktemp("c")) == _their_codes(text, n)


def _apply_view(tok, line: str) -> str:
    """Our segmentation of a line written the way apply_bpe writes it (units joined with '@@ ')."""
    data = line.encode()
    words: dict[int, list[str]] = {}  # word start (byte) -> its units
    starts = [len(line[:c].encode()) for c, _ in tok.pretokenizer.spans(line)]
    for s in tok.encode_with_offsets(line):
        word = max(b for b in starts if b <= s.start)
        words.setdefault(word, []).append(data[s.start : s.end].decode())
    return " ".join("@@ ".join(units) for _, units in sorted(words.items()))


def test_apply_bpe_output(tmp_path: Path) -> None:
    codes = tmp_path / "codes.txt"
    codes.write_text(_their_codes(TEXT, 800), encoding="utf-8")
    tok = load(str(codes)).tokenizer
    with open(codes, encoding="utf-8") as f:
        bpe = BPE(f)
    lines = [*TEXT[100000:130000].split("\n"), "ᚠᚢᚦ unknown runes", "a\xa0b\tc  d", "Ω≈ç√∫ 🜁", "x\ry \r"]
    for line in lines:
        assert _apply_view(tok, line) == bpe.segment(line), line
    ids = tok.encode("ᚠ")
    assert UNKNOWN_ID in ids  # passed through, not refused


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="abcdeᚠ \u00a0\t\r", max_size=40))
def test_apply_bpe_any_line(tmp_path_factory: pytest.TempPathFactory, line: str) -> None:
    codes = tmp_path_factory.mktemp("a") / "codes.txt"
    codes.write_text(_their_codes("abc abd bcd cde\tab a\u00a0b\n" * 4, 30), encoding="utf-8")
    tok = load(str(codes)).tokenizer
    with open(codes, encoding="utf-8") as f:
        assert _apply_view(tok, line) == BPE(f).segment(line)
