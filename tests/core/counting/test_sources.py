"""Corpus input: word-count tables, streamed files, UTF-8 errors, progress, cancel; pre-tokenizers."""

from __future__ import annotations

import pytest

from bpe_desktop.core import TrainConfig, count_text, parse_word_counts
from bpe_desktop.core.counting.pieces import looks_like_word_counts
from bpe_desktop.core.counting.sources import count_files, iter_file_chunks
from bpe_desktop.core.errors import Cancelled, CorpusError, PatternError
from bpe_desktop.core.text.pretokenize import Pretokenizer, validate_pattern


def test_word_count_tables_space_or_tab_and_duplicates_add() -> None:
    wc = parse_word_counts("low 5\nlower\t2\n\nnewest 6\nlow 1\n")
    assert wc.counts == {"low": 6, "lower": 2, "newest": 6}
    assert looks_like_word_counts("low 5\nlower 2") and not looks_like_word_counts("hello world\n")


@pytest.mark.parametrize(("text", "msg"), [
    ("low five", "line 1: the count 'five' is not a whole number"),
    ("low 5\nlonely", "line 2: expected 'word count'"),
    ("low -3", "negative count"),
])
def test_word_count_table_errors_name_the_line(text: str, msg: str) -> None:
    with pytest.raises(CorpusError, match=msg):
        parse_word_counts(text, "t.txt")


def test_invalid_utf8_names_file_and_byte_offset(tmp_path) -> None:
    p = tmp_path / "bad.txt"
    p.write_bytes(b"good line\nbad \xff byte\n")
    with pytest.raises(CorpusError, match=r"bad.txt: not valid UTF-8 at byte offset 14 .*--encoding-errors"):
        count_files([p], TrainConfig())
    assert count_files([p], TrainConfig(), errors="replace").counts["\ufffd"] == 1
    # bytes mode takes any bytes and gives them back unchanged
    wc = count_files([p], TrainConfig(mode="bytes", pretokenizer="whitespace"))
    assert "\udcff".encode("utf-8", "surrogateescape") == b"\xff" and "\udcff" in wc.counts


def test_missing_file_and_folder(tmp_path) -> None:
    with pytest.raises(CorpusError, match="no such file"):
        count_files([tmp_path / "nope.txt"], TrainConfig())


def test_streaming_in_small_chunks_counts_the_same_as_whole_text(tmp_path, topics_text, monkeypatch) -> None:
    text = topics_text[:120_000] + "\nno newline at the end ✓"
    p = tmp_path / "t.txt"
    p.write_text(text, encoding="utf-8")
    import bpe_desktop.core.counting.sources as corpus

    chunks = list(iter_file_chunks(str(p), chunk_bytes=4096))
    assert b"".join(c for _, c in chunks) == p.read_bytes()
    assert all(c.endswith(b"\n") for _, c in chunks[:-1])
    monkeypatch.setattr(corpus, "STREAM_CHUNK_BYTES", 4096)
    for pre in ("gpt2", "whitespace", "cl100k"):
        cfg = TrainConfig(mode="bytes", pretokenizer=pre)
        seen: list[tuple[str, int, int]] = []
        wc = count_files([p], cfg, progress=lambda s, d, t, seen=seen: seen.append((s, d, t)))
        assert wc.counts == count_text(text, cfg).counts
        assert len(seen) > 10 and seen[-1][1] == seen[-1][2] == p.stat().st_size
        assert {s for s, _, _ in seen} == {"counting"}


def test_cancel_stops_between_chunks(tmp_path, topics_text, monkeypatch) -> None:
    import bpe_desktop.core.counting.sources as corpus

    monkeypatch.setattr(corpus, "STREAM_CHUNK_BYTES", 4096)
    p = tmp_path / "t.txt"
    p.write_text(topics_text[:100_000], encoding="utf-8")
    calls = []
    with pytest.raises(Cancelled):
        count_files([p], TrainConfig(), cancel=lambda: calls.append(1) or len(calls) > 3)
    assert len(calls) == 4


def test_specials_are_cut_out_of_training_text() -> None:
    wc = count_text("hello<|endoftext|>world", TrainConfig(mode="bytes", pretokenizer="gpt2",
                                                           specials=("<|endoftext|>",)))
    assert wc.counts == {"hello": 1, "world": 1}


def test_named_pretokenizers() -> None:
    assert Pretokenizer.from_spec("gpt2").split("I'm  here 123!") == ["I", "'m", " ", " here", " 123", "!"]
    assert Pretokenizer.from_spec("cl100k").split("I'm 12345") == ["I", "'m", " ", "123", "45"]
    assert Pretokenizer.from_spec("whitespace").split(" a  b\n") == ["a", "b"]
    assert Pretokenizer.from_spec("none").split("a b\nc") == ["a b\n", "c"]
    assert Pretokenizer.from_spec("o200k").split("HelloWorld") == ["Hello", "World"]


def test_custom_pattern_errors_give_the_position() -> None:
    assert validate_pattern(r"\p{L}+") is None
    msg = validate_pattern("a(b")
    assert msg is not None and "position 3" in msg
    with pytest.raises(PatternError, match="position"):
        TrainConfig(pretokenizer="[a-")
    with pytest.raises(PatternError, match="capturing groups"):
        Pretokenizer.from_spec("(a)(b)").split("ab")


def test_catastrophic_custom_pattern_times_out(monkeypatch) -> None:
    import bpe_desktop.core.text.pretokenize as pt

    monkeypatch.setattr(pt, "CUSTOM_TIMEOUT_S", 0.05)
    pre = Pretokenizer.from_spec(r"(?:\w|\w\w)*\d")
    with pytest.raises(PatternError, match="catastrophic"):
        pre.split("a" * 60)


def test_atomic_write_replaces_whole_file_and_respects_umask(tmp_path) -> None:
    import os
    import stat

    from bpe_desktop.core.io.atomic import atomic_write

    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_write(target) as f:
        f.write("half")
        raise RuntimeError("disk full")
    assert target.read_text() == "old"  # a failed write leaves the old file
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]  # and no temporary behind
    umask = os.umask(0o022)
    try:
        with atomic_write(target) as f:
            f.write("new")
    finally:
        os.umask(umask)
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_whitespace_pretokenizer_is_exactly_str_split() -> None:
    import sys

    import regex

    from bpe_desktop.core.text.pretokenize import WHITESPACE_PATTERN

    pre = Pretokenizer.from_spec("whitespace")
    every_char = "".join(map(chr, range(sys.maxunicode + 1)))  # each whitespace char separates two pieces
    expected = every_char.split()
    assert len(expected) > 5  # (runs of whitespace merge; a misclassified char would show as a piece)
    assert pre.split(every_char) == expected
    assert regex.findall(WHITESPACE_PATTERN, every_char) == expected  # the pattern exported to other tools


# -- issue 26, item 13: a corpus that changes while it is counted is refused, not counted in part ----------
def _corpus(tmp_path, lines: int = 60_000):
    p = tmp_path / "c.txt"
    p.write_text("low lower newest widest\n" * lines)
    return p


def test_a_file_truncated_while_counted_in_processes_is_refused(tmp_path, monkeypatch) -> None:
    import bpe_desktop.core.counting.parallel_count as pc
    from bpe_desktop.core.errors import CorpusError
    from bpe_desktop.core.text.inputs import expand

    p = _corpus(tmp_path)
    inputs = expand([p])  # listed at its full size...
    with open(p, "r+b") as f:
        f.truncate(p.stat().st_size // 3)  # ...then cut short before the workers read their stretches
    with pytest.raises(CorpusError, match="shrank while it was read"):
        pc.count_parallel(inputs, TrainConfig(), 2, chunk_bytes=1 << 16)


def test_a_file_appended_to_while_counted_in_processes_is_refused(tmp_path) -> None:
    import bpe_desktop.core.counting.parallel_count as pc
    from bpe_desktop.core.errors import CorpusError
    from bpe_desktop.core.text.inputs import expand

    p = _corpus(tmp_path)
    inputs = expand([p])
    with open(p, "a") as f:
        f.write("appended later\n")
    with pytest.raises(CorpusError, match="changed while it was read"):
        pc.count_parallel(inputs, TrainConfig(), 2, chunk_bytes=1 << 16)


@pytest.mark.parametrize("change", ["truncate", "append"])
def test_a_file_changed_while_counted_in_one_process_is_refused(tmp_path, change: str) -> None:
    from bpe_desktop.core.counting.sources import count_files
    from bpe_desktop.core.errors import CorpusError

    p = _corpus(tmp_path, 120_000)  # about 2.8 MB: three chunks

    def progress(stage: str, done: int, total: int) -> None:
        if done and not progress.changed:
            progress.changed = True
            with open(p, "r+b") as f:
                if change == "truncate":
                    f.truncate(p.stat().st_size // 2 + 7)
                else:
                    f.seek(0, 2)
                    f.write(b"appended later\n")

    progress.changed = False
    with pytest.raises(CorpusError, match="changed while it was read"):
        count_files([p], TrainConfig(), jobs=1, progress=progress)
