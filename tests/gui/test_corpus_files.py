"""Issue 26, items 4 and 7 in the corpus pane: a compressed file's preview is its decompressed text (the
text training reads), damaged compressed data and a FIFO or device are a CorpusError (the window's
dialog, with no traceback text), and the pane is unchanged after a refusal.
"""

from __future__ import annotations

import bz2
import gzip
import os
import threading
from pathlib import Path

import pytest

from bpe_desktop.core.errors import CorpusError
from bpe_desktop.gui.panes.corpus_editor import CorpusEditor
from bpe_desktop.gui.session import Session


@pytest.fixture
def editor(qtbot) -> CorpusEditor:
    ed = CorpusEditor(Session())
    qtbot.addWidget(ed)
    return ed


@pytest.mark.parametrize(("ext", "pack"), [(".gz", gzip.compress), (".bz2", bz2.compress)])
def test_a_compressed_file_previews_its_text(editor: CorpusEditor, tmp_path: Path, ext: str, pack) -> None:
    text = "low lower newest widest\n" * 50
    p = tmp_path / f"c.txt{ext}"
    p.write_bytes(pack(text.encode()))
    editor.open_file(str(p))
    assert editor.editor.toPlainText() == text  # not the compressed bytes shown as "not valid UTF-8"
    assert editor.editor.isReadOnly() and editor.source().paths == (str(p),)  # training reads the file
    assert "compressed" in editor.notice.text() and "not valid UTF-8" not in editor.notice.text()


def test_damaged_compressed_data_is_a_clear_refusal(editor: CorpusEditor, tmp_path: Path) -> None:
    editor.set_text("kept 1\n", "kept")
    good = gzip.compress(b"low lower\n" * 500)
    p = tmp_path / "bad.txt.gz"
    p.write_bytes(good[:20] + bytes(b ^ 0x5A for b in good[20:40]) + good[40:])
    with pytest.raises(CorpusError, match="cannot decompress") as e:
        editor.open_file(str(p))
    assert str(p) in str(e.value) and "Traceback" not in str(e.value)
    assert editor.editor.toPlainText() == "kept 1\n" and editor.path is None


@pytest.mark.parametrize("odd", ["fifo", "/dev/zero"])
def test_a_fifo_or_device_is_refused_without_blocking(editor: CorpusEditor, tmp_path: Path, odd: str) -> None:
    path = odd
    if odd == "fifo":
        path = str(tmp_path / "pipe")
        os.mkfifo(path)
    editor.set_text("kept 1\n", "kept")
    got: list[BaseException] = []

    def body() -> None:  # a guard only: the refusal is immediate, a blocked open would never return
        try:
            editor.open_file(path)
        except BaseException as e:
            got.append(e)

    t = threading.Thread(target=body, daemon=True)
    t.start()
    t.join(60)
    assert got and isinstance(got[0], CorpusError) and "not a regular file" in str(got[0]), got
    assert editor.editor.toPlainText() == "kept 1\n"
