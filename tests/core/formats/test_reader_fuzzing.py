"""Issue 10, item 4 (core half): every reader validates fully; only BpeError ever escapes.

Hand-made malformed files for the reported cases, then Hypothesis mutating *valid* exported files of
every readable format (JSON values, types and keys; lines; bytes) and reading them back through the
public :func:`load` (format detection included) and encoding with the result.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig, train
from bpe_desktop.core.errors import BpeError, FormatError
from bpe_desktop.core.formats import load, save_model
from support import ROOT as REPO

ROOT = str(REPO)
WORDS = {"low": 5, "lower": 2, "newest": 6, "widest": 3, "hello": 4, "héllo": 2}
CHARS, CHARS_RECORDS = train(WORDS, TrainConfig(merges=12, glue_marker=True))
BYTES, BYTES_RECORDS = train(WORDS, TrainConfig(mode="bytes", pretokenizer="gpt2", merges=12))


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bpe_desktop", *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": ROOT})


def exported(folder: str) -> dict[str, str]:
    """One valid file (or GPT-2 folder) per readable format."""
    paths = {
        "native": (CHARS, CHARS_RECORDS, "native", "n.json"),
        "native-bytes": (BYTES, BYTES_RECORDS, "native", "nb.json"),
        "hf": (CHARS, None, "hf", "hf.json"),
        "hf-bytes": (BYTES, None, "hf", "hfb.json"),
        "gpt2": (BYTES, None, "gpt2", "g2"),
        "subword-nmt": (CHARS, None, "subword-nmt", "codes.txt"),
        "tiktoken": (BYTES, None, "tiktoken", "t.tiktoken"),
    }
    out = {}
    for name, (model, records, fmt, file) in paths.items():
        save_model(model, os.path.join(folder, file), fmt, records)
        out[name] = os.path.join(folder, file)
    return out


def test_empty_and_blank_files_are_refused(tmp_path) -> None:
    for content in (b"", b"\n\n  \n", b"\xef\xbb\xbf"):
        (tmp_path / "e.txt").write_bytes(content)
        with pytest.raises(FormatError, match="empty"):
            load(str(tmp_path / "e.txt"))
    r = cli("encode", "--tokenizer", str(tmp_path / "e.txt"), "hi")
    assert r.returncode == 2 and "empty" in r.stderr and "Traceback" not in r.stderr


def test_tiktoken_without_the_single_byte_ranks(tmp_path) -> None:
    ranks = b"".join(base64.b64encode(t) + b" %d\n" % i for i, t in enumerate([b"ab", b"cd", b"abcd"]))
    (tmp_path / "r.tiktoken").write_bytes(ranks)
    with pytest.raises(FormatError, match="256 single bytes"):
        load(str(tmp_path / "r.tiktoken"))
    r = cli("encode", "--tokenizer", str(tmp_path / "r.tiktoken"), "--ids", "abcd")
    assert r.returncode == 2 and "256 single bytes" in r.stderr and "Traceback" not in r.stderr
    full = b"".join(base64.b64encode(bytes([b])) + b" %d\n" % b for b in range(256))
    (tmp_path / "gap.tiktoken").write_bytes(full + base64.b64encode(b"ab") + b" %d\n" % (1 << 20))
    with pytest.raises(FormatError, match="highest rank is 1048576 but there are only 257 tokens"):
        load(str(tmp_path / "gap.tiktoken"), pretokenizer="gpt2")
    (tmp_path / "gap.tiktoken").write_bytes(full + base64.b64encode(b"ab") + b" 400\n")  # gaps: as tiktoken
    assert load(str(tmp_path / "gap.tiktoken"), pretokenizer="gpt2").tokenizer.encode("abab") == [400, 400]


@pytest.mark.parametrize("field,value", [
    ("pretokenizer", 5), ("pretokenizer", ["gpt2"]), ("end_of_word", 7), ("end_of_word", ["</w>"]),
    ("specials", [1]), ("specials", [""]), ("mode", None), ("tie_break", 3),
])
def test_native_with_a_wrong_type_is_one_clear_error(tmp_path, field: str, value: Any) -> None:
    path = exported(str(tmp_path))["native"]
    doc = json.load(open(path))
    doc["settings"][field] = value
    json.dump(doc, open(path, "w"))
    with pytest.raises(BpeError):
        load(path)
    r = cli("encode", "--tokenizer", path, "low")
    assert r.returncode == 2 and "Traceback" not in r.stderr and path in r.stderr


@pytest.mark.parametrize("where,value", [
    (("model", "end_of_word_suffix"), ["</w>"]), (("model", "vocab"), ["a"]), (("model", "merges"), {"a": 1}),
    (("added_tokens",), [{"id": "x", "content": "<s>"}]), (("added_tokens",), [{"id": 3}]),
    (("pre_tokenizer",), {"type": "Split", "pattern": {"Regex": 5}}), (("model", "type"), 3),
])
def test_hf_with_wrong_types(tmp_path, where: tuple[str, ...], value: Any) -> None:
    path = exported(str(tmp_path))["hf"]
    doc = json.load(open(path))
    node = doc
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    json.dump(doc, open(path, "w"))
    with pytest.raises(BpeError):
        load(path)


def test_gpt2_and_subword_nmt_with_wrong_shapes(tmp_path) -> None:
    files = exported(str(tmp_path))
    enc = os.path.join(files["gpt2"], "encoder.json")
    json.dump(["not", "a", "dict"], open(enc, "w"))
    with pytest.raises(BpeError, match=r"encoder\.json"):
        load(files["gpt2"])
    with open(files["subword-nmt"], "a") as f:
        f.write("a b c\n")
    with pytest.raises(FormatError, match="line"):
        load(files["subword-nmt"])


# -- fuzzing mutated valid files -------------------------------------------------------------------
JUNK = [None, 0, -1, 5, 1.5, True, "", "x", "Ġ", "</w>", [], {}, [1, 2], ["a"], [["a", "b", "c"]], {"a": 1},
        "(a", "\\p{L}+", 2**70]
LINE_JUNK = ["", "a", "a b c", "x y", "Ġ Ġ", "#version: 0.2", "#version: 9", "é b", "YQ== -1", "YQ== 0",
             "!!! 3", "a  b", "\t", "\x00 \x00"]

ops = st.lists(st.tuples(st.integers(0, 2**31), st.integers(0, 5), st.sampled_from(range(len(JUNK)))),
               min_size=1, max_size=4)


def _mutate_json(node: Any, path_seed: int, op: int, junk: Any) -> Any:
    """Walk down from *node* by *path_seed* and delete / replace / retype / add a key there."""
    if isinstance(node, (dict, list)) and node and path_seed % 4:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        k = keys[path_seed % len(keys)]
        child = _mutate_json(node[k], path_seed // 4, op, junk)
        if child is _DELETE:
            del node[k]
        else:
            node[k] = child
        return node
    if op == 0:
        return _DELETE
    if op == 1 and isinstance(node, dict):
        node["extra"] = junk
        return node
    if op == 2 and isinstance(node, list):
        return node + node[:1]  # a repeated entry
    if op == 3 and isinstance(node, str):
        return node + "\ufffd"
    return junk


_DELETE = object()


def _mutate_lines(data: bytes, seed: int, op: int, junk: int) -> bytes:
    lines = data.split(b"\n")
    i = seed % len(lines)
    if op == 0:
        del lines[i]
    elif op == 1:
        lines.insert(i, lines[i])
    elif op == 2:
        lines[i], lines[-1 - i] = lines[-1 - i], lines[i]
    elif op == 3:
        lines[i] = LINE_JUNK[junk % len(LINE_JUNK)].encode()
    elif op == 4 and data:
        b = bytearray(data)
        b[seed % len(b)] = (seed // 7) % 256
        return bytes(b)
    else:
        return data[: seed % (len(data) + 1)]  # cut short
    return b"\n".join(lines)


@pytest.fixture(scope="module")
def valid(tmp_path_factory) -> dict[str, str]:
    return exported(str(tmp_path_factory.mktemp("valid")))


def _only_bpe_errors(path: str) -> None:
    try:
        loaded = load(path)
        tok = loaded.tokenizer
        tok.encode("hello lower newest widest héllo", upto=5)
        tok.encode_with_offsets("low lower")
        loaded.model.merge_pairs_text()
    except BpeError:
        pass


@pytest.mark.parametrize("fmt", ["native", "native-bytes", "hf", "hf-bytes", "gpt2"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutations=ops, as_text=st.booleans())
def test_fuzz_json_formats(valid, tmp_path, fmt: str, mutations, as_text: bool) -> None:
    src = valid[fmt]
    if fmt == "gpt2":
        target = str(tmp_path / "g")
        os.makedirs(target, exist_ok=True)
        vocab = open(os.path.join(src, "encoder.json"), "rb").read()
        merges = open(os.path.join(src, "vocab.bpe"), "rb").read()
        for seed, op, junk in mutations:
            if seed % 2:
                merges = _mutate_lines(merges, seed // 2, op, junk)
            else:
                doc = _mutate_json(json.loads(vocab), seed // 2, op, JUNK[junk])
                vocab = json.dumps(None if doc is _DELETE else doc).encode()
        open(os.path.join(target, "encoder.json"), "wb").write(vocab)
        open(os.path.join(target, "vocab.bpe"), "wb").write(merges)
    else:
        target = str(tmp_path / os.path.basename(src))
        data = open(src, "rb").read()
        for seed, op, junk in mutations:
            if as_text:
                data = _mutate_lines(data, seed, op, junk)
            else:
                doc = _mutate_json(json.loads(data), seed, op, JUNK[junk])
                data = json.dumps(None if doc is _DELETE else doc).encode()
        open(target, "wb").write(data)
    _only_bpe_errors(target)


@pytest.mark.parametrize("fmt", ["subword-nmt", "tiktoken", "native", "hf"])
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutations=st.lists(st.tuples(st.integers(0, 2**31), st.integers(0, 5), st.integers(0, 100)),
                          min_size=1, max_size=5))
def test_fuzz_line_and_byte_mutations(valid, tmp_path, fmt: str, mutations) -> None:
    data = open(valid[fmt], "rb").read()
    for seed, op, junk in mutations:
        data = _mutate_lines(data, seed, op, junk)
    target = str(tmp_path / os.path.basename(valid[fmt]))
    open(target, "wb").write(data)
    _only_bpe_errors(target)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300))
def test_fuzz_random_bytes(tmp_path_factory, data: bytes) -> None:
    path = str(tmp_path_factory.mktemp("rb") / "f.txt")
    open(path, "wb").write(data)
    _only_bpe_errors(path)
