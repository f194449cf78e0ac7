"""The native file, version 2 (compact) and version 1 (still read): round trips, schema refusals, and a
structure-aware fuzz of the reader with mutated valid files."""

from __future__ import annotations

import copy
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.cli import main as cli_main
from bpe_desktop.core import TrainConfig, train
from bpe_desktop.core.errors import BpeError, FormatError
from bpe_desktop.core.formats import detect, load, native
from bpe_desktop.core.records import RecordLog
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer

SEED = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


def v1_dumps(model: Any, records: Any) -> str:
    """Version 1 exactly as bpe-desktop wrote it before version 2 (pretty JSON, one stats object per merge)."""
    doc: dict[str, Any] = {
        "format": "bpe-desktop", "version": 1,
        "settings": {"mode": model.mode, "pretokenizer": model.pretokenizer, "end_of_word": model.end_of_word,
                     "glue_marker": model.glue_marker, "specials": list(model.specials),
                     "tie_break": model.tie_break},
        "base": None if model.mode == "bytes" else [str(t) for t in model.base],
        "merges": [[a, b] for a, b in model.merge_pairs_text()],
    }
    if records:
        doc["stats"] = [{k: v for k, v in asdict(r).items() if k not in ("left", "right", "token")}
                        for r in records]
    return json.dumps(doc, ensure_ascii=False, indent=1)


@pytest.fixture(scope="module")
def trained() -> dict[str, Any]:
    chars = train(SEED, TrainConfig(merges=8, specials=("<s>",)))
    text = "hello world, hello there; ünïcödé 123 hello\n" * 3
    from bpe_desktop.core.counting.pieces import count_text
    bcfg = TrainConfig(mode="bytes", pretokenizer="gpt2", merges=12, tie_break="hf")
    bytes_ = train(count_text(text, bcfg).counts, bcfg)
    return {"chars": chars, "bytes": bytes_}


@pytest.mark.parametrize("kind", ["chars", "bytes"])
def test_v2_and_v1_read_back_the_same_model_and_stats(trained, kind, tmp_path: Path) -> None:
    model, records = trained[kind]
    v2 = tmp_path / "v2.json"
    v1 = tmp_path / "v1.json"
    native.save(v2, model, records)
    v1.write_text(v1_dumps(model, records), encoding="utf-8")
    assert json.loads(v2.read_text())["version"] == 2
    assert detect(str(v2)) == detect(str(v1)) == "native"
    m2, s2 = native.load(v2)
    m1, s1 = native.load(v1)
    assert m2.merge_pairs_text() == m1.merge_pairs_text() == model.merge_pairs_text()
    assert (m2.mode, m2.pretokenizer, m2.specials, m2.tie_break) == (model.mode, model.pretokenizer,
                                                                   model.specials, model.tie_break)
    assert s1 == s2
    assert [s["count"] for s in s2] == [r.count for r in records]
    assert [[tuple(c) for c in s["contenders"]] for s in s2] == [list(r.contenders) for r in records]
    # stats read back can be written again (convert native -> native) unchanged
    native.save(tmp_path / "again.json", m1, s1)
    assert native.load(tmp_path / "again.json")[1] == s2
    assert load(str(v1)).tokenizer.encode_ordinary("lowest") == load(str(v2)).tokenizer.encode_ordinary("lowest")


def test_v2_is_compact_one_merge_per_line(trained) -> None:
    model, records = trained["bytes"]
    text = native.dumps(model, records)
    lines = text.splitlines()
    assert sum(1 for ln in lines if ln.startswith('["')) == len(model.merges)
    assert len(text) < len(v1_dumps(model, records)) / 2


@pytest.mark.parametrize("kind", ["chars", "bytes"])
@pytest.mark.parametrize("as_log", [False, True])
def test_the_file_written_a_slice_at_a_time_is_the_one_document(trained, kind, as_log, tmp_path, monkeypatch) -> None:
    """save() writes the stats columns in slices of records (so it never holds the whole text); with slices of
    1 to 5 records, and from a RecordLog, the file is the JSON of the whole columns, byte for byte."""
    model, records = trained[kind]
    whole = native.dumps(model, records)  # slices larger than the run: each column encoded in one piece
    doc = json.loads(whole)
    assert doc["stats"]["count"] == [r.count for r in records]  # the oracle: the records' own fields
    assert doc["stats"]["contenders"] == [[list(c) for c in r.contenders] for r in records]
    for size in (1, 2, 5):
        monkeypatch.setattr(native, "_SLICE", size)
        native.save(tmp_path / "t.json", model, RecordLog(records) if as_log else records)
        assert (tmp_path / "t.json").read_text(encoding="utf-8") == whole
        assert native.dumps(model, records) == whole


def _doc(trained: dict[str, Any], kind: str = "chars") -> dict[str, Any]:
    model, records = trained[kind]
    return json.loads(native.dumps(model, records))


@pytest.mark.parametrize(("path", "value", "named"), [
    (("settings", "pretokenizer"), 5, "settings.pretokenizer"),
    (("settings", "mode"), "words", "settings.mode"),
    (("settings", "glue_marker"), "yes", "settings.glue_marker"),
    (("settings", "specials"), "<s>", "settings.specials"),
    (("settings", "tie_break"), 3, "settings.tie_break"),
    (("settings",), [], "settings"),
    (("base",), None, "base"),
    (("merges",), {"a": "b"}, "merges"),
    (("merges", 0), ["l", 5], "merges[0]"),
    (("stats", "count", 1), "9", "stats.count[1]"),
    (("stats", "count", 1), True, "stats.count[1]"),
    (("stats", "merged"), [1, 2], "stats.merged"),
    (("stats", "contenders", 0), [["a", "b"]], "stats.contenders[0][0]"),
    (("version",), "2", "version"),
    (("settings", "pretokenizer"), "(unclosed", "settings.pretokenizer"),
])
def test_wrong_types_are_refused_naming_the_field(trained, path, value, named) -> None:
    doc = _doc(trained)
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(FormatError) as e:
        native.loads(json.dumps(doc), "t.json")
    msg = str(e.value)
    assert named in msg and "t.json" in msg and " -- " in msg, msg


def test_missing_fields_and_newer_versions_are_named(trained) -> None:
    doc = _doc(trained)
    del doc["settings"]["pretokenizer"]
    with pytest.raises(FormatError, match=r"settings\.pretokenizer is missing"):
        native.loads(json.dumps(doc))
    doc = _doc(trained)
    doc["version"] = 3
    with pytest.raises(FormatError, match=r"version 3 is newer.*update bpe-desktop"):
        native.loads(json.dumps(doc))


def test_cli_reports_a_malformed_native_file_in_one_line(trained, tmp_path: Path, capsys) -> None:
    doc = _doc(trained)
    doc["settings"]["pretokenizer"] = 5
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    assert cli_main(["encode", "--tokenizer", str(bad), "low"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "settings.pretokenizer must be a string, not 5" in err


# -- fuzz: mutate valid documents structurally, then as text --------------------------------------------
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 300) | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node[:4]):
            out += _paths(v, (*prefix, i))
    return out


@st.composite
def mutated_docs(draw: st.DrawFn, base: dict[str, Any]) -> str:
    doc = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(doc) if p]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        key = path[-1]
        action = draw(st.sampled_from(["value", "drop", "rename", "dup"]))
        if action == "value":
            parent[key] = draw(JSON_VALUES)
        elif action == "drop":
            del parent[key]
        elif action == "rename" and isinstance(parent, dict):
            parent[draw(st.text(max_size=6))] = parent.pop(key)
        elif isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
    text = json.dumps(doc, ensure_ascii=False)
    if draw(st.booleans()):
        text = text[: draw(st.integers(0, len(text)))]
    return text


def _check_loads(text: str) -> None:
    try:
        model, stats = native.loads(text)
    except BpeError:
        return
    try:
        Tokenizer(model).encode_ordinary("lowest newer")  # whatever loads must work or refuse clearly
    except BpeError as e:
        assert "alphabet" in str(e), e
    assert all(isinstance(s, dict) for s in stats)


@pytest.mark.parametrize("kind", ["chars", "bytes"])
@pytest.mark.parametrize("version", [1, 2])
def test_fuzz_mutated_valid_files_raise_only_bpe_errors(trained, kind, version) -> None:
    model, records = trained[kind]
    base = json.loads(native.dumps(model, records) if version == 2 else v1_dumps(model, records))

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(text=mutated_docs(base))
    def run(text: str) -> None:
        _check_loads(text)

    run()


@given(token=st.text())
def test_token_strings_are_valid_json_for_any_text(token: str) -> None:
    assert json.loads(native._string(token)) == token
