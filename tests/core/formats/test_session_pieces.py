"""A session read in pieces (``load_session(path, step)``, what the window's helper thread does) is the
document read whole: the same text across pieces that split UTF-8 characters, escapes and surrogate pairs
(hypothesis), the same refusals with the file's byte offsets, progress after every piece, and a *step* that
raises stops the reading."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.errors import SessionError
from bpe_desktop.core.formats import session_file
from bpe_desktop.core.formats.session_file import SessionCorpus, SessionDoc, load_session, save_session
from bpe_desktop.core.io import reading

PIECE = 1000


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reading, "PIECE_BYTES", PIECE)


def _typed_session(tmp_path, text: str) -> str:
    path = str(tmp_path / "typed.bpesession")
    save_session(path, SessionDoc(SessionCorpus.from_text(text), TrainConfig()))
    return path


# 1-4 byte characters across pieces, quotes, backslashes (one before an n), emoji, tabs
TEXT = "".join(f'[INFO] é日🤖 "Überhitzung" C:\\new\\ {i}\t\\\\n\n' for i in range(400))


def test_pieces_give_the_whole_document(tmp_path, small_pieces, monkeypatch) -> None:
    path = _typed_session(tmp_path, TEXT)
    seen: list[int] = []  # the length of every json.loads call's text
    real = session_file.json.loads

    def loads(s: str, *a: object, **k: object) -> object:
        seen.append(len(s))
        return real(s, *a, **k)

    monkeypatch.setattr(session_file.json, "loads", loads)
    steps: list[tuple[int, int]] = []
    doc = load_session(path, lambda done, total: steps.append((done, total)))
    pieced = list(seen)
    assert doc == load_session(path) and doc.corpus.text == TEXT
    size = len(open(path, "rb").read())
    pieces = [(min(k, size), size) for k in range(PIECE, size + PIECE, PIECE)]
    assert size > 10 * PIECE and steps[:len(pieces)] == pieces  # read in pieces
    parsed = steps[len(pieces):]  # (never decoded whole: each piece of the text is decoded as it is parsed)
    assert len(parsed) >= 10 and [d for d, _ in parsed] == sorted(d for d, _ in parsed)  # then parsed in pieces
    assert max(pieced) < 2 * PIECE  # no call saw the document whole
    assert seen[-1] == len(open(path, encoding="utf-8").read())  # (the plain load did)


def test_a_text_without_line_ends_or_another_shape_is_parsed_whole(tmp_path, small_pieces) -> None:
    for text in ("x" * (5 * PIECE), TEXT.replace("\n", " ")):
        path = _typed_session(tmp_path, text)
        assert load_session(path, lambda done, total: None) == load_session(path)


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


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(["a", "é", "日", "🤖", "\\", '"', "\n", "\r", "\t", "\x00", "\udc80", "\u2028",
                                 "\\n", "\\u00e9", "x" * 50]), min_size=0, max_size=400))
def test_any_text_read_in_pieces_is_the_text_read_whole(tmp_path, small_pieces, parts) -> None:
    text = "".join(parts) * 4 + "y" * (2 * PIECE)  # (longer than a piece: parsed in pieces)
    path = _typed_session(tmp_path, text)
    steps: list[int] = []
    doc = load_session(path, lambda done, total: steps.append(done))
    assert doc == load_session(path) and doc.corpus.text == text
    assert len(steps) > (len(open(path, "rb").read()) + PIECE - 1) // PIECE  # read, then parsed, in pieces
