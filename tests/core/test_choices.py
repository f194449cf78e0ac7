"""Mode and TieBreak: one vocabulary that equals its text, and one record per tie-break rule."""

from __future__ import annotations

import json
import pickle

import pytest

from bpe_desktop.core.choices import TIE_RULES, Mode, TieBreak
from bpe_desktop.core.config import MODES, TIE_BREAKS, TrainConfig
from bpe_desktop.core.errors import ConfigError
from bpe_desktop.core.records import MergeRecord, explain
from bpe_desktop.core.tokenizers.model import BPEModel


def test_every_rule_has_exactly_one_record_and_the_lists_derive_from_them() -> None:
    assert list(TIE_RULES) == list(TieBreak)
    assert all(rule.name is name for name, rule in TIE_RULES.items())
    assert TIE_BREAKS == {name: rule.description for name, rule in TIE_RULES.items()}
    assert MODES == (Mode.CHARS, Mode.BYTES)


def test_members_are_their_text_in_files_and_across_processes() -> None:
    assert [str(m) for m in MODES] == ["chars", "bytes"]
    assert list(TIE_BREAKS) == ["lexical", "first-seen", "hf", "subword-nmt"]
    assert json.dumps({"mode": Mode.BYTES, "tie_break": TieBreak.FIRST_SEEN}) == (
        '{"mode": "bytes", "tie_break": "first-seen"}')
    assert f"--mode {Mode.CHARS}" == "--mode chars"
    assert pickle.loads(pickle.dumps(TrainConfig(mode=Mode.BYTES))).mode is Mode.BYTES


def test_text_given_by_a_caller_or_a_file_becomes_the_member() -> None:
    c = TrainConfig(mode="bytes", tie_break="hf")
    assert c.mode is Mode.BYTES and c.tie_break is TieBreak.HF
    assert c == TrainConfig(mode=Mode.BYTES, tie_break=TieBreak.HF)
    assert hash(c) == hash(TrainConfig(mode=Mode.BYTES, tie_break=TieBreak.HF))
    m = BPEModel("chars", ["a"], tie_break="first-seen")
    assert m.mode is Mode.CHARS and m.tie_break is TieBreak.FIRST_SEEN
    odd = BPEModel(["chars"], ["a"], tie_break="older rule")
    assert odd.mode == ["chars"] and odd.tie_break == "older rule"  # kept for check_model to refuse


@pytest.mark.parametrize(("field", "value", "message"), [
    ("mode", "byte", "unknown mode 'byte' -- use 'chars' or 'bytes'"),
    ("tie_break", "Lexical", "unknown tie-break rule 'Lexical' -- use one of lexical, first-seen, hf, subword-nmt"),
])
def test_an_unknown_name_is_refused_with_the_names_to_use(field: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError) as e:
        TrainConfig(**{field: value})
    assert str(e.value) == message


# the why pane's sentences as they were written before the rules became records
OLD_PHRASES = {
    "lexical": "the lexical rule takes",
    "first-seen": "the first-seen rule takes the earliest in the corpus,",
    "hf": "the HF rule takes the smallest symbol ids,",
    "a rule of a newer version": "the rule takes",
    None: "the rule takes",
}


@pytest.mark.parametrize("rule", list(OLD_PHRASES))
def test_explain_names_each_rule_by_its_record(rule: str | None) -> None:
    r = MergeRecord(1, "e", "s", "es", 0, 0, 0, 9, 9, 86, 1, 2, (("s", "t", 9), ("x", "y", 3)))
    assert explain(r, rule) == f"e+s and s+t tie at 9; {OLD_PHRASES[rule]} e+s."
    if rule in TIE_BREAKS:
        assert explain(r, TieBreak(rule)) == explain(r, rule)
        assert TIE_RULES[TieBreak(rule)].phrase == OLD_PHRASES[rule]
