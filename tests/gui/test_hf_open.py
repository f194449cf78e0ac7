"""File > Open tokenizer on a tokenizer.json: one our pre-tokenizers express opens on the timeline replayed by
our own tokenizer; one with a normalizer (or another component they cannot express) opens through its own
pipeline -- never replayed with a guessed pre-tokenizer (test_hf_pipeline_timeline.py checks every pane)."""

from __future__ import annotations

from pathlib import Path

import tokenizers
from tokenizers import decoders, models, normalizers, pre_tokenizers, trainers


def _file(tmp_path: Path, name: str, normalizer: object = None) -> Path:
    tok = tokenizers.Tokenizer(models.BPE())
    if normalizer is not None:
        tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    import pydoc_data.topics

    tok.train_from_iterator(list(pydoc_data.topics.topics.values())[:10], trainers.BpeTrainer(
        vocab_size=300, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    path = tmp_path / name
    tok.save(str(path))
    return path


def test_open_tokenizer_json(qtbot, window, dialogs, tmp_path: Path) -> None:
    window.open_tokenizer(str(_file(tmp_path, "plain.json")))
    assert not dialogs and len(window.session.model.merges) == 300 - 256
    assert window.session.work.pipeline is None  # our replay is its pipeline
    path = _file(tmp_path, "nfkc.json", normalizers.NFKC())
    window.open_tokenizer(str(path))
    s = window.session
    assert not dialogs and s.work.pipeline is not None and len(s.runs) == 2
    want = tokenizers.Tokenizer.from_file(str(path)).encode("ﬁne ½", add_special_tokens=False).ids
    assert [s.work.pipeline.file_id(i) for i in s.tokenizer.encode("ﬁne ½")] == want
