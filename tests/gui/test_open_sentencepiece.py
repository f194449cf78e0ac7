"""File -> Open tokenizer on a SentencePiece model: refused with a dialog naming where it does open (its
encoding is not a merge list's replay), the window unchanged; Compare / Log inspector load it exactly."""

from __future__ import annotations

import io
from pathlib import Path

import sentencepiece as spm

from bpe_desktop.core.formats import load_tokenizer
from bpe_desktop.gui import file_actions


def test_open_tokenizer_refuses_a_sentencepiece_model(tmp_path: Path, qtbot, monkeypatch) -> None:
    from PySide6 import QtWidgets

    out = io.BytesIO()
    lines = ["low lower lowest newer newest wider widest"] * 50 + ["naïve café"] * 5
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=out, vocab_size=40,
                                   model_type="bpe", minloglevel=2)
    path = tmp_path / "m.model"
    path.write_bytes(out.getvalue())
    shown: list[str] = []
    monkeypatch.setattr(file_actions, "show_error", lambda parent, title, message: shown.append(message))
    w = QtWidgets.QWidget()
    qtbot.addWidget(w)
    assert file_actions.read_tokenizer(w, str(path)) is None
    assert len(shown) == 1 and "Compare tokenizers" in shown[0]
    sp = spm.SentencePieceProcessor(model_file=str(path))
    assert load_tokenizer(str(path)).encode("naïve lowest") == sp.encode("naïve lowest")
