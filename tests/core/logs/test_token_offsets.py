"""Token offsets piece by piece, with the table of pieces kept across chunks (and started over when full),
equal the tokenizer's own ``encode_with_offsets`` of each chunk: on hostile logs (any line end, long lines,
non-ASCII text beside ASCII chunks), with ``upto``, for every kind of tokenizer (ours by piece, the others
through the exact paths)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig, train
from bpe_desktop.core.counting.pieces import count_text
from bpe_desktop.core.formats import load_tokenizer, save_model
from bpe_desktop.core.formats.presets import PRESETS, bundled_data
from bpe_desktop.core.logs.log_chunks import cut_rule, iter_chunks
from bpe_desktop.core.logs.robotlogs import generate
from bpe_desktop.core.logs.token_offsets import TokenOffsets
from support import HOSTILE_CHARS, cl100k_file, hostile_logs

LOG = generate(200, seed=31)
LINES = LOG.splitlines()
BY_PIECE = ("cl100k", "gpt2", "trained bytes")  # the tokenizers that take the piece table




@pytest.fixture(scope="module")
def tokenizers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    d = tmp_path_factory.mktemp("offsets")
    out: dict[str, object] = {"cl100k": load_tokenizer(f"cl100k:{cl100k_file()}")}
    path = d / "gpt2.tiktoken"
    path.write_bytes(bundled_data(PRESETS["gpt2"]))
    out["gpt2"] = load_tokenizer(f"gpt2:{path}")
    for name, mode, pre in (("trained bytes", "bytes", "log-numbers"), ("trained chars", "chars", "gpt2")):
        cfg = TrainConfig(mode=mode, pretokenizer=pre, merges=120)
        model, _ = train(count_text(LOG + "x".join(HOSTILE_CHARS), cfg), cfg)
        save_model(model, d / f"{mode}.json", "native")
        out[name] = load_tokenizer(str(d / f"{mode}.json"))
    save_model(train(count_text(LOG, cfg := TrainConfig(mode="bytes", pretokenizer="gpt2", merges=80)), cfg)[0],
               d / "tokenizer.json", "hf")
    out["hf"] = load_tokenizer(str(d / "tokenizer.json"))
    return out


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(hostile_logs(LINES, "9" * 40), min_size=1, max_size=2), size=st.integers(1, 2000),
       upto=st.sampled_from([None, 0, 7, 60]), room=st.sampled_from([0, 5, 10**6]))
@pytest.mark.parametrize("name", ["cl100k", "gpt2", "trained bytes", "trained chars", "hf"])
def test_offsets_equal_encode_with_offsets(tokenizers, name: str, texts: list[str], size: int, upto: int | None,
                                           room: int) -> None:
    tok = tokenizers[name]
    offsets = TokenOffsets(tok, upto, max_pieces=room)  # one table for every chunk of every text
    rule = cut_rule([(name, tok)])
    for text in texts:
        for chunk in iter_chunks(text, size, rule):
            data = chunk.encode("utf-8", "surrogateescape")
            starts, ends = offsets(chunk, len(data))
            spans = tok.encode_with_offsets(chunk, upto=upto, allowed_special=())
            assert starts.tolist() == [s.start for s in spans]
            assert ends.tolist() == [s.end for s in spans]
    if name in BY_PIECE:  # the piece table was the path taken (chars mode: while its pieces' tokens cover them)
        assert offsets.by_piece
    if name == "hf":
        assert not offsets.by_piece


def test_repeated_pieces_are_encoded_once(tokenizers) -> None:
    tok = tokenizers["cl100k"]
    offsets = TokenOffsets(tok)
    calls: list[str] = []
    encode_piece = tok.encode_piece
    tok.encode_piece = lambda piece, upto=None: calls.append(piece) or encode_piece(piece, upto)  # type: ignore
    try:
        for _ in range(3):
            starts, ends = offsets(LOG, len(LOG.encode()))
    finally:
        del tok.encode_piece
    pieces = tok.pretokenizer.split(LOG)
    assert sorted(calls) == sorted(set(pieces)) and len(pieces) > 3 * len(calls)
    assert np.array_equal(ends - starts, [len(tok.token_bytes(i)) for i in tok.encode_ordinary(LOG)])
