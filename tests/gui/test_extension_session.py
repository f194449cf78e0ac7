"""An extension run in a session document, Qt-free: a file original is kept by path and SHA-256 and only the added
merges are written; reopening gives the run back equal, a changed or vanished original refuses the document
naming the file, and a damaged ``extras.extensions`` entry is refused with a clear message, never a crash."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.counting.sources import CorpusSource
from bpe_desktop.core.errors import SessionError
from bpe_desktop.core.formats.native import save
from bpe_desktop.core.formats.session_file import dumps_session, loads_session
from bpe_desktop.core.training.trainer import train
from bpe_desktop.gui.extend.job import ExtendJob, run
from bpe_desktop.gui.extend.show import extension_work
from bpe_desktop.gui.runs.persist import EXTENSIONS, from_document, snapshot, to_document

CORPUS = "lowest newer wider lowest wider " * 5


@pytest.fixture
def saved(tmp_path):
    """(the original file, the run's document as JSON text, the runs saved)."""
    model, records = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, TrainConfig(merges=6))
    path = tmp_path / "mine.json"
    save(str(path), model, records)
    done = run(ExtendJob(str(path), 4, str(tmp_path / "mine_extended.json"), text=CORPUS))
    assert done.run is not None and done.sha256
    work = extension_work(done, CorpusSource.from_text(CORPUS, name="words"))
    assert work.extension is not None and work.extension.label == "mine.json" and work.extension.start == 6
    works = snapshot([work])
    return path, dumps_session(to_document(works, 0)), works


def test_a_file_original_is_kept_by_reference_and_read_again(saved) -> None:
    path, text, works = saved
    raw = json.loads(text)
    entry = raw["extras"][EXTENSIONS]["0"]
    assert entry["spec"] == str(path) and len(entry["merges"]) == 4 and raw["runs"][0]["tokenizer"] is None
    back, _ = from_document(loads_session(text))
    assert back == list(works) and back[0].records[6:] == works[0].records[6:]


def test_a_changed_or_vanished_original_refuses_the_document(saved) -> None:
    path, text, _ = saved
    doc = loads_session(text)
    path.write_text(path.read_text(encoding="utf-8").replace('"low"', '"low" '), encoding="utf-8")
    with pytest.raises(SessionError, match="changed since the session was saved"):
        from_document(doc)
    path.unlink()
    with pytest.raises(SessionError, match="which is gone"):
        from_document(doc)


json_values = st.recursive(st.none() | st.booleans() | st.integers(-3, 200) | st.text(max_size=4),
                           lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=4), c, max_size=3),
                           max_leaves=8)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["spec", "start", "rule", "added", "step", "merges", "records", "initial_symbols", "sha256",
                        "label", "corpus", "extra"]), json_values)
def test_a_damaged_entry_is_refused(saved, field: str, value: object) -> None:
    _, text, _works = saved
    doc = loads_session(text)
    entry = dict(doc.extras[EXTENSIONS]["0"])
    entry[field] = value
    damaged = dataclasses.replace(doc, extras={**doc.extras, EXTENSIONS: {"0": entry}})
    try:
        back, _ = from_document(damaged)
    except SessionError as e:
        assert "session file is damaged" in str(e) or "extends" in str(e)
    else:  # a value that still describes a run (the same one, or a label or corpus text) reads as such
        assert len(back[0].records) == 6 + back[0].extension.added


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["label", "added", "step", "whole", "extensions", "current"]),
       json_values | st.sampled_from(["a\nb", "\r", "\u2028x"]))
def test_the_autosave_line_of_any_extras_is_a_line(saved, tmp_path, field: str, value: object) -> None:
    """The recovery offer's line reads an extension entry without trusting it: any JSON where it looks is either
    the entry's own words (original, new merges, step) or the plain line -- never an exception."""
    from bpe_desktop.core.formats.session_file import save_session
    from bpe_desktop.gui.runs.persist import shown_extension
    from bpe_desktop.gui.session_io.autosave_files import describe

    _, text, _works = saved
    doc = loads_session(text)
    assert shown_extension(doc) == ("mine.json", 4, 4)
    extras: dict[str, object] = dict(doc.extras)
    entry = dict(doc.extras[EXTENSIONS]["0"])
    if field == "whole":
        extras[EXTENSIONS] = {"0": value}
    elif field == "extensions":
        extras[EXTENSIONS] = value
    elif field != "current":
        entry[field] = value
        extras[EXTENSIONS] = {"0": entry}
    damaged = dataclasses.replace(doc, extras=extras)
    if field == "current":
        damaged = dataclasses.replace(doc, extras={EXTENSIONS: {"1": entry}})  # (another run's entry)
    got = shown_extension(damaged)
    assert got is None or (type(got[0]) is str and type(got[1]) is int and type(got[2]) is int)
    path = tmp_path / "a.bpesession"
    try:
        save_session(str(path), damaged)
    except (TypeError, ValueError):
        return  # (not a document the writer writes)
    line = describe(str(path), 0.0)
    assert line.startswith("saved ") and "\n" not in line
    assert ("new merge" in line) == (got is not None)
