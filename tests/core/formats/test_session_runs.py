"""Issue 14 in the session document: several runs (RunDoc) beside the shown run's fields, minor version 1.

A round trip keeps every run (settings, merges, records, step, stop reason, branch origin, own corpus); a
document without runs (version 1.0) reads as before; a damaged run is one SessionError naming the run.
"""

from __future__ import annotations

import json

import pytest

from bpe_desktop.core import TrainConfig
from bpe_desktop.core.errors import SessionError
from bpe_desktop.core.formats.session_file import (
    MINOR_VERSION,
    VERSION,
    RunDoc,
    SessionCorpus,
    SessionDoc,
    dumps_session,
    load_session,
    loads_session,
    save_session,
)
from bpe_desktop.core.stopping import StopReason
from bpe_desktop.core.training.branch import BranchPoint, start_branch
from bpe_desktop.core.training.trainer import train

TABLE = {"low": 5, "lower": 2, "newest": 6, "widest": 3, "slowest": 2, "newer": 3}
TEXT = "\n".join(f"{w} {c}" for w, c in TABLE.items())


def _doc() -> SessionDoc:
    cfg = TrainConfig(merges=9)
    model, recs = train(TABLE, cfg)
    cfg2 = cfg.with_(forbid=(("l", "o"),), tie_break="first-seen")
    branch = start_branch(TABLE, cfg2, BranchPoint.from_model(model, 3, recs))
    recs2 = branch.records + list(branch.trainer)
    runs = (
        RunDoc("baseline", cfg, model, tuple(recs), 9, StopReason.MERGES, "reached 9 merges", renamed=True),
        RunDoc("branch of run 1 at 3: forbid l+o", cfg2, branch.trainer.model, tuple(recs2), 5,
               StopReason.MERGES, "reached 9 merges", parent=0, branch_step=3),
        RunDoc("typed text", TrainConfig(merges=2), None, (), 0, None, "",
               corpus=SessionCorpus.from_text("abc abd", word_counts=False)),
    )
    return SessionDoc(SessionCorpus.from_text(TEXT, word_counts=True), cfg2, branch.trainer.model, tuple(recs2), 5,
                      runs=runs, current_run=1)


def test_runs_round_trip(tmp_path) -> None:
    doc = _doc()
    path = tmp_path / "s.bpesession"
    save_session(path, doc)
    raw = json.loads(path.read_text())
    assert raw["version"] == VERSION == 1 and raw["minor"] == MINOR_VERSION == 1
    back = load_session(path)
    assert back.current_run == 1 and len(back.runs) == 3
    for a, b in zip(doc.runs, back.runs, strict=True):
        assert (a.name, a.config, a.records, a.step, a.stop, a.stop_text, a.renamed, a.parent, a.branch_step) == (
            b.name, b.config, b.records, b.step, b.stop, b.stop_text, b.renamed, b.parent, b.branch_step)
        assert (a.model is None) == (b.model is None)
        if a.model is not None and b.model is not None:
            assert a.model.merge_pairs_text() == b.model.merge_pairs_text()
    assert back.runs[0].corpus is None and back.runs[2].corpus == doc.runs[2].corpus
    assert back.records == doc.records  # the shown run's own fields are unchanged


def test_a_document_without_runs_reads_as_before() -> None:
    doc = _doc()
    plain = SessionDoc(doc.corpus, doc.config, doc.model, doc.records, doc.step)
    raw = json.loads(dumps_session(plain))
    assert "runs" not in raw and "minor" not in raw  # exactly what version 1.0 wrote
    back = loads_session(json.dumps(raw))
    assert back.runs == () and back.current_run == 0 and back.records == doc.records


def _tampered(change) -> str:
    raw = json.loads(dumps_session(_doc()))
    change(raw)
    return json.dumps(raw)


@pytest.mark.parametrize("change,words", [
    (lambda r: r.update(runs={"a": 1}), "runs must be a list"),
    (lambda r: r.update(current_run=7), "current_run 7"),
    (lambda r: r["runs"][1].update(parent=9), "run 2: no run 9"),
    (lambda r: r["runs"][0].update(stop="exploded"), "unknown stop reason"),
    (lambda r: r["runs"][0].update(step=99), "run 1: the step 99"),
    (lambda r: r["runs"][0].pop("name"), "needs a name"),
    (lambda r: r["runs"][0]["settings"].update(min_frequency="x"), "settings.min_frequency"),
    (lambda r: r["runs"][1]["settings"].update(forbid=[["l"]]), "forbidden pair"),
    (lambda r: r["runs"][0]["tokenizer"].update(merges=[["z", "q"]]), "run 1"),
])
def test_a_damaged_run_is_one_session_error(change, words: str) -> None:
    with pytest.raises(SessionError) as e:
        loads_session(_tampered(change), "s.json")
    assert words in str(e.value)
