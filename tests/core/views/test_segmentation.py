"""Qt-free helpers of the token-stream view: labels, line/word segmentation, derivation trees, find."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig, train
from bpe_desktop.core.text.display_text import read_display_text
from bpe_desktop.core.text.lines import split_lines
from bpe_desktop.core.tokenizers.tokenizer import UNKNOWN_ID, Tokenizer
from bpe_desktop.core.views.derivation import derivation_tree
from bpe_desktop.core.views.labels import bytes_label, token_hue, token_label, visible_text
from bpe_desktop.core.views.segmentation import (
    segment_line,
    segment_line_packed,
    segment_word,
    segment_word_packed,
    unpack_segments,
)
from bpe_desktop.core.views.token_search import find_token
from support import SEED_000


@pytest.fixture(scope="module")
def seed_model():
    model, recs = train(SEED_000, TrainConfig(merges=7))
    return model, recs


@pytest.fixture(scope="module")
def topics_bytes_model(topics_text: str):
    model, _ = train_text(topics_text[:60_000], TrainConfig(mode="bytes", pretokenizer="gpt2", merges=300))
    return model


def train_text(text: str, cfg: TrainConfig):
    from bpe_desktop.core.counting.pieces import count_text

    return train(count_text(text, cfg), cfg)


def test_visible_text_keeps_length_and_shows_whitespace() -> None:
    s = "a b\tc\r\nd\x00e\x1b"
    v = visible_text(s)
    assert len(v) == len(s)
    assert not any(c.isspace() for c in v)
    assert v.startswith("a·b→c␍↵d")


@given(st.text())
def test_visible_text_is_one_glyph_per_char(s: str) -> None:
    assert len(visible_text(s)) == len(s)


def test_bytes_label_hex_only_where_utf8_is_broken() -> None:
    euro = "€".encode()
    assert bytes_label(euro) == "€"
    assert bytes_label(euro[:2]) == "⟨e2 82⟩"
    assert bytes_label(euro[2:]) == "⟨ac⟩"
    assert bytes_label(b" x" + euro[:1]) == "·x⟨e2⟩"
    assert "\ufffd" not in bytes_label(b"\xff\xfe abc \x80")


@given(st.binary(max_size=40))
def test_bytes_label_never_shows_replacement_char(data: bytes) -> None:
    assert "\ufffd" not in bytes_label(data)


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Zs", "Cc", "Zl", "Zp")), max_size=20))
def test_bytes_label_of_whole_text_is_the_text(s: str) -> None:
    assert bytes_label(s.encode()) == s


def test_token_label_chars_and_bytes() -> None:
    assert token_label("est</w>") == "est</w>"
    assert token_label(b"\n\n") == "↵↵"


def test_segment_word_matches_the_seed_table(seed_model) -> None:
    model, _ = seed_model
    tok = Tokenizer(model)
    # the seed's "newest becomes" column after each round
    expected = ["n e w es t </w>", "n e w est </w>", "n e w est</w>", "n e w est</w>", "n e w est</w>",
                "n ew est</w>", "n ewest</w>"]
    for k, want in enumerate(expected, 1):
        assert " ".join(s.label for s in segment_word(tok, "newest", k)) == want
    assert [s.label for s in segment_word(tok, "newest", 0)] == ["n", "e", "w", "e", "s", "t", "</w>"]
    segs = segment_word(tok, "newest", 7)
    assert [(s.start, s.end) for s in segs] == [(0, 1), (1, 7)]  # spans in base symbols


def test_segment_word_shows_unknown_characters(seed_model) -> None:
    model, _ = seed_model
    segs = segment_word(Tokenizer(model, unknown="keep"), "lowz", 7)
    assert [s.label for s in segs] == ["low", "z", "</w>"]
    assert segs[1].id == UNKNOWN_ID


def test_segment_line_covers_every_byte_and_matches_encode(topics_text: str, topics_bytes_model) -> None:
    tok = Tokenizer(topics_bytes_model)
    lines = split_lines(topics_text[100_000:130_000])[:200]
    for k in (0, 17, 300):
        for line in lines:
            segs = segment_line(tok, line, k)
            data = line.encode()
            assert [s.id for s in segs if s.id is not None] == tok.encode(line, upto=k)
            # consecutive, no overlap, whole line
            assert segs[0].start == 0 if segs else data == b""
            assert all(a.end == b.start for a, b in itertools.pairwise(segs))
            assert (segs[-1].end if segs else 0) == len(data)
            assert all(s.id is not None for s in segs)  # gpt2 drops nothing


def test_segment_line_whitespace_pretokenizer_shows_dropped_spaces(seed_model) -> None:
    model, _ = seed_model
    segs = segment_line(Tokenizer(model, unknown="keep"), "newest  low\n", 7)
    assert [(s.id is None, s.label) for s in segs] == [
        (False, "n"), (False, "ewest</w>"), (True, "··"), (False, "low"), (False, "</w>"), (True, "↵"),
    ]


def test_derivation_tree_goes_down_to_base_symbols(topics_bytes_model) -> None:
    model = topics_bytes_model
    longest = max(range(model.n_base, len(model.tokens)), key=lambda i: len(model.tokens[i]))
    tree = derivation_tree(model, longest)
    assert tree.rank == model.merge_rank_of(longest) + 1

    def check(node) -> None:
        if node.children:
            left, right = node.children
            assert model.tokens[left.id] + model.tokens[right.id] == model.tokens[node.id]
            for c in node.children:
                assert c.rank is None or c.rank < node.rank  # built before
                check(c)
        else:
            assert node.id < model.n_base

    check(tree)
    assert len(tree.leaves()) == len(model.tokens[longest])
    assert tree.ranks()[-1] == tree.rank


def test_derivation_of_a_base_symbol_is_a_leaf(seed_model) -> None:
    model, _ = seed_model
    tree = derivation_tree(model, model.token_ids["e"])
    assert tree.rank is None and tree.children == [] and tree.leaves() == ["e"]


def test_find_token_accepts_label_raw_and_gpt2_forms(topics_bytes_model) -> None:
    model = topics_bytes_model
    the = model.token_ids.get(b" the")
    assert the is not None
    assert find_token(model, "·the") == the
    assert find_token(model, " the") == the
    assert find_token(model, "Ġthe") == the
    r = model.merge_rank_of(the)
    assert find_token(model, "·the", upto=r) is None  # not made yet at that step
    assert find_token(model, "·the", upto=r + 1) == the
    assert find_token(model, "no such token here") is None


def test_token_hue_is_stable_and_spreads() -> None:
    hues = [token_hue(i) for i in range(300, 340)]
    assert hues == [token_hue(i) for i in range(300, 340)]
    assert all(0 <= h < 1 for h in hues)
    assert min(abs(a - b) for a, b in itertools.pairwise(hues)) > 0.2


def test_split_lines_only_breaks_at_newline() -> None:
    assert split_lines("a\rb\nc") == ["a\rb\n", "c"]
    assert split_lines("a\r\nb\n") == ["a\r\n", "b\n"]
    assert split_lines("") == []


def test_read_display_text_cuts_at_line_end(tmp_path: Path) -> None:
    p = tmp_path / "big.txt"
    p.write_bytes(b"".join(b"line %05d\n" % i for i in range(1000)))
    text, cut = read_display_text([str(p)], "chars", limit=1005)
    assert cut and text.endswith("\n") and text.count("\n") == 1005 // 11  # 11-byte lines
    text, cut = read_display_text([str(p)], "chars")
    assert not cut and text.count("\n") == 1000


def test_read_display_text_bytes_mode_keeps_bad_bytes(tmp_path: Path) -> None:
    p = tmp_path / "bad.txt"
    p.write_bytes(b"ok \xff\xfe\n")
    text, _ = read_display_text([str(p)], "bytes")
    assert text.encode("utf-8", "surrogateescape") == b"ok \xff\xfe\n"
    text, _ = read_display_text([str(p)], "chars")
    assert "\ufffd" in text


def test_model_invalidate_refreshes_merge_ranks(seed_model) -> None:
    """Streaming appends merges in place; merge_rank_of (tooltips, derivation trees) must follow."""
    import copy

    full, _ = seed_model
    model = copy.deepcopy(full)
    model.merges = model.merges[:3]
    model.invalidate()
    assert model.merge_rank_of(model.n_base + 2) == 2
    model.merges.extend(full.merges[3:])
    model.invalidate()
    newest = full.token_ids["ewest</w>"]
    assert model.merge_rank_of(newest) == full.merge_rank_of(newest) == 6
    assert derivation_tree(model, newest).ranks() == [1, 2, 3, 6, 7]


def test_packed_segments_are_the_same_segments_and_untracked_by_the_gc(topics_text, topics_bytes_model) -> None:
    import gc

    tok = Tokenizer(topics_bytes_model, unknown="keep")
    lines = split_lines(topics_text[:20_000])[:200]
    packed = [segment_line_packed(tok, line, 150) for line in lines]
    for line, p in zip(lines, packed, strict=True):
        assert unpack_segments(p) == segment_line(tok, line, 150)
        assert p[0::4] == tuple(tok.encode(line, upto=150))  # GPT-2 pre-tokenization drops nothing: no gaps
    words = ["newest", "lowest", "\u00e9t\u00e9"]
    for w in words:
        assert unpack_segments(segment_word_packed(tok, w, 100)) == segment_word(tok, w, 100)
    gc.collect()
    # one untracked tuple per row, however many tokens: a cache of many rows costs a full collection nothing
    assert not any(gc.is_tracked(p) for p in packed)
    assert all(gc.is_tracked(s) for s in segment_line(tok, lines[0], 150))  # what a list of Segments costs
