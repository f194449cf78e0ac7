"""Issue 26, items 2 and 5 (core half): the whole session document is checked before any of it is used.

Settings beyond what the window holds (2**31 gave OverflowError in the window), runs that branch from
themselves or round a cycle (TypeError), a NUL in a path (ValueError), a byte order mark (was "not valid
JSON"), counts out of range, wrong types and deep nesting are each one SessionError naming the field;
file names that are not UTF-8 are stored losslessly.  A hypothesis suite mutates valid documents: every
result is a document that saves and reads back the same, or a SessionError -- never another exception.
"""

from __future__ import annotations

import copy
import json
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig
from bpe_desktop.core.errors import SessionError
from bpe_desktop.core.formats import json_text
from bpe_desktop.core.formats.session_check import LIMITS, MAX_DEPTH
from bpe_desktop.core.formats.session_file import (
    CorpusFile,
    CorpusState,
    RunDoc,
    SessionCorpus,
    SessionDoc,
    check_corpus,
    dumps_session,
    load_session,
    loads_session,
    save_session,
)
from bpe_desktop.core.stopping import StopReason
from bpe_desktop.core.training.trainer import train
from support import json_paths

TABLE = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
TEXT = "\n".join(f"{w} {c}" for w, c in TABLE.items())


def _doc() -> SessionDoc:
    cfg = TrainConfig(merges=6)
    model, recs = train(TABLE, cfg)
    runs = (RunDoc("first", cfg, model, tuple(recs), 6, StopReason.MERGES, "reached 6 merges"),
            RunDoc("second", cfg, model, tuple(recs), 2, StopReason.MERGES, "", parent=0, branch_step=2),
            RunDoc("third", cfg, None, (), 0, parent=1, branch_step=0))
    return SessionDoc(SessionCorpus.from_text(TEXT, word_counts=True), cfg, model, tuple(recs), 4,
                      ("cl100k:/x/cl100k_base.tiktoken",), "", runs=runs, current_run=0)


VALID = json.loads(dumps_session(_doc()))


def _refused(raw: Any, *words: str) -> str:
    with pytest.raises(SessionError) as e:
        loads_session(raw if isinstance(raw, str) else json.dumps(raw), "s.bpesession")
    text = str(e.value)
    assert text.startswith("s.bpesession") and " -- " in text and "\n" not in text, text
    for w in words:
        assert w in text, (w, text)
    return text


def _with(change) -> dict[str, Any]:
    raw = copy.deepcopy(VALID)
    change(raw)
    return raw


@pytest.mark.parametrize("name", sorted(LIMITS))
@pytest.mark.parametrize("value", [2**31, 2**63, 10**100])
def test_settings_beyond_what_the_window_holds_are_refused_naming_the_field(name: str, value: int) -> None:
    _refused(_with(lambda r: r["settings"].update({name: value})), f"settings.{name}", "lower it")
    _refused(_with(lambda r: r["runs"][1]["settings"].update({name: value})), "run 2", f"settings.{name}")
    _refused(_with(lambda r: r["settings"].update({name: LIMITS[name] + 1})), f"settings.{name}")
    ok = loads_session(json.dumps(_with(lambda r: r["settings"].update({name: LIMITS[name]}))))
    assert getattr(ok.config, name) == LIMITS[name]  # the limit itself is accepted exactly


@pytest.mark.parametrize("parents,words", [
    ((0, None, 1), "run 1 names itself"),
    ((None, 1, 1), "run 2 names itself"),
    ((1, 0, None), "cycle (runs 1 -> 2)"),
    ((2, 0, 1), "cycle (runs 1 -> 2 -> 3)"),
    ((None, 0, 7), "run 3: no run 7"),
    ((None, -1, 1), "parent is -1"),
    ((None, True, 1), "parent must be a whole number"),
])
def test_runs_branching_from_themselves_or_in_a_cycle_are_refused(parents: tuple[Any, ...], words: str) -> None:
    def change(r: dict[str, Any]) -> None:
        for run, p in zip(r["runs"], parents, strict=True):
            run["parent"] = p
            run["branch_step"] = 0
    _refused(_with(change), words)


def test_a_branch_without_its_step_is_refused() -> None:
    _refused(_with(lambda r: r["runs"][1].update(branch_step=None)), "run 2 branched from run 1", "branch_step")


def test_a_document_with_a_cycle_is_not_written_either() -> None:
    doc = _doc()
    runs = (doc.runs[0].__class__(**{**doc.runs[0].__dict__, "parent": 1, "branch_step": 0}), *doc.runs[1:])
    with pytest.raises(SessionError, match="cycle"):
        dumps_session(SessionDoc(doc.corpus, doc.config, doc.model, doc.records, doc.step, runs=runs))


@pytest.mark.parametrize("where", ["corpus", "compare", "run corpus"])
def test_a_nul_in_a_path_is_refused_naming_it(where: str) -> None:
    bad = "/tmp/a\x00b.txt"
    entry = {"path": bad, "size": 1, "mtime_ns": 1, "sha256": "0" * 64}

    def change(r: dict[str, Any]) -> None:
        if where == "compare":
            r["compare"] = ["cl100k:" + bad]
        elif where == "corpus":
            r["corpus"].update(files=[entry], text=None)
        else:
            r["runs"][2]["corpus"] = {"files": [entry], "text": None, "word_counts": False}
    _refused(_with(change), "NUL byte", "compare[0]" if where == "compare" else "corpus.files[0].path")
    # and the corpus check itself never raises on one
    check = check_corpus(SessionCorpus((CorpusFile(bad, 1, 1, "0" * 64),)))
    assert [c.state for c in check] == [CorpusState.MISSING]


def test_a_utf8_byte_order_mark_is_accepted(tmp_path) -> None:
    path = tmp_path / "bom.bpesession"
    path.write_bytes(b"\xef\xbb\xbf" + dumps_session(_doc()).encode("utf-8"))
    back = load_session(path)
    assert back.records == _doc().records and back.step == 4 and len(back.runs) == 3
    assert loads_session("\ufeff" + dumps_session(_doc())).step == 4


@pytest.mark.parametrize("change,words", [
    (lambda r: r.update(step=-1), "step is -1"),
    (lambda r: r.update(step=2**64), "step is"),
    (lambda r: r["tokenizer"]["stats"]["count"].__setitem__(0, -5), "record 1: count is -5"),
    (lambda r: r["tokenizer"]["stats"]["count"].__setitem__(0, 2**63), "record 1: count"),
    (lambda r: r["tokenizer"]["stats"]["merged"].__setitem__(2, True), "stats.merged[2]"),
    (lambda r: r["settings"].update(min_frequency=0), "settings.min_frequency is 0"),
    (lambda r: r["settings"].update(merges=-3), "settings.merges is -3"),
    (lambda r: r["settings"].update(merges=2.0), "settings.merges must be a whole number"),
    (lambda r: r["settings"].update(glue_marker="yes"), "settings.glue_marker"),
    (lambda r: r["settings"].update(forbid=5), "settings.forbid"),
    (lambda r: r["settings"].update(forbid_regex=3), "settings.forbid_regex"),
    (lambda r: r["settings"].update(specials=[1]), "settings.specials"),
    (lambda r: r["runs"][2].update(corpus=0), ("run 3", "corpus must be an object")),
    (lambda r: r["runs"][0].update(step=2**40), "run 1: the step"),
    (lambda r: r.update(compare=[""]), "compare[0]"),
    (lambda r: r.update(compare="x"), "compare must be a list"),
    (lambda r: r["runs"][0]["tokenizer"].update(stats=None), ("run 1", "merges but no records")),
])
def test_out_of_range_and_wrong_types_name_the_field(change, words: str | tuple[str, ...]) -> None:
    _refused(_with(change), *((words,) if isinstance(words, str) else words))


def _nest(levels: int) -> Any:
    value: Any = "deep"
    for _ in range(levels):
        value = [value]
    return value


def test_deep_nesting_is_refused_without_a_recursion_error() -> None:
    _refused(_with(lambda r: r.update(extras={"x": _nest(MAX_DEPTH)})), f"more than {MAX_DEPTH} levels")
    deep = json.dumps(_with(lambda r: r.update(extras={"x": "@"}))).replace('"@"', "[" * 200_000 + "]" * 200_000)
    _refused(deep, "nested too deeply")
    assert loads_session(json.dumps(_with(lambda r: r.update(extras={"x": _nest(8)})))).extras["x"] == _nest(8)


NAMES = [b"caf\xe9.txt", b"\xff\xfe corpus", "日本語.txt".encode(), b"a\\u00e9.txt", b"\xed\xa0\x80.txt"]


@pytest.mark.parametrize("name", NAMES)
def test_file_names_that_are_not_utf8_are_stored_losslessly(tmp_path, name: bytes) -> None:
    folder = os.fsencode(tmp_path)
    try:
        real = os.path.join(folder, name)
        with open(real, "wb") as f:
            f.write(TEXT.encode())
    except (OSError, UnicodeError):
        pytest.skip("this file system does not take that name")
    path = os.fsdecode(real)
    corpus = SessionCorpus.from_files([path], word_counts=True)
    doc = SessionDoc(corpus, TrainConfig(merges=6), compare=(f"cl100k:{path}",),
                     runs=(RunDoc("one", TrainConfig(merges=6), corpus=corpus),))
    target = tmp_path / "s.bpesession"
    save_session(target, doc)
    data = target.read_bytes()
    data.decode("utf-8")  # the file itself is plain UTF-8
    back = load_session(target)
    assert os.fsencode(back.corpus.files[0].path) == real
    assert os.fsencode(back.compare[0][len("cl100k:"):]) == real
    assert back.runs[0].corpus is not None and os.fsencode(back.runs[0].corpus.files[0].path) == real
    assert [c.state for c in check_corpus(back.corpus)] == [CorpusState.UNCHANGED]
    assert dumps_session(back) == data.decode("utf-8")  # and reads back to the very same document


# -- fuzz: valid documents mutated -------------------------------------------------------------------------
def _paths(raw: Any) -> list[tuple[Any, ...]]:
    return json_paths(raw, 3)


SPOTS = _paths(VALID)[1:]
HOSTILE = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70), st.sampled_from([2**31, 2**31 - 1, 2**63, -1, 0, 1]),
    st.none(), st.booleans(), st.floats(allow_nan=True), st.text(max_size=8),
    st.sampled_from(["\x00", "/tmp/a\x00b", "\udcff.txt", "\ufeff", "", "../../etc/passwd", "cl100k:\x00"]),
    st.lists(st.integers(-2, 3), max_size=3), st.builds(_nest, st.integers(1, MAX_DEPTH + 4)),
    st.dictionaries(st.sampled_from(["a", "path", "parent"]), st.integers(-1, 3), max_size=2),
)


def _put(raw: Any, where: tuple[Any, ...], value: Any) -> None:
    for k in where[:-1]:
        raw = raw[k]
    raw[where[-1]] = value


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(SPOTS), HOSTILE), min_size=1, max_size=4),
       st.sampled_from(["plain", "bom", "ascii"]))
def test_fuzz_mutated_documents_load_exactly_or_are_one_session_error(mutations, encoding: str) -> None:
    raw = copy.deepcopy(VALID)
    for where, value in mutations:
        try:
            _put(raw, where, value)
        except (TypeError, IndexError, KeyError):
            pass  # an earlier mutation replaced the container
    text = json_text.dumps(raw) if encoding != "ascii" else json.dumps(raw)
    if encoding == "bom":
        text = "\ufeff" + text
    try:
        doc = loads_session(text, "fuzz.bpesession")
    except SessionError as e:
        assert str(e).startswith("fuzz.bpesession") and "\n" not in str(e)
        return
    again = loads_session(dumps_session(doc))  # what loads is exact: it saves and reads back the same
    assert (again.config, again.step, again.compare, again.records, again.corpus, again.extras) == (
        doc.config, doc.step, doc.compare, doc.records, doc.corpus, doc.extras)
    assert [(r.parent, r.branch_step, r.step, r.config) for r in again.runs] == [
        (r.parent, r.branch_step, r.step, r.config) for r in doc.runs]
