"""The standard-library twins of the named patterns split ASCII text exactly as the originals (the ``regex``
module) do, and text that is not ASCII goes to the original."""

from __future__ import annotations

import re

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_desktop.core.text.ascii_twins import RUNS_PATTERN, TWINS, ascii_splitter
from bpe_desktop.core.text.pretokenize import CL100K_PATTERN, GPT2_PATTERN

# every ASCII character (the controls \x1c-\x1f, which re's \s would take and regex's does not, included),
# weighted towards what the patterns tell apart: spaces, line ends, apostrophes, digits, letters
CORNERS = [*" \t\n\r\x0b\x0c\x1c\x1f'sdmtlvreSDMTLVRE0123456789aZ.,!?-_()[]/\\\"#"]
ASCII = st.text(alphabet=st.sampled_from(CORNERS), max_size=80) | st.text(
    alphabet=st.characters(max_codepoint=127), max_size=80)


@pytest.mark.parametrize("pattern", [CL100K_PATTERN, GPT2_PATTERN, RUNS_PATTERN], ids=["cl100k", "gpt2", "runs"])
@settings(max_examples=300, deadline=None)
@given(text=ASCII)
def test_twin_splits_ascii_text_as_the_original(pattern: str, text: str) -> None:
    assert re.findall(TWINS[pattern], text) == regex.findall(pattern, text)
    assert ascii_splitter(pattern)(text) == regex.findall(pattern, text)


@pytest.mark.parametrize("pattern", [CL100K_PATTERN, GPT2_PATTERN, RUNS_PATTERN], ids=["cl100k", "gpt2", "runs"])
def test_a_long_log_and_crlf_lines_split_the_same(pattern: str) -> None:
    from bpe_desktop.core.logs.robotlogs import generate

    text = generate(400).replace("\n", "\r\n", 150) + " " * 300 + "x" * 5000 + "\r\r\n\n  \t"
    assert ascii_splitter(pattern)(text) == regex.findall(pattern, text)


def test_text_that_is_not_ascii_goes_to_the_original() -> None:
    # the original's \p{L} takes 'é' into the word; an ASCII class would have cut it out
    assert ascii_splitter(CL100K_PATTERN)("café\u00a0x") == regex.findall(CL100K_PATTERN, "café\u00a0x")
    seen: list[str] = []

    def fallback(t: str) -> list[str]:
        seen.append(t)
        return [t]

    split = ascii_splitter(CL100K_PATTERN, fallback)
    assert split("abc def") == ["abc", " def"] and seen == []
    assert split("né") == ["né"] and seen == ["né"]


def test_a_pattern_without_a_twin_is_the_original() -> None:
    assert ascii_splitter(r"\w+")("ab cd") == ["ab", "cd"]
