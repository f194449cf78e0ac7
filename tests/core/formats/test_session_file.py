"""Issue 10, sessions (core half): the versioned session document.

Round trip (merges, records, settings, step, compare references, layout, corpus reference), tampered
documents (every malformed field is one SessionError), a newer version named, and the corpus check
(unchanged / touched / changed / vanished / embedded).
"""

from __future__ import annotations

import base64
import json
import os
from typing import Any

import pytest

from bpe_desktop.core import TrainConfig
from bpe_desktop.core.counting.sources import CorpusSource, count_source
from bpe_desktop.core.errors import SessionError
from bpe_desktop.core.formats.session_file import (
    VERSION,
    CorpusState,
    SessionCorpus,
    SessionDoc,
    check_corpus,
    load_session,
    loads_session,
    save_session,
)
from bpe_desktop.core.training.trainer import Trainer

LAYOUT = base64.b64encode(b"\x00\x01 window geometry \xff").decode()


def _session(tmp_path, *, embedded: bool = False, mode: str = "chars") -> SessionDoc:
    corpus_file = tmp_path / "corpus.txt"
    corpus_file.write_text("low lower newest widest héllo\n" * 30 + "the robot moved left\n" * 10)
    config = TrainConfig(mode=mode, merges=25, specials=("<s>",), pretokenizer=r"\w+|\S" if mode == "bytes"
                         else "whitespace", tie_break="first-seen")
    corpus = (SessionCorpus.from_text(corpus_file.read_text()) if embedded
              else SessionCorpus.from_files([corpus_file]))
    source = (CorpusSource.from_text(corpus.text or "") if embedded else CorpusSource.from_files([corpus_file]))
    trainer = Trainer(count_source(source, config), config)
    records = tuple(trainer.run())
    return SessionDoc(corpus, config, trainer.model, records, 11, ("cl100k:/x/cl100k_base.tiktoken", "gpt2-dir"),
                      LAYOUT)


@pytest.mark.parametrize("embedded,mode", [(False, "chars"), (True, "bytes")])
def test_round_trip(tmp_path, embedded: bool, mode: str) -> None:
    doc = _session(tmp_path, embedded=embedded, mode=mode)
    path = tmp_path / "work.bpesession"
    save_session(path, doc)
    back = load_session(path)
    assert back.model is not None and doc.model is not None and back.model.same_as(doc.model)
    assert back.model.merges == doc.model.merges and back.model.tie_break == doc.model.tie_break
    assert back.records == doc.records and len(back.records) == 25
    assert (back.config, back.step, back.compare, back.layout, back.corpus) == (
        doc.config, doc.step, doc.compare, doc.layout, doc.corpus)
    assert base64.b64decode(back.layout) == b"\x00\x01 window geometry \xff"
    raw = json.loads(path.read_text())
    assert raw["format"] == "bpe-desktop-session" and raw["version"] == VERSION
    assert ("text" in raw["corpus"] and raw["corpus"]["text"] is not None) == embedded


def test_a_session_before_training_and_save_through_a_symlink(tmp_path) -> None:
    doc = SessionDoc(SessionCorpus.from_text("typed text"), TrainConfig())
    (tmp_path / "real.json").write_text("old")
    os.symlink("real.json", tmp_path / "link.json")
    save_session(tmp_path / "link.json", doc)
    assert os.path.islink(tmp_path / "link.json")
    back = load_session(tmp_path / "real.json")
    assert back.model is None and back.records == () and back.step == 0 and back.corpus.text == "typed text"


def test_newer_version_says_so(tmp_path) -> None:
    path = tmp_path / "s.json"
    save_session(path, _session(tmp_path))
    raw = json.loads(path.read_text())
    raw.update(version=VERSION + 1, saved_by="bpe-desktop 9.0.0")
    path.write_text(json.dumps(raw))
    with pytest.raises(SessionError, match=r"saved by a newer bpe-desktop 9\.0\.0.*update bpe-desktop"):
        load_session(path)


def _set(doc: dict[str, Any], where: tuple[Any, ...], value: Any) -> None:
    for key in where[:-1]:
        doc = doc[key]
    if value is KeyError:
        del doc[where[-1]]
    else:
        doc[where[-1]] = value


@pytest.mark.parametrize("where,value", [
    (("format",), "bpe-desktop"), (("version",), "1"), (("version",), 0), (("step",), -1), (("step",), 26),
    (("step",), 2.5), (("compare",), "cl100k"), (("compare",), [3]), (("layout",), "not base64!"),
    (("layout",), None), (("corpus",), KeyError), (("corpus", "files"), None),
    (("corpus", "files", 0, "sha256"), "xyz"), (("corpus", "files", 0, "size"), -3),
    (("corpus", "files", 0, "path"), 5), (("corpus", "files", 0, "extra"), 1), (("corpus", "text"), "both"),
    (("corpus", "word_counts"), "yes"), (("corpus", "encoding_errors"), "lenient"),
    (("settings", "mode"), "words"), (("settings", "merges"), "25"), (("settings", "pretokenizer"), "(a"),
    (("settings", "specials"), "ab"), (("settings", "evil"), "__import__('os')"),
    (("settings", "min_frequency"), 0), (("tokenizer", "merges"), [["a"]]),
    (("tokenizer", "settings", "pretokenizer"), 5), (("tokenizer", "stats", "count", 0), "9"),
    (("tokenizer", "stats", "rank", 3), 9), (("tokenizer", "stats"), [{"rank": 1}]),
    (("tokenizer", "stats", "contenders", 0), [["a", "b"]]), (("tokenizer",), []),
])
def test_tampered_documents_are_one_clear_error(tmp_path, where: tuple[Any, ...], value: Any) -> None:
    path = tmp_path / "s.json"
    save_session(path, _session(tmp_path))
    raw = json.loads(path.read_text())
    _set(raw, where, value)
    path.write_text(json.dumps(raw))
    with pytest.raises(SessionError) as err:
        load_session(path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize("text", ["", "   ", "{", "[1, 2]", '{"format": "bpe-desktop"}', "\"pickle\""])
def test_not_a_session(text: str) -> None:
    with pytest.raises(SessionError):
        loads_session(text, "s.json")


def test_not_utf8(tmp_path) -> None:
    (tmp_path / "s.json").write_bytes(b"\x80\x81")
    with pytest.raises(SessionError, match="UTF-8"):
        load_session(tmp_path / "s.json")


def test_corpus_changed_or_vanished(tmp_path) -> None:
    doc = load_session(_saved(tmp_path))
    corpus_file = tmp_path / "corpus.txt"
    assert [c.state for c in check_corpus(doc.corpus)] == [CorpusState.UNCHANGED]
    st = os.stat(corpus_file)
    os.utime(corpus_file, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))  # touched only
    assert [c.state for c in check_corpus(doc.corpus)] == [CorpusState.TOUCHED]
    data = bytearray(corpus_file.read_bytes())
    data[0:3] = b"LOW"  # same size, different content
    corpus_file.write_bytes(bytes(data))
    changed = check_corpus(doc.corpus)
    assert changed[0].state is CorpusState.CHANGED and "same size" in changed[0].message
    corpus_file.write_text("more text")
    assert check_corpus(doc.corpus)[0].state is CorpusState.CHANGED
    corpus_file.unlink()
    gone = check_corpus(doc.corpus)[0]
    assert gone.state is CorpusState.MISSING and str(corpus_file) in gone.message
    embedded = SessionCorpus.from_text("typed")
    assert check_corpus(embedded)[0].state is CorpusState.EMBEDDED


def test_same_size_and_mtime_is_trusted_unless_asked_to_hash(tmp_path) -> None:
    doc = load_session(_saved(tmp_path))
    corpus_file = tmp_path / "corpus.txt"
    st = os.stat(corpus_file)
    data = bytearray(corpus_file.read_bytes())
    data[0:3] = b"LOW"
    corpus_file.write_bytes(bytes(data))
    os.utime(corpus_file, ns=(st.st_atime_ns, st.st_mtime_ns))  # content changed behind the mtime's back
    assert check_corpus(doc.corpus)[0].state is CorpusState.UNCHANGED
    assert check_corpus(doc.corpus, always_hash=True)[0].state is CorpusState.CHANGED


def _saved(tmp_path) -> str:
    path = str(tmp_path / "s.json")
    save_session(path, _session(tmp_path))
    return path
