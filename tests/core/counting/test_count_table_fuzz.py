"""Issue 26, item 6: counts tables that are damaged or hostile are refused with one clear CorpusError,
through the code the CLI (``train --word-counts``: ``count_source``) and the window (``read_table`` for the
token view's rows; ``count_source`` in the training process) use -- or, when accepted, hold only pieces
the mode can carry and counts that fit the trainer's 64-bit counters, and train and save without error.

The cases of the issue: ``\\xHH`` in a chars-mode table (UnicodeEncodeError when the tokenizer was saved),
a 5,000-digit count (ValueError), counts of 2**63 and more (OverflowError in the window), a byte-order mark
(read as a seeds table), a trailing backslash (accepted silently).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig, train
from bpe_desktop.core.counting.count_table import MAGIC, escape, read_table, write_table
from bpe_desktop.core.counting.pieces import MAX_COUNT, parse_word_counts
from bpe_desktop.core.counting.sources import CorpusSource, count_source
from bpe_desktop.core.errors import BpeError, CorpusError
from bpe_desktop.core.formats import native


def header(mode: str) -> str:
    pre = "gpt2" if mode == "bytes" else "whitespace"
    return f"{MAGIC} 1 {json.dumps({'mode': mode, 'pretokenizer': pre, 'specials': []})}\n"


def config(mode: str) -> TrainConfig:
    return TrainConfig(mode=mode, pretokenizer="gpt2" if mode == "bytes" else "whitespace", merges=5)


def every_reader(path, mode: str) -> list[dict[str, int]]:
    """The table as each entry point reads it (each raises the same kind of refusal)."""
    window = read_table(path)[1]
    cli = count_source(CorpusSource.from_files([path], word_counts=True), config(mode)).counts
    return [window, cli]


@pytest.mark.parametrize(("mode", "body", "words"), [
    ("chars", "a\\x80b\t3\n", "chars-mode table"),
    ("chars", "a\\xffb\t3\n", "chars-mode table"),
    ("bytes", "a\\x41\t3\n", "only"),  # escape() writes \xHH only for bytes that are not UTF-8
    ("bytes", "ab\\\t3\n", "backslash at the end"),
    ("chars", "ab\\\t3\n", "backslash at the end"),
    ("chars", "a\\q\t3\n", "the escape \\q"),
    ("chars", "a\t" + "7" * 5000 + "\n", "larger than"),
    ("chars", f"a\t{2**63}\n", "larger than"),
    ("chars", f"a\t{2**62}\na\t{2**62}\n", "add up to more than"),
    ("chars", f"a\t{2**61}\nb\t{2**61}\n", "64-bit"),
    ("chars", "a\t-3\n", "not a whole number"),
    ("chars", "a\t３\n", "not a whole number"),  # a full-width digit: int() takes it, the table must not
    ("chars", "a 3\n", "expected piece<TAB>count"),
])
def test_damaged_tables_are_refused_by_every_reader(tmp_path, mode: str, body: str, words: str) -> None:
    p = tmp_path / "t.tsv"
    p.write_text(header(mode) + "ok\t1\n" + body, encoding="utf-8")
    for read in (lambda: read_table(p), lambda: count_source(CorpusSource.from_files([p], word_counts=True),
                                                             config(mode))):
        with pytest.raises(CorpusError) as e:
            read()
        msg = str(e.value)
        assert words in msg and "\n" not in msg and str(p) in msg, msg
        assert "line 3" in msg or "line 4" in msg or "symbols" in msg, msg  # the line, or the whole table


def test_a_byte_order_mark_is_skipped(tmp_path) -> None:
    p = tmp_path / "t.tsv"
    p.write_text("\ufeff" + header("chars") + "low\t5\nlower\t2\n", encoding="utf-8")
    assert every_reader(p, "chars") == [{"low": 5, "lower": 2}] * 2
    seeds = tmp_path / "s.txt"
    seeds.write_text("\ufefflow 5\nlower 2\n", encoding="utf-8")
    assert parse_word_counts(seeds.read_text(encoding="utf-8")).counts == {"low": 5, "lower": 2}


def test_the_largest_count_is_accepted_and_trains(tmp_path) -> None:
    p = tmp_path / "t.tsv"
    p.write_text(header("chars") + f"a\t{MAX_COUNT // 8}\n", encoding="utf-8")
    _, records = train(count_source(CorpusSource.from_files([p], word_counts=True), config("chars")),
                       config("chars"))
    assert records[0].count == MAX_COUNT // 8


def test_seed_tables_get_the_same_count_checks() -> None:
    for text, words in ((f"a {2**63}\n", "larger than"), ("a " + "9" * 5000, "larger than"),
                        ("a ٣\n", "not a whole number")):
        with pytest.raises(CorpusError, match=words):
            parse_word_counts(text, "seeds.txt")


LINE = st.tuples(st.text(st.characters(codec="utf-8", exclude_characters="\n"), max_size=8)
                 | st.sampled_from(["\\", "a\\", "\\x", "\\x8", "\\x80", "\\xff", "\\x41", "\\t\\n", "\\\\"]),
                 st.sampled_from(["\t", " ", ""]),
                 st.integers(-5, 2**64).map(str) | st.sampled_from(["", "x", "9" * 5000, "1e3", " 4", "٣"]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mode=st.sampled_from(["chars", "bytes"]), lines=st.lists(LINE, max_size=6),
       bom=st.booleans(), crlf=st.booleans())
def test_fuzzed_tables_are_refused_or_train(tmp_path, mode: str, lines: list[tuple[str, str, str]], bom: bool,
                                            crlf: bool) -> None:
    end = "\r\n" if crlf else "\n"
    text = ("\ufeff" if bom else "") + header(mode) + "".join(f"{a}{t}{n}{end}" for a, t, n in lines)
    p = tmp_path / "fuzz.tsv"
    p.write_text(text, encoding="utf-8", newline="")
    try:
        results = every_reader(p, mode)
    except BpeError as e:
        assert isinstance(e, CorpusError) and "\n" not in str(e) and str(p) in str(e), repr(e)
        return
    window, cli = results
    assert window == cli
    codec_errors = "surrogateescape" if mode == "bytes" else "strict"
    for piece, n in cli.items():
        assert 0 <= n <= MAX_COUNT
        piece.encode("utf-8", codec_errors)  # a piece the mode can carry (no stray surrogate)
    if sum(cli.values()):
        model, records = train(cli, config(mode))
        native.dumps(model, records)  # saving is where a bad piece raised UnicodeEncodeError
    q = tmp_path / "again.tsv"
    write_table(q, cli, config(mode))
    assert read_table(q)[1] == cli  # what is accepted round-trips
    assert all(escape(k) for k in cli)
