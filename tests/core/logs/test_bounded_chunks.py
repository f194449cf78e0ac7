"""Inspection in bounded chunks whatever the line ends and line lengths (issue 26 item 10).

Oracles: the whole text at once (``chunk_chars`` larger than the text: one chunk), each tokenizer's own
``encode_ordinary`` of the whole text, and the pre-tokenizers' whole-text pieces.  Chunks are made as
small as the rule allows (``chunk_chars`` of 1 cuts at every allowed place), so every kind of cut is hit.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import regex
import tokenizers
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers import models, pre_tokenizers, trainers

from bpe_desktop.core import TrainConfig, train
from bpe_desktop.core.counting.pieces import count_text
from bpe_desktop.core.errors import CorpusError
from bpe_desktop.core.formats import load_tokenizer, save_model
from bpe_desktop.core.formats.presets import PRESETS, bundled_data
from bpe_desktop.core.logs import log_chunks
from bpe_desktop.core.logs.log_chunks import (
    ATOMS,
    CLASSIFIER_ATOMS,
    PIECE_ATOMS,
    CutRule,
    cut_rule,
    iter_chunks,
    iter_file_chunks,
)
from bpe_desktop.core.logs.log_inspect import Inspection, NamedTokenizer, inspect_file, inspect_text
from bpe_desktop.core.logs.robotlogs import generate
from bpe_desktop.core.text.pretokenize import Pretokenizer
from support import HOSTILE_CHARS, cl100k_file
from support import hostile_logs as support_hostile_logs

LOG = generate(300, seed=26)
LINES = LOG.splitlines()
ALPHABET = HOSTILE_CHARS


def hostile_logs() -> st.SearchStrategy[str]:
    """Log lines, odd characters and a long line now and then, joined by any line end."""
    return support_hostile_logs(LINES)


def _atoms_at(text: str, c: int) -> set[str]:
    """The atoms matching at *c*, by the definitions written out (the oracle of the compiled search)."""
    def ws(ch: str) -> bool:
        return ch.isspace() or bool(regex.match(r"\s", ch))

    x1 = text[c - 1] if c >= 1 else None
    x2 = text[c - 2] if c >= 2 else None
    y = text[c] if c < len(text) else None
    z = text[c + 1] if c + 1 < len(text) else None
    out = set()
    if x1 == "\n" and x2 is not None and y is not None and not ws(y):
        if ws(x2):
            out.add("blank-line")
        elif y != "/":
            out.add("line")
    if x1 == "\n" and y is not None and ws(y):
        out.add("indent")
    if y == " " and x1 is not None and not ws(x1) and not x1.isdecimal() and z is not None and not ws(z):
        out.add("space")
    return out


def _same(a: Inspection, b: Inspection) -> None:
    assert a.to_dict(top=10**6) == b.to_dict(top=10**6)
    for ra, rb in zip(a.reports, b.reports, strict=True):
        assert ra.per_line.tolist() == rb.per_line.tolist()
    if a.differences is not None:
        assert b.differences is not None
        assert a.differences.starts.tolist() == b.differences.starts.tolist()
        assert a.differences.ends.tolist() == b.differences.ends.tolist()
        assert a.differences.counts.tolist() == b.differences.counts.tolist()


@settings(max_examples=150, deadline=None)
@given(text=hostile_logs(), atoms=st.sets(st.sampled_from(sorted(ATOMS)), min_size=1))
def test_every_cut_is_an_allowed_place_and_as_late_as_allowed(text: str, atoms: set[str]) -> None:
    size = 40
    chunks = list(iter_chunks(text, size, CutRule(frozenset(atoms))))
    assert "".join(chunks) == text and all(chunks)
    pos = 0
    for chunk in chunks[:-1]:
        end = pos + len(chunk)
        assert _atoms_at(text, end) & atoms, (text[end - 2:end + 2], atoms)
        later = [c for c in range(end + 1, pos + size + 1) if _atoms_at(text, c) & atoms]
        assert not later  # the last allowed place within size, not an earlier one
        if len(chunk) > size:  # longer only when nothing within size was allowed
            assert not any(_atoms_at(text, c) & atoms for c in range(pos + 1, pos + size + 1))
        pos = end


@settings(max_examples=200, deadline=None)
@given(text=hostile_logs())
def test_each_pretokenizers_atoms_keep_its_pieces(text: str) -> None:
    for name, atoms in PIECE_ATOMS.items():
        pre = Pretokenizer.from_spec(name)
        chunks = list(iter_chunks(text, 1, CutRule(atoms)))
        assert [p for c in chunks for p in pre.split(c)] == pre.split(text), name
        spans, pos = [], 0
        for c in chunks:
            spans += [(pos + s, p) for s, p in pre.spans(c)]
            pos += len(c)
        assert spans == list(pre.spans(text)), name


@pytest.fixture(scope="module")
def kinds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """Every kind of tokenizer inspect takes: tiktoken files, our trained ones, HF files."""
    d = tmp_path_factory.mktemp("kinds")
    out: dict[str, object] = {"cl100k": load_tokenizer(f"cl100k:{cl100k_file()}")}
    for preset in ("gpt2", "o200k"):
        path = d / f"{preset}.tiktoken"
        path.write_bytes(bundled_data(PRESETS[preset]))
        out[preset] = load_tokenizer(f"{preset}:{path}")
    for mode, pre in (("bytes", "gpt2"), ("chars", "whitespace"), ("bytes", "none"), ("chars", "subword-nmt"),
                      ("bytes", "log-numbers")):
        cfg = TrainConfig(mode=mode, pretokenizer=pre, merges=150)
        corpus = LOG + "x".join(ALPHABET)  # chars mode: every character the texts may hold
        out[f"trained {pre}"] = load_tokenizer(_saved(train(count_text(corpus, cfg), cfg)[0], d / f"{pre}.json"))
    for name, pre in (("hf plain", pre_tokenizers.ByteLevel(add_prefix_space=False)),
                      ("hf metaspace", pre_tokenizers.Metaspace(prepend_scheme="first"))):
        hf = tokenizers.Tokenizer(models.BPE())
        hf.pre_tokenizer = pre
        hf.train_from_iterator([LOG, "x".join(ALPHABET)], trainers.BpeTrainer(vocab_size=400, show_progress=False,
                                                          initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
        path = d / f"{name.replace(' ', '_')}.json"
        hf.save(str(path))
        out[name] = load_tokenizer(str(path))
    return out


def _saved(model: object, path: Path) -> str:
    save_model(model, path, "native")
    return str(path)


def test_the_rule_follows_each_tokenizer(kinds) -> None:
    rule = {name: cut_rule([(name, tok)]).atoms for name, tok in kinds.items()}
    for name in ("cl100k", "gpt2", "o200k", "trained gpt2", "trained log-numbers", "hf plain"):
        assert rule[name] == {"line", "space"}, name
    assert rule["trained whitespace"] == rule["trained subword-nmt"] == CLASSIFIER_ATOMS
    assert rule["trained none"] == {"line", "blank-line"}
    assert rule["hf metaspace"] == set()  # its prefix and normalization read the text whole
    both = cut_rule([("a", kinds["cl100k"]), ("b", kinds["trained none"])])
    assert both.atoms == {"line"} and "b's pre-tokenizer `none`" in both.why


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=hostile_logs(), size=st.integers(1, 300))
@pytest.mark.parametrize("names", [["cl100k"], ["gpt2"], ["o200k"], ["trained gpt2", "trained whitespace"],
                                   ["trained none"], ["trained subword-nmt", "trained log-numbers"],
                                   ["hf plain", "cl100k"], ["hf metaspace"], ["o200k", "trained none", "gpt2"]])
def test_chunked_inspection_is_the_whole_texts(kinds, names: list[str], text: str, size: int) -> None:
    toks = [NamedTokenizer(n, kinds[n]) for n in names]
    whole = inspect_text(text, toks, chunk_chars=10**9)
    _same(inspect_text(text, toks, chunk_chars=size), whole)
    for nt, rep in zip(toks, whole.reports, strict=True):  # and the whole is the tokenizer's own count
        assert rep.tokens == len(nt.tokenizer.encode_ordinary(text)) == int(rep.per_line.sum())
        assert len(rep.per_line) == text.count("\n") + (not text.endswith("\n") and bool(text))


def _variants(text: str) -> dict[str, str]:
    return {"CRLF": text.replace("\n", "\r\n"), "CR": text.replace("\n", "\r"),
            "mixed": "".join(line + ("\n", "\r\n", "\r")[k % 3] for k, line in enumerate(text.splitlines())),
            "one line": text.replace("\n", " ")}


@pytest.mark.parametrize("variant", ["CRLF", "CR", "mixed", "one line"])
def test_chunks_stay_bounded_whatever_the_line_ends(kinds, variant: str, tmp_path: Path) -> None:
    """Counted, not timed: no chunk exceeds the asked size, in memory and from a file."""
    text = _variants(LOG)[variant]
    rule = cut_rule([("cl100k", kinds["cl100k"]), ("trained", kinds["trained gpt2"])])
    size = 2_000
    sizes = [len(c) for c in iter_chunks(text, size, rule)]
    assert max(sizes) <= size and sum(sizes) == len(text) and len(sizes) >= len(text) // size
    path = tmp_path / "log.txt"
    path.write_bytes(text.encode())
    file_chunks = list(iter_file_chunks(str(path), size, rule))
    assert [len(c) for c in file_chunks] == sizes and "".join(file_chunks) == text
    toks = [NamedTokenizer("cl100k", kinds["cl100k"]), NamedTokenizer("trained", kinds["trained gpt2"])]
    _same(inspect_file(str(path), toks, chunk_chars=size), inspect_text(text, toks, chunk_chars=10**9))


def test_a_long_line_is_counted_as_one_line(kinds) -> None:
    line = _variants(LOG)["one line"]
    text = "[INFO] first\r\n" + line + "\r\nlast"
    toks = [NamedTokenizer("o200k", kinds["o200k"])]
    r = inspect_text(text, toks, chunk_chars=1_000)
    assert len(list(iter_chunks(text, 1_000, cut_rule([("o200k", kinds["o200k"])])))) > 20
    enc = kinds["o200k"].encode_ordinary
    assert r.reports[0].per_line.tolist() == [len(enc("[INFO] first\r\n")), len(enc(line + "\r\n")), len(enc("last"))]


def test_no_place_to_cut_is_refused_with_the_limit(kinds, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(log_chunks, "MAX_CHUNK_CHARS", 5_000)
    toks = [NamedTokenizer("cl100k", kinds["cl100k"]), NamedTokenizer("lines", kinds["trained none"])]
    ok = "\n".join(LINES[:100]) + "\n"
    inspect_text(ok, toks, chunk_chars=500)  # line ends between non-spaces: cut for both
    text = ok + ok.replace("\n", "\r\n")[:4_000] + _variants(LOG)["one line"][:6_000]
    with pytest.raises(CorpusError, match=r"more than 5,000 characters from line 101 .*`none` makes each line"):
        inspect_text(text, toks, chunk_chars=500)
    path = tmp_path / "long.log"
    path.write_text(text, encoding="utf-8", newline="")
    with pytest.raises(CorpusError, match=r"long.log: more than 5,000 characters.*split -C"):
        inspect_file(str(path), toks, chunk_chars=500)
    with pytest.raises(CorpusError, match="hf metaspace has a normalizer or pipeline that reads the text whole"):
        inspect_text(ok * 3, [NamedTokenizer("hf metaspace", kinds["hf metaspace"])], chunk_chars=500)
    assert np.sum(inspect_text(ok, [NamedTokenizer("m", kinds["hf metaspace"])]).reports[0].per_line) > 0
