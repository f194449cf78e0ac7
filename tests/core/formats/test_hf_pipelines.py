"""tokenizer.json files as today's models write them, built with the ``tokenizers`` library itself here
(tiny BPEs trained on the standard library's pydoc topics and sources), read by ours: the same ids and the
same decoded text as ``tokenizers`` on every test text, for every normalizer, pre-tokenizer, decoder and
model option we read; every component we do not read is refused by its name.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
import tokenizers
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers import decoders, models, normalizers, pre_tokenizers, trainers

from bpe_desktop.core.errors import FormatError
from bpe_desktop.core.formats import load_tokenizer
from bpe_desktop.core.formats.hf.pipeline import HFTokenizer
from support import ASSIGNED_CHARS

MULTILINGUAL = (
    "Grüße aus Köln, naïve café! Ça va? Привет, мир — как дела? 日本語のテキストです。中文分词测试，很好。"
    " Γειά σου κόσμε. ΣΊΣΥΦΟΣ. مرحبا بالعالم. हिन्दी में पाठ। 한국어 문장입니다. Tiếng Việt có dấu. ½ ÷ ∑ ∞ ℕ ﬁ ①\n"
    "Ünïcödé  spaces\u00a0and\u2003odd\u200bspaces, 'quotes' \"double\" it's we'll they're I'M İstanbul\n"
    "combining: e\u0301 a\u0308\u0301 \u1100\u1161\u11a8 ｶﾞ Å Å x\u0323\u0307\n"
)
EMOJI = "I ❤️ BPE 🤖🚀✨ family 👩‍👩‍👧‍👦 flags 🇫🇷🇯🇵 skin 👍🏽 keycap 1️⃣ …«quotes»— 🙂🙃 ok👌 12% ⚠️ 3.14159 2024-05-01\n"
EDGES = "  lead\n\n\nb  \t c\r\n  d   \n\n    e\t\t\n \n trailing   \x1c\x85 <s>x</s> <mask> ▁already▁ "


@pytest.fixture(scope="module")
def corpus() -> list[str]:
    import pydoc_data.topics
    import textwrap

    topics = list(pydoc_data.topics.topics.values())[:120]
    return [*topics, Path(textwrap.__file__).read_text(encoding="utf-8"), MULTILINGUAL, EMOJI]


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    import json.decoder

    code = Path(json.decoder.__file__).read_text(encoding="utf-8")[:5000]
    return {"multilingual": MULTILINGUAL, "emoji": EMOJI, "edges": EDGES, "code": code, "empty": "",
            "space": " ", "one": "a", "digits": "x12345 6 78.9e10 ٣٤ ⅷ"}


def _train(corpus: list[str], tmp_path: Path, name: str, model: Any, *, normalizer: Any = None, pre: Any = None,
           decoder: Any = None, alphabet: list[str] | None = None, specials: list[str] | tuple[Any, ...] = (),
           added: list[Any] | None = None, vocab: int = 700, edit: Any = None) -> Path:
    tok = tokenizers.Tokenizer(model)
    if normalizer is not None:
        tok.normalizer = normalizer
    if pre is not None:
        tok.pre_tokenizer = pre
    if decoder is not None:
        tok.decoder = decoder
    trainer = trainers.BpeTrainer(vocab_size=vocab, special_tokens=list(specials), initial_alphabet=alphabet or [],
                                  show_progress=False)
    tok.train_from_iterator(corpus, trainer)
    if added:
        tok.add_tokens(added)
    path = tmp_path / f"{name}.json"
    tok.save(str(path))
    if edit is not None:
        doc = json.loads(path.read_text(encoding="utf-8"))
        edit(doc)
        path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def _add_byte_tokens(doc: dict[str, Any]) -> None:
    """A Llama-style vocabulary: the 256 ``<0xNN>`` byte tokens as ordinary entries."""
    vocab = doc["model"]["vocab"]
    n = max(vocab.values()) + 1
    for b in range(256):
        vocab.setdefault(f"<0x{b:02X}>", n + b)


def _same(path: Path, texts: dict[str, str]) -> HFTokenizer:
    hf = tokenizers.Tokenizer.from_file(str(path))
    ours = load_tokenizer(str(path))
    assert isinstance(ours, HFTokenizer)
    for name, text in texts.items():
        want = hf.encode(text, add_special_tokens=False).ids
        got = ours.encode(text)
        assert got == want, (name, [ours.token_str(i) for i in got][:40], [hf.id_to_token(i) for i in want][:40])
        assert ours.decode(got) == hf.decode(want, skip_special_tokens=False), name
        spans = ours.encode_with_offsets(text)
        assert [s.id for s in spans] == want, name
        n = len(text.encode("utf-8", "surrogateescape"))
        assert all(0 <= s.start <= s.end <= n for s in spans), name
        assert all(a.start <= b.start for a, b in itertools.pairwise(spans)), name
    assert ours.n_vocab == hf.get_vocab_size()
    return ours


BYTE_ALPHABET = pre_tokenizers.ByteLevel.alphabet()


def test_roberta_style_byte_level_with_prefix_space(corpus, texts, tmp_path) -> None:
    specials = ["<s>", "<pad>", "</s>", "<unk>", tokenizers.AddedToken("<mask>", lstrip=True, special=True)]
    p = _train(corpus, tmp_path, "roberta", models.BPE(), pre=pre_tokenizers.ByteLevel(add_prefix_space=True),
               decoder=decoders.ByteLevel(), alphabet=BYTE_ALPHABET, specials=specials)
    ours = _same(p, texts)
    assert ours.mode == "bytes" and ours.special_tokens["<s>"] == 0
    # with the text unchanged, each token's span holds exactly the token's bytes (the inserted space aside)
    text = "x" + MULTILINGUAL + EMOJI
    data = text.encode()
    for s in ours.encode_with_offsets(text):
        tb = ours.token_bytes(s.id)
        if s.start == 0 and tb == b" ":  # the inserted space alone: it stands for the first character
            assert data[s.start:s.end] == b"x"
        else:
            assert data[s.start:s.end] == tb or (s.start == 0 and tb == b" " + data[s.start:s.end])


@pytest.mark.parametrize("use_regex", [True, False])
def test_byte_level_use_regex_and_ignore_merges(corpus, texts, tmp_path, use_regex: bool) -> None:
    """Llama-3 style: Split (Isolated) + ByteLevel(use_regex=False), ignore_merges=True."""
    split = pre_tokenizers.Split(tokenizers.Regex(r"\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+|\s+"), "isolated")
    pre = pre_tokenizers.Sequence([split, pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=use_regex)])
    for ignore in (False, True):
        p = _train(corpus, tmp_path, f"l3-{ignore}", models.BPE(ignore_merges=ignore), pre=pre,
                   decoder=decoders.ByteLevel(), alphabet=BYTE_ALPHABET, specials=["<|begin_of_text|>"],
                   edit=_drop_merges_making_long_tokens if ignore else None)
        _same(p, texts | {"special": "a<|begin_of_text|>b"})


def _drop_merges_making_long_tokens(doc: dict[str, Any]) -> None:
    """Tokens no merge makes any more (kept in the vocabulary): only ignore_merges can produce them."""
    doc["model"]["merges"] = [m for m in doc["model"]["merges"] if len("".join(m)) < 6]


def test_ignore_merges_is_not_read_as_false(corpus, tmp_path) -> None:
    p = _train(corpus, tmp_path, "im", models.BPE(ignore_merges=True), pre=pre_tokenizers.ByteLevel(False),
               decoder=decoders.ByteLevel(), alphabet=BYTE_ALPHABET, edit=_drop_merges_making_long_tokens)
    hf = tokenizers.Tokenizer.from_file(str(p))
    word = next(t for t in sorted(hf.get_vocab()) if len(t) >= 7 and t.isascii() and t.isalpha())
    assert load_tokenizer(str(p)).encode(word) == hf.encode(word).ids == [hf.token_to_id(word)]


@pytest.mark.parametrize("style", ["metaspace", "normalizer"])
def test_llama_style_byte_fallback(corpus, texts, tmp_path, style: str) -> None:
    """Llama 2 / Mistral as HF converts them: ▁ for spaces, <0xNN> tokens for what the vocabulary lacks."""
    if style == "metaspace":
        kw: dict[str, Any] = {"pre": pre_tokenizers.Metaspace(prepend_scheme="first"),
                              "decoder": decoders.Sequence([decoders.Metaspace(prepend_scheme="first"),
                                                            decoders.ByteFallback(), decoders.Fuse()])}
    else:
        kw = {"normalizer": normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")]),
              "decoder": decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(),
                                            decoders.Strip(" ", 1, 0)])}
    p = _train(corpus[:40], tmp_path, f"llama-{style}", models.BPE(byte_fallback=True, unk_token="<unk>"),
               specials=["<unk>", "<s>", "</s>"], vocab=500, edit=_add_byte_tokens, **kw)
    ours = _same(p, texts)
    snowman = ours.encode("ok☃")[-3:]  # a character the training text lacks: its three bytes
    assert [ours.token_str(i) for i in snowman] == ["<0xE2>", "<0x98>", "<0x83>"]
    assert b"".join(ours.token_bytes(i) for i in snowman) == "☃".encode()


@pytest.mark.parametrize("scheme", ["always", "first", "never"])
@pytest.mark.parametrize("split", [True, False])
def test_metaspace_prepend_schemes(corpus, texts, tmp_path, scheme: str, split: bool) -> None:
    p = _train(corpus[:30], tmp_path, f"ms-{scheme}-{split}", models.BPE(unk_token="<unk>", fuse_unk=split),
               pre=pre_tokenizers.Metaspace(prepend_scheme=scheme, split=split),
               decoder=decoders.Metaspace(prepend_scheme=scheme), specials=["<unk>", "<s>"], vocab=400)
    _same(p, texts | {"after-special": "<s>hello world", "specials": "<s> <s>x"})


def test_bert_ish_whitespace_lowercase_nfkc_suffix(corpus, texts, tmp_path) -> None:
    norm = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase(), normalizers.Strip()])
    p = _train(corpus, tmp_path, "bert", models.BPE(unk_token="[UNK]", end_of_word_suffix="</w>"),
               normalizer=norm, pre=pre_tokenizers.Whitespace(), decoder=decoders.BPEDecoder("</w>"),
               specials=["[UNK]", "[CLS]", "[SEP]"])
    ours = _same(p, texts)
    text = "  ŞİŞLİ ﬁne Café  "  # normalized: spans still lie on whole original characters
    for s in ours.encode_with_offsets(text):
        text.encode()[s.start:s.end].decode()


@pytest.mark.parametrize("norm", ["NFC", "NFD", "NFKD", "StripAccents", "Replace", "Prepend", "Strip-left"])
def test_each_normalizer(corpus, texts, tmp_path, norm: str) -> None:
    made = {
        "NFC": normalizers.NFC(), "NFD": normalizers.NFD(), "NFKD": normalizers.NFKD(),
        "StripAccents": normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents()]),
        "Replace": normalizers.Replace(tokenizers.Regex(r"\d+|\s{2,}"), "#"),
        "Prepend": normalizers.Prepend("^"), "Strip-left": normalizers.Strip(left=True, right=False),
    }[norm]
    pre = pre_tokenizers.ByteLevel(add_prefix_space=False)
    p = _train(corpus[:50], tmp_path, f"n-{norm}", models.BPE(), normalizer=made, pre=pre,
               decoder=decoders.ByteLevel(), alphabet=BYTE_ALPHABET, vocab=400)
    _same(p, texts)


BEHAVIORS = ["removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous"]


@pytest.mark.parametrize("behavior", BEHAVIORS)
@pytest.mark.parametrize("invert", [False, True])
@pytest.mark.parametrize("pattern", [r"\s+|\d", "e"])
def test_split_every_behavior(corpus, texts, tmp_path, behavior: str, invert: bool, pattern: str) -> None:
    pat = tokenizers.Regex(pattern) if pattern != "e" else pattern
    pre = pre_tokenizers.Sequence([pre_tokenizers.Split(pat, behavior, invert=invert),
                                   pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    p = _train(corpus[:30], tmp_path, f"split-{behavior}-{invert}", models.BPE(), pre=pre,
               decoder=decoders.ByteLevel(), alphabet=BYTE_ALPHABET, vocab=350)
    ours = _same(p, texts | {"ee": "eeee e ee  e1e22"})
    if behavior == "isolated" and not invert:  # the text between matches is kept, not dropped
        assert ours.decode(ours.encode("ab  cd 9x")) == "ab  cd 9x"


@pytest.mark.parametrize("kind", ["Whitespace", "WhitespaceSplit", "Digits", "Digits-individual", "Punctuation",
                                  "Punctuation-contiguous", "BertPreTokenizer", "CharDelimiterSplit"])
def test_other_pretokenizers(corpus, texts, tmp_path, kind: str) -> None:
    made = {
        "Whitespace": pre_tokenizers.Whitespace(), "WhitespaceSplit": pre_tokenizers.WhitespaceSplit(),
        "Digits": pre_tokenizers.Digits(individual_digits=False),
        "Digits-individual": pre_tokenizers.Digits(individual_digits=True),
        "Punctuation": pre_tokenizers.Punctuation(), "Punctuation-contiguous": pre_tokenizers.Punctuation("contiguous"),
        "BertPreTokenizer": pre_tokenizers.BertPreTokenizer(),
        "CharDelimiterSplit": pre_tokenizers.CharDelimiterSplit(" "),
    }[kind]
    pre = pre_tokenizers.Sequence([made, pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    p = _train(corpus[:30], tmp_path, f"pre-{kind}", models.BPE(), pre=pre, decoder=decoders.ByteLevel(),
               alphabet=BYTE_ALPHABET, vocab=350)
    _same(p, texts)


def test_added_tokens_special_or_not_are_split_out(corpus, texts, tmp_path) -> None:
    added = ["def ", tokenizers.AddedToken("Hello", normalized=True), tokenizers.AddedToken("wörld", normalized=False),
             tokenizers.AddedToken("ok", single_word=True), tokenizers.AddedToken("<x>", rstrip=True, lstrip=True)]
    p = _train(corpus[:30], tmp_path, "added", models.BPE(), normalizer=normalizers.Lowercase(),
               pre=pre_tokenizers.ByteLevel(add_prefix_space=False), decoder=decoders.ByteLevel(),
               alphabet=BYTE_ALPHABET, specials=["<|endoftext|>"], added=added, vocab=350)
    sample = "def f(): HELLO hello wörld WÖRLD ok look ok_ (ok) a  <x>  b<|endoftext|>c <|endoftext|>"
    ours = _same(p, texts | {"added": sample})
    assert ours.encode("<|endoftext|>") == [0]  # no --allow-special needed: HF always splits it out


def test_chars_mode_unknowns_refused_without_unk(corpus, tmp_path) -> None:
    p = _train(corpus[:20], tmp_path, "nounk", models.BPE(), pre=pre_tokenizers.Whitespace(), vocab=300)
    ours = load_tokenizer(str(p))
    with pytest.raises(Exception, match="no token in this tokenizer"):
        ours.encode("中文 ☃")  # HF drops these characters without a word


def test_upto_replays_only_the_first_merges(corpus, tmp_path) -> None:
    p = _train(corpus[:30], tmp_path, "upto", models.BPE(), pre=pre_tokenizers.ByteLevel(add_prefix_space=True),
               decoder=decoders.ByteLevel(), alphabet=BYTE_ALPHABET, vocab=350)
    ours = load_tokenizer(str(p))
    text = "the quick brown fox"
    assert len(ours.encode(text, upto=0)) == len(b" " + text.encode())
    lens = [len(ours.encode(text, upto=k)) for k in range(0, ours.n_merges + 1, 10)]
    assert lens == sorted(lens, reverse=True) and ours.encode(text, upto=ours.n_merges) == ours.encode(text)


def _train_affixed(corpus: list[str], tmp_path: Path, name: str, prefix: str | None, suffix: str | None, pre: Any,
                   decoder: Any, *, vocab: int = 900, byte_fallback: bool = False, byte_level: bool = False) -> Path:
    """A file HF's own trainer wrote with ``continuing_subword_prefix`` and/or ``end_of_word_suffix``."""
    affixes = {k: v for k, v in (("continuing_subword_prefix", prefix), ("end_of_word_suffix", suffix)) if v}
    tok = tokenizers.Tokenizer(models.BPE(unk_token="[UNK]", byte_fallback=byte_fallback, **affixes))
    tok.pre_tokenizer = pre
    if decoder is not None:
        tok.decoder = decoder
    tok.train_from_iterator(corpus, trainers.BpeTrainer(
        vocab_size=vocab, special_tokens=["[UNK]"], show_progress=False,
        initial_alphabet=BYTE_ALPHABET if byte_level else [], **affixes))
    path = tmp_path / f"{name}.json"
    tok.save(str(path))
    if byte_fallback:
        doc = json.loads(path.read_text(encoding="utf-8"))
        _add_byte_tokens(doc)
        path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


AFFIXED = {  # prefix, suffix, pre-tokenizer, decoder
    "wordpiece": ("##", None, pre_tokenizers.Whitespace(), decoders.WordPiece("##")),
    "wordpiece-raw": ("##", None, pre_tokenizers.BertPreTokenizer(), decoders.WordPiece("##", cleanup=False)),
    "prefix-and-suffix": ("##", "</w>", pre_tokenizers.WhitespaceSplit(), decoders.BPEDecoder("</w>")),
    "at-prefix-no-decoder": ("@@", None, pre_tokenizers.Whitespace(), None),
    "suffix-only": (None, "</w>", pre_tokenizers.Whitespace(), decoders.BPEDecoder("</w>")),
    "byte-level-prefix": ("##", None, pre_tokenizers.ByteLevel(add_prefix_space=False), decoders.ByteLevel()),
}


@pytest.mark.parametrize("kind", list(AFFIXED))
def test_continuing_subword_prefix_and_end_of_word_suffix(corpus, texts, tmp_path, kind: str) -> None:
    """HF's trainer with a prefix (``##``) and/or suffix (``</w>``): the same ids and decoded text on every
    text, and with only the first k merges the ids of HF given only those merges."""
    prefix, suffix, pre, decoder = AFFIXED[kind]
    p = _train_affixed(corpus, tmp_path, kind, prefix, suffix, pre, decoder, byte_level=kind.startswith("byte"))
    ours = _same(p, texts | {"hashes": "### x# ## #x #### a##b ## #", "at": "@@ a@@b @@@"})
    if prefix:
        assert ours.plain_reason is not None  # its merges are not our own replay's
        hf_tokens = set(tokenizers.Tokenizer.from_file(str(p)).get_vocab())
        assert {ours.token_str(i) for i in range(ours.n_vocab)} == hf_tokens  # shown as the file writes them
    doc = json.loads(p.read_text(encoding="utf-8"))
    k = len(doc["model"]["merges"]) // 3
    doc["model"]["merges"] = doc["model"]["merges"][:k]
    cut = tmp_path / f"{kind}-first-k.json"
    cut.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    hf_k = tokenizers.Tokenizer.from_file(str(cut))
    for text in texts.values():
        assert ours.encode(text, upto=k) == hf_k.encode(text, add_special_tokens=False).ids


def test_prefix_with_byte_fallback(corpus, texts, tmp_path) -> None:
    """A character the vocabulary lacks falls back to the bytes of ``##`` + the character, as HF does."""
    p = _train_affixed(corpus[:40], tmp_path, "pfx-bf", "##", None, pre_tokenizers.Whitespace(),
                       decoders.Sequence([decoders.ByteFallback(), decoders.WordPiece("##")]), vocab=500,
                       byte_fallback=True)
    ours = _same(p, texts | {"unseen": "ok龘 龘 a龘b ☃"})
    assert [ours.token_str(i) for i in ours.encode("a龘")][-5:] == ["<0x23>", "<0x23>", "<0xE9>", "<0xBE>", "<0x98>"]


@pytest.mark.parametrize(("words", "named"), [
    ("### x# ## #x ####", "HF gives it one id for both"),  # '###' is a word and '#' after a letter
])
def test_prefix_collisions_are_refused(tmp_path, words: str, named: str) -> None:
    """A token HF would need as a word's start and as a continuation (one id) cannot be a merge list."""
    p = _train_affixed([words] * 50, tmp_path, "collide", "##", None, pre_tokenizers.WhitespaceSplit(), None,
                       vocab=60)
    with pytest.raises(FormatError, match=named):
        load_tokenizer(str(p))


def test_prefix_merge_without_prefix_is_refused(corpus, tmp_path) -> None:
    p = _train_affixed(corpus[:10], tmp_path, "nopfx", "##", None, pre_tokenizers.Whitespace(), None, vocab=300)
    doc = json.loads(p.read_text(encoding="utf-8"))
    a, b = doc["model"]["merges"][0]
    doc["model"]["merges"][0] = [a, b.removeprefix("##")]
    doc["model"]["vocab"].setdefault(b.removeprefix("##"), len(doc["model"]["vocab"]))
    p.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(FormatError, match="does not begin with the continuing_subword_prefix"):
        load_tokenizer(str(p))


@pytest.fixture(scope="module")
def hypothesis_files(corpus, tmp_path_factory) -> list[Path]:
    d = tmp_path_factory.mktemp("hyp")
    return [
        _train(corpus[:30], d, "h-roberta", models.BPE(), pre=pre_tokenizers.ByteLevel(add_prefix_space=True),
               decoder=decoders.ByteLevel(), alphabet=BYTE_ALPHABET, specials=["<s>"], vocab=400),
        _train(corpus[:30], d, "h-llama", models.BPE(byte_fallback=True, unk_token="<unk>"),
               pre=pre_tokenizers.Metaspace(), decoder=decoders.Sequence(
                   [decoders.Metaspace(), decoders.ByteFallback(), decoders.Fuse()]),
               specials=["<unk>", "<s>"], vocab=400, edit=_add_byte_tokens),
        _train(corpus[:30], d, "h-nfkc", models.BPE(unk_token="<unk>"), normalizer=normalizers.Sequence(
            [normalizers.NFKC(), normalizers.Lowercase()]), pre=pre_tokenizers.WhitespaceSplit(),
            specials=["<unk>"], vocab=400),
        _train_affixed(corpus[:30], d, "h-wordpiece", "##", None, pre_tokenizers.Whitespace(),
                       decoders.WordPiece("##"), vocab=400),
    ]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(ASSIGNED_CHARS, max_size=40)
       | st.text(st.sampled_from("aé\u0301 ﬁ\n\t<s>▁1Σ🤖ｶﾞ\u1100\u1161"), max_size=30))
def test_random_texts_give_hf_ids(hypothesis_files, text: str) -> None:
    for p in hypothesis_files:
        hf = tokenizers.Tokenizer.from_file(str(p))
        ours = load_tokenizer(str(p))
        want = hf.encode(text, add_special_tokens=False).ids
        assert ours.encode(text) == want, p.name
        assert ours.decode(want) == hf.decode(want, skip_special_tokens=False), p.name
        assert [s.id for s in ours.encode_with_offsets(text)] == want, p.name


# -- refusals: each names the component ------------------------------------------------------------------

def _doc(corpus: list[str], tmp_path: Path) -> dict[str, Any]:
    p = _train(corpus[:10], tmp_path, "base", models.BPE(), pre=pre_tokenizers.ByteLevel(add_prefix_space=False),
               decoder=decoders.ByteLevel(), alphabet=BYTE_ALPHABET, vocab=300)
    return dict(json.loads(p.read_text(encoding="utf-8")))


REFUSED: list[tuple[str, Any, str]] = [
    ("normalizer", {"type": "Precompiled", "precompiled_charsmap": ""}, 'normalizer "Precompiled"'),
    ("normalizer", {"type": "BertNormalizer"}, 'normalizer "BertNormalizer"'),
    ("normalizer", {"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "NMT"}]}, 'normalizer "NMT"'),
    ("normalizer", {"type": "ByteLevel"}, 'normalizer "ByteLevel"'),
    ("pre_tokenizer", {"type": "UnicodeScripts"}, 'pre-tokenizer "UnicodeScripts"'),
    ("pre_tokenizer", {"type": "Sequence", "pretokenizers": [{"type": "FixedLength", "length": 5}]},
     'pre-tokenizer "FixedLength"'),
    ("pre_tokenizer", {"type": "Split", "pattern": {"Regex": "a"}, "behavior": "Sideways", "invert": False},
     "behavior 'Sideways'"),
    ("decoder", {"type": "WordPiece", "prefix": 2}, 'decoder "WordPiece"'),
    ("decoder", {"type": "CTC"}, 'decoder "CTC"'),
]


@pytest.mark.parametrize(("key", "value", "named"), REFUSED)
def test_unsupported_components_are_refused_by_name(corpus, tmp_path, key: str, value: Any, named: str) -> None:
    doc = _doc(corpus, tmp_path)
    doc[key] = value
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(FormatError, match=named):
        load_tokenizer(str(p))


@pytest.mark.parametrize(("option", "value", "named"), [
    ("continuing_subword_prefix", 2, "continuing_subword_prefix"), ("dropout", 0.1, "dropout"),
    ("type", "WordPiece", "WordPiece"), ("byte_fallback", "yes", "byte_fallback"),
])
def test_unsupported_model_options_are_refused_by_name(corpus, tmp_path, option: str, value: Any, named: str) -> None:
    doc = _doc(corpus, tmp_path)
    doc["model"][option] = value
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(FormatError, match=named):
        load_tokenizer(str(p))


# -- the commands on a tokenizer.json beyond our pre-tokenizers ------------------------------------------

def test_analyze_inspect_and_diff_run_the_files_pipeline(corpus, tmp_path, capsys) -> None:
    from bpe_desktop.cli import main as cli_main

    llama = _train(corpus[:30], tmp_path, "llama", models.BPE(byte_fallback=True, unk_token="<unk>"),
                   normalizer=normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")]),
                   decoder=decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(),
                                              decoders.Strip(" ", 1, 0)]),
                   specials=["<unk>", "<s>", "</s>"], vocab=400, edit=_add_byte_tokens)
    bert = _train(corpus[:30], tmp_path, "bert", models.BPE(unk_token="[UNK]"),
                  normalizer=normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()]),
                  pre=pre_tokenizers.Whitespace(), specials=["[UNK]"], vocab=400)
    text = MULTILINGUAL + EMOJI
    src = tmp_path / "t.txt"
    src.write_text(text, encoding="utf-8")
    for p in (llama, bert):
        assert cli_main(["analyze", str(src), "--tokenizer", str(p), "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        hf = tokenizers.Tokenizer.from_file(str(p))
        assert doc["tokens"] == len(hf.encode(text, add_special_tokens=False).ids), p.name
    assert cli_main(["inspect", str(src), "--tokenizer", str(llama), "--tokenizer", str(bert), "--json"]) == 0
    capsys.readouterr()
    assert cli_main(["diff", str(llama), str(bert)]) == 1  # they differ (diff's exit code, as diff(1))
    assert cli_main(["diff", str(llama), str(llama)]) == 0
    capsys.readouterr()
    assert cli_main(["encode", "--tokenizer", str(llama), "--ids", "a<s>b"]) == 0
    out = capsys.readouterr().out.split()
    hf = tokenizers.Tokenizer.from_file(str(llama))
    assert [int(x) for x in out[-len(hf.encode("a<s>b", add_special_tokens=False).ids):]] == \
        hf.encode("a<s>b", add_special_tokens=False).ids


def test_plain_files_stay_plain_and_others_say_why(corpus, tmp_path) -> None:
    plain = _train(corpus[:10], tmp_path, "plain", models.BPE(), pre=pre_tokenizers.ByteLevel(add_prefix_space=False),
                   decoder=decoders.ByteLevel(), alphabet=BYTE_ALPHABET, specials=["<|endoftext|>"], vocab=300)
    tok = load_tokenizer(str(plain))
    assert isinstance(tok, HFTokenizer) and tok.plain_reason is None and tok.pretokenizer.name == "gpt2"
    roberta = _train(corpus[:10], tmp_path, "rob", models.BPE(), pre=pre_tokenizers.ByteLevel(add_prefix_space=True),
                     decoder=decoders.ByteLevel(), alphabet=BYTE_ALPHABET, vocab=300)
    assert 'pre-tokenizer "ByteLevel"' in (load_tokenizer(str(roberta)).plain_reason or "")
    nfc = _train(corpus[:10], tmp_path, "nfc", models.BPE(), normalizer=normalizers.NFC(),
                 pre=pre_tokenizers.ByteLevel(add_prefix_space=False), alphabet=BYTE_ALPHABET, vocab=300)
    assert load_tokenizer(str(nfc)).plain_reason == 'normalizer "NFC"'


def test_clip_like_byte_level_with_end_of_word_suffix(corpus, texts, tmp_path) -> None:
    """HF's CLIP layout: byte-level pieces, tokens with ``</w>`` glued to a word's last byte character."""
    clip_re = tokenizers.Regex(r"""'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+""")
    pre = pre_tokenizers.Sequence([pre_tokenizers.Split(clip_re, "removed", invert=True),
                                   pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    norm = normalizers.Sequence([normalizers.NFC(), normalizers.Replace(tokenizers.Regex(r"\s+"), " "),
                                 normalizers.Lowercase()])
    tok = tokenizers.Tokenizer(models.BPE(end_of_word_suffix="</w>"))
    tok.normalizer, tok.pre_tokenizer, tok.decoder = norm, pre, decoders.ByteLevel()
    alphabet = BYTE_ALPHABET
    tok.train_from_iterator(corpus[:40], trainers.BpeTrainer(
        vocab_size=900, initial_alphabet=alphabet, end_of_word_suffix="</w>", show_progress=False,
        special_tokens=["<|startoftext|>", "<|endoftext|>"]))
    p = tmp_path / "clip.json"
    tok.save(str(p))
    doc = json.loads(p.read_text(encoding="utf-8"))
    vocab = doc["model"]["vocab"]
    for c in alphabet:  # CLIP's alphabet: every byte character and its </w> form
        vocab.setdefault(c + "</w>", max(vocab.values()) + 1)
    p.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    _same(p, texts)


def test_gzipped_files_read_as_their_content(corpus, texts, tmp_path) -> None:
    import gzip

    from bpe_desktop.core import TrainConfig, train
    from bpe_desktop.core.formats import load_model, save_model

    p = _train(corpus[:10], tmp_path, "gz", models.BPE(), pre=pre_tokenizers.ByteLevel(add_prefix_space=True),
               decoder=decoders.ByteLevel(), alphabet=BYTE_ALPHABET, vocab=300)
    gz = tmp_path / "tokenizer.json.gz"
    gz.write_bytes(gzip.compress(p.read_bytes()))
    hf = tokenizers.Tokenizer.from_file(str(p))
    for text in texts.values():
        assert load_tokenizer(str(gz)).encode(text) == hf.encode(text, add_special_tokens=False).ids
    model, _ = train({"low": 5, "lower": 2, "newest": 6}, TrainConfig(merges=5, glue_marker=True))
    codes = tmp_path / "codes.txt"
    save_model(model, codes, "subword-nmt")
    codes_gz = tmp_path / "codes.txt.gz"
    codes_gz.write_bytes(gzip.compress(codes.read_bytes()))
    assert load_model(str(codes_gz)).merge_pairs_text() == model.merge_pairs_text()
    damaged = tmp_path / "damaged.json.gz"
    damaged.write_bytes(gzip.compress(p.read_bytes())[:200])
    with pytest.raises(FormatError, match="damaged gzip"):
        load_tokenizer(str(damaged))


JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 300) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
                        st.sampled_from(["type", "pattern", "behavior", "invert", "content", "Regex", "String",
                                         "normalizers", "pretokenizers", "decoders", "replacement",
                                         "prepend_scheme", "split", "start", "stop", "prepend"]), inner, max_size=5),
                    max_leaves=12)
COMPONENT = st.fixed_dictionaries({"type": st.sampled_from(
    ["NFC", "Lowercase", "Strip", "Replace", "Prepend", "Sequence", "ByteLevel", "Split", "Metaspace", "Digits",
     "Punctuation", "Whitespace", "ByteFallback", "Fuse", "BPEDecoder", "Precompiled", "Nope"])}, optional={
    "pattern": JSON, "behavior": JSON, "invert": JSON, "content": JSON, "normalizers": JSON, "pretokenizers": JSON,
    "decoders": JSON, "replacement": JSON, "prepend_scheme": JSON, "split": JSON, "start": JSON, "prepend": JSON,
    "individual_digits": JSON, "add_prefix_space": JSON, "use_regex": JSON})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.sampled_from(["normalizer", "pre_tokenizer", "decoder"]), value=COMPONENT | JSON,
       text=st.text(max_size=20))
def test_hostile_components_are_read_or_refused_clearly(hostile_doc, tmp_path_factory, key: str, value: Any,
                                                        text: str) -> None:
    from bpe_desktop.core.errors import BpeError

    doc = dict(hostile_doc)
    doc[key] = value
    p = tmp_path_factory.mktemp("h") / "t.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    try:
        tok = load_tokenizer(str(p))
    except FormatError:
        return
    try:
        tok.decode(tok.encode(text))
    except BpeError:
        pass  # e.g. a character a chars-mode file has no token for: one clear error


@pytest.fixture(scope="module")
def hostile_doc(corpus, tmp_path_factory) -> dict[str, Any]:
    return _doc(corpus, tmp_path_factory.mktemp("hostile"))


def test_analyze_and_convert_on_a_prefixed_file(corpus, tmp_path, capsys) -> None:
    """analyze lists a prefixed file's tokens as the file writes them, and its unreachable tokens are the
    definition run by ``tokenizers`` itself (decode one token, encode the text: not that token); convert
    refuses, since no other format has a continuing prefix."""
    from bpe_desktop.cli import main as cli_main

    p = _train_affixed(corpus[:30], tmp_path, "wp", "##", None, pre_tokenizers.Whitespace(), decoders.WordPiece(),
                       vocab=500)
    src = tmp_path / "t.txt"
    src.write_text(MULTILINGUAL + corpus[40], encoding="utf-8")
    assert cli_main(["analyze", str(src), "--tokenizer", str(p), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    hf = tokenizers.Tokenizer.from_file(str(p))
    ordinary = [i for i in range(hf.get_vocab_size()) if hf.id_to_token(i) != "[UNK]"]
    want = {i for i in ordinary if hf.encode(hf.decode([i]), add_special_tokens=False).ids != [i]}
    assert {it["id"] for it in doc["unreachable"]} == want
    assert all(it["text"] == hf.id_to_token(it["id"]) for it in doc["unused"])
    assert any(it["text"].startswith("##") for it in doc["unreachable"])
    assert cli_main(["convert", str(p), str(tmp_path / "out.json"), "--to", "native"]) == 2
    assert "continuing_subword_prefix" in capsys.readouterr().err
    assert not (tmp_path / "out.json").exists()


def test_diff_of_prefixed_files_names_merges_as_the_files_do(corpus, tmp_path, capsys) -> None:
    from bpe_desktop.cli import main as cli_main

    a = _train_affixed(corpus[:30], tmp_path, "a", "##", None, pre_tokenizers.Whitespace(), None, vocab=400)
    b = _train_affixed(corpus[30:60], tmp_path, "b", "##", None, pre_tokenizers.Whitespace(), None, vocab=400)
    assert cli_main(["diff", str(a), str(b), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    merges = [[tuple(m) for m in json.loads(p.read_text(encoding="utf-8"))["model"]["merges"]] for p in (a, b)]
    assert [(m["left"], m["right"]) for m in doc["only_a"]] == [m for m in merges[0] if m not in merges[1]]
    assert [(m["left"], m["right"]) for m in doc["only_b"]] == [m for m in merges[1] if m not in merges[0]]


def test_convert_refuses_a_pipeline_it_would_drop(corpus, tmp_path, capsys) -> None:
    """convert writes merges (and a pattern); a normalizer or a Metaspace pre-tokenizer has no place in any format
    we write, and the merges without it tokenize otherwise -- so it is refused naming the component, and nothing is
    written (it used to write the merges alone, silently).  A plain ByteLevel file still converts, with its ids."""
    from bpe_desktop.cli import main as cli_main

    nfkc = _train(corpus[:40], tmp_path, "nfkc", models.BPE(), normalizer=normalizers.NFKC(),
                  pre=pre_tokenizers.ByteLevel(add_prefix_space=False), decoder=decoders.ByteLevel(),
                  alphabet=BYTE_ALPHABET, vocab=400)
    meta = _train(corpus[:40], tmp_path, "meta", models.BPE(unk_token="<unk>"), pre=pre_tokenizers.Metaspace(),
                  decoder=decoders.Metaspace(), specials=["<unk>"], vocab=400)
    for p, component in ((nfkc, "NFKC"), (meta, "Metaspace")):
        out = tmp_path / f"{p.stem}-out.json"
        assert cli_main(["convert", str(p), str(out), "--to", "native"]) == 2
        err = capsys.readouterr().err
        assert component in err and "use the file as it is" in err and err.count("\n") == 1
        assert not out.exists()
    plain = _train(corpus[:40], tmp_path, "plain", models.BPE(), pre=pre_tokenizers.ByteLevel(add_prefix_space=False),
                   decoder=decoders.ByteLevel(), alphabet=BYTE_ALPHABET, vocab=400)
    assert cli_main(["convert", str(plain), str(tmp_path / "plain.json"), "--to", "hf"]) == 0
    back = tokenizers.Tokenizer.from_file(str(tmp_path / "plain.json"))
    hf = tokenizers.Tokenizer.from_file(str(plain))
    text = "\n".join(corpus[40:45])
    assert back.encode(text).ids == hf.encode(text).ids
