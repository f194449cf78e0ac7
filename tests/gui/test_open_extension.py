"""An extension's ``.tiktoken`` (what Extend writes: cl100k's ranks, then ranks after its specials) opened in the
window.  The file holds no pattern, so the window offers the one exact reading the CLI's message names -- cl100k's
pattern and specials (``cl100k:FILE``) -- and reads it so only when the user says yes: File → Open tokenizer (a run
whose timeline starts at "step 0 = cl100k" and encodes at every step as tiktoken reading the file cut there), the
Log inspector's and Compare's pickers, and Training → Extend, which offers the opened file and extends it again
(tiktoken reads the second file with our ids).  Declined, nothing changes; a file that only looks like an extension
is refused, saying why; an o200k extension opens as o200k's."""

from __future__ import annotations

import pickle
from concurrent.futures import Future
from pathlib import Path

import tiktoken
import tiktoken.load
from PySide6 import QtWidgets

from bpe_desktop.core.errors import PretokenizerNeeded
from bpe_desktop.core.formats import load
from bpe_desktop.core.formats.presets import PRESETS
from bpe_desktop.core.formats.session_file import dumps_session, loads_session
from bpe_desktop.core.formats.tiktoken_file import dumps_ranks
from bpe_desktop.core.text.pretokenize import Pretokenizer
from bpe_desktop.gui import file_actions
from bpe_desktop.gui.extend.job import run
from bpe_desktop.gui.extend.open import extend_dialog
from bpe_desktop.gui.extend.show import extension_work
from bpe_desktop.gui.inspect.job import load_choice
from bpe_desktop.gui.runs.persist import from_document, snapshot, to_document
from support import ROBOT_SAMPLE_FILE
from support.window import check_one_truth

EXTENDED_MERGES = 5  # the merges of the ``extended`` fixture (conftest.py)

OPEN = QtWidgets.QMessageBox.StandardButton.Open
HELD = "".join(ROBOT_SAMPLE_FILE.read_text(encoding="utf-8").splitlines(keepends=True)[1500:1560])


def tiktoken_reading(path: Path | str, name: str = "cl100k", below: int | None = None) -> tiktoken.Encoding:
    """tiktoken reading the rank file with *name*'s pattern and specials (its ranks below *below* only)."""
    p = PRESETS[name]
    pattern = Pretokenizer.from_spec(p.pretokenizer).pattern
    assert pattern is not None
    ranks = tiktoken.load.load_tiktoken_bpe(str(path))
    return tiktoken.Encoding(name="x", pat_str=pattern, special_tokens=p.specials,
                             mergeable_ranks={b: r for b, r in ranks.items() if below is None or r < below})


def test_open_tokenizer_offers_cl100ks_reading_and_shows_an_extension_run(window, questions, dialogs,
                                                                          extended, topics_text) -> None:
    text, out, done = extended
    s = window.session
    runs = len(s.runs)
    window.open_tokenizer(str(out))  # declined: nothing changes
    assert len(questions) == 1 and "extends cl100k_base" in questions[0] and "cl100k:FILE" in questions[0]
    assert len(s.runs) == runs and s.work.extension is None and not dialogs

    questions.answer = OPEN
    window.open_tokenizer(str(out))
    assert not dialogs  # (in place of the untrained run it was opened over: nothing is lost)
    ext = s.work.extension
    assert ext is not None and (ext.spec, ext.label, ext.start, ext.rule, ext.added) == (
        "cl100k", "cl100k", 100_000, "ranks", EXTENDED_MERGES)
    o = s.origin
    assert s.step == o + EXTENDED_MERGES and window.merges.table_model.rowCount() == EXTENDED_MERGES
    assert s.work.opened_from == f"cl100k:{out}"
    check_one_truth(window)
    first = done.first_id
    assert first == 100_277
    for k in range(EXTENDED_MERGES + 1):  # every step encodes as tiktoken reading the file cut there
        enc = tiktoken_reading(out, below=first + k)
        s.set_step(o + k)
        for sample in (HELD, text[:2000], topics_text[:3000]):
            want = [r - (first - 100_256) if r >= first else r for r in enc.encode_ordinary(sample)]
            assert s.tokenizer.encode_ordinary(sample, upto=s.step) == want, k
    s.set_step(0)
    assert window.timeline.label.text().startswith(f"step 0 = cl100k / {EXTENDED_MERGES}")
    assert window.why.title.text() == "Step 0 · cl100k"
    assert window.why.sentence.text().startswith("cl100k itself (100,000 merges). Step forward")  # (no count: a file)
    assert s.config.merges == EXTENDED_MERGES  # the Merges box: the merges it adds


def test_training_extend_offers_the_opened_extension_and_extends_it_again(window, questions, dialogs, extended,
                                                                          tmp_path) -> None:
    text, out, _ = extended
    window.corpus.set_text(text, name="robot logs", word_counts=False)
    questions.answer = OPEN
    window.open_tokenizer(str(out))
    dlg = extend_dialog(window)
    assert dlg.spec() == f"cl100k:{out}"
    out2 = tmp_path / "again.tiktoken"
    dlg.out.setText(str(out2))
    dlg.merges.setValue(3)
    job = dlg.job()
    dlg.close()
    done = run(job)  # (the dialog's worker, in process: its spawn path is tested in test_extension_run.py)
    assert done.made == 3 and done.read_as == f"cl100k:{out2}" and done.first_id == 100_277 + EXTENDED_MERGES
    first = tiktoken.load.load_tiktoken_bpe(str(out))
    second = tiktoken.load.load_tiktoken_bpe(str(out2))
    assert {b: r for b, r in second.items() if b in first} == first  # the first extension's ids stay
    enc = tiktoken_reading(out2)
    ours = load(done.read_as).tokenizer
    for sample in (HELD, text):
        assert ours.encode_ordinary(sample) == enc.encode_ordinary(sample)
    assert len(enc.encode_ordinary(text)) == done.tokens_after < done.tokens_before

    assert done.run is not None and done.run.start == 100_000 + EXTENDED_MERGES  # its step 0: the file it extends
    work = extension_work(done, window.session.source)
    assert work.model.merges[:done.run.start] == window.session.model.merges
    assert work.extension is not None and work.extension.spec == f"cl100k:{out}" and work.opened_from == done.read_as
    doc = loads_session(dumps_session(to_document(snapshot([work]), 0)))  # a session keeps it, reading the file
    back, _ = from_document(doc)
    assert back[0].extension == work.extension and back[0].model.merges == work.model.merges
    assert not dialogs


def test_the_extend_dialog_offers_the_reading_when_its_worker_needs_one(window, questions, dialogs, extended,
                                                                        monkeypatch) -> None:
    text, out, _ = extended
    window.corpus.set_text(text, name="robot logs", word_counts=False)
    dlg = extend_dialog(window)
    dlg.add_tokenizer_file(str(out))  # File… picked the bare file: the worker reads it and cannot
    jobs: list[object] = []
    monkeypatch.setattr(dlg.runner, "start", jobs.append)
    try:
        load(str(out))
    except PretokenizerNeeded as e:
        need = pickle.loads(pickle.dumps(e))  # as the worker's process sends it back
    fut: Future[object] = Future()
    fut.set_exception(need)
    seen: list[object] = []
    dlg.runner.patternless.connect(seen.append)
    dlg.runner._done(fut)  # declined (the questions' default answer)
    assert len(seen) == 1 and len(questions) == 1 and "extends cl100k_base" in questions[0]
    assert jobs == [] and dlg.status.text() == "Not extended." and dlg.spec() == str(out)
    questions.answer = OPEN
    dlg.runner._done(fut)
    assert dlg.spec() == f"cl100k:{out}" and [j.spec for j in jobs] == [f"cl100k:{out}"]
    assert not dialogs
    dlg.close()


def test_the_pickers_of_the_log_inspector_and_compare_offer_it_too(window, questions, dialogs, extended) -> None:
    text, out, _ = extended
    enc = tiktoken_reading(out)
    pane = window.inspector
    assert pane.add_tokenizer(str(out)) is None and len(questions) == 1  # declined: not added
    questions.answer = OPEN
    name = pane.add_tokenizer(str(out))
    assert name == out.name and pane.choices[name].spec == f"cl100k:{out}" and pane.choices[name].pretokenizer is None
    assert load_choice(pane.choices[name]).tokenizer.encode_ordinary(HELD) == enc.encode_ordinary(HELD)

    compare = window.compare
    assert compare.add_reference(str(out))
    ref = compare.reference(out.name)
    assert ref is not None and ref.spec == f"cl100k:{out}" and ref.pretokenizer is None
    assert ref.tokenizer is not None and ref.tokenizer.encode_ordinary(text) == enc.encode_ordinary(text)
    assert len(questions) == 3 and not dialogs


def _write(tmp_path: Path, name: str, ranks: dict[bytes, int]) -> str:
    path = tmp_path / name
    path.write_bytes(dumps_ranks(ranks))
    return str(path)


def test_files_that_only_look_like_extensions_are_refused_saying_why(window, questions, dialogs, extended,
                                                                     tmp_path, monkeypatch) -> None:
    _, out, _ = extended
    ranks = dict(load(f"cl100k:{out}").tokenizer.ranks)
    asked: list[str] = []

    def get_item(parent, title, label, items, current=0, editable=True):  # the pattern question: cancelled
        asked.append(label)
        return "", False

    monkeypatch.setattr(QtWidgets.QInputDialog, "getItem", staticmethod(get_item))
    questions.answer = OPEN
    s = window.session
    runs = len(s.runs)
    by_rank = {r: t for t, r in ranks.items()}
    changed = _write(tmp_path, "changed.tiktoken", {**ranks, by_rank[7000]: 7001, by_rank[7001]: 7000})
    short = _write(tmp_path, "short.tiktoken", {t: r for t, r in ranks.items() if r < 60_000})
    for path in (changed, short):  # no extension: the CLI's message, and a pattern asked for, never cl100k offered
        window.open_tokenizer(path)
        assert "no known encoding" in asked[-1] and not questions and len(s.runs) == runs
    first = 100_277
    gap = _write(tmp_path, "gap.tiktoken", {t: r for t, r in ranks.items() if r != first + 2})
    window.open_tokenizer(gap)  # it extends cl100k's ranks: offered, then refused naming the missing rank
    assert len(questions) == 1 and len(s.runs) == runs
    assert dialogs[-1][0] == "Cannot open tokenizer" and f"rank {first + 2} is missing" in dialogs[-1][1]
    assert len(asked) == 2


def test_an_o200k_extension_is_offered_as_o200ks(qtbot, questions, tmp_path) -> None:
    """(The o200k file itself, read and encoded as tiktoken does: tests/core/extend/test_extension_reopen.py.)"""
    parent = QtWidgets.QWidget()
    qtbot.addWidget(parent)
    path = str(tmp_path / "o200k_ext.tiktoken")
    need = PretokenizerNeeded(f"{path}: a .tiktoken file holds no pre-tokenization pattern; this one extends "
                              "o200k_base (its first 199,998 ranks are o200k_base's) -- open it as o200k:...", path,
                              "o200k")
    assert file_actions.patternless(parent, path, need) is None  # declined
    questions.answer = OPEN
    assert file_actions.patternless(parent, path, need) == (f"o200k:{path}", None)
    assert "Open it with o200k_base's pattern and special tokens" in questions[0] and "o200k:FILE" in questions[0]
