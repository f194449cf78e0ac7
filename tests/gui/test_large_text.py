"""Issue 26 item 13: a session (or a run) whose corpus is a large typed text opens without laying the whole
text out in the editor -- the editor gets a bounded preview (counted in characters, not timed), the
whole text stays the corpus training reads, and a small text stays editable as before."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bpe_desktop.core.logs.robotlogs import generate
from bpe_desktop.gui import app as gui_app
from bpe_desktop.gui.panes.corpus_editor import (
    LARGE_FILE_BYTES,
    LONG_LINE_CHARS,
    PREVIEW_BYTES,
    PREVIEW_FIRST_CHARS,
    CorpusEditor,
)
from bpe_desktop.gui.session import Session

BIG = generate(int(1.2 * LARGE_FILE_BYTES / 95), seed=13)  # just over the limit: a few MB
assert len(BIG) > LARGE_FILE_BYTES


@pytest.fixture
def editor(qtbot) -> CorpusEditor:
    ed = CorpusEditor(Session())
    qtbot.addWidget(ed)
    return ed


@pytest.mark.parametrize("text", [BIG, BIG.replace("\n", " ")], ids=["lines", "one line"])
def test_a_large_text_is_a_read_only_preview_of_bounded_size(editor: CorpusEditor, text: str) -> None:
    editor.set_text(text, name="typed")
    editor.settle()  # (a preview is put in the editor in pieces)
    shown = editor.editor.toPlainText()
    assert editor.editor.document().characterCount() <= PREVIEW_BYTES + 1  # what Qt lays out: bounded
    assert max(map(len, shown.split("\n"))) <= LONG_LINE_CHARS + 2
    assert text.startswith(shown.split("\n")[0][:LONG_LINE_CHARS])
    assert editor.editor.isReadOnly() and not editor.notice.isHidden()
    assert "read-only preview" in editor.notice.text() and "Training reads the whole text" in editor.notice.text()
    assert editor.text() == text and editor.source().text == text and editor.source().paths == ()
    assert f"{text.count(chr(10)) + 1:,} line" in editor.title.text()
    editor.set_text("low 5\nlower 2\n")  # a small text after it: editable and whole again
    assert not editor.editor.isReadOnly() and editor.notice.isHidden()
    assert editor.text() == editor.editor.toPlainText() == "low 5\nlower 2\n"


def test_a_session_with_a_large_typed_text_opens_with_the_preview(qtbot, dialogs, tmp_path) -> None:
    gui_app.make_app()
    w = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(w)
    w.corpus.editor.setPlainText(BIG)  # typed
    assert w.corpus.typed_source() is not None
    path = tmp_path / "big.bpesession"
    assert w.sessions.save_to(str(path))
    w2 = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(w2)
    assert w2.sessions.open_session(str(path))
    assert w2.corpus.editor.document().characterCount() <= PREVIEW_BYTES + 1
    assert w2.corpus.source().text == BIG and w2.session.work.source.text == BIG
    assert dialogs == []


def test_a_large_file_is_previewed_from_its_head_alone(editor: CorpusEditor, tmp_path, monkeypatch) -> None:
    """Showing a big log as a run's corpus read 2 MB of it on the GUI thread to show 256 KB: only the preview's
    bytes are read now (counted), and the preview and its notice are what they were."""
    from bpe_desktop.gui.panes import corpus_editor

    path = tmp_path / "big.log"
    path.write_text(BIG, encoding="utf-8")
    asked: list[int] = []
    real = corpus_editor.read_head
    monkeypatch.setattr(corpus_editor, "read_head", lambda p, n: asked.append(n) or real(p, n))
    editor.open_file(str(path))
    assert asked == [PREVIEW_BYTES]
    editor.settle()  # (a preview is put in the editor in pieces)
    shown = editor.editor.toPlainText()
    assert BIG.startswith(shown) and shown.endswith("\n") and len(BIG[:PREVIEW_BYTES]) - len(shown) < 200
    assert editor.path == str(path) and editor.editor.isReadOnly()
    assert f"is {corpus_editor._size(len(BIG.encode()))}: this is a read-only preview" in editor.notice.text()
    small = tmp_path / "small.log"
    small.write_text(BIG[:50_000], encoding="utf-8")
    asked.clear()
    editor.open_file(str(small))  # a small file: read whole (up to the limit), editable
    assert asked == [LARGE_FILE_BYTES] and editor.text() == BIG[:50_000] and not editor.editor.isReadOnly()


def test_a_preview_is_put_in_the_editor_in_pieces_and_whole_once_settled(editor: CorpusEditor, qtbot,
                                                                         tmp_path) -> None:
    """Issue 25 (a run's load is one tick): a file's preview is its first lines at once, the rest on later
    turns; reading the editor's text, or settle(), puts it all in; the pieces are not edits."""
    path = tmp_path / "big.log"
    path.write_text(BIG, encoding="utf-8")
    whole = CorpusEditor(Session())  # the oracle: the same preview, put in and settled at once
    qtbot.addWidget(whole)
    whole.open_file(str(path))
    whole.settle()
    expected = whole.editor.toPlainText()
    assert len(expected) > 4 * PREVIEW_FIRST_CHARS
    edits: list[int] = []
    editor.edited.connect(lambda: edits.append(1))
    editor.open_file(str(path))
    assert editor.editor.document().characterCount() <= PREVIEW_FIRST_CHARS + 1  # (all 256 KB at once before)
    assert expected.startswith(editor.editor.toPlainText()) and editor.editor.isReadOnly()
    qtbot.waitUntil(lambda: editor.editor.toPlainText() == expected)  # the rest, turn by turn, by itself
    assert editor.typed_source() is None and len(edits) == 1 and editor.source().paths == (str(path),)
    editor.open_file(str(path))
    assert editor.text() == expected  # reading the text settles it
    editor.open_file(str(path))
    editor.set_text("low 5\n")  # a newer text drops the pending pieces
    qtbot.wait(20)
    assert editor.editor.toPlainText() == editor.text() == "low 5\n" and not editor.editor.isReadOnly()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=st.sampled_from("ab \t\r\n\u2028\u2029\u00a0é…"), max_size=60))
@example("abcdef\r\nxy")  # a CR LF across the first cut (an extra empty line, before)
@example("a\nbcde\r\nxyz")  # ... across an appended piece's
def test_a_preview_in_pieces_is_the_text_put_in_at_once(editor: CorpusEditor, monkeypatch, text: str) -> None:
    """Hostile line breaks (CR LF split across pieces, U+2028, a line longer than a piece): the pieces put
    together are what the editor makes of the whole text put in at once (the oracle: Qt's own setPlainText)."""
    from PySide6 import QtWidgets

    from bpe_desktop.gui.panes import corpus_editor

    monkeypatch.setattr(corpus_editor, "PREVIEW_FIRST_CHARS", 7)
    monkeypatch.setattr(corpus_editor, "PREVIEW_APPEND_CHARS", 5)
    oracle = QtWidgets.QPlainTextEdit()
    oracle.setPlainText(text)
    editor.set_text(text, preview=True)
    assert editor.editor.document().characterCount() <= 8
    editor.settle()
    assert editor.editor.toPlainText() == oracle.toPlainText()
    assert editor.editor.document().blockCount() == oracle.document().blockCount()
    oracle.deleteLater()
