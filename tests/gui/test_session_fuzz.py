"""Issue 26, item 5 and its fuzz suite: hostile session documents through File → Open session on a real window.

hypothesis mutates valid session documents (out-of-range numbers, runs that branch from themselves or in a
cycle, odd paths -- NUL, undecodable bytes, folders, missing files --, odd encodings -- a byte order mark,
escapes, Latin-1 --, deep nesting, wrong types) and opens each through the File menu's action, as a user
would.  Every one either loads (and the window then shows exactly what the file says) or is refused with
one "Cannot open session" dialog naming the file, and the window is exactly as it was before.  Examples
are bounded so the suite stays quick; nothing here measures time.
"""

from __future__ import annotations

import copy
import json
import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig, train
from bpe_desktop.core.formats import json_text
from bpe_desktop.core.formats.session_check import LIMITS, MAX_DEPTH
from bpe_desktop.core.formats.session_file import RunDoc, SessionCorpus, SessionDoc, dumps_session, load_session
from bpe_desktop.core.stopping import StopReason
from bpe_desktop.gui import app as gui_app
from bpe_desktop.gui.session_io import dialogs as session_dialogs
from support import json_paths

TABLE = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
TEXT = "\n".join(f"{w} {c}" for w, c in TABLE.items())


def _valid(corpus: SessionCorpus) -> dict[str, Any]:
    cfg = TrainConfig(merges=6)
    model, recs = train(TABLE, cfg)
    runs = (RunDoc("first", cfg, model, tuple(recs), 6, StopReason.MERGES, "reached 6 merges"),
            RunDoc("second", cfg.with_(tie_break="first-seen"), model, tuple(recs), 3, parent=0, branch_step=3),
            RunDoc("third", cfg, None, (), 0, parent=1, branch_step=0))
    return json.loads(dumps_session(SessionDoc(corpus, cfg, model, tuple(recs), 6, runs=runs, current_run=0)))


def _window(qtbot):
    gui_app.make_app()
    w = gui_app.make_window(remember_layout=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.sessions.interactive = False  # a changed corpus is opened with the saved merges, no question
    return w


def seen(w) -> tuple[Any, ...]:
    """What the user sees of the session in the window."""
    s = w.session
    store = w.runs.store
    return (list(s.model.merges), [r.count for r in s.records], s.step, s.config, w.settings.config(), s.state,
            w.corpus.source(), [(r.name, r.config, len(r.records), r.step, r.origin.parent) for r in store.runs],
            store.current, tuple((r.spec, r.enabled) for r in w.compare.references), w.windowTitle(),
            w.isWindowModified())


def _open_from_menu(w, path: str, monkeypatch) -> bool:
    """File → Open session… with *path* chosen in the dialog; True if the window opened it."""
    monkeypatch.setattr(session_dialogs, "choose_session_to_open", lambda parent: path)
    opened: list[str] = []
    w.sessions.opened.connect(opened.append)
    try:
        w.sessions.open_action.trigger()
    finally:
        w.sessions.opened.disconnect(opened.append)
    return opened == [path]


def _check(w, path: str, data: bytes, dialogs: list[tuple[str, str]], monkeypatch) -> bool:
    with open(path, "wb") as f:
        f.write(data)
    before, shown = seen(w), len(dialogs)
    if _open_from_menu(w, path, monkeypatch):
        doc = load_session(path)  # the same reader said yes: the window shows what the file says
        assert w.session.step == (doc.runs[doc.current_run].step if doc.runs else doc.step)
        assert len(w.runs.store.runs) == max(1, len(doc.runs))
        model = doc.runs[doc.current_run].model if doc.runs else doc.model
        assert list(w.session.model.merges) == (list(model.merges) if model is not None else [])
        return True
    assert len(dialogs) == shown + 1, dialogs[shown:]
    title, message = dialogs[-1]
    assert title == "Cannot open session" and message.startswith(path) and " -- " in message, message
    assert "\n" not in message and "Traceback" not in message
    assert seen(w) == before  # all or nothing
    return False


def _paths(raw: Any) -> list[tuple[Any, ...]]:
    return json_paths(raw, 2)


def _nest(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = {"a": [value]}
    return value


ODD_PATHS = ["/tmp/a\x00b.txt", "\udcff\udcfe.txt", "", "/", "/nonexistent/corpus.txt", "relative.txt",
             "cl100k:\x00", "C:\\corpus.txt"]
NUMBERS = st.one_of(st.sampled_from([2**31, 2**31 - 1, 2**63, 2**64, -1, -(2**31), 0, 1, 10**100,
                                     *LIMITS.values(), *(v + 1 for v in LIMITS.values())]),
                    st.integers(-(2**66), 2**66))
HOSTILE = st.one_of(NUMBERS, st.none(), st.booleans(), st.floats(), st.text(max_size=6), st.sampled_from(ODD_PATHS),
                    st.builds(_nest, st.integers(MAX_DEPTH - 3, MAX_DEPTH + 3)),
                    st.lists(st.integers(-1, 3), max_size=3))


def _cycle(raw: dict[str, Any], parents: tuple[int | None, ...]) -> None:
    for run, p in zip(raw.get("runs") or [], parents, strict=False):
        if isinstance(run, dict):
            run["parent"] = p
            run["branch_step"] = 0


def _put(raw: Any, where: tuple[Any, ...], value: Any) -> None:
    for k in where[:-1]:
        raw = raw[k]
    raw[where[-1]] = value


def _encode(raw: Any, how: str) -> bytes:
    if how == "bom":
        return b"\xef\xbb\xbf" + json_text.dumps(raw).encode()
    if how == "ascii":
        return json.dumps(raw).encode()
    if how == "latin-1":
        return json_text.dumps(raw).encode("latin-1", "replace")
    if how == "utf-16":
        return json_text.dumps(raw).encode("utf-16")
    return json_text.dumps(raw).encode()


MUTATION = st.one_of(
    st.tuples(st.just("set"), st.integers(0, 10**6), HOSTILE),
    st.tuples(st.just("cycle"), st.sampled_from([(0, None, None), (1, 0, None), (2, 0, 1), (None, 1, 1), (None, 2, 1)]),
              st.none()),
    st.tuples(st.just("path"), st.sampled_from(ODD_PATHS), st.none()),
    st.tuples(st.just("drop"), st.integers(0, 10**6), st.none()),
)


def test_fuzz_hostile_sessions_through_the_file_menu_load_exactly_or_change_nothing(
        qtbot, dialogs, tmp_path, monkeypatch) -> None:
    corpus_file = tmp_path / "corpus.txt"
    corpus_file.write_text(TEXT + "\n", encoding="utf-8")
    valids = [_valid(SessionCorpus.from_text(TEXT, word_counts=True)),
              _valid(SessionCorpus.from_files([corpus_file], word_counts=True))]
    w = _window(qtbot)
    path = str(tmp_path / "fuzz.bpesession")
    outcomes: list[bool] = []

    @settings(max_examples=60, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
    @given(st.sampled_from([0, 1]), st.lists(MUTATION, min_size=0, max_size=3),
           st.sampled_from(["plain", "plain", "bom", "ascii", "latin-1", "utf-16"]))
    def run(which: int, mutations: list[tuple[str, Any, Any]], how: str) -> None:
        raw = copy.deepcopy(valids[which])
        spots = _paths(raw)[1:]
        for kind, a, b in mutations:
            try:
                if kind == "set":
                    _put(raw, spots[a % len(spots)], b)
                elif kind == "drop":
                    where = spots[a % len(spots)]
                    parent = raw
                    for k in where[:-1]:
                        parent = parent[k]
                    del parent[where[-1]]
                elif kind == "cycle":
                    _cycle(raw, a)
                elif raw["corpus"].get("files"):
                    raw["corpus"]["files"][0]["path"] = a
                else:
                    raw["compare"] = [a]
            except (TypeError, IndexError, KeyError, AttributeError):
                pass  # an earlier mutation replaced the container
        outcomes.append(_check(w, path, _encode(raw, how), dialogs, monkeypatch))

    run()
    assert any(outcomes) and not all(outcomes)  # both outcomes were exercised


def test_refused_sessions_leave_the_window_working(qtbot, dialogs, tmp_path, monkeypatch) -> None:
    """The cases of the issue, each refused; a Train afterwards still trains (a cycle used to poison it)."""
    w = _window(qtbot)
    good = _valid(SessionCorpus.from_text(TEXT, word_counts=True))
    path = str(tmp_path / "s.bpesession")
    cases = []
    for name in LIMITS:
        bad = copy.deepcopy(good)
        bad["settings"][name] = 2**31
        cases.append((bad, f"settings.{name}"))
    for parents, words in [((0, None, None), "names itself"), ((1, 0, None), "cycle")]:
        bad = copy.deepcopy(good)
        _cycle(bad, parents)
        cases.append((bad, words))
    bad = copy.deepcopy(good)
    bad["compare"] = ["/tmp/a\x00b"]
    cases.append((bad, "NUL byte"))
    for raw, words in cases:
        assert not _check(w, path, json_text.dumps(raw).encode(), dialogs, monkeypatch)
        assert words in dialogs[-1][1]
    assert _check(w, path, b"\xef\xbb\xbf" + json_text.dumps(good).encode(), dialogs, monkeypatch)  # BOM: fine
    assert w.session.step == 6 and len(w.runs.store.runs) == 3
    assert w.train() and gui_app.wait_for_training(w, 120)
    assert len(w.session.records) == 6
    assert os.path.exists(path)


def test_the_command_line_refuses_a_session_beyond_the_window_instead_of_dying(qtbot, dialogs, tmp_path,
                                                                              capsys) -> None:
    """``bpe-desktop FILE`` with merges = 2**31 raised OverflowError at start; now it is one error line."""
    raw = _valid(SessionCorpus.from_text(TEXT, word_counts=True))
    raw["settings"]["merges"] = 2**31
    path = tmp_path / "big.bpesession"
    path.write_text(json_text.dumps(raw), encoding="utf-8")
    assert gui_app.main(["--screenshot", str(tmp_path / "out.png"), "--size", "800x600", str(path)]) == 1
    err = capsys.readouterr().err
    assert "Cannot open session" in err and "settings.merges is 2,147,483,648" in err and "Traceback" not in err
