"""Corpus inputs (folders, compressed files, stdin), parallel counting, counts tables and the Dask engine:
every way of counting gives the same table (order included) and the same merges after it."""

from __future__ import annotations

import bz2
import gzip
import importlib.util
import itertools
import lzma
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_desktop.core.counting.parallel_count as parallel_count
from bpe_desktop.cli import main
from bpe_desktop.core import TrainConfig, train
from bpe_desktop.core.counting.count_table import escape, read_table, unescape, write_table
from bpe_desktop.core.counting.sources import CorpusSource, count_files, count_source
from bpe_desktop.core.errors import Cancelled, CorpusError
from support import ROOT

BYTES = TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=300)
FIRST_SEEN = TrainConfig(mode="chars", pretokenizer="whitespace", tie_break="first-seen", merges=300)
STDLIB = Path(os.__file__).parent


@pytest.fixture(scope="module")
def stdlib_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder tree of real Python sources (json, email, and a few other packages of the stdlib)."""
    root = tmp_path_factory.mktemp("stdlib")
    for pkg in ("json", "email", "concurrent", "importlib"):
        for src in sorted((STDLIB / pkg).rglob("*.py")):
            dst = root / pkg / src.relative_to(STDLIB / pkg)
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(src.read_bytes())
    (root / "notes.md").write_text("not python\n")
    return root


def run_cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "bpe_desktop", *args], capture_output=True, input=stdin,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.parametrize("config", [BYTES, FIRST_SEEN], ids=["bytes-gpt2", "chars-first-seen"])
def test_jobs_give_the_same_table_and_merges_on_real_text(config, topics_file, stdlib_folder, monkeypatch) -> None:
    monkeypatch.setattr(parallel_count, "MIN_BYTES_PER_JOB", 1)  # split even these small inputs
    for inputs in ([topics_file], [stdlib_folder, topics_file]):
        one = count_files(inputs, config, glob="*.py", jobs=1)
        for jobs in (2, 3, 7):
            many = count_files(inputs, config, glob="*.py", jobs=jobs)
            assert list(many.counts.items()) == list(one.counts.items())  # order too: first-seen depends on it
        assert train(many, config)[0].merges == train(one, config)[0].merges
        assert len(train(one, config)[0].merges) == 300


def test_stretches_split_on_line_boundaries(topics_file) -> None:
    from bpe_desktop.core.text.inputs import Input

    size = topics_file.stat().st_size
    data = topics_file.read_bytes()
    parts = parallel_count.stretches([Input(str(topics_file), size)], 5)
    assert len(parts) == 5
    segs = [seg for part in parts for seg in part]
    assert segs[0][1] == 0 and segs[-1][2] == size
    assert all(a[2] == b[1] for a, b in itertools.pairwise(segs))
    assert all(data[s - 1:s] == b"\n" for _, s, _ in segs[1:])


def test_folders_glob_and_compressed_files_count_like_the_plain_text(stdlib_folder, topics_text, tmp_path) -> None:
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2")
    py = sorted(stdlib_folder.rglob("*.py"), key=lambda p: [part for part in p.relative_to(stdlib_folder).parts])
    by_folder = count_files([stdlib_folder], cfg, glob="*.py")
    by_files = count_files(py, cfg)
    assert by_folder.counts == by_files.counts
    assert "not python" not in "".join(by_folder.counts)
    with pytest.raises(CorpusError, match=r"no file matching '\*\.rs'.*--glob"):
        count_files([stdlib_folder], cfg, glob="*.rs")
    raw = topics_text.encode()
    plain = tmp_path / "t.txt"
    plain.write_bytes(raw)
    want = count_files([plain], cfg)
    for ext, pack in ((".gz", gzip.compress), (".bz2", bz2.compress), (".xz", lzma.compress)):
        f = tmp_path / f"t.txt{ext}"
        f.write_bytes(pack(raw))
        seen: list[tuple[str, int, int]] = []
        got = count_files([f], cfg, jobs=2, progress=lambda s, d, t, seen=seen: seen.append((s, d, t)))
        assert list(got.counts.items()) == list(want.counts.items())
        assert seen[-1][1] == seen[-1][2] == f.stat().st_size  # progress in compressed bytes
    broken = tmp_path / "broken.gz"
    broken.write_bytes(gzip.compress(raw)[:500])
    with pytest.raises(CorpusError, match="cannot decompress"):
        count_files([broken], cfg)


def test_stdin_and_count_table_then_train_equals_training_on_the_text(topics_file, tmp_path) -> None:
    table = tmp_path / "counts.tsv"
    r = run_cli("count", "-", "--mode", "bytes", "--out", str(table), stdin=topics_file.read_bytes())
    assert r.returncode == 0, r.stderr
    assert table.read_text(encoding="utf-8").startswith("#bpe-desktop-counts 1 ")
    header, counts = read_table(table)
    assert (header.mode, header.pretokenizer) == ("bytes", "gpt2")
    assert list(counts.items()) == list(count_files([topics_file], BYTES).counts.items())
    a, b = tmp_path / "from_table.json", tmp_path / "from_text.json"
    assert main(["train", str(table), "--word-counts", "--mode", "bytes", "--tie-break", "hf", "--merges", "500",
                 "--out", str(a)]) == 0
    assert main(["train", str(topics_file), "--mode", "bytes", "--tie-break", "hf", "--merges", "500",
                 "--out", str(b), "--jobs", "2"]) == 0
    from bpe_desktop.core.formats import native

    assert native.load(a)[0].merge_pairs_text() == native.load(b)[0].merge_pairs_text()
    # a table counted with other settings is refused, naming both
    r = run_cli("train", str(table), "--word-counts", "--mode", "bytes", "--pretokenizer", "cl100k", "--merges",
                "5", "--out", str(tmp_path / "x.json"))
    assert r.returncode == 2 and r.stderr.decode().count("\n") == 1
    assert b"counted with --mode bytes --pretokenizer 'gpt2'" in r.stderr and b"'cl100k'" in r.stderr


@settings(max_examples=60, deadline=None)
@given(pieces=st.lists(st.binary(min_size=1, max_size=12) | st.text(min_size=1, max_size=8), min_size=1,
                       max_size=40, unique=True),
       counts=st.lists(st.integers(1, 10**12), min_size=40, max_size=40))
def test_count_table_round_trips_any_bytes(pieces, counts, tmp_path_factory) -> None:
    words = {}
    for p, n in zip(pieces, counts, strict=False):
        key = p.decode("utf-8", "surrogateescape") if isinstance(p, bytes) else p
        if "\udc80" <= max(key) and isinstance(p, str):
            continue  # text with lone surrogates is not text a corpus can contain
        words.setdefault(key, n)
    path = tmp_path_factory.mktemp("t") / "c.tsv"
    write_table(path, words, TrainConfig(mode="bytes", pretokenizer="gpt2"))
    path.read_bytes().decode("utf-8")  # valid UTF-8 whatever the pieces
    _header, back = read_table(path, TrainConfig(mode="bytes", pretokenizer="gpt2"))
    assert list(back.items()) == list(words.items())
    assert all(unescape(escape(k)) == k for k in words)


def test_damaged_tables_are_refused_with_the_line(tmp_path) -> None:
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2")
    path = tmp_path / "c.tsv"
    write_table(path, {"a": 1, "b\tc": 2}, cfg)
    good = path.read_text(encoding="utf-8")
    for bad, where in ((good + "zz\n", "line 4"), (good + "x\t1.5\n", "line 4"), (good + "\\q\t3\n", "line 4"),
                       (good.replace(" 1 ", " 9 ", 1), "version '9'"), (good.replace("bytes", "words"), "header")):
        path.write_text(bad, encoding="utf-8")
        with pytest.raises(CorpusError, match=where):
            count_files([path], cfg, word_counts=True)
    with pytest.raises(CorpusError, match="not a counts table"):
        read_table(Path(__file__))


def test_parallel_count_cancels_and_reports_progress(topics_file, monkeypatch) -> None:
    monkeypatch.setattr(parallel_count, "MIN_BYTES_PER_JOB", 1)
    with pytest.raises(Cancelled):
        count_files([topics_file], BYTES, jobs=2, cancel=lambda: True)
    seen: list[int] = []
    count_source(CorpusSource.from_files([topics_file], jobs=2), BYTES, progress=lambda s, d, t: seen.append(d))
    assert seen == sorted(seen) and seen[-1] == topics_file.stat().st_size


def test_cli_refuses_bad_inputs_in_one_line(tmp_path) -> None:
    (tmp_path / "empty").mkdir()
    for args, msg in (
        (["count", str(tmp_path / "nope.txt"), "--out", str(tmp_path / "c.tsv")], "no such file or folder"),
        (["count", str(tmp_path / "empty"), "--out", str(tmp_path / "c.tsv")], "holds no files"),
        (["count", __file__, "--out", str(tmp_path)], "is a folder"),
        (["count", __file__, "--out", str(tmp_path / "no" / "c.tsv")], "does not exist"),
        (["count", __file__, "--jobs", "0", "--out", str(tmp_path / "c.tsv")], "--jobs must be 1 or more"),
        (["count", __file__, "--scheduler", "tcp://x:1", "--out", str(tmp_path / "c.tsv")], "needs --engine dask"),
    ):
        r = run_cli(*args)
        assert r.returncode == 2 and msg in r.stderr.decode() and r.stderr.decode().count("\n") == 1, r.stderr


HAS_DASK = importlib.util.find_spec("distributed") is not None


@pytest.mark.skipif(not HAS_DASK, reason="dask[distributed] is not installed (pip install -e '.[dask]')")
def test_dask_local_cluster_table_equals_the_local_count(topics_file, stdlib_folder, tmp_path) -> None:
    local, dask = tmp_path / "local.tsv", tmp_path / "dask.tsv"
    common = [str(stdlib_folder), str(topics_file), "--glob", "*.py", "--mode", "bytes"]
    r = run_cli("count", *common, "--jobs", "1", "--out", str(local))
    assert r.returncode == 0, r.stderr
    r = run_cli("count", *common, "--engine", "dask", "--jobs", "2", "--blocksize", "100KB", "--out", str(dask))
    assert r.returncode == 0, r.stderr
    assert dask.read_bytes() == local.read_bytes()


@pytest.mark.skipif(not HAS_DASK, reason="dask[distributed] is not installed (pip install -e '.[dask]')")
def test_dask_unreachable_scheduler_is_a_clear_error(topics_file, tmp_path) -> None:
    r = run_cli("count", str(topics_file), "--engine", "dask", "--scheduler", "tcp://127.0.0.1:9",
                "--scheduler-timeout", "1", "--out", str(tmp_path / "c.tsv"))
    assert r.returncode == 2 and "cannot reach the Dask scheduler" in r.stderr.decode(), r.stderr



def test_a_table_without_word_counts_and_jsonl_progress(topics_file, tmp_path) -> None:
    table = tmp_path / "c.tsv"
    r = run_cli("count", str(topics_file), "--mode", "bytes", "--progress", "jsonl", "--out", str(table))
    assert r.returncode == 0, r.stderr
    import json

    events = [json.loads(line) for line in r.stderr.decode().splitlines()]
    assert events[-1]["done"] == events[-1]["total"] == topics_file.stat().st_size
    assert all({"rate", "eta_s", "stage"} <= set(e) for e in events)
    r = run_cli("train", str(table), "--mode", "bytes", "--merges", "5", "--out", str(tmp_path / "t.json"))
    assert r.returncode == 2 and b"add --word-counts" in r.stderr


# -- words-first counting of GPT-2 pieces equals the plain per-line split ----------------------------------
def _per_line(text: str, specials: tuple[str, ...] = ()) -> list[tuple[str, int]]:
    import regex

    from bpe_desktop.core.text.pretokenize import Pretokenizer

    split = Pretokenizer.from_spec("gpt2").split
    special = regex.compile("|".join(regex.escape(s) for s in specials)) if specials else None
    out: dict[str, int] = {}
    lines = [ln + "\n" for ln in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    for line in lines:
        for seg in special.split(line) if special else [line]:
            for p in split(seg):
                out[p] = out.get(p, 0) + 1
    return list(out.items())


def test_words_first_whitespace_set_is_the_regex_modules() -> None:
    import regex

    from bpe_desktop.core.counting.word_first import _WS

    assert _WS == "".join(chr(c) for c in range(sys.maxunicode + 1) if regex.match(r"\s", chr(c)))


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("ab É1٣'s.,!-_ \t\n\r\x0b\x0c\x1c\x85\xa0\u2028\u3000😀<>")),
                    max_size=60))
def test_words_first_equals_per_line_split(text: str) -> None:
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2")
    from bpe_desktop.core.counting.pieces import count_text

    assert list(count_text(text, cfg).counts.items()) == _per_line(text)
    spc = TrainConfig(mode="bytes", pretokenizer="gpt2", specials=("<>",))
    assert list(count_text(text, spc).counts.items()) == _per_line(text, ("<>",))


def test_words_first_on_real_text(topics_text) -> None:
    from bpe_desktop.core.counting.pieces import count_text

    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2")
    sources = "".join(p.read_text(encoding="utf-8", errors="surrogateescape")
                      for p in sorted((STDLIB / "email").rglob("*.py")))
    for text in (topics_text, sources):
        assert list(count_text(text, cfg).counts.items()) == _per_line(text)


# -- the fast split of words-first counting (fields of str.split(" "), masked odd lines) -----------------
_CLEAN = [*"aZ9'.,;-_ \n", "the", " and", "É", "😀", "\n\n", "'s", "\t", "  ", " \n", "\r\n"]


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.sampled_from(_CLEAN), max_size=40), odd_limit=st.sampled_from([0, 1, 256]))
def test_fast_split_equals_per_line_split(parts: list[str], odd_limit: int) -> None:
    """Mostly ordinary text (single spaces, newlines) with a few odd places: the fields path, masked lines
    and the regex pass (forced by a low limit on odd places) all give the per-line table and order."""
    from bpe_desktop.core.counting import word_first
    from bpe_desktop.core.text.pretokenize import Pretokenizer

    text = "".join(parts)
    saved = word_first.MAX_ODD
    word_first.MAX_ODD = odd_limit
    try:
        counter = word_first.WordsFirst(Pretokenizer.from_spec("gpt2").split)
        out: dict[str, int] = {}
        half = text.rfind("\n", 0, len(text) // 2) + 1  # two chunks of whole lines, as files are read
        for chunk in (text[:half], text[half:]):
            counter.add(chunk, out)
        counter.flush(out)
    finally:
        word_first.MAX_ODD = saved
    assert list(out.items()) == _per_line(text)


def test_fast_split_on_real_text_with_odd_lines_and_mark_characters(topics_text) -> None:
    from bpe_desktop.core.counting import word_first
    from bpe_desktop.core.counting.pieces import count_text

    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2")
    lines = [" ".join(line.split()) for line in topics_text.split("\n")]  # prose with single spaces
    lines[3] += "  two spaces"  # an odd line early, one late, one ending in a space, one with a tab
    lines[-5] = "\tindented  twice "
    lines[len(lines) // 2] += " "
    text = "\n".join(lines)
    assert word_first._marked(text) is not None and word_first.MASKED in word_first._marked(text)
    assert list(count_text(text, cfg).counts.items()) == _per_line(text)
    long_odd = text + " ".join(["word"] * 20_000) + "  end\n"  # a long odd line: the regex pass counts it
    assert word_first._marked(long_odd) is None
    assert list(count_text(long_odd, cfg).counts.items()) == _per_line(long_odd)
    marked = text.replace("two", "t\x01wo")  # a mark character in the text: the regex pass counts it
    assert word_first._marked(marked) is None
    assert list(count_text(marked, cfg).counts.items()) == _per_line(marked)


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet=st.characters(max_codepoint=127), max_size=40))
def test_ascii_gpt2_pattern_is_the_gpt2_pattern_on_ascii(text: str) -> None:
    from bpe_desktop.core.counting.word_first import ASCII_GPT2
    from bpe_desktop.core.text.pretokenize import Pretokenizer

    assert ASCII_GPT2.findall(text) == Pretokenizer.from_spec("gpt2").split(text)
