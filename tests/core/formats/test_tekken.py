"""Mistral's tekken JSON: ids equal to mistral-common's ``Tekkenizer`` on the files its wheel ships and on
small files built here (listed specials, legacy specials, vocabulary truncation); damaged files refused."""

from __future__ import annotations

import importlib.util
import json
import json.decoder
import pydoc_data.topics
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mistral_common.tokens.tokenizers.tekken import Tekkenizer

from bpe_desktop.core.errors import FormatError
from bpe_desktop.core.formats import detect, load
from support import ASSIGNED_CHARS, ROOT


def _data() -> Path:
    spec = importlib.util.find_spec("mistral_common")
    assert spec is not None and spec.submodule_search_locations
    return Path(next(iter(spec.submodule_search_locations))) / "data"


SHIPPED = sorted(_data().glob("tekken*.json"))
SRC = Path(pydoc_data.topics.__file__).read_text()
TEXTS = [SRC[i : i + 500] for i in range(0, 40000, 500)] + [
    Path(json.decoder.__file__).read_text()[:4000],
    (ROOT / "resources" / "samples" / "robotlogs_sample.txt").read_text()[:4000],
    "naïve café 👍🏽 e\u0301 \u00a0 日本語のテキスト Привет 🇫🇷 👨‍👩‍👧", "<s>[INST] not specials [/INST]</s>", "",
    "\n\n  \t",
]


@pytest.fixture(scope="module", params=[p.name for p in SHIPPED])
def shipped(request: pytest.FixtureRequest) -> tuple[Any, Tekkenizer]:
    path = _data() / request.param
    return load(str(path)), Tekkenizer.from_file(path)


def test_shipped_files_have_mistral_commons_ids(shipped: tuple[Any, Tekkenizer]) -> None:
    loaded, mc = shipped
    assert SHIPPED and loaded.fmt == "tekken"
    tok = loaded.tokenizer
    assert tok.n_vocab == mc.n_words
    assert (tok.special_tokens["<s>"], tok.special_tokens["</s>"], tok.special_tokens["<unk>"]) == (
        mc.bos_id, mc.eos_id, mc.unk_id)
    for text in TEXTS:
        ids = mc.encode(text, bos=False, eos=False)
        assert tok.encode(text) == ids
        assert tok.decode(ids) == mc.decode(ids)
        assert [s.id for s in tok.encode_with_offsets(text, allowed_special=())] == ids
    assert [tok.token_bytes(i) for i in ids] == [mc.id_to_byte_piece(i) for i in ids]
    assert tok.encode("<s>x", allowed_special={"<s>"}) == [mc.bos_id, *mc.encode("x", bos=False, eos=False)]


def _small(tmp_path: Path, name: str, *, n_ranks: int, vocab_size: int, n_special: int,
           specials: list[str] | None, version: str = "v3") -> Path:
    src = json.loads(SHIPPED[0].read_text())
    doc: dict[str, Any] = {
        "config": {**src["config"], "default_vocab_size": vocab_size, "default_num_special_tokens": n_special,
                   "num_vocab_tokens": n_ranks, "version": version},
        "vocab": src["vocab"][:n_ranks],
    }
    if specials is not None:
        doc["special_tokens"] = [{"rank": k, "token_str": s, "is_control": True} for k, s in enumerate(specials)]
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(("specials", "version"), [(None, "v3"), (["<unk>", "<s>", "</s>", "[X]"], "v13")])
def test_small_files_built_here(tmp_path: Path, specials: list[str] | None, version: str) -> None:
    """Truncation (vocab_size - specials < ranks in the file), filler specials, legacy specials."""
    path = _small(tmp_path, "tekken.json", n_ranks=3000, vocab_size=2000 + 30, n_special=30, specials=specials,
                  version=version)
    assert detect(str(path)) == "tekken"
    tok, mc = load(str(path)).tokenizer, Tekkenizer.from_file(path)
    assert tok.n_vocab == mc.n_words == 2030
    assert tok.special_tokens == {mc.id_to_piece(i): i for i in range(30)}
    for text in TEXTS:
        assert tok.encode(text) == mc.encode(text, bos=False, eos=False)


@settings(max_examples=100, deadline=None)
@given(st.text(ASSIGNED_CHARS, max_size=60))
def test_any_text(text: str) -> None:
    tok, mc = _cached()
    assert tok.encode(text) == mc.encode(text, bos=False, eos=False)


_CACHE: list[Any] = []


def _cached() -> tuple[Any, Tekkenizer]:
    if not _CACHE:
        _CACHE.extend([load(str(SHIPPED[0])).tokenizer, Tekkenizer.from_file(SHIPPED[0])])
    return _CACHE[0], _CACHE[1]


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["vocab"].__setitem__(5, {"rank": 5, "token_bytes": "!!"}), "not base64"),
    (lambda d: d["vocab"].__setitem__(300, d["vocab"][299]), "rank: 300"),
    (lambda d: d["vocab"].__setitem__(7, {"rank": 7, "token_bytes": "QQ=="}), "single byte"),
    (lambda d: d["config"].__setitem__("default_vocab_size", 10**6), "ranks"),
    (lambda d: d["config"].pop("pattern"), "pattern"),
    (lambda d: d.__setitem__("special_tokens", [{"rank": 0, "token_str": "<s>"}] * 2), "special token 1"),
    (lambda d: d["config"].__setitem__("version", "v13"), "must list its special tokens"),
])
def test_damaged_files_are_refused(tmp_path: Path, change: Any, message: str) -> None:
    path = _small(tmp_path, "t.json", n_ranks=400, vocab_size=410, n_special=10, specials=None)
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))
    with pytest.raises(FormatError, match=message):
        load(str(path))
