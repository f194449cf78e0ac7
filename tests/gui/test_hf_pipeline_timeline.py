"""File > Open tokenizer on a tokenizer.json whose pipeline our pre-tokenizers cannot express (a normalizer,
Metaspace with byte_fallback, ByteLevel(add_prefix_space), continuing_subword_prefix): it opens on the timeline,
and the token stream, the compare pane's own row and the vocabulary pane's frequencies at step k equal
``tokenizers`` -- the file itself at the last step, the file cut to its first k merges (and the tokens they
make) at a smaller k.  The quality curves say in their place that they cannot follow the pipeline.  A saved
session reopens through the same file; a file gone or changed is refused by name, never replayed without it.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import tokenizers
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from tokenizers import decoders, models, normalizers, pre_tokenizers, trainers

from bpe_desktop.core.formats.hf.model_ids import PipelineTokenizer
from bpe_desktop.core.formats.hf.pipeline_ref import PipelineRef
from bpe_desktop.core.tokenizers.tokenizer import UNKNOWN_ID
from bpe_desktop.gui.plots.quality_feed import PIPELINE_NOTE
from support import ASSIGNED_CHARS

TEXT = (
    "Grüße aus Köln, naïve café! ﬁne ½ Ⅻ ①  spaces\u00a0and\u2003odd, it's we'll İstanbul\n"
    "The quick brown fox jumps over the lazy dog; the dog sleeps.\n"
    "def encode(text):\n    return [ord(c) for c in text]  # ☃ snowman 🤖\n"
    "\n"
    "   leading and trailing   \n"
    "combining: e\u0301 a\u0308 ｶﾞ Å x\u0323\u0307 — «quotes» 3.14159\n"
)


def _corpus() -> list[str]:
    import pydoc_data.topics

    return [*list(pydoc_data.topics.topics.values())[:25], TEXT]


def _byte_tokens(doc: dict[str, Any]) -> None:
    vocab = doc["model"]["vocab"]
    n = max(vocab.values()) + 1
    for b in range(256):
        vocab.setdefault(f"<0x{b:02X}>", n + b)


def _build(tmp_path: Path, kind: str) -> Path:
    """A small tokenizer.json of *kind*, trained by the ``tokenizers`` library itself."""
    edit = None
    specials = ["<unk>", "<s>"]
    if kind == "nfkc-bytelevel":
        tok = tokenizers.Tokenizer(models.BPE())
        tok.normalizer = normalizers.NFKC()
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
        tok.decoder = decoders.ByteLevel()
        alphabet, specials = pre_tokenizers.ByteLevel.alphabet(), []
    elif kind == "metaspace-byte-fallback":
        tok = tokenizers.Tokenizer(models.BPE(byte_fallback=True, unk_token="<unk>"))
        tok.normalizer = normalizers.Sequence([normalizers.NFC(), normalizers.Replace("``", '"')])
        tok.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="first")
        tok.decoder = decoders.Sequence([decoders.Metaspace(prepend_scheme="first"), decoders.ByteFallback(),
                                         decoders.Fuse()])
        alphabet, edit = [], _byte_tokens
    else:  # "subword-prefix": BERT-ish, with continuing_subword_prefix
        tok = tokenizers.Tokenizer(models.BPE(unk_token="<unk>", continuing_subword_prefix="##"))
        tok.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.Lowercase(),
                                               normalizers.StripAccents()])
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
        tok.decoder = decoders.WordPiece()
        alphabet = []
    tok.train_from_iterator(_corpus(), trainers.BpeTrainer(
        vocab_size=420, special_tokens=specials, initial_alphabet=alphabet, show_progress=False,
        **({"continuing_subword_prefix": "##"} if kind == "subword-prefix" else {})))
    path = tmp_path / f"{kind}.json"
    tok.save(str(path))
    if edit is not None:
        doc = json.loads(path.read_text(encoding="utf-8"))
        edit(doc)
        path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def _first_merges(path: Path, k: int, out: Path) -> tokenizers.Tokenizer:
    """The same file with only its first *k* merges and the tokens they make (ids unchanged): what the
    tokenizer is at step k, as ``tokenizers`` runs it."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    m = doc["model"]
    prefix = m.get("continuing_subword_prefix") or ""

    def made(pair: Any) -> str:
        a, b = pair.split(" ", 1) if isinstance(pair, str) else pair
        return a + (b[len(prefix):] if prefix and b.startswith(prefix) else b)

    every = {made(p) for p in m["merges"]}
    kept = {made(p) for p in m["merges"][:k]}
    m["merges"] = m["merges"][:k]
    m["vocab"] = {t: i for t, i in m["vocab"].items() if t not in every or t in kept}
    out.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return tokenizers.Tokenizer.from_file(str(out))


def _stream_file_ids(window: Any, k: int) -> list[list[int]]:
    """Every row of the token stream at step *k*, as the file's ids."""
    canvas = window.token_view.canvas
    pipeline = window.session.work.pipeline
    return [[pipeline.file_id(i) for i in canvas.row_ids(r, k) if i is not None] for r in range(canvas.n_rows)]


def _rows(window: Any) -> list[str]:
    """The token stream's rows (the editor's text, one row a line)."""
    canvas = window.token_view.canvas
    rows = [canvas.row_text(r) for r in range(canvas.n_rows)]
    assert len(rows) == TEXT.count("\n") and "Köln" in rows[0]
    return rows


def _open(window: Any, path: Path, dialogs: list[Any]) -> None:
    window.corpus.set_text(TEXT, name="text")
    window.open_tokenizer(str(path))
    assert not dialogs, dialogs
    assert isinstance(window.session.tokenizer, PipelineTokenizer)


@pytest.mark.parametrize("kind", ["nfkc-bytelevel", "metaspace-byte-fallback", "subword-prefix"])
def test_stream_and_compare_equal_tokenizers_at_every_checked_step(qtbot, window, dialogs, tmp_path, kind) -> None:
    path = _build(tmp_path, kind)
    _open(window, path, dialogs)
    s = window.session
    lines = _rows(window)
    hf = tokenizers.Tokenizer.from_file(str(path))
    n = len(s.model.merges)
    assert n > 40 and s.step == n
    assert _stream_file_ids(window, n) == [hf.encode(line, add_special_tokens=False).ids for line in lines]
    for k in (0, 7, n // 2):
        cut = _first_merges(path, k, tmp_path / f"cut{k}.json")
        want = [cut.encode(line, add_special_tokens=False).ids for line in lines]
        assert _stream_file_ids(window, k) == want, k
    # the compare pane's own row: the same tokens at the shown step
    s.set_step(7)
    own = window.compare.own_result(TEXT)
    assert own is not None
    cut = _first_merges(path, 7, tmp_path / "cut-compare.json")
    want = cut.encode(TEXT, add_special_tokens=False).ids
    assert [s.work.pipeline.file_id(g.id) for g in own.segments if g.id is not None] == want
    assert UNKNOWN_ID not in want


def test_quality_curves_say_why_they_are_not_drawn(qtbot, window, dialogs, tmp_path) -> None:
    _open(window, _build(tmp_path, "metaspace-byte-fallback"), dialogs)
    from bpe_desktop.gui.plots.quality_feed import QualityFeed

    feed = QualityFeed(window.session)
    while feed.advance(1.0):
        pass
    assert feed.training_curve is None and feed.note == PIPELINE_NOTE


def test_vocabulary_frequencies_are_the_pipelines_tokens(qtbot, window, dialogs, tmp_path) -> None:
    path = _build(tmp_path, "nfkc-bytelevel")
    _open(window, path, dialogs)
    from bpe_desktop.gui.vocab.feed import VocabFeed

    s = window.session
    k = 30
    feed = VocabFeed(s)
    s.set_step(k)
    audit = None
    for _ in range(100_000):
        if not feed.advance(1.0):
            break
    audit = feed.audit
    assert audit is not None and feed.has_corpus
    cut = _first_merges(path, k, tmp_path / "cut-vocab.json")
    counted: Counter[int] = Counter()
    for line in _rows(window):
        counted.update(cut.encode(line, add_special_tokens=False).ids)
    ours = {s.work.pipeline.file_id(i): f for i, f in enumerate(audit.frequencies) if f}
    assert ours == dict(counted)


def test_a_saved_session_reopens_through_the_same_file(qtbot, window, dialogs, tmp_path) -> None:
    from bpe_desktop.gui.runs.persist import from_document, snapshot, to_document

    path = _build(tmp_path, "metaspace-byte-fallback")
    _open(window, path, dialogs)
    s = window.session
    works = snapshot(s.runs)
    doc = to_document(works, s.current)
    back, current = from_document(doc)
    assert back == list(works) and back[current].pipeline is not None
    again = PipelineTokenizer(back[current].pipeline)
    assert again.encode_with_offsets(TEXT, upto=9) == s.tokenizer.encode_with_offsets(TEXT, upto=9)

    from bpe_desktop.core.errors import SessionError

    path.write_text(path.read_text(encoding="utf-8").replace('"NFC"', '"NFKC"'), encoding="utf-8")
    with pytest.raises(SessionError, match="changed since the session was saved"):
        from_document(doc)
    path.unlink()
    with pytest.raises(SessionError, match=r"which is gone -- put the file back"):
        from_document(doc)


def test_the_whole_window_saves_and_reopens_it(qtbot, window, dialogs, tmp_path) -> None:
    path = _build(tmp_path, "subword-prefix")
    _open(window, path, dialogs)
    s = window.session
    s.set_step(11)
    before = _stream_file_ids(window, 11)
    target = tmp_path / "s.bpesession"
    assert window.sessions.save_to(str(target))
    window.open_tokenizer(str(_build(tmp_path, "nfkc-bytelevel")))  # another run shown meanwhile
    assert window.session.work.pipeline_ref.path != str(path)
    assert window.sessions.open_session(str(target))
    assert not dialogs and window.session.work.pipeline_ref.path == str(path) and window.session.step == 11
    assert _stream_file_ids(window, 11) == before


def test_reference_reads_only_the_same_merges(tmp_path) -> None:
    from bpe_desktop.core.errors import SessionError

    a = _build(tmp_path, "subword-prefix")
    ref, tok = PipelineRef.reading(a)
    other = tmp_path / "other.json"
    doc = json.loads(a.read_text(encoding="utf-8"))
    doc["model"]["merges"] = doc["model"]["merges"][:-1]
    other.write_text(json.dumps(doc), encoding="utf-8")
    ref2, _ = PipelineRef.reading(other)
    with pytest.raises(SessionError, match="are not the run's"):
        ref2.read(tok.model)
    assert ref.read(tok.model).model.merges == tok.model.merges


def test_the_log_inspector_inspects_yours_through_the_files_pipeline(qtbot, window, dialogs, tmp_path) -> None:
    from bpe_desktop.gui.inspect.job import load_choice
    from bpe_desktop.gui.inspect.panel import OWN

    path = _build(tmp_path, "nfkc-bytelevel")
    _open(window, path, dialogs)
    window.session.set_step(12)
    panel = window.inspector
    panel.checks[OWN].setChecked(True)
    own = panel.selected()[0]
    named = load_choice(own)
    cut = _first_merges(path, 12, tmp_path / "cut-inspect.json")
    assert named.tokenizer.encode(TEXT, upto=named.upto) == cut.encode(TEXT, add_special_tokens=False).ids


STEPS = (0, 5, 40)


@pytest.fixture(scope="module")
def stepped(tmp_path_factory) -> list[tuple[PipelineTokenizer, dict[int, tokenizers.Tokenizer]]]:
    """Each kind of file read as the window reads it, with ``tokenizers`` at each of :data:`STEPS`."""
    from bpe_desktop.core.formats.hf_json import read_tokenizer

    d = tmp_path_factory.mktemp("stepped")
    out = []
    for kind in ("nfkc-bytelevel", "metaspace-byte-fallback", "subword-prefix"):
        path = _build(d, kind)
        out.append((PipelineTokenizer(read_tokenizer(path)),
                    {k: _first_merges(path, k, d / f"{kind}-{k}.json") for k in STEPS}))
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(ASSIGNED_CHARS, max_size=40) | st.text(st.sampled_from("aé\u0301 ﬁ\n\t<s>▁1Σ🤖ｶﾞthe"), max_size=30),
       k=st.sampled_from(STEPS))
@example(text="\u0898", k=0)  # a mark newer than HF's Unicode 9 tables: StripAccents keeps it, so it is <unk>
def test_random_texts_at_a_step_give_the_cut_files_ids(stepped, text: str, k: int) -> None:
    for tok, cuts in stepped:
        want = cuts[k].encode(text, add_special_tokens=False).ids
        spans = tok.encode_with_offsets(text, upto=k)
        assert [tok.pipeline.file_id(s.id) for s in spans] == want, tok.pipeline.name
        assert [(s.start, s.end) for s in spans] == [(s.start, s.end) for s in tok.pipeline.encode_with_offsets(
            text, upto=k)]
        assert [tok.ours(i) for i in want] == tok.encode(text, upto=k) == [s.id for s in spans]


def test_saving_or_exporting_the_merges_alone_is_refused(qtbot, window, dialogs, tmp_path) -> None:
    """Any file we write would hold the merges without the normalizer: it would tokenize otherwise."""
    from bpe_desktop.gui import file_actions

    _open(window, _build(tmp_path, "nfkc-bytelevel"), dialogs)
    out = tmp_path / "out.json"
    assert not file_actions.save_tokenizer(window, window.session, str(out))
    assert not file_actions.export_tokenizer(window, window.session, str(out), "hf")
    assert not out.exists() and [d[0] for d in dialogs] == ["Cannot save tokenizer", "Cannot export tokenizer"]
    assert all('normalizer "NFKC"' in d[1] and "Save session" in d[1] for d in dialogs)


def test_a_session_whose_file_is_gone_is_refused_and_nothing_changes(qtbot, window, dialogs, tmp_path) -> None:
    path = _build(tmp_path, "metaspace-byte-fallback")
    _open(window, path, dialogs)
    target = tmp_path / "s.bpesession"
    assert window.sessions.save_to(str(target))
    window.open_tokenizer(str(_build(tmp_path, "nfkc-bytelevel")))
    shown, runs = window.session.work, window.session.runs
    path.unlink()
    assert not window.sessions.open_session(str(target))
    assert dialogs[-1][0] == "Cannot open session" and str(path) in dialogs[-1][1] and "gone" in dialogs[-1][1]
    assert window.session.work is shown and window.session.runs == runs


@pytest.mark.parametrize("damage", [[], {"0": "x"}, {"9": {"path": "p", "sha256": "s"}}, {"0": {"path": 3}}])
def test_a_damaged_pipelines_entry_is_refused(tmp_path, damage: Any) -> None:
    import dataclasses

    from bpe_desktop.core.errors import SessionError
    from bpe_desktop.gui.runs.persist import from_document, to_document
    from bpe_desktop.gui.work import Work

    doc = to_document([Work.empty()], 0)
    with pytest.raises(SessionError, match="session file is damaged"):
        from_document(dataclasses.replace(doc, extras={"pipelines": damage}))


def test_branching_a_run_shown_through_a_pipeline_is_refused(qtbot, window, dialogs, tmp_path) -> None:
    """Training here counts words with our pre-tokenizers: a branch would segment the kept merges otherwise."""
    _open(window, _build(tmp_path, "metaspace-byte-fallback"), dialogs)
    runs = window.session.runs
    assert not window.runs.whatif.forbid_and_branch(10)
    assert not window.runs.whatif.ask_branch(10)
    assert [d[0] for d in dialogs] == ["Cannot branch", "Cannot branch"]
    assert all('normalizer "Sequence"' in d[1] and "F5" in d[1] for d in dialogs)
    assert window.session.runs == runs and not window.controller.running
