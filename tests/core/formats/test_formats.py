"""Tokenizer files: round trips, detection, presets, refusals with the right advice, parse errors, the CLI,
and hypothesis fuzzing (malformed files raise only our documented errors)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.cli import main as cli_main
from bpe_desktop.core import TrainConfig, train
from bpe_desktop.core.counting.pieces import count_text
from bpe_desktop.core.errors import BpeError, ConfigError, FormatError
from bpe_desktop.core.formats import (
    READ_FORMATS,
    WRITE_FORMATS,
    detect,
    gpt2,
    hf_json,
    load,
    load_model,
    load_tokenizer,
    native,
    save_model,
    subword_nmt,
    tiktoken_file,
)
from bpe_desktop.core.formats.presets import split_spec
from bpe_desktop.core.tokenizers.ranks import RankTokenizer
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer
from support import SEED_000

SAMPLE = "Hello, world! The robot's lidar_driver said: errno=104 at 12.60V; naïve café 🤖 — ok.\n  done\n"


@pytest.fixture(scope="module")
def small_text(topics_text: str) -> str:
    return topics_text[:60_000]


def _train(text: str, **cfg: object):
    config = TrainConfig(**cfg)
    return train(count_text(text, config), config)


@pytest.fixture(scope="module")
def models(small_text: str) -> dict[str, object]:
    """One model per shape a format may or may not express."""
    return {
        "bytes-gpt2": _train(small_text, mode="bytes", pretokenizer="gpt2", merges=300, tie_break="hf",
                             specials=("<|endoftext|>", "<pad>"))[0],
        "bytes-cl100k": _train(small_text, mode="bytes", pretokenizer="cl100k", merges=300)[0],
        "bytes-none": _train(small_text[:5000], mode="bytes", pretokenizer="none", merges=100)[0],
        "bytes-custom": _train(small_text, mode="bytes", pretokenizer=r"\w+|[^\w\s]+|\s+", merges=200)[0],
        "chars-glued": _train(small_text, glue_marker=True, merges=300, specials=("<s>",))[0],
        "chars-separate": _train(small_text, glue_marker=False, merges=300)[0],
        "chars-nomarker": _train(small_text, end_of_word="", merges=300)[0],
    }


# which formats can express which model
EXPRESSIBLE = {
    "native": {"bytes-gpt2", "bytes-cl100k", "bytes-none", "bytes-custom", "chars-glued", "chars-separate",
               "chars-nomarker"},
    "hf": {"bytes-gpt2", "bytes-cl100k", "bytes-none", "bytes-custom", "chars-glued", "chars-nomarker"},
    "gpt2": {"bytes-gpt2"},
    "vocab-merges": {"bytes-gpt2"},
    "subword-nmt": {"chars-glued", "chars-separate", "chars-nomarker"},
    "tiktoken": {"bytes-gpt2", "bytes-cl100k", "bytes-none", "bytes-custom"},
}


@pytest.mark.parametrize("fmt", list(EXPRESSIBLE))
def test_round_trip_every_expressible_model(models, fmt: str, tmp_path: Path) -> None:
    for name in sorted(EXPRESSIBLE[fmt]):
        model = models[name]
        path = tmp_path / f"{name}.{fmt}"
        save_model(model, path, fmt)
        assert detect(str(path)) == ("gpt2" if fmt == "vocab-merges" else fmt), name
        kwargs = {}
        if fmt == "tiktoken":  # ranks hold neither pattern nor specials: the caller gives them
            kwargs = {"pretokenizer": model.pretokenizer, "specials": list(model.specials)}
        back = load_model(str(path), **kwargs)
        if fmt == "subword-nmt":  # codes hold no alphabet: compare what they do hold
            assert back.merge_pairs_text() == model.merge_pairs_text(), name
            assert (back.end_of_word, back.glue_marker) == (model.end_of_word, model.glue_marker), name
            continue
        assert back.same_as(model), name
        if model.mode == "bytes":
            assert Tokenizer(back).encode(SAMPLE) == Tokenizer(model).encode(SAMPLE), name


@pytest.mark.parametrize("fmt", [f for f in EXPRESSIBLE if f != "native"])
def test_formats_refuse_what_they_cannot_express_and_name_an_alternative(models, fmt, tmp_path) -> None:
    for name, model in models.items():
        if name in EXPRESSIBLE[fmt]:
            continue
        out = tmp_path / f"{name}.out"
        with pytest.raises(FormatError) as e:
            save_model(model, out, fmt)
        msg = str(e.value)
        assert any(alt in msg for alt in ("native", "hf", "--glue-marker", "subword-nmt")), msg
        assert not out.exists()
        assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]  # atomic: no debris


def test_separate_marker_hf_refusal_says_glue_marker(models, tmp_path) -> None:
    with pytest.raises(FormatError, match="train with --glue-marker"):
        save_model(models["chars-separate"], tmp_path / "t.json", "hf")


def test_subword_nmt_versions(models) -> None:
    assert subword_nmt.dumps(models["chars-glued"]).startswith("#version: 0.2\n")
    assert subword_nmt.dumps(models["chars-separate"]).startswith("#version: 0.1\n")
    assert " </w>\n" in subword_nmt.dumps(models["chars-separate"])  # the marker is a unit of its own
    # a header-less file is version 0.1, as subword-nmt reads it
    m = subword_nmt.loads("e s\nes t\nest </w>\n")
    assert (m.glue_marker, m.end_of_word) == (False, "</w>")
    assert [Tokenizer(m).token_str(i) for i in Tokenizer(m).encode("test")] == ["t", "est</w>"]


def test_upto_means_the_same_for_ranks_and_merges(models, tmp_path) -> None:
    model = models["bytes-gpt2"]
    save_model(model, tmp_path / "r.tiktoken", "tiktoken")
    ranks = load_tokenizer(str(tmp_path / "r.tiktoken"), pretokenizer="gpt2")
    assert isinstance(ranks, RankTokenizer)
    merges = Tokenizer(model)
    for k in (0, 1, 7, 50, 299, 300, 10_000):
        assert ranks.encode_ordinary(SAMPLE, upto=k) == merges.encode_ordinary(SAMPLE, upto=k), k


def test_rank_tokenizer_offers_the_tokenizer_api() -> None:
    public = {n for n in dir(Tokenizer) if not n.startswith("_")}
    # (follow_model: only a tokenizer over a model still being trained grows; a file's ranks are fixed)
    assert public <= {n for n in dir(RankTokenizer) if not n.startswith("_")} | {"model", "follow_model"}


def test_rank_tokenizer_encode_ids_text_matches_encode(models, tmp_path) -> None:
    save_model(models["bytes-gpt2"], tmp_path / "r.tiktoken", "tiktoken")
    tok = load_tokenizer(str(tmp_path / "r.tiktoken"), pretokenizer="gpt2", specials=["<|endoftext|>"])
    text = SAMPLE + "<|endoftext|>" + SAMPLE
    for upto in (None, 5):
        want = " ".join(map(str, tok.encode(text, upto=upto, allowed_special="all")))
        assert tok.encode_ids_text(text, upto=upto, allowed_special="all") == want
        assert tok.encode_ids_text(text, upto=upto, allowed_special="all") == want  # cached path
    assert tok.encode_ids_text("") == ""


def test_csv_has_the_steps_columns(small_text, tmp_path) -> None:
    from bpe_desktop.core.formats.csv_stats import steps_csv

    model, recs = _train(small_text, merges=20)
    save_model(model, tmp_path / "s.csv", "csv", recs)
    assert (tmp_path / "s.csv").read_text(encoding="utf-8") == steps_csv(recs)
    # from a native file's stored stats, through convert, the same rows
    save_model(model, tmp_path / "n.json", "native", recs)
    assert cli_main(["convert", str(tmp_path / "n.json"), str(tmp_path / "c.csv"), "--to", "csv"]) == 0
    assert (tmp_path / "c.csv").read_text(encoding="utf-8") == steps_csv(recs)
    # native -> native keeps the stats
    assert cli_main(["convert", str(tmp_path / "n.json"), str(tmp_path / "n2.json"), "--to", "native"]) == 0
    assert native.load(tmp_path / "n2.json")[1] == native.load(tmp_path / "n.json")[1] != []
    with pytest.raises(FormatError, match="report, not a tokenizer"):
        load(str(tmp_path / "s.csv"))
    with pytest.raises(FormatError, match="statistics"):
        save_model(model, tmp_path / "x.csv", "csv")


def test_write_and_read_format_lists() -> None:
    assert set(EXPRESSIBLE) | {"csv"} == set(WRITE_FORMATS)
    assert set(READ_FORMATS) - {"sentencepiece", "tekken"} <= set(WRITE_FORMATS)  # other tools' files: read only


# -- presets ----------------------------------------------------------------------------------------
def test_split_spec_only_takes_known_presets() -> None:
    assert split_spec("cl100k:/x/y")[0].name == "cl100k"
    assert split_spec("GPT2:/x")[0].name == "gpt2"
    assert split_spec("r50k:/x")[0].name == "gpt2"
    assert split_spec("C:/tokenizers/t.json") == (None, "C:/tokenizers/t.json")
    assert split_spec("tok.json") == (None, "tok.json")


def test_presets_on_small_files(models, tmp_path) -> None:
    model = models["bytes-cl100k"]
    save_model(model, tmp_path / "small.tiktoken", "tiktoken")
    tok = load_tokenizer(f"cl100k:{tmp_path / 'small.tiktoken'}")
    n = len(model.tokens)
    # not the official file: the preset's pattern applies, its specials are numbered after the ranks
    assert tok.pretokenizer.name == "cl100k"
    assert tok.special_tokens["<|endoftext|>"] == n and len(tok.special_tokens) == 5
    assert tok.encode(SAMPLE) == Tokenizer(model).encode(SAMPLE)
    # gpt2 preset on a folder: GPT-2 pattern, <|endoftext|> added if the files lack it
    plain = models["bytes-gpt2"].truncated(50)
    plain.specials = ()
    save_model(plain, tmp_path / "g", "gpt2")
    g = load_tokenizer(f"gpt2:{tmp_path / 'g'}")
    assert g.pretokenizer.name == "gpt2" and "<|endoftext|>" in g.special_tokens
    with pytest.raises(FormatError, match="chars-mode"):
        save_model(models["chars-glued"], tmp_path / "c.json", "hf")
        load_tokenizer(f"gpt2:{tmp_path / 'c.json'}")


def test_gpt2_pair_found_from_either_file_or_folder(models, tmp_path) -> None:
    save_model(models["bytes-gpt2"], tmp_path / "v", "vocab-merges")
    for spec in (tmp_path / "v", tmp_path / "v" / "vocab.json", tmp_path / "v" / "merges.txt"):
        assert load_model(str(spec)).same_as(models["bytes-gpt2"])
    os.remove(tmp_path / "v" / "merges.txt")
    with pytest.raises(FormatError, match=r"merges\.txt: missing"):
        load_model(str(tmp_path / "v" / "vocab.json"))


# -- parse errors name the file, the line and what was expected ---------------------------------------
def test_parse_errors_name_file_and_line(tmp_path) -> None:
    p = tmp_path / "codes.txt"
    p.write_text("#version: 0.2\ne s\nthis has three\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"codes\.txt: line 3: expected two subword units"):
        load_model(str(p))
    t = tmp_path / "r.tiktoken"
    t.write_bytes(b"YQ== 0\nYg== 1\nnot-base64! 2\n")
    with pytest.raises(FormatError, match=r"line 3: expected 'BASE64TOKEN RANK'"):
        tiktoken_file.load(t)
    h = tmp_path / "wp.json"
    h.write_text(json.dumps({"version": "1.0", "model": {"type": "WordPiece", "vocab": {}}}), encoding="utf-8")
    with pytest.raises(FormatError, match="WordPiece"):
        load_model(str(h))
    with pytest.raises(FormatError, match="no such file"):
        load_model(str(tmp_path / "missing.json"))
    n = tmp_path / "n.json"
    n.write_text('{"format": "bpe-desktop", "version": 1,\n "settings": ', encoding="utf-8")
    with pytest.raises(FormatError, match=r"n\.json: line 2"):
        load_model(str(n))


def test_merges_out_of_order_are_refused() -> None:
    with pytest.raises(FormatError, match="out of order"):
        subword_nmt.loads("#version: 0.2\nes t</w>\ne s\n")


# -- the CLI ------------------------------------------------------------------------------------------
def test_cli_train_format_convert_and_encode(tmp_path, capsys, small_text) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text(small_text, encoding="utf-8")
    hfp = tmp_path / "tok.json"
    assert cli_main(["train", str(corpus), "--mode", "bytes", "--merges", "120", "--format", "hf",
                     "--out", str(hfp), "--special", "<|endoftext|>"]) == 0
    assert detect(str(hfp)) == "hf"
    tk = tmp_path / "tok.tiktoken"
    assert cli_main(["convert", str(hfp), str(tk), "--to", "tiktoken"]) == 0
    err = capsys.readouterr().err
    assert "--pretokenizer 'gpt2' --special <|endoftext|>" in err
    capsys.readouterr()
    assert cli_main(["encode", "--tokenizer", str(hfp), "--ids", "--allow-special", "all", "hi<|endoftext|>there"]) == 0
    via_hf = capsys.readouterr().out
    assert cli_main(["encode", "--tokenizer", str(tk), "--pretokenizer", "gpt2", "--special", "<|endoftext|>",
                     "--ids", "--allow-special", "all", "hi<|endoftext|>there"]) == 0
    via_ranks = capsys.readouterr().out
    assert via_hf == via_ranks and "376" in via_hf.split()  # 256 + 120 merges: the special's id
    assert cli_main(["encode", "--tokenizer", str(tk), "hi there"]) == 2  # a rank file holds no pattern
    assert "--pretokenizer" in capsys.readouterr().err
    assert cli_main(["encode", "--tokenizer", str(tk), "--pretokenizer", "gpt2", "hi there"]) == 0
    assert capsys.readouterr().out.strip().replace("Ġ", " ").replace(" ", "") == "hithere"
    assert cli_main(["convert", str(hfp), str(tmp_path / "codes"), "--to", "subword-nmt"]) == 2
    assert "cannot hold byte-level merges" in capsys.readouterr().err


def test_cli_encode_bad_file_exits_2(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert cli_main(["encode", "--tokenizer", str(bad), "hello"]) == 2
    assert "bad.json" in capsys.readouterr().err


# -- hypothesis: malformed input raises only our documented errors ------------------------------------
def _valid_texts() -> dict[str, str]:
    model, _ = train(SEED_000, TrainConfig(merges=7, glue_marker=True))
    bconfig = TrainConfig(mode="bytes", pretokenizer="gpt2", merges=6, specials=("<e>",))
    bmodel, _ = train({"hello": 3, "world": 2, " hello": 4}, bconfig)
    vocab, merges = gpt2.dumps(bmodel)
    specials_first = json.loads(hf_json.dumps(bmodel))  # HF trainer layout: specials take the first ids
    specials_first["model"]["vocab"] = {"<e>": 0, **{t: i + 1 for t, i in specials_first["model"]["vocab"].items()
                                                     if t != "<e>"}}
    specials_first["added_tokens"][0]["id"] = 0
    return {
        "hf-specials-first": json.dumps(specials_first),
        "native": native.dumps(model),
        "hf": hf_json.dumps(model),
        "hf-bytes": hf_json.dumps(bmodel),
        "subword-nmt": subword_nmt.dumps(model),
        "tiktoken": tiktoken_file.dumps(bmodel).decode(),
        "gpt2-vocab": vocab,
        "gpt2-merges": merges,
    }


VALID = _valid_texts()


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, str]:
    kind = draw(st.sampled_from(sorted(VALID)))
    text = VALID[kind]
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 20)))
        text = text[:i] + draw(st.text(max_size=6)) + text[j:]
    return kind, text


def _parse(kind: str, text: str, tmp: Path) -> None:
    if kind == "native":
        native.loads(text)
    elif kind.startswith("hf"):
        hf_json.loads(text)
    elif kind == "subword-nmt":
        subword_nmt.loads(text)
    elif kind == "tiktoken":
        tiktoken_file.parse(text.encode("utf-8", "surrogatepass"))
    else:
        vocab, merges = (text, VALID["gpt2-merges"]) if kind == "gpt2-vocab" else (VALID["gpt2-vocab"], text)
        gpt2.loads(vocab, merges, "v.json", "m.txt")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=mutated())
def test_malformed_files_raise_only_format_errors(case: tuple[str, str], tmp_path: Path) -> None:
    kind, text = case
    try:
        _parse(kind, text, tmp_path)
    except BpeError:
        pass


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300) | st.text(max_size=300).map(lambda s: s.encode("utf-8", "surrogatepass")))
def test_any_bytes_through_detection_and_load(data: bytes, tmp_path: Path) -> None:
    p = tmp_path / "f"
    p.write_bytes(data)
    try:
        tok = load_tokenizer(str(p))
    except BpeError:
        return
    try:
        tok.encode_ordinary("ok")  # whatever loaded must work, or say the text is outside its alphabet
    except ConfigError as e:
        assert "alphabet" in str(e)
