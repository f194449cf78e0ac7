"""The vocabulary pane with real widgets (offscreen): its rows equal the core's audit at several steps,
sorting and filtering, selecting a row moves the timeline, flags of a hand-built tokenizer, cl100k."""

from __future__ import annotations

import copy

import pytest
from PySide6 import QtCore

from bpe_desktop.core import CorpusSource, TrainConfig
from bpe_desktop.core.measure.vocab_audit import Column, TokenFlag, audit, encoded_frequencies, made_counts
from bpe_desktop.core.stopping import StopReason
from bpe_desktop.core.tokenizers.model import BYTE_BASE, BPEModel
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer
from bpe_desktop.core.views.derivation import derivation_tree
from bpe_desktop.gui import file_actions
from bpe_desktop.gui.session import Session
from bpe_desktop.gui.training.protocol import TrainingState
from bpe_desktop.gui.vocab.pane import VocabPane
from bpe_desktop.gui.vocab.table import COLUMNS, FLAGS_COLUMN, flag_text
from support import finished_session

CFG = TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=150)


@pytest.fixture(scope="module")
def trained(topics_text, trained_on):
    return trained_on(topics_text[:80_000], CFG)


def trained_session(trained) -> Session:
    text, wc, t, recs = trained
    return finished_session(text, CFG, wc, t.model, recs)


def make_pane(qtbot, session: Session) -> VocabPane:
    pane = VocabPane(session)
    qtbot.addWidget(pane)
    pane.resize(1100, 500)
    pane.show()
    qtbot.waitExposed(pane)
    wait_done(qtbot, pane)
    return pane


def wait_done(qtbot, pane: VocabPane) -> None:
    qtbot.waitUntil(lambda: not pane.busy and pane.table_model.audit is pane.feed.audit, timeout=30_000)


def shown_rows(pane: VocabPane) -> list[list[str]]:
    m = pane.table_model
    return [[m.data(m.index(r, c)) for c in range(m.columnCount())] for r in range(m.rowCount())]


def core_rows(session: Session, words: dict[str, int], k: int, threshold: float = 0.1) -> list[list[str]]:
    model = session.model
    enc = Tokenizer(model, unknown="keep")
    a = audit(model, k, encoded_frequencies(enc, words, k, model.vocab_size_at(k)),
              counts_when_made=made_counts(session.records), threshold=threshold, encoder=enc)
    out = []
    for r in range(len(a)):
        row = a.row(r)
        m = row.made_by
        out.append([
            str(row.id), row.label, str(row.n_bytes), f"{m.step:,}" if m else "",
            f"{a.labels[m.left]} + {a.labels[m.right]}" if m else "", f"{m.pair_count:,}" if m else "",
            f"{row.frequency:,}", f"{row.consumers:,}", "" if row.ratio is None else f"{row.ratio:.3f}",
            flag_text(row.flags),
        ])
    return out


def test_rows_equal_the_core_audit_at_several_steps(qtbot, trained) -> None:
    s = trained_session(trained)
    pane = make_pane(qtbot, s)
    words = trained[1].counts
    for k in (150, 0, 1, 37, 100):
        s.set_step(k)
        wait_done(qtbot, pane)
        assert pane.table_model.audit.step == k
        assert shown_rows(pane) == core_rows(s, words, k)
    assert pane.slices > 1  # computed a slice at a time, not in one call
    # the threshold box re-flags without changing anything else, exactly as the core with that threshold
    pane.threshold.setValue(0.5)
    wait_done(qtbot, pane)
    assert shown_rows(pane) == core_rows(s, words, 100, threshold=0.5)
    assert pane.table_model.audit.flagged(TokenFlag.INTERMEDIATE)


def test_sorting_and_filtering(qtbot, trained) -> None:
    s = trained_session(trained)
    pane = make_pane(qtbot, s)
    a = pane.table_model.audit
    pane.view.sortByColumn(6, QtCore.Qt.SortOrder.DescendingOrder)  # frequency
    m = pane.table_model
    ids = [int(m.data(m.index(r, 0))) for r in range(m.rowCount())]
    assert ids == [a.ids[r] for r in a.order(Column.FREQUENCY, descending=True)]
    freqs = [a.frequencies[a.ids.index(i)] for i in ids]
    assert freqs == sorted(freqs, reverse=True)
    pane.view.sortByColumn(1, QtCore.Qt.SortOrder.AscendingOrder)  # token text
    labels = [m.data(m.index(r, 1)) for r in range(m.rowCount())]
    assert labels == sorted(labels)
    pane.view.sortByColumn(4, QtCore.Qt.SortOrder.AscendingOrder)  # the pair: base symbols (no pair) last
    pairs = [m.data(m.index(r, 4)) for r in range(m.rowCount())]
    assert pairs[-1] == "" and pairs[0] != ""
    # the text filter: a space typed as a space finds the tokens shown with ·
    pane.filter_box.setText(" th")
    got = [m.data(m.index(r, 1)) for r in range(m.rowCount())]
    assert got and all("·th" in g.lower() for g in got)  # case-insensitive
    assert len(got) == sum("·th" in lab.lower() for lab in a.labels)
    pane.filter_box.setText("")
    # flag boxes: only unused tokens (bytes never seen in the text)
    pane.flag_boxes[TokenFlag.UNUSED].setChecked(True)
    flags = [m.data(m.index(r, FLAGS_COLUMN)) for r in range(m.rowCount())]
    assert len(flags) == len(a.flagged(TokenFlag.UNUSED)) > 0 and all("unused" in f for f in flags)
    pane.flag_boxes[TokenFlag.UNUSED].setChecked(False)
    assert m.rowCount() == len(a)


def test_selecting_a_row_shows_the_derivation_and_moves_the_timeline(qtbot, trained) -> None:
    s = trained_session(trained)
    pane = make_pane(qtbot, s)
    model = s.model
    tid = model.merge_token_ids[119]  # the token made by merge 120
    row = pane.table_model.row_of_id(tid)
    pane.view.selectRow(row)  # what a click does
    assert s.step == 120
    items = pane.derivation_items()
    assert items[0] == (0, pane.table_model.audit.labels[tid])
    expected: list[tuple[int, str]] = []

    def walk(node, depth: int) -> None:
        expected.append((depth, node.label))
        for c in node.children:
            walk(c, depth + 1)

    walk(derivation_tree(model, tid), 0)
    assert items == expected and len(items) > 1
    wait_done(qtbot, pane)  # the table now shows step 120, the token still selected, the timeline unmoved
    assert pane.table_model.audit.step == 120
    current = pane.view.selectionModel().currentIndex()
    assert pane.table_model.token_id(current.row()) == tid and s.step == 120
    # a base symbol has no merge: the timeline stays
    pane.view.selectRow(pane.table_model.row_of_id(model.token_ids[b"e"]))
    assert s.step == 120 and pane.derivation_items() == [(0, "e")]


def test_hand_built_tokenizer_shows_its_unreachable_token(qtbot) -> None:
    """a+b, b+c, a+bc: "abc" encodes as ab + c, so the token abc can never be produced."""
    model = BPEModel.from_token_pairs("bytes", BYTE_BASE, [(b"a", b"b"), (b"b", b"c"), (b"a", b"bc")],
                                      pretokenizer="gpt2")
    s = Session()
    s.set_corpus(CorpusSource.from_text("abc abc bc\n"), TrainConfig(mode="bytes", pretokenizer="gpt2"))
    s.reset_model(model, file_actions.records_for(model))
    s.set_stop(StopReason.LOADED, "loaded")
    s.set_state(TrainingState.FINISHED)
    pane = make_pane(qtbot, s)
    m = pane.table_model
    abc = model.token_ids[b"abc"]
    row = m.row_of_id(abc)
    assert m.data(m.index(row, 1)) == "abc" and "unreachable" in m.data(m.index(row, FLAGS_COLUMN))
    assert "unreachable" not in m.data(m.index(m.row_of_id(model.token_ids[b"ab"]), FLAGS_COLUMN))
    # bytes >= 0x80 are not text alone (and so unreachable); shown as hex
    hi = m.row_of_id(model.token_ids[b"\xe2"])
    assert m.data(m.index(hi, 1)) == "⟨e2⟩" and "not decodable" in m.data(m.index(hi, FLAGS_COLUMN))
    # frequencies come from the session's corpus encoded at the step: "abc" twice as ab + c
    assert m.data(m.index(row, 6)) == "0" and m.data(m.index(m.row_of_id(model.token_ids[b"ab"]), 6)) == "2"
    pane.flag_boxes[TokenFlag.UNREACHABLE].setChecked(True)
    assert m.rowCount() == 129  # the 128 high bytes and abc


def test_a_tokenizer_without_corpus_flags_nothing_unused(qtbot) -> None:
    model = BPEModel.from_token_pairs("bytes", BYTE_BASE, [(b"a", b"b")], pretokenizer="gpt2")
    s = Session()
    s.reset_model(model, file_actions.records_for(model))
    s.set_stop(StopReason.LOADED, "loaded")
    pane = make_pane(qtbot, s)
    a = pane.table_model.audit
    assert len(a) == 257 and not a.flagged(TokenFlag.UNUSED)
    assert pane.table_model.data(pane.table_model.index(0, 6)) == "—" and "no corpus" in pane.status.text()


def test_hidden_pane_computes_nothing(qtbot, trained) -> None:
    s = trained_session(trained)
    pane = VocabPane(s)
    qtbot.addWidget(pane)
    qtbot.wait(50)
    assert pane.slices == 0 and pane.table_model.audit is None
    pane.show()
    wait_done(qtbot, pane)
    assert len(pane.table_model.audit) == s.model.vocab_size_at(150)


def test_column_titles() -> None:
    assert [c.title for c in COLUMNS][:3] == ["id", "token", "bytes"]


@pytest.mark.slow
def test_cl100k_opens_in_the_pane_with_tiktokens_flags(qtbot, cl100k: str) -> None:
    from bpe_desktop.core.formats import load

    path = cl100k
    s = Session()
    s.set_corpus(CorpusSource.from_text("Hello robot, status OK\n"), TrainConfig(mode="bytes", pretokenizer="cl100k"))
    pane = make_pane(qtbot, s)
    assert file_actions.open_tokenizer(pane, s, f"cl100k:{path}") is not None  # File > Open tokenizer's work
    assert s.loaded_format == "tiktoken"
    wait_done(qtbot, pane)
    m = pane.table_model
    assert m.rowCount() == 100_256 + 5
    a = m.audit
    assert len(a.flagged(TokenFlag.UNDECODABLE)) == 773
    loaded = load(f"cl100k:{path}")
    from bpe_desktop.core.measure.reachability import unreachable_ids

    assert a.flagged(TokenFlag.UNREACHABLE) == unreachable_ids(loaded.model, encoder=loaded.tokenizer)
    hello = loaded.tokenizer.encode("Hello")
    assert len(hello) == 1 and m.data(m.index(m.row_of_id(hello[0]), 6)) == "1"
    assert m.data(m.index(m.row_of_id(hello[0]), 1)) == "Hello"


@pytest.mark.slow
def test_in_the_window_it_works_only_when_shown_and_follows_training(qtbot, window, topics_text) -> None:
    text = topics_text[:40_000]
    window.corpus.set_text(text, name="topics")
    window.settings.set_config(CFG.with_(merges=200))
    assert window.train()
    qtbot.waitUntil(lambda: window.session.state is TrainingState.FINISHED, timeout=60_000)
    pane = window.vocab
    assert pane.slices == 0 and pane.table_model.audit is None  # a hidden tab computes nothing
    window.docks["vocab"].raise_()
    wait_done(qtbot, pane)
    s = window.session
    assert pane.table_model.audit.step == s.step == 200
    assert shown_rows(pane) == core_rows(s, s.word_counts.counts, 200)
    # training further while shown: the pane follows the step, a throttled number of times
    before = pane.slices
    assert window.train_further(150)
    qtbot.waitUntil(lambda: window.session.state is TrainingState.FINISHED, timeout=60_000)
    wait_done(qtbot, pane)
    assert pane.table_model.audit.step == s.step == 350
    assert shown_rows(pane) == core_rows(s, s.word_counts.counts, 350)
    assert pane.slices > before


def test_the_seeds_chars_mode_rows_equal_the_core_audit(qtbot, seeded) -> None:
    s, t, recs = seeded
    from bpe_desktop.core import count_source

    s.set_counted(count_source(s.source, s.config), s.initial_symbols, s.held_out)
    s.set_counted(s.word_counts, t.initial_symbols, s.held_out)
    s.reset_model(copy.deepcopy(t.model), list(recs))
    s.set_stop(StopReason.MERGES, "reached 7 merges")
    s.set_state(TrainingState.FINISHED)
    pane = make_pane(qtbot, s)
    for k in (7, 3, 0):
        s.set_step(k)
        wait_done(qtbot, pane)
        assert shown_rows(pane) == core_rows(s, s.word_counts.counts, k)
    s.set_step(7)
    wait_done(qtbot, pane)
    m = pane.table_model
    row = m.row_of_id(s.model.token_ids["est</w>"])
    assert m.data(m.index(row, 1)) == "est</w>" and m.data(m.index(row, 4)) == "est + </w>"
