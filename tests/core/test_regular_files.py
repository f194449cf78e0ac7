"""Issue 26, item 4: every reader of a user-named path refuses what is not a regular file -- a FIFO (which
blocks whoever opens it), /dev/zero and /dev/urandom (which never end), a folder -- before opening it, and
refuses a file read whole past its size limit, with a clear BpeError, never a hang or a MemoryError.

A FIFO with no writer blocks ``open()`` forever, so each FIFO case runs in a thread that the test only
waits on as a guard: the refusal itself is immediate (no read is attempted).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

import pytest

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.counting.count_table import is_table, read_table
from bpe_desktop.core.counting.sources import count_files
from bpe_desktop.core.errors import BpeError, CorpusError, FormatError, SessionError
from bpe_desktop.core.formats import load_tokenizer
from bpe_desktop.core.formats.session_file import (
    CorpusFile,
    CorpusState,
    SessionCorpus,
    check_corpus,
    load_session,
)
from bpe_desktop.core.io import reading
from bpe_desktop.core.logs.log_chunks import iter_file_chunks
from bpe_desktop.core.measure.holdout import count_with_holdout
from bpe_desktop.core.text.display_text import read_display_text
from bpe_desktop.core.text.inputs import expand, iter_chunks, read_head


def _guarded(fn: Callable[[], Any]) -> BaseException | None:
    """Run *fn* in a daemon thread; the exception it raised (a hang fails the test instead of the suite)."""
    out: list[BaseException | None] = []

    def body() -> None:
        try:
            fn()
        except BaseException as e:
            out.append(e)
        else:
            out.append(None)

    t = threading.Thread(target=body, daemon=True)
    t.start()
    t.join(60)
    assert out, "the reader blocked on a path that is not a regular file"
    return out[0]


@pytest.fixture(params=["fifo", "zero", "urandom", "folder"])
def odd(request, tmp_path) -> str:
    if request.param == "fifo":
        path = str(tmp_path / "pipe")
        os.mkfifo(path)
        return path
    if request.param == "folder":
        (tmp_path / "d").mkdir()
        (tmp_path / "d" / "inner.txt").write_text("x\n")
        return str(tmp_path / "d")
    return f"/dev/{request.param}"


READERS: dict[str, tuple[type[BpeError], Callable[[str], Any]]] = {
    "tokenizer": (FormatError, load_tokenizer),
    "cl100k preset": (FormatError, lambda p: load_tokenizer(f"cl100k:{p}")),
    "session": (SessionError, load_session),
    "counts table": (CorpusError, read_table),
    "log": (CorpusError, lambda p: list(iter_file_chunks(p))),
    "corpus chunks": (CorpusError, lambda p: list(iter_chunks(p))),
    "preview head": (CorpusError, lambda p: read_head(p, 100)),
    "regular check": (BpeError, reading.check_regular),
    "whole read": (BpeError, reading.read_regular),
    "held-out split": (CorpusError, lambda p: count_with_holdout(_source(p), TrainConfig(), 0.5)),
}


def _source(p: str) -> Any:
    from bpe_desktop.core.counting.sources import CorpusSource
    return CorpusSource.from_files([p])


@pytest.mark.parametrize("reader", list(READERS))
def test_every_reader_refuses_what_is_not_a_regular_file(odd: str, reader: str) -> None:
    kind, fn = READERS[reader]
    if odd.endswith("/d") and reader in ("held-out split",):
        pytest.skip("a folder is a valid corpus (its files are read)")
    err = _guarded(lambda: fn(odd))
    assert isinstance(err, kind), repr(err)
    msg = str(err)
    assert odd in msg and "\n" not in msg
    assert ("folder" in msg) if odd.endswith("/d") else ("not a regular file" in msg), msg


def test_a_named_corpus_that_is_a_fifo_or_device_is_refused_before_counting(odd: str) -> None:
    if odd.endswith("/d"):
        return  # a folder is a corpus: its files are counted
    for jobs in (1, 2):
        err = _guarded(lambda jobs=jobs: count_files([odd], TrainConfig(), jobs=jobs))
        assert isinstance(err, CorpusError) and "not a regular file" in str(err), repr(err)
    err = _guarded(lambda: expand([odd]))
    assert isinstance(err, CorpusError)


def test_a_folder_skips_its_fifos(tmp_path) -> None:
    (tmp_path / "a.txt").write_text("low lower\n")
    os.mkfifo(tmp_path / "b.txt")
    assert [os.path.basename(i.name) for i in expand([tmp_path])] == ["a.txt"]
    words = _guarded(lambda: count_files([tmp_path], TrainConfig()))
    assert words is None


def test_the_display_and_table_peeks_skip_odd_files_without_blocking(odd: str) -> None:
    assert _guarded(lambda: read_display_text([odd], "chars")) is None
    assert read_display_text([odd], "chars") == ("", False)
    assert _guarded(lambda: is_table(odd)) is None and not is_table(odd)


def test_a_session_whose_corpus_became_a_fifo_is_reported_not_hashed(tmp_path) -> None:
    path = tmp_path / "c.txt"
    path.write_bytes(b"")
    ref = CorpusFile.of(path)
    path.unlink()
    os.mkfifo(path)  # same size (0) and a new mtime: the old code hashed it, blocking forever
    got: list[Any] = []
    assert _guarded(lambda: got.extend(check_corpus(SessionCorpus((ref,), None, False), always_hash=True))) is None
    assert got[0].state is CorpusState.MISSING and "not a regular file" in got[0].message
    err = _guarded(lambda: CorpusFile.of(path))  # saving a session that names it
    assert isinstance(err, BpeError) and "not a regular file" in str(err)


def test_a_file_read_whole_is_refused_past_its_limit(tmp_path) -> None:
    p = tmp_path / "big"
    p.write_bytes(b"x" * 1000)
    with pytest.raises(BpeError, match="more than the 999 bytes"):
        reading.read_regular(p, limit=999)
    assert reading.read_regular(p, limit=1000) == b"x" * 1000


def test_the_tokenizer_limit_applies_to_every_tokenizer_reader(tmp_path, monkeypatch) -> None:
    from bpe_desktop.core.formats import textio, tiktoken_file

    p = tmp_path / "t.json"
    p.write_text('{"format": "bpe-desktop"}' + " " * 5000)
    monkeypatch.setattr(textio, "TOKENIZER_LIMIT", 4096)
    monkeypatch.setattr(tiktoken_file, "TOKENIZER_LIMIT", 4096)
    with pytest.raises(FormatError, match=r"more than the 4\.0 KiB"):
        load_tokenizer(str(p))
    (tmp_path / "r.tiktoken").write_bytes(b"YQ== 0\n" * 1000)
    with pytest.raises(FormatError, match=r"more than the 4\.0 KiB"):
        load_tokenizer(str(tmp_path / "r.tiktoken"))


def test_a_file_that_grows_while_read_is_refused(tmp_path, monkeypatch) -> None:
    p = tmp_path / "grows"
    p.write_bytes(b"x" * 10)
    real = reading.open_regular

    def open_then_grow(*a: Any, **kw: Any) -> Any:
        f = real(*a, **kw)
        p.write_bytes(b"x" * 100)  # after the size check
        return f

    monkeypatch.setattr(reading, "open_regular", open_then_grow)
    with pytest.raises(BpeError, match="grew past"):
        reading.read_regular(p, limit=50)


def test_a_path_swapped_for_a_fifo_after_the_check_does_not_block(tmp_path) -> None:
    """The check is made on what was opened (O_NONBLOCK + fstat), not on the name before opening."""
    p = str(tmp_path / "x")
    os.mkfifo(p)
    err = _guarded(lambda: reading.open_regular(p, error=CorpusError))
    assert isinstance(err, CorpusError)


def test_a_nul_in_a_path_is_a_clear_error() -> None:
    for fn in (reading.check_regular, reading.open_regular):
        with pytest.raises(BpeError, match="not a usable path"):
            fn("a\0b")
