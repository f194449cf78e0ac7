"""Issue 10, item 1: one regex budget per job for every custom pattern run on user text.

A catastrophic pattern fails with a RegexTimeout naming the pattern and the fix -- in counting, in the
tokenizer's encode and piece offsets, in rank encoding, and on the CLI (exit 2) -- never a hang nor a
silent "0 merges".  The asserts are on outcomes and messages, never on elapsed time.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from bpe_desktop.core import TrainConfig
from bpe_desktop.core.counting.pieces import count_text
from bpe_desktop.core.errors import BpeError, PatternError, RegexTimeout
from bpe_desktop.core.text import regex_budget as rb
from bpe_desktop.core.text.regex_budget import RegexBudget
from bpe_desktop.core.tokenizers.model import BYTE_BASE, BPEModel
from bpe_desktop.core.tokenizers.ranks import RankTokenizer
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer
from support import ROOT as REPO

CATASTROPHIC = "(a+)+$"
ROOT = str(REPO)


def cli(*args: str, cwd: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": ROOT}
    return subprocess.run([sys.executable, "-m", "bpe_desktop", *args], capture_output=True, text=True,
                          env=env, cwd=cwd)


def test_the_budget_is_charged_across_calls_not_per_call() -> None:
    budget = RegexBudget(0.1)
    timeouts: list[float] = []

    def slow(text: str, timeout: float) -> list[str]:  # each call stays well under the budget
        timeouts.append(timeout)
        time.sleep(0.03)
        return [text]

    with pytest.raises(RegexTimeout) as err:
        for _ in range(50):
            budget.run(slow, "x", pattern="p+")
    assert 3 <= len(timeouts) <= 5  # a per-call limit would have let all 50 calls through
    assert timeouts == sorted(timeouts, reverse=True) and timeouts[0] == pytest.approx(0.1)
    assert "«p+»" in str(err.value) and "--regex-budget" in str(err.value)
    assert isinstance(err.value, PatternError) and isinstance(err.value, BpeError)


def test_many_lines_each_under_a_per_call_limit_still_stop_the_job(monkeypatch) -> None:
    # the CLI repro scaled down: every line alone is fast enough, the job as a whole is not
    line = "a" * 22 + "b\n"
    budget = RegexBudget(0.02)
    with pytest.raises(RegexTimeout, match=r"\(a\+\)\+\$"):
        count_text(line * 20000, TrainConfig(pretokenizer=CATASTROPHIC), budget)
    assert budget.remaining == 0


def test_a_sound_custom_pattern_is_not_refused_and_sizes_its_budget_by_input() -> None:
    words = count_text("low lower\nnewest widest\n" * 100, TrainConfig(pretokenizer=r"\w+"))
    assert words.counts == {"low": 100, "lower": 100, "newest": 100, "widest": 100}
    assert RegexBudget.for_bytes(10_000_000).seconds == pytest.approx(rb.DEFAULT_BUDGET_S + 10 * rb.PER_MB_S)
    assert RegexBudget.for_bytes(10_000_000, 1.5).seconds == 1.5


def _custom_model() -> BPEModel:
    return BPEModel("bytes", list(BYTE_BASE), pretokenizer=CATASTROPHIC)


@pytest.mark.parametrize("call", ["encode", "encode_ordinary", "encode_with_offsets"])
def test_tokenizer_encode_and_offsets_stop_on_a_catastrophic_pattern(call: str, monkeypatch) -> None:
    monkeypatch.setattr(rb, "DEFAULT_BUDGET_S", 0.2)  # the default budget, made small: no argument given
    tok = Tokenizer(_custom_model())
    with pytest.raises(RegexTimeout, match="catastrophic backtracking"):
        getattr(tok, call)("a" * 5000 + "b")


def test_rank_tokenizer_stops_on_a_catastrophic_pattern(monkeypatch) -> None:
    monkeypatch.setattr(rb, "DEFAULT_BUDGET_S", 0.2)
    tok = RankTokenizer({bytes([b]): b for b in range(256)}, CATASTROPHIC)
    for call in (tok.encode, tok.encode_with_offsets, tok.encode_ids_text):
        with pytest.raises(RegexTimeout):
            call("a" * 5000 + "b")


def test_offsets_use_whole_matches_of_a_custom_pattern() -> None:
    tok = Tokenizer(BPEModel("bytes", list(BYTE_BASE), pretokenizer=r"\w+"))
    spans = tok.encode_with_offsets("ab, cd", budget=RegexBudget(1))
    assert [(s.start, s.end) for s in spans] == [(0, 1), (1, 2), (4, 5), (5, 6)]


def test_cli_repro_fails_within_the_default_budget_with_exit_2(tmp_path) -> None:
    (tmp_path / "c.txt").write_text(("a" * 700 + "b\n") * 100)
    r = cli("train", "c.txt", "--pretokenizer", CATASTROPHIC, "--merges", "10", "--out", "o.json", cwd=str(tmp_path))
    assert r.returncode == 2, r.stderr
    assert "«(a+)+$»" in r.stderr and "time budget" in r.stderr and "--regex-budget" in r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "o.json").exists()
    assert "0 merges" not in r.stdout


def test_cli_regex_budget_flag_and_encode(tmp_path) -> None:
    (tmp_path / "c.txt").write_text(("a" * 700 + "b\n") * 3)
    r = cli("stats", "c.txt", "--pretokenizer", CATASTROPHIC, "--regex-budget", "0.3", "--zipf", "z.csv",
            cwd=str(tmp_path))
    assert r.returncode == 2 and "0.3 s time budget" in r.stderr
    r = cli("train", "c.txt", "--regex-budget", "0", "--out", "o.json", cwd=str(tmp_path))
    assert r.returncode == 2 and "--regex-budget must be a positive" in r.stderr
    tok = tmp_path / "t.tiktoken"
    tok.write_bytes(b"".join(b"%s %d\n" % (__import__("base64").b64encode(bytes([b])), b) for b in range(256)))
    r = cli("encode", "--tokenizer", str(tok), "--pretokenizer", CATASTROPHIC, "--regex-budget", "0.3",
            "--ids", "a" * 5000 + "b")
    assert r.returncode == 2 and "«(a+)+$»" in r.stderr and "Traceback" not in r.stderr


def test_a_pattern_that_matches_nothing_is_an_error_not_zero_merges(tmp_path) -> None:
    (tmp_path / "c.txt").write_text("hello world\n" * 10)
    r = cli("train", "c.txt", "--pretokenizer", "xyz+", "--out", "o.json", cwd=str(tmp_path))
    assert r.returncode == 2 and "found no piece" in r.stderr and "'xyz+'" in r.stderr
    assert not (tmp_path / "o.json").exists()
