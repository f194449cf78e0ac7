"""File > Open tokenizer on a tokenizer.json: one our pre-tokenizers express opens on the timeline; one with
a normalizer (or another component they cannot express) is refused with a dialog naming it, window
unchanged -- never replayed with a guessed pre-tokenizer."""

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
    before = window.session.model
    window.open_tokenizer(str(_file(tmp_path, "nfkc.json", normalizers.NFKC())))
    assert dialogs and dialogs[-1][0] == "Cannot open tokenizer" and 'normalizer "NFKC"' in dialogs[-1][1]
    assert window.session.model is before
