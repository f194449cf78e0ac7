"""A session read in pieces (``load_session(path, step)``, what the window's helper thread does) is the
document read whole: the same text across pieces that split UTF-8 characters, the same refusals with the
file's byte offsets, progress after every piece, and a *step* that raises stops the reading."""

from __future__ import annotations

import pytest

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.errors import SessionError
from bpe_desktop.core.formats import session_file
from bpe_desktop.core.formats.session_file import SessionCorpus, SessionDoc, load_session, save_session
from bpe_desktop.core.io import reading

PIECE = 1000


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reading, "PIECE_BYTES", PIECE)
    monkeypatch.setattr(session_file, "PIECE_BYTES", PIECE)


def _typed_session(tmp_path, text: str) -> str:
    path = str(tmp_path / "typed.bpesession")
    save_session(path, SessionDoc(SessionCorpus.from_text(text), TrainConfig()))
    return path


def test_pieces_give_the_whole_document(tmp_path, small_pieces) -> None:
    text = "".join(f"[INFO] é日🤖 Überhitzung {i}\n" for i in range(400))  # 1-4 byte characters across pieces
    path = _typed_session(tmp_path, text)
    steps: list[tuple[int, int]] = []
    doc = load_session(path, lambda done, total: steps.append((done, total)))
    assert doc == load_session(path) and doc.corpus.text == text
    size = len(open(path, "rb").read())
    pieces = [(min(k, size), size) for k in range(PIECE, size + PIECE, PIECE)]
    assert size > 10 * PIECE and steps == pieces + pieces  # read piece by piece, then decoded piece by piece


def test_a_refusal_is_the_same_and_names_the_files_byte(tmp_path, small_pieces) -> None:
    path = _typed_session(tmp_path, "x" * (5 * PIECE))
    data = bytearray(open(path, "rb").read())
    at = 3 * PIECE + 17
    data[at] = 0xFF  # not UTF-8, in the fourth piece
    with open(path, "wb") as f:
        f.write(bytes(data))
    with pytest.raises(SessionError) as whole:
        load_session(path)
    with pytest.raises(SessionError) as pieces:
        load_session(path, lambda done, total: None)
    assert str(pieces.value) == str(whole.value) and f"at byte {at}" in str(whole.value)


def test_a_step_that_raises_stops_the_reading(tmp_path, small_pieces) -> None:
    path = _typed_session(tmp_path, "y" * (20 * PIECE))
    seen: list[int] = []

    class Stop(Exception):
        pass

    def step(done: int, total: int) -> None:
        seen.append(done)
        if len(seen) == 3:
            raise Stop

    with pytest.raises(Stop):
        load_session(path, step)
    assert seen == [PIECE, 2 * PIECE, 3 * PIECE]
