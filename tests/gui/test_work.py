"""The piece of work, Qt-free (issue 22): the "Train further" policy, "what would be lost", the run list, and
a session document that reads back the very works that were saved (a hypothesis property).

Oracles: real training runs of the core trainer (their stop reasons and records), the session file's own
writer and reader (JSON text in between), and the corpus files on disk."""

from __future__ import annotations

import dataclasses
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core import CorpusSource, TrainConfig, Trainer, count_source
from bpe_desktop.core.formats.session_file import dumps_session, loads_session
from bpe_desktop.core.stopping import StopReason
from bpe_desktop.gui.runs.persist import from_document, snapshot, to_document
from bpe_desktop.gui.wording import cannot_continue
from bpe_desktop.gui.work import Origin, RunList, Work, continuation, run_changed, same_corpus, what_would_be_lost

TEXT = "low low low lower newest newest widest\n"


def trained(text: str, config: TrainConfig, *, name: str = "<editor>", table: bool = False) -> Work:
    """A work as the window has it after training *config* on *text* to its end."""
    src = CorpusSource.from_text(text, word_counts=table, name=name)
    t = Trainer(count_source(src, config), config)
    records = t.run()
    return Work(src, config, t.model, records, t.stopped_by, t.stop_reason, len(records))


# -- "Train further" ---------------------------------------------------------------------------------------
def test_continuation_refuses_what_cannot_learn_more_and_offers_retrain_for_what_changed() -> None:
    empty = Work.empty()
    assert continuation(empty, empty.config, empty.source, process_alive=True).refusal.startswith("nothing")
    done = trained("ab ab ab\n", TrainConfig(merges=50))
    assert done.stop_reason is StopReason.NO_PAIR  # the trainer says so, not the test
    got = continuation(done, done.config, done.source, process_alive=True)
    assert "no pair was left" in got.refusal and not got.ok
    rare = trained(TEXT, TrainConfig(merges=50, min_frequency=4))
    assert rare.stop_reason is StopReason.MIN_FREQUENCY
    assert rare.stop_text in continuation(rare, rare.config, rare.source, process_alive=True).refusal
    limit = trained(TEXT, TrainConfig(merges=3))
    assert limit.stop_reason is StopReason.MERGES
    assert continuation(limit, limit.config, limit.source, process_alive=True).ok
    assert continuation(limit, limit.config.with_(merges=9), limit.source, process_alive=True).ok  # limits
    assert continuation(limit, limit.config, limit.source, process_alive=False).retrain == \
        cannot_continue(StopReason.MERGES, process_alive=False)
    assert continuation(limit, limit.config.with_(tie_break="hf"), limit.source, process_alive=True).retrain == \
        "the settings changed since this run"
    other = CorpusSource.from_text(TEXT + "more\n")
    assert run_changed(limit, limit.config, other) == "the corpus changed since this run"
    assert run_changed(limit, None, limit.source) == "the settings are not valid any more"
    # the name the editor gives a text is not the text
    assert run_changed(limit, limit.config, dataclasses.replace(limit.source, name="seed")) == ""
    assert not same_corpus(limit.source, dataclasses.replace(limit.source, word_counts=True))


# -- asking before losing work -----------------------------------------------------------------------------
def test_only_typed_text_nobody_trained_on_and_unsaved_runs_are_at_risk() -> None:
    run = trained(TEXT, TrainConfig(merges=3))
    typed = CorpusSource.from_text("mine\nall mine\n")
    assert what_would_be_lost("corpus", [run], typed=None, unsaved=True) == ""  # the run stays in the list
    assert what_would_be_lost("corpus", [run], typed=run.source, unsaved=True) == ""  # trained on: kept
    assert what_would_be_lost("corpus", [run], typed=CorpusSource.from_text("  \n"), unsaved=True) == ""
    assert what_would_be_lost("corpus", [run], typed=typed, unsaved=False) == \
        "the text typed into the Corpus pane (2 lines, not trained on)"
    # an untrained run holding the typed text (the window's, which follows the editor) does not keep it
    assert what_would_be_lost("corpus", [run, Work.empty(typed)], typed=typed, unsaved=False) == \
        "the text typed into the Corpus pane (2 lines, not trained on)"
    assert what_would_be_lost("session", [run], typed=None, unsaved=False) == ""  # saved
    assert what_would_be_lost("session", [run, Work.empty()], typed=None, unsaved=True) == \
        "1 run with 3 merges not saved in a session file"


# -- the run list ----------------------------------------------------------------------------------------
def test_run_list_keeps_every_run_with_merges_by_identity() -> None:
    first = Work.empty()
    runs = RunList(first)
    a = trained(TEXT, TrainConfig(merges=3))
    assert runs.add(a) == 0 and runs.items == [a]  # the empty work held nothing: replaced
    b = dataclasses.replace(a)  # equal, but another run
    assert runs.add(b) == 1 and runs.shown is b and len(runs.items) == 2
    assert a.id and b.id and a.id != b.id
    tour = Work.empty()
    assert runs.set_aside(tour) == 0 and runs.items == [tour] and runs.saved() == ((a, b), 1)
    assert runs.bring_back() == 1 and runs.items[0] is a and runs.items[1] is b
    assert runs.remove(0) is None and runs.shown is b and runs.current == 0
    with pytest.raises(IndexError):
        runs.remove(0)  # never the last one


# -- the session document --------------------------------------------------------------------------------
WORDS = st.sampled_from(["low", "lower", "newest", "widest", "ab", "ba", "été", "naïve", "x"])
TEXTS = st.lists(st.lists(WORDS, min_size=1, max_size=5).map(" ".join), min_size=1, max_size=6).map(
    lambda lines: "\n".join(lines) + "\n")
CONFIGS = st.builds(TrainConfig, merges=st.integers(1, 12), mode=st.sampled_from(["chars", "bytes"]),
                    tie_break=st.sampled_from(["lexical", "hf"]), min_frequency=st.integers(1, 2))


@st.composite
def works(draw: st.DrawFn, files: dict[str, str]) -> list[Work]:
    out: list[Work] = []
    for i in range(draw(st.integers(1, 4))):
        text, config = draw(TEXTS), draw(CONFIGS)
        if files and draw(st.booleans()):  # a text read from a file the window opened: saved by reference
            path = draw(st.sampled_from(sorted(files)))
            text, name = files[path], os.path.basename(path)
        else:
            name = draw(st.sampled_from(["<editor>", "seed word counts", "Robot logs (200 KB sample)", "ü ✓"]))
        w = trained(text, config, name=name)
        w.step = draw(st.integers(0, len(w.records)))
        w.name, w.renamed = draw(st.sampled_from([("", False), (f"run {i}", False), ("mine", True)]))
        w.id = 10 * (i + 1)  # ids are session-local: read back renumbered, which == ignores
        if out and draw(st.booleans()):
            parent = draw(st.sampled_from(out))
            w.origin = Origin(parent.id, min(w.step, parent.n_merges))
        if draw(st.booleans()):
            w.draft = CorpusSource.from_text(draw(TEXTS), name="<editor>")
        if draw(st.booleans()):
            w.draft_config = draw(CONFIGS)
        out.append(w)
    if draw(st.booleans()):  # nothing trained yet
        out.append(Work.empty(CorpusSource.from_text(draw(TEXTS)), draw(CONFIGS)))
    return out


@pytest.fixture(scope="module")
def opened_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("corpora")
    out = {}
    for i, text in enumerate(["low lower\nnewest\n", "été naïve été\n"]):
        p = d / f"corpus{i}.txt"
        p.write_text(text, encoding="utf-8")
        out[str(p)] = text
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_saved_session_reads_back_the_works_that_were_saved(opened_files: dict[str, str], data: st.DataObject
                                                              ) -> None:
    from bpe_desktop.gui.panes.corpus_editor import corpus_of_file

    runs = data.draw(works(opened_files))
    current = data.draw(st.integers(0, len(runs) - 1))
    doc = to_document(snapshot(runs), current, opened=opened_files)
    text = dumps_session(doc)
    assert '"corpus": null' not in text  # every run names its own corpus
    back, shown = from_document(loads_session(text), file_source=corpus_of_file)
    assert back == list(snapshot(runs)) and shown == current  # what was saved (an untrained model has no base)
    index = {r.id: i for i, r in enumerate(runs)}
    assert [None if r.origin.parent is None else index[r.origin.parent] for r in runs] == \
        [None if r.origin.parent is None else r.origin.parent - 1 for r in back]
    assert [(r.draft, r.draft_config) for r in back] == [(r.draft, r.draft_config) for r in runs]
    for r, b in zip(runs, back, strict=True):
        if r.source.text in opened_files.values() and r.source.name != "<editor>":
            assert b.source == r.source  # by reference, read back through the editor's rule
    # and the document's own fields are the shown run's (what a reader of version 1.0 opens)
    assert doc.config == runs[current].config and doc.step == runs[current].step


def test_a_snapshot_is_not_changed_by_later_merges() -> None:
    w = trained(TEXT, TrainConfig(merges=3))
    snap = snapshot([w], active=0)
    w.records.append(w.records[-1])
    assert len(snap[0].records) == 3 and snap[0].stop_reason is StopReason.STOPPED  # saved while training


SPECS = st.lists(st.sampled_from(["cl100k:/opt/t/cl100k_base.tiktoken", "o200k:/opt/t/o200k.tiktoken",
                                  "/home/ü/ref.json", "gpt2:/x/encoder.json", "a b/tok.model"]), max_size=6)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), specs=SPECS)
def test_the_session_model_written_as_a_document_reads_back_equal_references_included(
        opened_files: dict[str, str], data: st.DataObject, specs: list[str]) -> None:
    """Session (runs, shown run, compare references) -> document -> JSON -> a fresh Session: equal."""
    from bpe_desktop.gui.panes.corpus_editor import corpus_of_file
    from bpe_desktop.gui.session import Session
    from bpe_desktop.gui.session_io.document import HashCache, load_model, of_model, to_doc

    runs = data.draw(works(opened_files))
    current = data.draw(st.integers(0, len(runs) - 1))
    a = Session()
    a.load(runs[current], runs=runs)
    a.set_compare(specs)
    assert a.compare == tuple(dict.fromkeys(specs))  # each once, in the order ticked
    doc = loads_session(dumps_session(to_doc(of_model(a, opened=opened_files), HashCache())))
    works_back, shown = from_document(doc, file_source=corpus_of_file)
    b = Session()
    load_model(b, doc, works_back, shown)
    assert list(b.runs) == list(snapshot(a.runs)) and b.current == a.current
    assert b.compare == a.compare
