"""The log-span classifier against a hand-written table of log fragments, and its coverage guarantee."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_desktop.core.logs.logclass import Category, classify, classify_bytes

T, L, H, F, Z, N, W, P, S = (Category.TIMESTAMP, Category.LEVEL, Category.HEX, Category.FLOAT, Category.INTEGER,
                             Category.NAME, Category.WORD, Category.PUNCT, Category.SPACE)

# fragment -> the spans a reader would mark (text, category), in order
TABLE: list[tuple[str, list[tuple[str, Category]]]] = [
    ("[INFO] [1712345678.123456789] [nav2_controller]: Received path with 300 poses",
     [("[", P), ("INFO", L), ("]", P), (" ", S), ("[", P), ("1712345678.123456789", T), ("]", P), (" ", S),
      ("[", P), ("nav2_controller", N), ("]", P), (":", P), (" ", S), ("Received", W), (" ", S), ("path", W),
      (" ", S), ("with", W), (" ", S), ("300", Z), (" ", S), ("poses", W)]),
    ("x=-0.75 y=3.5e-3", [("x", W), ("=", P), ("-0.75", F), (" ", S), ("y", W), ("=", P), ("3.5e-3", F)]),
    ("5-2", [("5", Z), ("-", P), ("2", Z)]),
    ("id=0x1A3 dlc=8 data=[0A 1B FF 00]",
     [("id", W), ("=", P), ("0x1A3", H), (" ", S), ("dlc", W), ("=", P), ("8", Z), (" ", S), ("data", W),
      ("=", P), ("[", P), ("0A", H), (" ", S), ("1B", H), (" ", S), ("FF", H), (" ", S), ("00", H), ("]", P)]),
    ("Fault code E0x2A (CAN_TIMEOUT)", [("Fault", W), (" ", S), ("code", W), (" ", S), ("E0x2A", H), (" ", S),
                                        ("(", P), ("CAN_TIMEOUT", N), (")", P)]),
    ("/robot/motors/left: OK (temp 41.2C)",
     [("/robot/motors/left", N), (":", P), (" ", S), ("OK", W), (" ", S), ("(", P), ("temp", W), (" ", S),
      ("41.2", F), ("C", W), (")", P)]),
    ("Voltage 12.60V, SoC 79%", [("Voltage", W), (" ", S), ("12.60", F), ("V", W), (",", P), (" ", S),
                                 ("SoC", W), (" ", S), ("79", Z), ("%", P)]),
    ("  #0 0x00007f3a2c1e4b7d in rclcpp::Executor::spin() at executor.cpp:782",
     [("  ", S), ("#", P), ("0", Z), (" ", S), ("0x00007f3a2c1e4b7d", H), (" ", S), ("in", W), (" ", S),
      ("rclcpp::Executor::spin", N), ("(", P), (")", P), (" ", S), ("at", W), (" ", S), ("executor.cpp", N),
      (":", P), ("782", Z)]),
    ("session 3f9a2c1e-0000-4000-8000-00000000abcd commit deadbeef42",
     [("session", W), (" ", S), ("3f9a2c1e-0000-4000-8000-00000000abcd", H), (" ", S), ("commit", W), (" ", S),
      ("deadbeef42", H)]),
    ("stamp 1712345678123456789 at 2024-04-05T12:34:56.789Z",
     [("stamp", W), (" ", S), ("1712345678123456789", T), (" ", S), ("at", W), (" ", S),
      ("2024-04-05T12:34:56.789Z", T)]),
    ("WARNING: tf2 frame [base_link]\n", [("WARNING", L), (":", P), (" ", S), ("tf2", N), (" ", S), ("frame", W),
                                          (" ", S), ("[", P), ("base_link", N), ("]", P), ("\n", S)]),
    ("Info isn't a level; INFOS neither", [("Info", W), (" ", S), ("isn", W), ("'", P), ("t", W), (" ", S),
                                           ("a", W), (" ", S), ("level", W), (";", P), (" ", S), ("INFOS", W),
                                           (" ", S), ("neither", W)]),
    ("12 34", [("12", Z), (" ", S), ("34", Z)]),  # two numbers are not a hex run (three bytes make one)
    ("Überhitzung 🤖 日本", [("Überhitzung", W), (" ", S), ("🤖", P), (" ", S), ("日本", W)]),
]


@pytest.mark.parametrize(("fragment", "expected"), TABLE, ids=[t[0][:30] for t in TABLE])
def test_fragment_table(fragment: str, expected: list[tuple[str, Category]]) -> None:
    assert [(fragment[s.start:s.end], s.category) for s in classify(fragment)] == expected


LOGGY = st.sampled_from(list("0123456789abcdefxABCDEFX .-+_:/[]()=\n\tINFOERWé日🤖\u0301"))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=LOGGY, max_size=80) | st.text(max_size=60))
def test_spans_cover_every_character_once(text: str) -> None:
    spans = classify(text)
    assert all(s.start < s.end for s in spans)
    assert [s.start for s in spans] == [0, *(s.end for s in spans)][: len(spans)]
    assert (spans[-1].end if spans else 0) == len(text)
    byte_spans = classify_bytes(text)
    data = text.encode("utf-8", "surrogatepass")
    assert [data[b.start:b.end] for b in byte_spans] == [text[s.start:s.end].encode("utf-8", "surrogatepass")
                                                         for s in spans]


# what the rules tell apart, in ASCII: digits, hex letters, separators of timestamps, names and CAN frames,
# every kind of whitespace (the separators \x1c-\x1f are not whitespace to the classifier)
_ASCII_CORNERS = [*"0123456789abcdefxXABCDEFZT:-+./_~, \t\n\r\x0b\x0c\x1c\x1f[]()=%'\"", "0x", "INFO", "WARNING",
                  "DEBUG", "::", "2024-04-05 12:34:56", "1712345678.", "3f9a2c1e-", "nav2_"]


@settings(max_examples=400, deadline=None)
@given(text=st.lists(st.sampled_from(_ASCII_CORNERS), max_size=40).map("".join)
       | st.text(alphabet=st.characters(max_codepoint=127), max_size=60))
def test_ascii_twin_matches_as_the_rules_do(text: str) -> None:
    from bpe_desktop.core.logs.logclass import ASCII_PATTERN, PATTERN

    def matches(p):
        return [(m.lastindex, m.start(), m.end()) for m in p.finditer(text)]

    assert matches(ASCII_PATTERN) == matches(PATTERN)
    for pos in range(0, len(text), 7):  # from inside the text, as span_runs scans (look-behinds see before)
        assert [(m.lastindex, m.end()) for m in ASCII_PATTERN.finditer(text, pos)] == [
            (m.lastindex, m.end()) for m in PATTERN.finditer(text, pos)]


def test_ascii_twin_on_a_robot_log() -> None:
    from bpe_desktop.core.logs.logclass import ASCII_PATTERN, PATTERN
    from bpe_desktop.core.logs.robotlogs import generate

    text = generate(1500, seed=3)
    assert text.isascii()
    assert [(m.lastindex, m.end()) for m in ASCII_PATTERN.finditer(text)] == [
        (m.lastindex, m.end()) for m in PATTERN.finditer(text)]
