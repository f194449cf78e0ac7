"""Issue 26 item 13: a big session file is read, decoded, parsed and validated on a helper thread behind
the modal progress dialog (gui/modal_job.py), not on the GUI thread; it opens as it was saved, a refused
one changes nothing and shows its dialog, and Cancel changes nothing and shows none."""

from __future__ import annotations

import json
import threading

import pytest
from PySide6 import QtCore, QtWidgets

from bpe_desktop.core.io import reading
from bpe_desktop.gui import app as gui_app
from bpe_desktop.gui.session_io import manager

TEXT = "".join(f"[WARN] [17123456{i:04d}.5] [nav2]: é {i}\n" for i in range(3000))  # ~120 KB typed


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> list[threading.Thread]:
    """Sessions over 4 KB count as big, read in 8 KB pieces; the threads load_session ran on."""
    monkeypatch.setattr(manager, "BACKGROUND_BYTES", 4096)
    monkeypatch.setattr(reading, "PIECE_BYTES", 8192)
    threads: list[threading.Thread] = []
    real = manager.load_session

    def load(path: str, step=None):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread())
        return real(path, step)

    monkeypatch.setattr(manager, "load_session", load)
    return threads


def _saved(qtbot, tmp_path):  # type: ignore[no-untyped-def]
    gui_app.make_app()
    w = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(w)
    w.corpus.editor.setPlainText(TEXT)
    path = tmp_path / "big.bpesession"
    assert w.sessions.save_to(str(path))
    w2 = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(w2)
    w2.corpus.editor.setPlainText("low 5\nlower 2\n")
    return path, w2


def _state(w):  # type: ignore[no-untyped-def]
    s = w.session
    return (list(s.model.merges), s.step, s.config, w.settings.config(), s.state, w.corpus.source(), w.windowTitle())


def test_a_big_session_is_read_off_the_gui_thread_and_opens_as_saved(qtbot, dialogs, tmp_path, small_limits):
    path, w2 = _saved(qtbot, tmp_path)
    assert w2.sessions.open_session(str(path))
    assert len(small_limits) == 1 and small_limits[0] is not threading.main_thread()
    assert w2.corpus.source().text == TEXT and w2.session.work.source.text == TEXT
    assert dialogs == []


def test_a_small_session_is_read_here(qtbot, dialogs, tmp_path, small_limits, monkeypatch):
    monkeypatch.setattr(manager, "BACKGROUND_BYTES", 1 << 30)
    path, w2 = _saved(qtbot, tmp_path)
    assert w2.sessions.open_session(str(path))
    assert small_limits == [threading.main_thread()] and w2.corpus.source().text == TEXT


@pytest.mark.parametrize("damage", ["merges", "utf-8", "json"])
def test_a_refused_big_session_changes_nothing(qtbot, dialogs, tmp_path, small_limits, damage):
    path, w2 = _saved(qtbot, tmp_path)
    data = path.read_bytes()
    if damage == "merges":
        raw = json.loads(data)
        raw["settings"]["merges"] = 2**40
        data = json.dumps(raw).encode()
    elif damage == "utf-8":
        data = data[:-20] + b"\xff" + data[-19:]  # in the last piece
    else:
        data = data[:-2]
    path.write_bytes(data)
    before = _state(w2)
    assert not w2.sessions.open_session(str(path))
    assert small_limits and small_limits[0] is not threading.main_thread()
    assert len(dialogs) == 1 and dialogs[0][0] == "Cannot open session" and str(path) in dialogs[0][1]
    assert _state(w2) == before


def _press_cancel(pressed: threading.Event | None = None) -> None:
    """Press the progress dialog's Cancel once it shows (then set *pressed*)."""
    d = next((x for x in QtWidgets.QApplication.topLevelWidgets()
              if isinstance(x, QtWidgets.QProgressDialog) and x.isVisible()), None)
    if d is None:
        QtCore.QTimer.singleShot(5, lambda: _press_cancel(pressed))
        return
    d.findChild(QtWidgets.QPushButton).click()
    if pressed is not None:
        pressed.set()


def test_cancel_changes_nothing(qtbot, dialogs, tmp_path, small_limits, monkeypatch):
    path, w2 = _saved(qtbot, tmp_path)
    steps = [0]

    def slow(path: str, step=None):  # type: ignore[no-untyped-def]
        while True:  # reports until the user cancels
            steps[0] += 1
            step(steps[0] % 100, 100)
            threading.Event().wait(0.002)

    monkeypatch.setattr(manager, "load_session", slow)
    QtCore.QTimer.singleShot(0, lambda: _press_cancel())
    before = _state(w2)
    assert not w2.sessions.open_session(str(path))
    assert steps[0] > 0 and dialogs == [] and _state(w2) == before


# -- applying: what the helper job prepares, the GUI thread only swaps in --------------------------------------
TABLE = "".join(f"w{i}ord {1 + i % 7}\n" for i in range(8000))  # a typed word-count table


@pytest.fixture
def heavy_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """(what, thread name) of every run of the opening's heavy parts: the runs read from the document, the
    stream's rows split or parsed, the editor's text measured."""
    from bpe_desktop.gui.panes import corpus_editor, text_facts
    from bpe_desktop.gui.session_io import document
    from bpe_desktop.gui.stream import rows

    calls: list[tuple[str, str]] = []

    def spy(owner: object, name: str) -> None:
        real = getattr(owner, name)

        def wrapped(*a, **k):  # type: ignore[no-untyped-def]
            calls.append((name, threading.current_thread().name))
            return real(*a, **k)

        monkeypatch.setattr(owner, name, wrapped)

    spy(document, "from_document")
    spy(rows.RowSource, "load")
    spy(text_facts, "measure")
    monkeypatch.setattr(corpus_editor, "LARGE_FILE_BYTES", 50_000)  # both texts are "large" (a preview)
    return calls


def _opened(qtbot, tmp_path, text: str, table: bool):  # type: ignore[no-untyped-def]
    gui_app.make_app()
    w = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(w)
    w.corpus.set_text(text, word_counts=table)
    path = tmp_path / "typed.bpesession"
    assert w.sessions.save_to(str(path))
    w2 = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(w2)
    return path, w2


@pytest.mark.parametrize("table", [False, True], ids=["text", "word-count table"])
def test_applying_a_big_session_parses_nothing_on_the_gui_thread(qtbot, dialogs, tmp_path, small_limits,
                                                                   heavy_calls, table):
    from bpe_desktop.core.counting.pieces import parse_word_counts
    from bpe_desktop.core.io.sizes import format_bytes
    from bpe_desktop.core.text.lines import split_lines
    from bpe_desktop.gui.panes.text_facts import measure

    text = TABLE if table else TEXT
    path, w2 = _opened(qtbot, tmp_path, text, table)
    heavy_calls.clear()
    assert w2.sessions.open_session(str(path))
    for _ in range(5):
        QtWidgets.QApplication.processEvents()
    assert {what for what, _ in heavy_calls} == {"from_document", "load", "measure"}
    assert all(thread.startswith("bpe-desktop-jobs") for _, thread in heavy_calls), heavy_calls
    # the oracle: the same text parsed by the core, synchronously
    rows = w2.token_view.canvas.rows
    if table:
        assert rows.kind == "words" and rows.words == list(parse_word_counts(text).counts.items())
    else:
        assert rows.kind == "text" and rows.lines == split_lines(text)
    assert w2.session.work.source.text == text and w2.corpus.source().text == text
    assert w2.corpus.source().word_counts is table
    assert f"This text is {format_bytes(measure(text).n_bytes)}: a read-only preview" in w2.corpus.notice.text()
    assert dialogs == []


def test_a_session_refused_while_its_runs_are_read_changes_nothing(qtbot, dialogs, tmp_path, small_limits,
                                                                     heavy_calls):
    path, w2 = _opened(qtbot, tmp_path, TEXT, False)
    raw = json.loads(path.read_bytes())
    raw.setdefault("extras", {})["pipelines"] = 5  # only reading the runs finds this
    path.write_text(json.dumps(raw), encoding="utf-8")
    w2.corpus.set_text("low 5\nlower 2\n")
    before = _state(w2)
    heavy_calls.clear()
    assert not w2.sessions.open_session(str(path))
    assert [what for what, _ in heavy_calls] == ["from_document"]
    assert heavy_calls[0][1].startswith("bpe-desktop-jobs")
    assert len(dialogs) == 1 and dialogs[0][0] == "Cannot open session" and "pipelines" in dialogs[0][1]
    assert _state(w2) == before


def test_a_big_session_whose_corpus_file_changed_asks_then_reads_its_runs_off_the_gui_thread(
        qtbot, dialogs, tmp_path, small_limits, heavy_calls, monkeypatch, capsys):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower lowest\n" * 50, encoding="utf-8")
    gui_app.make_app()
    w = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(w)
    w.open_corpus(str(corpus))
    path = tmp_path / "file.bpesession"
    assert w.sessions.save_to(str(path))
    monkeypatch.setattr(manager, "BACKGROUND_BYTES", path.stat().st_size - 1)  # (read on the helper job)
    corpus.write_text("newer newest\n" * 50, encoding="utf-8")  # changed since: the user is asked first
    w2 = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(w2)
    w2.sessions.interactive = False  # (the question's answer: open anyway, said on stderr)
    heavy_calls.clear()
    assert w2.sessions.open_session(str(path))
    assert [what for what, _ in heavy_calls if what == "from_document"] == ["from_document"]
    assert all(thread.startswith("bpe-desktop-jobs") for what, thread in heavy_calls if what == "from_document")
    from bpe_desktop.gui.panes.corpus_editor import corpus_of_file

    assert "the corpus file changed since the session was saved" in capsys.readouterr().err  # asked (answered)
    assert w2.session.work.source == corpus_of_file(str(corpus)) and dialogs == []  # the editor's rule, now


def test_cancel_while_the_runs_are_read_changes_nothing(qtbot, dialogs, tmp_path, small_limits, monkeypatch):
    from bpe_desktop.gui.session_io import document

    path, w2 = _saved(qtbot, tmp_path)
    real, seen, pressed = document.from_document, [], threading.Event()

    def slow(*a, **k):  # type: ignore[no-untyped-def]
        seen.append(threading.current_thread().name)
        assert pressed.wait(30)  # (reads until the user has cancelled)
        return real(*a, **k)

    def press_once_reading() -> None:  # not before: a Cancel while the file is read ends before the runs
        if seen:
            _press_cancel(pressed)
        else:
            QtCore.QTimer.singleShot(5, press_once_reading)

    monkeypatch.setattr(document, "from_document", slow)
    QtCore.QTimer.singleShot(0, press_once_reading)
    before = _state(w2)
    assert not w2.sessions.open_session(str(path))
    assert seen and seen[0].startswith("bpe-desktop-jobs") and dialogs == [] and _state(w2) == before


# -- saving: a corpus file not hashed yet is hashed off the GUI thread ---------------------------------------
@pytest.fixture
def hashing(monkeypatch: pytest.MonkeyPatch) -> list[threading.Thread]:
    """The threads CorpusFile.of (the session's hash of a corpus file) ran on."""
    from bpe_desktop.core.formats.session_corpus import CorpusFile

    threads: list[threading.Thread] = []
    real = CorpusFile.of.__func__  # type: ignore[attr-defined]

    def of(cls, path):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread())
        return real(cls, path)

    monkeypatch.setattr(CorpusFile, "of", classmethod(of))
    return threads


def _opened_unhashed(qtbot, tmp_path):  # type: ignore[no-untyped-def]
    """A window with a corpus file opened into its editor and, as if Save came before the opening's own
    hashing thread finished, nothing hashed."""
    from bpe_desktop.gui.session_io import document

    corpus = tmp_path / "log.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    gui_app.make_app()
    w = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(w)
    w.open_corpus(str(corpus))
    for t in threading.enumerate():  # the opening's own hashing, finished, then forgotten
        if t.name == "bpe-corpus-hash":
            t.join(30)
    w.sessions.hashes = document.HashCache()
    return w, corpus


def test_save_hashes_a_corpus_file_off_the_gui_thread_and_writes_its_hash(qtbot, dialogs, tmp_path, hashing):
    import hashlib

    from bpe_desktop.core.formats.session_file import load_session

    w, corpus = _opened_unhashed(qtbot, tmp_path)
    hashing.clear()
    target = tmp_path / "s.bpesession"
    assert w.sessions.save_to(str(target)) and dialogs == []
    assert len(hashing) == 1 and hashing[0] is not threading.main_thread()
    files = load_session(str(target)).corpus.files
    assert [(f.path, f.sha256) for f in files] == [
        (str(corpus), hashlib.sha256(corpus.read_bytes()).hexdigest())]
    assert w.sessions.save_to(str(tmp_path / "again.bpesession")) and len(hashing) == 1  # hashed once


def test_cancel_while_save_reads_the_corpus_files_writes_nothing(qtbot, dialogs, tmp_path, hashing, monkeypatch):
    from bpe_desktop.core.formats.session_corpus import CorpusFile

    w, _ = _opened_unhashed(qtbot, tmp_path)
    pressed = threading.Event()
    real = CorpusFile.of.__func__  # type: ignore[attr-defined]

    def slow(cls, path):  # type: ignore[no-untyped-def]
        assert pressed.wait(10)
        return real(cls, path)

    monkeypatch.setattr(CorpusFile, "of", classmethod(slow))
    QtCore.QTimer.singleShot(0, lambda: _press_cancel(pressed))
    before = _state(w)
    target = tmp_path / "s.bpesession"
    assert not w.sessions.save_to(str(target))
    assert not target.exists() and dialogs == [] and _state(w) == before and w.sessions.path is None
