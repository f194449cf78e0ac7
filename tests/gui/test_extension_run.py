"""An extension learned in the window becomes a run: Training → Extend… on cl100k, then the Runs list row, the
timeline starting at cl100k ("step 0 = cl100k") and stepping over the added merges only, the merge list holding
the added merges with the trainer's records, the tokens at step k equal to tiktoken reading the exported
``.tiktoken`` cut to cl100k's ranks + the first k new ones (step 0 is cl100k itself), and a saved session
reopening the run equal.  Branching and Train further are refused with a dialog naming why."""

from __future__ import annotations

import tiktoken
import tiktoken.load

from bpe_desktop.core.formats.presets import CL100K_SPECIALS
from bpe_desktop.core.formats.session_file import dumps_session, loads_session
from bpe_desktop.core.text.pretokenize import Pretokenizer
from bpe_desktop.core.tokenizers.rank_rule import RankRuleTokenizer
from bpe_desktop.gui.extend.open import extend_dialog
from bpe_desktop.gui.runs.persist import from_document, snapshot, to_document
from support import ROBOT_SAMPLE_FILE
from support.window import check_one_truth, check_run_labels

WAIT_MS = 240_000  # a ceiling for a stuck worker, not a speed limit
MERGES = 6
HELD = "2024-05-01 12:00:03.512 [INFO] [planner]: Computed path in 0.0421 s (17 waypoints)\n"


def test_an_extension_of_cl100k_is_a_run_of_the_window(window, qtbot, dialogs, tmp_path, monkeypatch) -> None:
    from bpe_desktop.gui import session as session_module

    built = []  # encoders the session builds itself (on the GUI thread): none of the extension's (the helper job's)
    real_encoder = session_module.encoder
    monkeypatch.setattr(session_module, "encoder", lambda work: built.append(work) or real_encoder(work))
    text = "".join(ROBOT_SAMPLE_FILE.read_text(encoding="utf-8").splitlines(keepends=True)[:400])
    window.corpus.set_text(text, name="robot logs", word_counts=False)
    dlg = extend_dialog(window)
    out = tmp_path / "cl100k_logs.tiktoken"
    dlg.out.setText(str(out))
    dlg.merges.setValue(MERGES)
    with qtbot.waitSignal(dlg.runner.finished, timeout=WAIT_MS):
        assert dlg.start()
    qtbot.waitUntil(lambda: window.session.work.extension is not None, timeout=WAIT_MS)
    s = window.session
    ext, done = s.work.extension, dlg.done_result
    assert ext is not None and done is not None and done.made == MERGES
    assert "Shown as a run" in dlg.status.text()
    dlg.close()

    # the Runs list, the timeline and its label
    o = s.origin
    assert o == ext.start == 100_000 and s.n_steps == o + MERGES and s.step == o + MERGES
    row = window.runs.pane.list.item(s.current).text()
    assert row.startswith(f"{s.current + 1}. cl100k + {MERGES} merges on robot logs   —   {MERGES} new merges"), row
    slider = window.timeline.slider
    assert (slider.minimum(), slider.maximum()) == (o, o + MERGES)
    assert window.timeline.label.text().startswith(f"step {MERGES} / {MERGES}")
    s.set_step(o + 1)  # the Why pane: merge 1, with the extension trainer's tie rule
    assert window.why.title.text().startswith(f"Merge 1: {s.records[o].left}")
    assert "smaller merged token (by bytes)" in window.why.detail.text()
    inspector = window.inspector  # the Log inspector names the step as the timeline does, and encodes "yours"
    inspector._own_label()  # by the rank rule the panes use (not a replay of the merges)
    assert inspector.checks["yours"].text() == "yours (step 1)"
    inspector.checks["yours"].setChecked(True)
    mine = inspector.selected()[0]
    assert mine.name == "yours@1" and mine.rank_rule and mine.model is not None and len(mine.model.merges) == o + 1
    own = window.compare.own_result("[INFO] planner")
    assert window.compare._summary("[INFO] planner", own, []).startswith("Your tokenizer at step 1 uses")
    s.set_step(0)  # the left end is cl100k
    assert s.step == o and window.timeline.label.text().startswith(f"step 0 = cl100k / {MERGES}")
    assert window.why.title.text() == "Step 0 · cl100k"
    assert s.model.vocab_size_at(o) == 100_256 + len(CL100K_SPECIALS)

    # the merge list: the added merges, with the trainer's counts and runner-ups
    model = window.merges.table_model
    assert model.rowCount() == MERGES
    added = s.records[o:]
    assert [model.index(r, 0).data() for r in range(MERGES)] == list(range(1, MERGES + 1))
    assert [model.index(r, 4).data() for r in range(MERGES)] == [r.count for r in added]
    assert all(r.count > 0 and r.contenders for r in added)
    assert [r.token_id for r in added] == list(range(100_256, 100_256 + MERGES))  # after cl100k's ids
    check_one_truth(window)

    # the tokens at step k: tiktoken on the written file cut to cl100k + the first k new ranks
    assert isinstance(s.tokenizer, RankRuleTokenizer)
    assert [w for w in built if w.extension is not None] == []
    assert s.work.prepared_encoder is None  # taken by the session when shown, not kept twice
    ranks = tiktoken.load.load_tiktoken_bpe(str(out))
    first = done.first_id
    assert first == 100_277 and done.last_id == first + MERGES - 1
    pattern = Pretokenizer.from_spec("cl100k").pattern
    assert pattern is not None
    cl100k = tiktoken.Encoding(name="c", pat_str=pattern, special_tokens=CL100K_SPECIALS,
                               mergeable_ranks={b: r for b, r in ranks.items() if r < 100_256})
    for k in range(MERGES + 1):
        enc = tiktoken.Encoding(name=f"e{k}", pat_str=pattern, special_tokens=CL100K_SPECIALS,
                                mergeable_ranks={b: r for b, r in ranks.items() if r < first + k})
        s.set_step(o + k)
        for sample in (text[:3000], HELD):
            want = [r - (first - 100_256) if r >= first else r for r in enc.encode_ordinary(sample)]
            assert s.tokenizer.encode_ordinary(sample, upto=s.step) == want, k

        def drawn_as_tiktoken(e: tiktoken.Encoding = enc) -> bool:  # the token stream's rows on screen, as drawn
            canvas = window.token_view.canvas
            rows = canvas.screen_rows
            shown = [canvas.rows.row_text(row) for row, _, _ in rows.packed]
            return bool(shown) and rows.ids() == [
                [r - (first - 100_256) if r >= first else r for r in e.encode_ordinary(t)] for t in shown]

        qtbot.waitUntil(drawn_as_tiktoken, timeout=10_000)
    s.set_step(o)
    assert s.tokenizer.encode_ordinary(HELD, upto=s.step) == cl100k.encode_ordinary(HELD)  # step 0 is cl100k
    assert s.work.symbols_at(o) == len(cl100k.encode_ordinary(text)) == done.tokens_before

    # branching and Train further are refused, naming why
    assert not window.runs.whatif.branch(o + 2, s.config)
    assert dialogs[-1][0] == "Cannot branch" and "extends cl100k" in dialogs[-1][1]
    assert not window.train_further(3)
    assert dialogs[-1][0] == "Cannot train further" and "extends cl100k" in dialogs[-1][1]

    # exporting or saving its merge list is refused (the rank rule and the specials' ids would be lost)
    from bpe_desktop.gui import file_actions

    assert not file_actions.export_tokenizer(window, s, str(tmp_path / "x.tiktoken"), "tiktoken")
    assert dialogs[-1][0] == "Cannot export tokenizer" and "extends cl100k's rank table" in dialogs[-1][1]
    assert not file_actions.save_tokenizer(window, s, str(tmp_path / "x.json"))
    assert dialogs[-1][0] == "Cannot save tokenizer" and not (tmp_path / "x.json").exists()

    # a saved session reopens the run equal (through the file's text)
    works = snapshot(s.runs)
    doc = loads_session(dumps_session(to_document(works, s.current)))
    back, current = from_document(doc)
    assert back == list(works) and back[current].extension == ext
    assert back[current].loaded_format == "tiktoken" and back[current].initial_symbols == s.initial_symbols

    # ... and through File > Save session / Open session in the window
    s.set_step(o + 2)
    path = tmp_path / "ext.bpe-session"
    assert window.sessions.save_to(str(path))
    window.session.switch(0 if s.current else 1) if len(s.runs) > 1 else None
    assert window.sessions.open_session(str(path))
    s = window.session
    assert s.work.extension == ext and s.step == o + 2 and window.timeline.slider.minimum() == o
    assert window.timeline.label.text().startswith(f"step 2 / {MERGES}")
    assert isinstance(s.tokenizer, RankRuleTokenizer) and window.merges.table_model.rowCount() == MERGES
    check_one_truth(window)


def test_forbid_min_frequency_and_the_vocabulary_pane_on_an_extension_run(window, qtbot, tmp_path,
                                                                          monkeypatch) -> None:
    """The dialog's forbid and minimum frequency reach the extension (the core's own run is the oracle); the
    Vocabulary pane at step k counts the corpus as tiktoken with the file cut to cl100k + k ranks does."""
    from collections import Counter

    from bpe_desktop.core.config import TrainConfig
    from bpe_desktop.core.extend import start
    from bpe_desktop.core.formats import load
    from bpe_desktop.gui.extend.job import run

    text = "".join(ROBOT_SAMPLE_FILE.read_text(encoding="utf-8").splitlines(keepends=True)[:400])
    window.corpus.set_text(text, name="robot logs", word_counts=False)
    dlg = extend_dialog(window)
    out = tmp_path / "e.tiktoken"
    dlg.out.setText(str(out))
    dlg.merges.setValue(50)
    dlg.min_freq.setValue(30)
    dlg.forbid.pairs_edit.setPlainText("[ INFO\n[ WARN")
    job = dlg.job()
    assert (job.min_frequency, job.forbid) == (30, (("[", "INFO"), ("[", "WARN")))
    done = run(job)  # (the worker's job, here in-process; the spawn path is the test above)

    # finished while a run trains: not shown (that would stop the run) until Show as a run, once it ended
    runs_before = len(window.session.runs)
    monkeypatch.setattr(type(window.controller), "running", property(lambda self: True))
    dlg._finished(done)
    assert "Not shown as a run: a run is training" in dlg.status.text() and dlg.show_button.isEnabled()
    assert len(window.session.runs) == runs_before and window.session.work.extension is None
    monkeypatch.undo()
    dlg.show_button.click()
    assert window.session.work.extension is not None and not dlg.show_button.isEnabled()
    assert "Shown as a run" in dlg.status.text()
    dlg.close()
    core = start(load("cl100k"), "cl100k", text, TrainConfig(mode="bytes", merges=50, min_frequency=30,
                                                             forbid=(("[", "INFO"), ("[", "WARN"))))
    assert done.run is not None
    assert [(r.left, r.right, r.count) for r in done.run.records] == [(r.left, r.right, r.count) for r in core.records]
    assert done.made < 50 and "minimum frequency 30" in done.stop_reason
    assert not {("[", "INFO"), ("[", "WARN")} & {(r.left, r.right) for r in core.records}
    s = window.session
    assert s.config.min_frequency == 30 and s.config.forbid == job.forbid  # the settings say how it was learned
    check_one_truth(window)

    k = 3
    s.set_step(s.origin + k)
    dock = window.docks["vocab"]
    dock.show()
    dock.raise_()
    pane = window.vocab
    qtbot.waitUntil(lambda: not pane.busy and pane.table_model.audit is not None
                    and pane.table_model.audit is pane.feed.audit, timeout=120_000)
    a = pane.table_model.audit
    assert a.step == s.origin + k and len(a.ids) == 100_256 + k + len(CL100K_SPECIALS)
    pattern = Pretokenizer.from_spec("cl100k").pattern
    assert pattern is not None
    ranks = tiktoken.load.load_tiktoken_bpe(str(out))
    first = done.first_id
    assert first is not None
    enc = tiktoken.Encoding(name="e", pat_str=pattern, special_tokens=CL100K_SPECIALS,
                            mergeable_ranks={b: r for b, r in ranks.items() if r < first + k})
    want = Counter(r - (first - 100_256) if r >= first else r for r in enc.encode_ordinary(text))
    n = 100_256 + k
    assert {i: f for i, f in enumerate(a.frequencies[:n]) if f} == dict(want)
    made = pane.table_model
    row = made.rows.index(a.ids.index(100_256))
    assert made.cell(row, 3) == "1" and made.cell(made.rows.index(a.ids.index(300)), 3) == "cl100k"


def test_a_merge_list_extension_exports_and_finds_at_the_step_the_timeline_shows(window, dialogs, tmp_path,
                                                                                 monkeypatch) -> None:
    """An extension of a native file (its merges replayed, so its merge list may be written at a step): the export
    dialog, its confirmation and the find box's "no token" name the step as the timeline does (2 new merges, not
    the model's 8), and the file holds the original's merges and the first 2 new ones."""
    from bpe_desktop.core.config import TrainConfig
    from bpe_desktop.core.counting.sources import CorpusSource
    from bpe_desktop.core.formats import native
    from bpe_desktop.core.training.trainer import train
    from bpe_desktop.gui import file_actions
    from bpe_desktop.gui.export_dialog import ExportDialog
    from bpe_desktop.gui.extend.job import ExtendJob, run
    from bpe_desktop.gui.extend.show import extension_work

    model, records = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, TrainConfig(merges=6))
    original = tmp_path / "mine.json"
    native.save(str(original), model, records)
    corpus = "lowest newer wider lowest wider " * 5
    done = run(ExtendJob(str(original), 4, str(tmp_path / "mine_extended.json"), text=corpus))
    window.session.load(extension_work(done, CorpusSource.from_text(corpus, name="words")))
    s = window.session
    o = s.origin
    assert o == 6 and s.work.extension is not None and s.work.extension.rule == "merge-list"
    s.set_step(o + 2)
    assert window.timeline.label.text().startswith("step 2 / 4")
    seen: list[ExportDialog] = []

    def exec_(self: ExportDialog) -> int:  # the user picks the format and clicks Export
        seen.append(self)
        assert self.select("csv")
        return 1

    monkeypatch.setattr(ExportDialog, "exec", exec_)
    monkeypatch.setattr(file_actions, "_last_folder", [str(tmp_path)])
    assert file_actions.export_tokenizer(window, s) and not dialogs
    assert seen[0].windowTitle() == "Export the tokenizer at step 2"
    out = tmp_path / "at2.json"
    assert file_actions.export_tokenizer(window, s, str(out), "native")
    assert window.statusBar().currentMessage() == f"Exported the tokenizer at step 2 as native to {out}"
    written, _ = native.load(str(out))
    assert written.merges == s.model.merges[:o + 2]
    later = s.records[o + 2].token  # made by the third new merge: not a token at step 2
    view = window.token_view
    view.find_box.setText(later)
    assert view.find_next() is None and view.find_status.text() == f"no token {later!r} at step 2"


def test_train_on_an_extension_run_keeps_it_in_the_runs_list(qtbot, window, dialogs) -> None:
    """Train (F5) with the settings the form shows for an extension run trains a new run from the corpus's bytes;
    the extension -- which that is not -- stays in the list, unchanged (it was retrained in place, and lost)."""
    from support.extension import tiny_extension
    from support.window import click_train, wait_finished

    ext = tiny_extension()
    window.session.load(ext)
    kept = (list(ext.model.merges), ext.extension)
    click_train(qtbot, window)
    wait_finished(qtbot, window)
    s = window.session
    assert any(r is ext for r in s.runs) and s.work is not ext and s.work.extension is None
    assert (list(ext.model.merges), ext.extension) == kept and not dialogs
    check_run_labels(window)
