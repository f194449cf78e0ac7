"""The cached run classifier (core/logs/span_runs.py) against the per-span definition: one pass of the
classifier's pattern over the text, every span's category, end and group as it finds them."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_desktop.core.logs import span_runs
from bpe_desktop.core.logs.logclass import CATEGORY_OF_GROUP, PATTERN, Category
from bpe_desktop.core.logs.span_runs import SpanRuns, shape_key


def reference(text: str, at: int, stop: int) -> list[tuple[int, int, tuple[int, str]]]:
    """The spans of ``text[at:stop]`` as the classifier gives them one by one (the definition the cache
    must reproduce): (category, end from *at*, group key)."""
    out = []
    for m in PATTERN.finditer(text, at):
        c = CATEGORY_OF_GROUP[m.lastgroup]
        out.append((int(c), m.end() - at, shape_key(c, m.group())))
        if m.end() >= stop:
            break
    return out


def cached(runs: SpanRuns, text: str, at: int, stop: int) -> list[tuple[int, int, tuple[int, str]]]:
    cat, end, key = runs.classify(text, at, stop)
    return [(int(c), int(e), runs.key_list[k]) for c, e, k in zip(cat.tolist(), end.tolist(), key.tolist(),
                                                                  strict=True)]


# digits (ASCII and not), hex letters, the characters of timestamps, names and CAN frames, the whitespace the
# two regular expression modules disagree on (U+001C), letters with marks
LOGGY = st.sampled_from(list("0123456789aAbcdEfFxX0 -.:+_/[]()=,TZ\n\r\t\x1cé\u0301日٣INFOERW"))
#: fragments whose spans depend on the runs around them, and ones that repeat
PIECES = st.sampled_from(["0A 1B FF", " 2A", "2024-04-05 12:34:56.789", "2024-04-05 ", "12:00:00", "0x1f",
                          "2024-04-05 ٣٣:٣٣:٣٣",  # (Arabic-Indic digits: no hex byte to flag the date's run)
                          "nav2_controller", "tf1", "tf7", "[INFO] ", "x=-0.75", "1712345678.123456789",
                          "ab cd ef", "-12 34 56", "E0x2A", "a.b1", "3f9a2c1e"])
TEXT = st.lists(st.one_of(LOGGY, PIECES), max_size=60).map("".join)


def _cuts(text: str, picks: list[int]) -> list[int]:
    """Chunk ends at places where a span of the whole text ends (what log_chunks guarantees)."""
    ends = [e for _, e, _ in reference(text, 0, len(text))]
    return sorted({ends[p % len(ends)] for p in picks} | {len(text)}) if ends else []


@settings(max_examples=300, deadline=None)
@given(text=TEXT, picks=st.lists(st.integers(0, 10**6), max_size=6), small=st.booleans())
def test_chunks_classified_as_one_by_one(text: str, picks: list[int], small: bool) -> None:
    """Every chunk's spans (categories, ends, groups) equal the per-span classification of the same chunk in
    its text, with one cache over all chunks (and one dropped every few runs)."""
    runs = SpanRuns(max_runs=3 if small else span_runs.MAX_RUNS)
    at = 0
    for stop in _cuts(text, picks):
        assert cached(runs, text, at, stop) == reference(text, at, stop)
        at = stop
    assert cached(runs, text, 0, len(text)) == reference(text, 0, len(text))  # again, from the cache


@pytest.mark.parametrize("text", ["data=[0A 1B FF 00] x", "at 2024-04-05 12:34:56.789Z ok", "12 34", "a 0A 1B",
                                  "at 2024-04-05 ٣٣:٣٣:٣٣ ok",
                                  "tf2 tf3 tf2 nav1 nav9", "7 77 777 0x7 e7 7e", ""])
def test_cases_that_read_across_runs(text: str) -> None:
    runs = SpanRuns()
    for _ in range(2):  # the first time classified, the second from the cache
        assert cached(runs, text, 0, len(text)) == reference(text, 0, len(text))


def test_repeating_runs_are_classified_once() -> None:
    """A log whose lines differ only in digits: the pattern runs once per distinct shape, not per span."""
    lines = "".join(f"[INFO] [17123456{i:02d}.{i * 7919 % 10**9:09d}] [imu]: q={i % 97}.5 n={i}\n" for i in range(300))
    runs = SpanRuns()
    calls = 0
    real = PATTERN.finditer

    class Counting:
        def finditer(self, *a: object) -> object:
            nonlocal calls
            calls += 1
            return real(*a)  # type: ignore[arg-type]

    span_runs.PATTERN, saved = Counting(), span_runs.PATTERN  # type: ignore[assignment]
    try:
        got = cached(runs, lines, 0, len(lines))
    finally:
        span_runs.PATTERN = saved
    assert got == reference(lines, 0, len(lines))
    distinct = {r.translate(str.maketrans("123456789", "111111111")) for r in re.findall(r"\S+\s*|\s+", lines)}
    assert len(distinct) < 80
    assert calls <= len(distinct) + 2  # once per distinct run up to digits 1-9, and the first and last run
    assert len(got) > 10 * calls
    assert {Category(c) for c, _, _ in got} >= {Category.LEVEL, Category.TIMESTAMP, Category.FLOAT}
