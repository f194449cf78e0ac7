"""SentencePiece BPE ``.model`` files: ids and decoded text equal to the ``sentencepiece`` library's own, on
models it trains here (byte fallback on and off, user-defined symbols, each normalization rule set, the
whitespace options) and on the models mistral-common ships; a Unigram model and damaged files refused."""

from __future__ import annotations

import io
import json.decoder
import pydoc_data.topics
import random
from pathlib import Path

import pytest
import sentencepiece as spm
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_desktop.core.errors import FormatError
from bpe_desktop.core.formats import detect, load
from bpe_desktop.core.tokenizers.spm import SpmTokenizer
from support import ASSIGNED_CHARS, ROOT

MULTILINGUAL = [
    "naïve café 👍🏽 e\u0301 \u00a0nbsp\ttab\nnewline", "ｆｕｌｌｗｉｄｔｈ ﬁ ① Ⅻ ㎏", "日本語のテキスト、句読点。",
    "Привет, мир! Ελληνικά שלום عربي", "  leading   and repeated   spaces  ", "", " ", "\n\n",
    "<s>not a control piece</s>", "\x00\x01 control chars \x7f", "emoji 👨‍👩‍👧 zwj and 🇫🇷 flags",
    "a foo<sep>b::c foofoo <sep><sep>", "x\ufeffy\u200bz",
]


def _corpus() -> list[str]:
    text = Path(pydoc_data.topics.__file__).read_text()[:60000]
    text += Path(json.decoder.__file__).read_text()
    text += (ROOT / "resources" / "samples" / "seed_000.txt").read_text(errors="replace")
    text += "\n".join(MULTILINGUAL * 5)
    return [ln for ln in text.splitlines() if ln.strip()]


LINES = _corpus()


def _texts() -> list[str]:
    src = Path(pydoc_data.topics.__file__).read_text()
    texts = [src[i : i + 400] for i in range(60000, 100000, 400)]  # text the models were not trained on
    texts += [(ROOT / "resources" / "samples" / "robotlogs_sample.txt").read_text()[:3000]]
    texts += MULTILINGUAL
    rng = random.Random(23)
    alphabet = " ab\u00a0\tcé👍\u0301ｆ<s>\n日x▁⁇"
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(16))) for _ in range(200)]
    return texts


TEXTS = _texts()

MODELS = {
    "plain": {},
    "byte_fallback": {"byte_fallback": True},
    "user_symbols": {"user_defined_symbols": ["<sep>", "foo", "::"], "byte_fallback": True},
    "suffix": {"treat_whitespace_as_suffix": True},
    "keep_spaces_nfkc": {"remove_extra_whitespaces": False, "normalization_rule_name": "nfkc"},
    "no_dummy_nfkc_cf": {"add_dummy_prefix": False, "normalization_rule_name": "nmt_nfkc_cf"},
    "identity_across_spaces": {"normalization_rule_name": "identity", "split_by_whitespace": False},
}


def _train(path: Path, **options: object) -> Path:
    out = io.BytesIO()
    options.setdefault("model_type", "bpe")
    spm.SentencePieceTrainer.train(sentence_iterator=iter(LINES), model_writer=out, vocab_size=420,
                                   minloglevel=2, **options)
    path.write_bytes(out.getvalue())
    return path


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("spm")
    return {name: _train(d / f"{name}.model", **opts) for name, opts in MODELS.items()}


def _same_as_sentencepiece(path: Path, texts: list[str]) -> None:
    sp = spm.SentencePieceProcessor(model_file=str(path))
    loaded = load(str(path))
    assert loaded.fmt == "sentencepiece" and isinstance(loaded.tokenizer, SpmTokenizer)
    tok = loaded.tokenizer
    assert tok.n_vocab == sp.get_piece_size()
    for text in texts:
        ids = sp.encode(text)
        assert tok.encode(text) == ids, text
        assert tok.decode(ids) == sp.decode(ids), text
        spans = tok.encode_with_offsets(text, allowed_special=())
        assert [s.id for s in spans] == ids
        assert all(0 <= s.start <= s.end <= len(text.encode()) for s in spans)
        assert [s.start for s in spans] == sorted(s.start for s in spans)


@pytest.mark.parametrize("name", list(MODELS))
def test_ids_and_text_equal_sentencepiece(models: dict[str, Path], name: str) -> None:
    _same_as_sentencepiece(models[name], TEXTS)


def test_the_options_are_read_from_the_file(models: dict[str, Path]) -> None:
    """Each trained model exercises what it is named for (else the test above proves less than it says)."""
    sp = spm.SentencePieceProcessor(model_file=str(models["byte_fallback"]))
    assert "<0x0A>" in [sp.id_to_piece(i) for i in sp.encode("日\n")] or sp.piece_to_id("<0x0A>") > 0
    tok = load(str(models["byte_fallback"])).tokenizer
    assert tok.token_str(sp.piece_to_id("<0x0A>")) == "<0x0A>" and tok.token_bytes(sp.piece_to_id("<0x0A>")) == b"\n"
    plain = spm.SentencePieceProcessor(model_file=str(models["plain"]))
    assert plain.unk_id() in plain.encode("ᚠ")  # a character never seen: unknown without byte fallback
    user = spm.SentencePieceProcessor(model_file=str(models["user_symbols"]))
    assert user.piece_to_id("<sep>") in user.encode("x<sep>y")
    suffix = spm.SentencePieceProcessor(model_file=str(models["suffix"]))
    assert suffix.id_to_piece(suffix.encode("ab cd")[-1]).endswith("▁")


@settings(max_examples=150, deadline=None)
@given(st.text(ASSIGNED_CHARS, max_size=40))
def test_any_text_equals_sentencepiece(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    path = _cached_model(tmp_path_factory)
    sp = spm.SentencePieceProcessor(model_file=str(path))
    tok = load(str(path)).tokenizer
    ids = sp.encode(text)
    assert tok.encode(text) == ids
    assert tok.decode(ids) == sp.decode(ids)


_CACHE: dict[str, Path] = {}


def _cached_model(factory: pytest.TempPathFactory) -> Path:
    if "m" not in _CACHE:
        _CACHE["m"] = _train(factory.mktemp("spm_h") / "bf.model", byte_fallback=True,
                             user_defined_symbols=["<sep>"])
    return _CACHE["m"]


def test_models_mistral_common_ships() -> None:
    """Mistral's own SentencePiece models (v1 is Llama 2's layout: byte fallback, scores, runs of ▁)."""
    import importlib.util

    spec = importlib.util.find_spec("mistral_common")
    assert spec is not None and spec.submodule_search_locations
    data = Path(next(iter(spec.submodule_search_locations))) / "data"
    files = sorted(data.glob("*.model*"))
    assert files
    for f in files[:2]:
        assert detect(str(f)) == "sentencepiece"
        _same_as_sentencepiece(f, TEXTS[:60])
        model = load(str(f)).model  # the merge list recovered for the window's views
        assert len(model.merges) == load(str(f)).tokenizer.n_merges


def test_upto_zero_is_characters(models: dict[str, Path]) -> None:
    tok = load(str(models["plain"])).tokenizer
    sp = spm.SentencePieceProcessor(model_file=str(models["plain"]))
    assert [tok.token_str(i) for i in tok.encode("ab ab", upto=0)] == ["▁", "a", "b", "▁", "a", "b"]
    assert tok.encode("ab ab", upto=tok.n_merges) == sp.encode("ab ab")


def test_unigram_is_refused_as_not_bpe(tmp_path: Path) -> None:
    path = _train(tmp_path / "uni.model", model_type="unigram")
    assert detect(str(path)) == "sentencepiece"
    with pytest.raises(FormatError, match="Unigram model, not BPE"):
        load(str(path))


def test_damaged_models_are_refused(models: dict[str, Path], tmp_path: Path) -> None:
    data = models["plain"].read_bytes()
    for k, cut in enumerate([data[:7], data[:len(data) // 2], data[:-3]]):
        p = tmp_path / f"cut{k}.model"
        p.write_bytes(cut)
        with pytest.raises(FormatError):
            load(str(p))


def test_control_pieces_in_text_are_text_unless_allowed(models: dict[str, Path]) -> None:
    tok = load(str(models["plain"])).tokenizer
    sp = spm.SentencePieceProcessor(model_file=str(models["plain"]))
    assert tok.encode("<s>hi") == sp.encode("<s>hi")
    assert tok.encode("<s>hi", allowed_special={"<s>"}) == [sp.bos_id(), *sp.encode("hi")]


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_mutated_models_load_or_are_refused_and_then_encode(tmp_path_factory: pytest.TempPathFactory,
                                                            data: st.DataObject) -> None:
    """Hostile files: any byte changes to a real model give a FormatError or a tokenizer that encodes
    (never a traceback), including in its normalization rules (the charsmap is near the end)."""
    raw = bytearray(_cached_model(tmp_path_factory).read_bytes())
    for _ in range(data.draw(st.integers(1, 8))):
        at = data.draw(st.integers(0, len(raw) - 1))
        raw[at] = data.draw(st.integers(0, 255))
    if data.draw(st.booleans()):
        raw = raw[: data.draw(st.integers(0, len(raw)))]
    path = tmp_path_factory.mktemp("mut") / "m.model"
    path.write_bytes(bytes(raw))
    try:
        tok = load(str(path)).tokenizer
    except FormatError:
        return
    for text in MULTILINGUAL[:6]:
        ids = tok.encode(text)
        tok.decode(ids)
