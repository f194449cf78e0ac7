"""core/text/in_pieces.py: a huge text split on newlines, measured in UTF-8 bytes and its newlines counted a piece
at a time gives exactly the plain calls' results (the oracle: ``str.split``, ``str.encode``, ``str.count``),
whatever falls across a piece's edge (hypothesis, pieces of a few characters); a lone surrogate that
``surrogateescape`` cannot write raises alike."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_desktop.core.counting.pieces import parse_word_counts
from bpe_desktop.core.text import in_pieces
from bpe_desktop.core.text.lines import split_lines

TEXTS = st.text(alphabet=st.sampled_from(["a", "b", "\n", "\r", "é", "日", "🤖", "\udc80", " ", "\t", "7"]),
                max_size=60)


@pytest.fixture(autouse=True)
def tiny_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(in_pieces, "PIECE_CHARS", 4)


@settings(max_examples=200, deadline=None)
@given(TEXTS)
def test_the_same_as_the_plain_calls(text: str) -> None:
    assert in_pieces.split_newlines(text) == text.split("\n")
    assert in_pieces.utf8_size(text) == len(text.encode("utf-8", "surrogateescape"))
    assert in_pieces.count_newlines(text) == text.count("\n")


def test_a_line_across_many_pieces_and_what_uses_it() -> None:
    text = "x" * 37 + "\n\n" + "y" * 9
    assert in_pieces.split_newlines(text) == ["x" * 37, "", "y" * 9]
    assert split_lines(text) == ["x" * 37 + "\n", "\n", "y" * 9]
    table = "lowest 12\n" * 3 + "a 1"
    parsed = parse_word_counts(table)
    assert parsed.counts == {"lowest": 36, "a": 1} and parsed.bytes_read == len(table.encode())


def test_a_surrogate_it_cannot_write_raises_alike() -> None:
    text = "abcdefgh\ud800ij"
    with pytest.raises(UnicodeEncodeError):
        text.encode("utf-8", "surrogateescape")
    with pytest.raises(UnicodeEncodeError):
        in_pieces.utf8_size(text)
