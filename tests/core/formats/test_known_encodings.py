"""Issue 23: the well-known rank files, bundled and recognised, checked against tiktoken itself.

The oracle is tiktoken's own definition of each encoding (``tiktoken_ext.openai_public``: pattern, special
tokens, expected hash), with its ``load_tiktoken_bpe`` pointed at a local copy of the bundled file, so
nothing is fetched and tiktoken checks the file's hash itself.  Texts: standard-library sources,
``pydoc_data.topics``, the bundled samples, multilingual text with emoji and combining marks, hypothesis.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import inspect
import lzma
import os
import re
import sys
from functools import cache
from pathlib import Path

import pytest
import tiktoken
import tiktoken.load
import tiktoken_ext.openai_public as openai_public
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core.errors import FormatError, PretokenizerNeeded
from bpe_desktop.core.formats import load, load_tokenizer
from bpe_desktop.core.formats.presets import KNOWN, PRESETS, bundled_data, bundled_path
from support import ASSIGNED_CHARS, ROOT

NAMES = {"gpt2": "r50k_base", "p50k": "p50k_base", "cl100k": "cl100k_base", "o200k": "o200k_base"}

MULTILINGUAL = (
    "Grüße, naïve café — e\u0301 a\u0308 n\u0303 (combining marks); Ελληνικά; Русский; 日本語のテキスト; 中文; "
    "한국어; हिन्दी; العربية; עברית\n🤖🔋 👩‍🔬 🧑🏽‍🚀 🏳️‍🌈 👍🏿 🇯🇵 \t\r\n  tabs\tand   spaces  \n\n\n 123456789 3.14159 "
    "don't WE'LL it's I'M you're 'quoted'\u00a0nbsp\u2028line sep\u3000ideographic space"
)


def _local_file(tmp_dir: Path, preset_name: str) -> str:
    path = tmp_dir / f"{NAMES[preset_name]}.tiktoken"
    if not path.exists():
        path.write_bytes(bundled_data(PRESETS[preset_name]))
    return str(path)


@cache
def _ours(name: str):  # one load per name for the hypothesis tests (each load reads the .xz)
    return load_tokenizer(name)


@cache
def _oracle(preset_name: str, folder: str) -> tiktoken.Encoding:
    """tiktoken's own encoding, its ranks read from the local copy (tiktoken checks the expected hash)."""
    local = _local_file(Path(folder), preset_name)
    real = tiktoken.load.load_tiktoken_bpe

    def from_local(_url: str, expected_hash: str | None = None) -> dict[bytes, int]:
        return real(local, expected_hash=expected_hash)

    saved = openai_public.load_tiktoken_bpe
    openai_public.load_tiktoken_bpe = from_local
    try:
        definition = getattr(openai_public, NAMES[preset_name])()
    finally:
        openai_public.load_tiktoken_bpe = saved
    return tiktoken.Encoding(**definition)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("encodings"))


def _texts() -> list[str]:
    import pydoc_data.topics as topics

    stdlib = Path(os.__file__).parent
    sources = [(stdlib / f).read_text(encoding="utf-8") for f in ("textwrap.py", "json/decoder.py")]
    docs = "\n\n".join(topics.topics.values())[:60_000]
    samples = [p.read_text(encoding="utf-8")[:20_000] for p in sorted((Path(ROOT) / "resources/samples").glob("*.txt"))]
    return [*sources, docs, *samples, MULTILINGUAL]


def test_the_bundled_files_are_tiktokens_by_its_own_hashes() -> None:
    src = inspect.getsource(openai_public)
    for preset in KNOWN:
        body = src[src.index(f"def {preset.encoding}():"):]
        expected = re.search(r'expected_hash="([0-9a-f]{64})"', body)
        assert expected and expected.group(1) == preset.sha256
        assert hashlib.sha256(bundled_data(preset)).hexdigest() == preset.sha256
    assert sum(os.path.getsize(bundled_path(p)) for p in KNOWN if p.name != "p50k") < 2_100_000  # stays small


@pytest.mark.parametrize("name", list(NAMES))
def test_ids_equal_tiktoken_on_real_text(name: str, folder: str) -> None:
    enc = _oracle(name, folder)
    tok = load_tokenizer(name)
    assert tok.special_tokens == enc._special_tokens
    assert tok.n_vocab == enc.n_vocab
    for text in _texts():
        assert tok.encode(text) == enc.encode(text)
    mixed = "a<|endoftext|>b" + "".join(enc._special_tokens) + MULTILINGUAL
    assert tok.encode(mixed, allowed_special="all") == enc.encode(mixed, allowed_special="all")
    assert tok.decode(enc.encode(MULTILINGUAL)) == enc.decode(enc.encode(MULTILINGUAL))


def test_o200k_endoftext_is_199999_from_a_file_too(folder: str) -> None:
    path = _local_file(Path(folder), "o200k")
    for spec in ("o200k", path, f"o200k:{path}"):
        tok = load_tokenizer(spec)
        assert tok.special_tokens == {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}
        assert tok.encode("<|endoftext|>", allowed_special={"<|endoftext|>"}) == [199999]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(ASSIGNED_CHARS, max_size=80))
def test_hypothesis_texts_equal_tiktoken(text: str, folder: str) -> None:
    for name in ("cl100k", "o200k", "gpt2"):
        assert _ours(name).encode_ordinary(text) == _oracle(name, folder).encode_ordinary(text)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=40) | st.text(ASSIGNED_CHARS, max_size=20).map(lambda s: s.encode() + b"\xff\xc3"))
def test_bytes_encode_as_tiktokens_encode_bytes(data: bytes, folder: str) -> None:
    for name in ("cl100k", "o200k"):
        assert _ours(name).encode_bytes(data) == _oracle(name, folder)._encode_bytes(data)


def test_known_files_are_recognised_by_checksum_whatever_their_name(tmp_path: Path, folder: str) -> None:
    data = bundled_data(PRESETS["cl100k"])
    (tmp_path / "weights.bin").write_bytes(data)
    (tmp_path / "c.tiktoken.gz").write_bytes(gzip.compress(data))
    (tmp_path / "c.tiktoken.xz").write_bytes(lzma.compress(data))
    (tmp_path / "crlf.tiktoken").write_bytes(data.replace(b"\n", b"\r\n"))  # same ranks, other bytes
    want = _oracle("cl100k", folder).encode(MULTILINGUAL)
    for f in ("weights.bin", "c.tiktoken.gz", "c.tiktoken.xz", "crlf.tiktoken"):
        tok = load_tokenizer(str(tmp_path / f))
        assert tok.special_tokens["<|endoftext|>"] == 100257 and tok.encode(MULTILINGUAL) == want, f


def test_an_unknown_rank_file_is_never_guessed(tmp_path: Path, folder: str) -> None:
    lines = bundled_data(PRESETS["o200k"]).splitlines(keepends=True)
    edited = tmp_path / "edited.tiktoken"
    edited.write_bytes(b"".join(lines[:-1]))  # o200k less its last rank: no known encoding
    with pytest.raises(PretokenizerNeeded, match="--pretokenizer"):
        load(str(edited))
    tok = load_tokenizer(str(edited), pretokenizer="o200k", specials={"<|endoftext|>": 199999})
    enc = tiktoken.Encoding("edited", pat_str=_oracle("o200k", folder)._pat_str,
                            mergeable_ranks=tiktoken.load.load_tiktoken_bpe(str(edited)),
                            special_tokens={"<|endoftext|>": 199999})
    text = MULTILINGUAL + "<|endoftext|>"
    assert tok.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")


def test_special_ids_are_given_or_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.tiktoken"
    path.write_bytes(b"".join(base64.b64encode(bytes([b])) + b" %d\n" % b for b in range(256)))
    tok = load_tokenizer(str(path), pretokenizer="gpt2", specials={"<|a|>": 300, "<|b|>": None})
    assert tok.special_tokens == {"<|a|>": 300, "<|b|>": 301}
    with pytest.raises(FormatError, match="ordinary token's rank"):
        load(str(path), pretokenizer="gpt2", specials={"<|a|>": 65})
    with pytest.raises(FormatError, match=re.escape("already '<|a|>'")):
        load(str(path), pretokenizer="gpt2", specials={"<|a|>": 300, "<|b|>": 300})
    assert load_tokenizer("cl100k", specials={"<|endoftext|>": 100300}).special_tokens["<|endoftext|>"] == 100300


def test_preset_prefixes(tmp_path: Path, folder: str) -> None:
    o200k = _local_file(Path(folder), "o200k")
    assert load(f"o200k:{o200k}").tokenizer.pretokenizer.name == "o200k"
    with pytest.raises(FormatError, match="o200k_base's rank file, not cl100k_base's"):
        load(f"cl100k:{o200k}")
    with pytest.raises(FormatError, match="'o300k' is not a preset") as e:
        load(f"o300k:{o200k}")
    assert "no such file" not in str(e.value)


def _whisper_like(tmp_path: Path) -> Path:
    """r50k's ranks with the empty token as the last rank, as Whisper's multilingual.tiktoken ends."""
    path = tmp_path / "multilingual.tiktoken"
    path.write_bytes(bundled_data(PRESETS["gpt2"]) + b"= 50256\n")
    return path


def test_a_last_rank_that_is_no_merge(tmp_path: Path, folder: str) -> None:
    path = _whisper_like(tmp_path)
    tok = load_tokenizer(str(path), pretokenizer="gpt2")
    enc = tiktoken.Encoding("w", pat_str=_oracle("gpt2", folder)._pat_str,
                            mergeable_ranks=tiktoken.load.load_tiktoken_bpe(str(path)), special_tokens={})
    assert tok.encode(MULTILINGUAL) == enc.encode(MULTILINGUAL)
    assert len(tok.model.merges) == 50000 and tok.outside_merges == [50256]
    bad = tmp_path / "bad.tiktoken"
    lines = bundled_data(PRESETS["gpt2"]).splitlines(keepends=True)
    bad.write_bytes(b"".join(lines[:-1]) + b"= 50255\n" + lines[-1].replace(b"50255", b"50256"))
    with pytest.raises(FormatError, match="not the merge of two tokens of lower rank, but rank 50256 is"):
        _ = load_tokenizer(str(bad), pretokenizer="gpt2").model


def test_o200k_merge_list_is_recovered(folder: str) -> None:
    tok = load_tokenizer("o200k")
    model = tok.model
    assert len(model.merges) == 199998 - 256 and tok.outside_merges == []
    assert model.tokens[199997] == _oracle("o200k", folder).decode_single_token_bytes(199997)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))


def test_damaged_compressed_files_are_one_clear_error(tmp_path: Path) -> None:
    data = gzip.compress(bundled_data(PRESETS["gpt2"]))
    cases = {
        "cut.tiktoken.gz": data[: len(data) // 2],
        "garbage.tiktoken.gz": data[:10] + b"\x00" * 200,
        "garbage.tiktoken.xz": b"\xfd7zXZ\x00" + b"\x01" * 100,
        "garbage.tiktoken.bz2": b"BZh9" + b"\x02" * 100,
        "merges.txt.xz": lzma.compress(b"#version: 0.2\nl o\n"),  # another format xz-compressed: refused by name
        "merges.txt.gz": gzip.compress(b"#version: 0.2\nl o\n")[:-9],  # a gzipped text format, cut short
    }
    for name, content in cases.items():
        (tmp_path / name).write_bytes(content)
        with pytest.raises(FormatError) as e:
            load(str(tmp_path / name), pretokenizer="gpt2")
        assert str(e.value).startswith(str(tmp_path / name)) and "\n" not in str(e.value), name
