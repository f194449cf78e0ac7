"""Extended tokenizers against their home libraries: the file an extension writes, read by tiktoken or
tokenizers, gives the ids our extended tokenizer gives -- on held-out robot-log lines and English text; with 0
merges the extension encodes every text as the original does; small random corpora on a small rank table,
where a new token next to a neighbour often forms an original token of lower rank (the case that makes rank
tables differ from merge lists)."""

from __future__ import annotations

import json
from functools import cache
from itertools import pairwise
from pathlib import Path

import pytest
import tiktoken
import tiktoken.load
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFLib
from tokenizers import decoders, models, pre_tokenizers, trainers

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.errors import ConfigError, FormatError, PretokenizerNeeded
from bpe_desktop.core.extend import Extension, start
from bpe_desktop.core.formats import Loaded, load, save_model
from bpe_desktop.core.formats.presets import PRESETS
from bpe_desktop.core.text.pretokenize import Pretokenizer
from bpe_desktop.core.tokenizers.ranks import RankTokenizer
from bpe_desktop.core.training.trainer import train
from support import ASSIGNED_CHARS, ROBOT_SAMPLE_FILE

LINES = ROBOT_SAMPLE_FILE.read_text(encoding="utf-8").splitlines(keepends=True)
TRAIN, HELD = "".join(LINES[:1500]), "".join(LINES[1500:])
FEW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def english(topics_text: str) -> str:
    return topics_text[:60_000]


def tiktoken_encoding(path: str | Path, name: str) -> tiktoken.Encoding:
    """tiktoken reading the rank file at *path* with encoding *name*'s pattern and specials (a .tiktoken holds
    neither)."""
    p = PRESETS[name]
    pattern = Pretokenizer.from_spec(p.pretokenizer).pattern
    assert pattern is not None
    return tiktoken.Encoding(name=f"{name}-extended", pat_str=pattern,
                             mergeable_ranks=tiktoken.load.load_tiktoken_bpe(str(path)), special_tokens=p.specials)


@pytest.fixture(scope="module", params=["cl100k", "o200k"])
def rank_extension(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[
        str, Extension, Path]:
    name = request.param
    ext = start(load(name), name, TRAIN, TrainConfig(mode="bytes", merges=1000))
    out = tmp_path_factory.mktemp("ext") / f"{name}_logs.tiktoken"
    ext.save(str(out))
    return name, ext, out


def test_tiktoken_reads_the_extended_rank_file_with_our_ids(rank_extension, english: str) -> None:
    name, ext, out = rank_extension
    enc = tiktoken_encoding(out, name)
    ours = load(f"{name}:{out}").tokenizer
    original = load(name).tokenizer
    for text in (HELD, english, TRAIN):
        want = enc.encode_ordinary(text)
        assert ours.encode_ordinary(text) == want
        assert ext.tokenizer().encode_ordinary(text) == want
    assert len(enc.encode_ordinary(HELD)) < len(original.encode_ordinary(HELD))  # the new merges are used
    # the specials keep their ids, the new ranks come after them
    specials = PRESETS[name].specials
    assert ours.special_tokens == specials
    first = max(specials.values()) + 1
    assert ext.file_ids == list(range(first, first + len(ext.records)))
    assert ours.encode("<|endoftext|>", allowed_special="all") == enc.encode("<|endoftext|>", allowed_special="all")


def test_records_count_what_tiktoken_makes(rank_extension) -> None:
    """Each record's count is the weighted number of adjacent pairs with the token's bytes, and after merge k the
    corpus holds exactly ``symbols_after`` tokens as tiktoken encodes it with the first k new ranks."""
    name, ext, _ = rank_extension
    base = load(name).tokenizer
    assert isinstance(base, RankTokenizer)
    ranks = dict(base.ranks)
    p = PRESETS[name]
    pattern = Pretokenizer.from_spec(p.pretokenizer).pattern
    assert pattern is not None
    recs = ext.records
    checked = sorted({1, len(recs) // 2, len(recs)})
    for k, rec in enumerate(recs, 1):
        ranks[ext.trainer.tokens[rec.token_id]] = rec.token_id  # type: ignore[index]
        if k in checked:
            enc = tiktoken.Encoding(name="k", pat_str=pattern, mergeable_ranks=dict(ranks), special_tokens={})
            assert len(enc.encode_ordinary(TRAIN)) == rec.symbols_after
    assert ext.trainer.initial_symbols == len(base.encode_ordinary(TRAIN))


def test_a_bare_extended_file_asks_for_its_encoding(rank_extension) -> None:
    name, _, out = rank_extension
    with pytest.raises(PretokenizerNeeded, match=f"open it as {name}:"):
        load(str(out))


@pytest.fixture(scope="module")
def cl100k_zero() -> tuple[Extension, tiktoken.Encoding]:
    ext = start(load("cl100k"), "cl100k", TRAIN, TrainConfig(mode="bytes", merges=0))
    tok = load("cl100k").tokenizer
    assert isinstance(tok, RankTokenizer)
    pattern = Pretokenizer.from_spec("cl100k").pattern
    assert pattern is not None
    return ext, tiktoken.Encoding(name="c", pat_str=pattern, mergeable_ranks=tok.ranks, special_tokens={})


@FEW
@given(st.text(ASSIGNED_CHARS, max_size=80))
def test_zero_merges_encode_as_tiktoken(cl100k_zero, text: str) -> None:
    ext, enc = cl100k_zero
    assert ext.records == []
    assert ext.tokenizer().encode_ordinary(text) == enc.encode_ordinary(text)


# -- small rank tables, random corpora ---------------------------------------------------------------------------
def small_ranks() -> dict[bytes, int]:
    """256 bytes and 40 merges of a tiny corpus: short tokens over "ab c", so new tokens meet old ones."""
    model, _ = train({"abcab": 5, " abca": 3, "cbac": 4, " bb": 2, "aab": 3},
                     TrainConfig(mode="bytes", pretokenizer="gpt2", merges=40))
    return {t: i for i, t in enumerate(model.tokens)}  # type: ignore[misc]


SMALL = small_ranks()
GPT2_PATTERN = Pretokenizer.from_spec("gpt2").pattern
corpora = st.text(st.sampled_from("abc \n"), min_size=1, max_size=60)


@FEW
@given(corpora, corpora, st.integers(0, 25))
def test_small_tables_extend_as_tiktoken_encodes(corpus: str, other: str, n: int) -> None:
    tok = RankTokenizer(SMALL, "gpt2", {})
    ext = start(Loaded("tiktoken", tok), "small", corpus, TrainConfig(mode="bytes", merges=n))
    assert GPT2_PATTERN is not None
    enc = tiktoken.Encoding(name="s", pat_str=GPT2_PATTERN, mergeable_ranks=ext.ranks(), special_tokens={})
    for text in (corpus, other, corpus + other):
        assert ext.tokenizer().encode_ordinary(text) == enc.encode_ordinary(text)
    assert ext.trainer.total_symbols == len(enc.encode_ordinary(corpus))  # the trainer's words are tiktoken's


def test_a_new_token_beside_a_neighbour_makes_an_original_one() -> None:
    """tiktoken merges by the rank of the concatenated bytes: with ``abc`` ranked but neither ``ab`` nor ``bc``,
    "abcabc" stays bytes; once ``ab`` is a (new, higher) rank, ab+c is ``abc``'s bytes, which tiktoken then
    merges -- so the new merge makes no ``ab`` at all, and the corpus shrinks by 4 symbols per word."""
    ranks = {bytes([b]): b for b in range(256)} | {b"abc": 256}
    tok = RankTokenizer(ranks, "gpt2", {})
    ext = start(Loaded("tiktoken", tok), "abc", "abcabc abcabc abcabc", TrainConfig(mode="bytes", merges=1))
    (rec,) = ext.records
    assert (rec.left, rec.right, rec.count) == ("a", "b", 6)
    assert GPT2_PATTERN is not None
    enc = tiktoken.Encoding(name="abc", pat_str=GPT2_PATTERN, mergeable_ranks=ext.ranks(), special_tokens={})
    assert enc.encode_ordinary("abcabc") == [256, 256] == ext.tokenizer().encode_ordinary("abcabc")
    assert (rec.merged, ext.trainer.made) == (12, [0])
    assert rec.symbols_after == len(enc.encode_ordinary("abcabc abcabc abcabc"))


tables = st.lists(st.text(st.sampled_from("abc"), min_size=2, max_size=4), max_size=12, unique=True)


@FEW
@given(tables, corpora, corpora, st.integers(1, 20))
def test_any_rank_table_extends_as_tiktoken_encodes(extra: list[str], corpus: str, other: str, n: int) -> None:
    """Rank tables that are no merge list (``abc`` ranked without ``ab`` or ``bc``): new tokens often meet a
    neighbour that makes an original token, which tiktoken then merges."""
    ranks = {bytes([b]): b for b in range(256)} | {t.encode(): 256 + k for k, t in enumerate(extra)}
    ext = start(Loaded("tiktoken", RankTokenizer(ranks, "gpt2", {})), "t", corpus, TrainConfig(mode="bytes", merges=n))
    assert GPT2_PATTERN is not None
    enc = tiktoken.Encoding(name="t", pat_str=GPT2_PATTERN, mergeable_ranks=ext.ranks(), special_tokens={})
    for text in (corpus, other, corpus + other):
        assert ext.tokenizer().encode_ordinary(text) == enc.encode_ordinary(text)
    assert ext.trainer.total_symbols == len(enc.encode_ordinary(corpus))


# -- HF ByteLevel --------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def hf_file(tmp_path_factory: pytest.TempPathFactory, english: str) -> Path:
    """A ByteLevel BPE tokenizer.json trained by tokenizers itself on English, with two added tokens."""
    hf = HFLib(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = decoders.ByteLevel()
    hf.train_from_iterator([english[:40_000]], trainers.BpeTrainer(
        vocab_size=700, special_tokens=["<s>", "</s>"], show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    path = tmp_path_factory.mktemp("hf") / "tokenizer.json"
    hf.save(str(path))
    return path


def test_tokenizers_reads_the_extended_json_with_our_ids(hf_file: Path, tmp_path: Path, english: str) -> None:
    ext = start(load(str(hf_file)), str(hf_file), TRAIN, TrainConfig(mode="bytes", merges=500))
    assert len(ext.records) == 500
    out = tmp_path / "extended.json"
    ext.save(str(out))
    home, original = HFLib.from_file(str(out)), HFLib.from_file(str(hf_file))
    ours = load(str(out)).tokenizer
    assert ext.file_ids == list(range(original.get_vocab_size(), original.get_vocab_size() + 500))
    for text in (HELD, english[40_000:], "<s>" + HELD[:300] + "</s>"):
        want = home.encode(text, add_special_tokens=False).ids
        assert ours.encode_ordinary(text) == want
        assert ext.tokenizer().encode_ordinary(text) == want
    shorter = home.encode(HELD, add_special_tokens=False).ids
    assert len(shorter) < len(original.encode(HELD, add_special_tokens=False).ids)
    assert home.token_to_id("<s>") == original.token_to_id("<s>")  # added tokens keep their ids


def test_an_hf_extension_on_the_timeline_encodes_as_tokenizers_at_every_step(hf_file: Path, tmp_path: Path) -> None:
    """The window's run of an HF extension (``Extension.timeline``: its merges replayed in the model's ids) gives,
    at step k, the ids tokenizers gives with the written file cut to the original's merges + the first k new ones."""
    from bpe_desktop.core.tokenizers.tokenizer import Tokenizer

    ext = start(load(str(hf_file)), str(hf_file), TRAIN, TrainConfig(mode="bytes", merges=12))
    out = tmp_path / "extended.json"
    ext.save(str(out))
    run = ext.timeline()
    assert run.rule == "merge-list" and run.start == len(ext.original.model.merges)
    replay, file_id = Tokenizer(run.model), ext.tokenizer().file_id  # type: ignore[attr-defined]
    doc = json.loads(out.read_text(encoding="utf-8"))
    n_vocab = len(json.loads(hf_file.read_text(encoding="utf-8"))["model"]["vocab"])
    for k in (0, 1, 5, 12):
        cut = json.loads(json.dumps(doc))
        cut["model"]["merges"] = cut["model"]["merges"][:run.start + k]
        keep = set(ext.file_ids[:k])
        cut["model"]["vocab"] = {t: i for t, i in cut["model"]["vocab"].items() if i < n_vocab or i in keep}
        home = HFLib.from_str(json.dumps(cut))
        ids = home.encode(HELD[:2000], add_special_tokens=False).ids
        assert (k == 0) == (not keep & set(ids))  # the cut file makes the new tokens only from step 1 on
        for text in (HELD[:2000], "[INFO] planner: Computed path"):
            assert [file_id(i) for i in replay.encode_ordinary(text, upto=run.start + k)] == home.encode(
                text, add_special_tokens=False).ids, k


@FEW
@given(st.text(ASSIGNED_CHARS, max_size=60))
def test_hf_zero_merges_encode_as_the_original(hf_file: Path, text: str) -> None:
    ext = start(load(str(hf_file)), str(hf_file), TRAIN[:2000], TrainConfig(mode="bytes", merges=0))
    home = HFLib.from_file(str(hf_file))
    assert ext.tokenizer().encode_ordinary(text) == home.encode(text, add_special_tokens=False).ids


def test_ignore_merges_is_refused_naming_it(hf_file: Path, tmp_path: Path) -> None:
    doc = json.loads(hf_file.read_text(encoding="utf-8"))
    doc["model"]["ignore_merges"] = True
    p = tmp_path / "ignore.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ConfigError, match="ignore_merges"):
        start(load(str(p)), str(p), TRAIN[:500], TrainConfig(mode="bytes", merges=5))


# -- merge lists of our own: native and GPT-2 files -----------------------------------------------------------------
def replay(ids: list[int], merges: list[tuple[int, int]], first_id: int) -> list[int]:
    """The definition: apply merges in order, each left to right (new tokens numbered from *first_id*)."""
    for k, (a, b) in enumerate(merges):
        out: list[int] = []
        i = 0
        while i < len(ids):
            if i + 1 < len(ids) and ids[i] == a and ids[i + 1] == b:
                out.append(first_id + k)
                i += 2
            else:
                out.append(ids[i])
                i += 1
        ids = out
    return ids


def test_gpt2_files_extended_keep_endoftext_and_read_in_tokenizers(tmp_path: Path, english: str) -> None:
    model, _ = train({w: 1 for w in english[:20_000].split()},
                     TrainConfig(mode="bytes", pretokenizer="gpt2", merges=300, specials=("<|endoftext|>",)))
    folder = tmp_path / "gpt2"
    save_model(model, folder, "gpt2")
    ext = start(load(str(folder)), str(folder), TRAIN, TrainConfig(mode="bytes", merges=100))
    out = tmp_path / "gpt2_ext"
    ext.save(str(out))
    vocab = json.loads((out / "encoder.json").read_text(encoding="utf-8"))
    assert vocab["<|endoftext|>"] == json.loads((folder / "encoder.json").read_text(encoding="utf-8"))["<|endoftext|>"]
    home = HFLib(models.BPE.from_file(str(out / "encoder.json"), str(out / "vocab.bpe")))
    home.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    ours = load(str(out)).tokenizer
    for text in (HELD, english[20_000:40_000]):
        assert ours.encode_ordinary(text) == home.encode(text).ids == ext.tokenizer().encode_ordinary(text)
    # new merges never touch what the original made first: original ids, then the new merges in order
    original = load(str(folder)).tokenizer
    n = len(model.tokens)
    assert all(i not in vocab.values() or i >= n for i in ext.file_ids)
    for piece in ours.pretokenizer.split(HELD[:3000]):
        assert ours.encode_piece(piece) == [
            i if i < n else ext.file_ids[i - n] for i in replay(original.encode_piece(piece), ext.trainer.merges, n)]


def test_native_extension_is_the_original_then_the_new_merges(tmp_path: Path) -> None:
    model, recs = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, TrainConfig(merges=4))
    p = tmp_path / "seed.native.json"
    save_model(model, p, "native", recs)
    ext = start(load(str(p)), str(p), "lowest newer wider lowest", TrainConfig(merges=6))
    out = tmp_path / "ext.json"
    ext.save(str(out))
    back = load(str(out))
    assert back.model.merges[:4] == model.merges and back.model.merges[4:] == ext.trainer.merges
    n = len(model.tokens)
    original = load(str(p)).tokenizer
    for word in ("lowest", "newer", "wider", "slow"):
        assert back.tokenizer.encode_piece(word) == replay(original.encode_piece(word), ext.trainer.merges, n)



def textbook(words: list[list[int]], counts: list[int], n: int, tokens: list[bytes]) -> list[tuple[int, int, int]]:
    """Recount every pair after every merge; the highest count wins, ties the smaller (left, right) ids; a merge
    whose token exists keeps its id.  Returns (left id, right id, count) per merge."""
    tokens = list(tokens)
    ids = {t: i for i, t in enumerate(tokens)}
    words = [list(w) for w in words]
    out: list[tuple[int, int, int]] = []
    for _ in range(n):
        pairs: dict[tuple[int, int], int] = {}
        for w, c in zip(words, counts, strict=True):
            for pair in pairwise(w):
                pairs[pair] = pairs.get(pair, 0) + c
        if not pairs:
            break
        a, b = min(pairs, key=lambda pr: (-pairs[pr], pr))
        out.append((a, b, pairs[a, b]))
        tok = tokens[a] + tokens[b]
        if tok not in ids:
            ids[tok] = len(tokens)
            tokens.append(tok)
        c = ids[tok]
        for w in words:
            i = 0
            while i + 1 < len(w):
                if w[i] == a and w[i + 1] == b:
                    w[i : i + 2] = [c]
                i += 1
    return out


@FEW
@given(st.text(st.sampled_from("abcdeé \n"), min_size=1, max_size=120), st.integers(0, 30))
def test_merge_list_extension_is_the_textbook_on_the_segmentation(hf_file: Path, corpus: str, n: int) -> None:
    from bpe_desktop.core.extend import corpus_pieces

    ext = start(load(str(hf_file)), str(hf_file), corpus, TrainConfig(mode="bytes", merges=n))
    tok = load(str(hf_file)).tokenizer
    pieces = corpus_pieces(tok, corpus)
    bpe = tok.bpe  # type: ignore[attr-defined]
    words = [list(bpe.encode(p)[0]) for p in pieces]
    want = textbook(words, list(pieces.values()), n, list(tok.model.tokens))  # type: ignore[arg-type]
    assert [(r.left_id, r.right_id, r.count) for r in ext.records] == want


@pytest.mark.parametrize(("name", "other"), [("gpt2", "cl100k"), ("p50k", "gpt2")])
def test_an_extension_is_read_as_its_own_encoding_only(name: str, other: str, tmp_path: Path) -> None:
    """p50k is r50k plus 24 ranks after a gap: an extended p50k is p50k's, never "r50k extended"."""
    ext = start(load(name), name, TRAIN[:20_000], TrainConfig(mode="bytes", merges=20))
    out = tmp_path / f"{name}.tiktoken"
    ext.save(str(out))
    enc = tiktoken_encoding(out, name)
    assert load(f"{name}:{out}").tokenizer.encode_ordinary(HELD) == enc.encode_ordinary(HELD)
    assert load(f"{name}:{out}").tokenizer.special_tokens == PRESETS[name].specials
    with pytest.raises(FormatError, match=f"write {name}:"):
        load(f"{other}:{out}")


def test_special_tokens_in_the_corpus_are_cut_out_first() -> None:
    """cl100k's <|endoftext|> never takes part in a merge: the corpus is split at it before pre-tokenizing."""
    ext = start(load("cl100k"), "cl100k", "Qzxv<|endoftext|>Qzxv<|endoftext|>" * 3,
                TrainConfig(mode="bytes", merges=10))
    # Q zx v: Q+zx and zx+v tie at 6, the smaller bytes win; uncut, "endo ft ext" would be merged too
    assert [r.token for r in ext.records] == ["Qzx", "Qzxv"]
    assert ext.tokenizer().encode("Qzxv<|endoftext|>", allowed_special="all")[-1] == 100257


def extended_hf(hf: HFLib, folder: Path, corpus: str, merges: int) -> tuple[Extension, HFLib, Path]:
    """*hf* saved, extended on *corpus*, the extension saved and read back by tokenizers."""
    p, out = folder / "original.json", folder / "extended.json"
    hf.save(str(p))
    ext = start(load(str(p)), str(p), corpus, TrainConfig(merges=merges))
    ext.save(str(out))
    return ext, HFLib.from_file(str(out)), out


def test_hf_unknown_token_is_never_merged(tmp_path: Path) -> None:
    """A chars-mode tokenizer.json with unk_token: characters it lacks become [UNK], which no new merge takes in,
    and tokenizers still gives our ids on text full of them."""
    hf = HFLib(models.BPE(unk_token="[UNK]", end_of_word_suffix="</w>"))
    hf.pre_tokenizer = pre_tokenizers.Whitespace()
    hf.train_from_iterator(["low lower newest widest " * 20], trainers.BpeTrainer(
        vocab_size=60, special_tokens=["[UNK]"], end_of_word_suffix="</w>", show_progress=False))
    corpus = "lowé lowé lowé éé newesté ñlow " * 5
    ext, home, out = extended_hf(hf, tmp_path, corpus, 15)
    assert ext.records and all("[UNK]" not in r.token for r in ext.records)
    for text in (corpus, "éloweré ñ lowlowé"):
        assert load(str(out)).tokenizer.encode_ordinary(text) == home.encode(text, add_special_tokens=False).ids


def test_hf_byte_fallback_tokens_are_never_merged(tmp_path: Path) -> None:
    """byte_fallback: a character the vocabulary lacks is its <0xNN> byte tokens, which the decoder reads one by
    one -- no new merge takes them in, and tokenizers still gives our ids."""
    vocab = {c: i for i, c in enumerate("abcelnostw")} | {f"<0x{b:02X}>": 10 + b for b in range(256)}
    vocab["lo"] = len(vocab)
    hf = HFLib(models.BPE(vocab=vocab, merges=[("l", "o")], byte_fallback=True))
    hf.pre_tokenizer = pre_tokenizers.Whitespace()
    hf.decoder = decoders.ByteFallback()
    corpus = "lowé lowé éé newesté ñlow ééé " * 4
    ext, home, out = extended_hf(hf, tmp_path, corpus, 12)
    assert ext.records and all("<0x" not in r.token for r in ext.records)
    for text in (corpus, "élowe ñ lowlowé"):
        ids = home.encode(text, add_special_tokens=False).ids
        assert load(str(out)).tokenizer.encode_ordinary(text) == ids
        assert home.decode(ids).replace(" ", "") == text.replace(" ", "")


def test_vocab_merges_files_stay_vocab_merges(tmp_path: Path) -> None:
    model, _ = train({"lowest": 3, "newer": 2, " low": 4}, TrainConfig(mode="bytes", pretokenizer="gpt2", merges=8))
    folder = tmp_path / "vm"
    save_model(model, folder, "vocab-merges")
    ext = start(load(str(folder)), str(folder), "lowest lowest newer", TrainConfig(mode="bytes", merges=3))
    out = tmp_path / "vm_ext"
    assert "vocab.json and merges.txt" in ext.save(str(out))
    home = HFLib(models.BPE.from_file(str(out / "vocab.json"), str(out / "merges.txt")))
    home.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    assert load(str(out)).tokenizer.encode_ordinary("lowest newer") == home.encode("lowest newer").ids


def test_other_formats_are_refused_saying_so(tmp_path: Path) -> None:
    model, _ = train({"low": 5, "lower": 2}, TrainConfig(merges=2, glue_marker=True))
    p = tmp_path / "codes.txt"
    save_model(model, p, "subword-nmt")
    with pytest.raises(ConfigError, match="extending a subword-nmt tokenizer is not supported"):
        start(load(str(p)), str(p), "low lower", TrainConfig(merges=2))


@cache
def cl100k_loaded() -> Loaded:
    return load("cl100k")


hostile_bytes = st.lists(st.one_of(
    st.binary(max_size=12), st.sampled_from([b"<|endoftext|>", b"\r\n", b"\xff\xfe", b"\xc3", b"  ", b"123456"]),
    st.text(ASSIGNED_CHARS, max_size=8).map(str.encode)), max_size=25).map(b"".join)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hostile_bytes, st.text(ASSIGNED_CHARS, max_size=60))
def test_any_corpus_file_extends_cl100k_as_tiktoken_reads_it(tmp_path_factory, data: bytes, other: str) -> None:
    """Any bytes as a corpus file (not UTF-8, specials, CRLF, lone bytes): the extension learns from them or says
    there is nothing to learn, and tiktoken on the extended ranks agrees with us on any text."""
    from bpe_desktop.core.errors import CorpusError
    from bpe_desktop.core.extend import count_files

    p = tmp_path_factory.mktemp("hostile") / "corpus.bin"
    p.write_bytes(data)
    pieces, _ = count_files(cl100k_loaded().tokenizer, [str(p)])
    try:
        ext = start(cl100k_loaded(), "cl100k", pieces, TrainConfig(mode="bytes", merges=8))
    except CorpusError:
        assert not pieces
        return
    pattern = Pretokenizer.from_spec("cl100k").pattern
    assert pattern is not None
    enc = tiktoken.Encoding(name="h", pat_str=pattern, mergeable_ranks=ext.ranks(), special_tokens={})
    valid = data.decode("utf-8", "ignore")
    for text in (valid, other, valid + other):
        assert ext.tokenizer().encode_ordinary(text) == enc.encode_ordinary(text)
