"""Compare runs on an extension run, in the real window.  The Rediscovery tab encodes the run as every pane does
(tiktoken's rank rule for an extended rank table, checked against tiktoken itself on a table where replaying the
merges differs) and counts its steps from the original ("step 0 = cl100k"), as the timeline does.  The Curves tab
overlays an extension of cl100k beside a run trained here: its compression, bytes per token and Zipf data at step
k equal tiktoken reading the written file cut to cl100k + k ranks, its steps counted from cl100k; the token
streams show it at the same step."""

from __future__ import annotations

import csv
import dataclasses
import itertools
from collections import Counter
from pathlib import Path

import pytest
import regex
import tiktoken
import tiktoken.load

from bpe_desktop.core.formats import native
from bpe_desktop.core.formats.presets import CL100K_SPECIALS
from bpe_desktop.core.text.pretokenize import Pretokenizer
from bpe_desktop.core.tokenizers.model import BPEModel
from bpe_desktop.gui.extend.open import extend_dialog
from bpe_desktop.gui.loaded import records_for
from bpe_desktop.gui.runs.compare import left_out, rank_text
from bpe_desktop.gui.runs.install import open_compare
from bpe_desktop.gui.work import Work
from support.extension import TINY, TINY_TEXT, tiny_extension
from support.window import click_train, wait_finished

GPT2_PATTERN = Pretokenizer.from_spec("gpt2").pattern
CL100K_PATTERN = Pretokenizer.from_spec("cl100k").pattern
MERGES = 5  # (the conftest's extended fixture: EXTENDED_MERGES)


def open_rediscovery(qtbot, window, run: Work):  # type: ignore[no-untyped-def]
    """Compare runs → Rediscovery with *run* chosen."""
    dlg = open_compare(window, window.runs.store)  # (Training > Compare runs…)
    qtbot.addWidget(dlg)
    page = dlg.rediscovery
    dlg.tabs.setCurrentWidget(page)
    page.run_pick.setCurrentIndex(next(i for i, r in enumerate(page.runs) if r is run))
    return dlg, page


def test_rediscovery_encodes_an_extension_by_the_rank_rule_and_counts_from_the_original(qtbot, window, tmp_path,
                                                                                      dialogs) -> None:
    run = tiny_extension()
    window.session.load(run)
    assert window.timeline.label.text().startswith("step 1 / 1")
    ref = tmp_path / "bc.json"  # a reference that makes bc only
    ref.write_text(native.dumps(TINY.truncated(1)), encoding="utf-8")
    _, page = open_rediscovery(qtbot, window, run)
    page.add_reference(str(ref))
    assert page.compare()
    qtbot.waitUntil(lambda: not page.busy, timeout=30_000)
    r = page.result
    assert r is not None and not dialogs

    # coverage: the corpus as tiktoken encodes it with the table (abc 3 times; a replay would make it 0 times)
    ranks = {bytes([b]): b for b in range(256)} | {b"bc": 256, b"ab": 257, b"abc": 258}
    assert GPT2_PATTERN is not None
    enc = tiktoken.Encoding(name="tiny", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={})
    made = Counter(enc.decode_single_token_bytes(t) for t in enc.encode_ordinary(TINY_TEXT))
    assert made[b"abc"] == 3 and made[b"ab"] == 1
    assert [(t.token, t.occurrences) for t in r.lacking] == [("abc", made[b"abc"]), ("ab", made[b"ab"])]
    assert r.corpus_bytes == len(TINY_TEXT.encode())

    # steps as the timeline counts them: step 0 = tiny (bc, ab), step 1 adds abc
    assert (r.n_steps, r.found_at(0), r.found_at(1)) == (1, 1, 1) and r.n_reference == 1
    assert r.shared[0].token == "bc" and r.shared[0].rank_here == 0
    rows = [[page.lacking.item(i, j).text() for j in range(3)] for i in range(page.lacking.rowCount())]
    assert rows == [["abc", "1", "3"], ["ab", "tiny", "1"]]
    assert page.shared.item(0, 1).text() == "tiny"
    assert "By step 1 the run has made 1 of" in page.summary.text() and "(1 at step 0 = tiny)" in page.summary.text()
    assert page.card.plot.getAxis("bottom").labelText == "new merges (0 = tiny)"
    assert page.card.curve.getOriginalDataset()[0].tolist() == [0.0, 1.0]
    page.export(str(tmp_path / "r.csv"))
    rows = list(csv.reader((tmp_path / "r.csv").open(encoding="utf-8")))
    assert rows[0] == ["step", "found", "share"]
    assert [[float(x) for x in row] for row in rows[1:]] == [[0, 1, 1], [1, 1, 1]]


def cut(out, done, k: int) -> tiktoken.Encoding:
    """tiktoken reading the written file cut to cl100k's ranks + the first *k* new ones."""
    ranks = tiktoken.load.load_tiktoken_bpe(str(out))
    return tiktoken.Encoding(name=f"e{k}", pat_str=CL100K_PATTERN, special_tokens=CL100K_SPECIALS,
                             mergeable_ranks={b: r for b, r in ranks.items() if r < done.first_id + k})


def test_compare_runs_overlays_an_extension_run_counted_from_its_original(qtbot, window, extended) -> None:
    text, out, done = extended
    click_train(qtbot, window)  # a run trained here (the seeds: 7 merges) beside the extension
    wait_finished(qtbot, window)
    trained = window.session.work
    window.corpus.set_text(text, name="robot logs", word_counts=False)
    dlg = extend_dialog(window)
    dlg._finished(done)
    dlg.close()
    s = window.session
    ext, o = s.work, s.origin
    assert ext.extension is not None and o == 100_000 and len(s.runs) == 2
    s.set_step(o + 2)
    cmp = open_compare(window, window.runs.store)
    qtbot.addWidget(cmp)
    assert (cmp.step.maximum(), cmp.step.value()) == (max(MERGES, trained.n_merges), 2)  # steps as shown
    k = 3
    cmp.step.setValue(k)
    qtbot.waitUntil(cmp.zipf_done, timeout=60_000)

    # the extension's curves: from cl100k (step 0) over the new merges, as tiktoken counts the corpus
    assert CL100K_PATTERN is not None
    pieces = Counter(regex.findall(CL100K_PATTERN, text))
    n_bytes = sum(len(p.encode("utf-8")) * c for p, c in pieces.items())
    encs = [cut(out, done, j) for j in range(MERGES + 1)]
    tokens = [sum(len(e.encode_ordinary(p)) * c for p, c in pieces.items()) for e in encs]
    x, y = cmp.curve_data("compression")[ext.id]
    assert x == [float(j) for j in range(MERGES + 1)] and y == [float(t) for t in tokens]
    x, y = cmp.curve_data("bytes_per_token")[ext.id]
    assert x == [float(j) for j in range(MERGES + 1)] and y == pytest.approx([n_bytes / t for t in tokens])
    pairs: Counter[tuple[int, int]] = Counter()  # the pairs at step k: each piece as tiktoken encodes it
    enc = encs[k]
    for p, c in pieces.items():
        for a in itertools.pairwise(enc.encode_ordinary(p)):
            pairs[a] += c
    zipf = cmp.curve_data("zipf")
    assert set(zipf) == {trained.id, ext.id}
    assert zipf[ext.id][1] == [float(c) for c in sorted(pairs.values(), reverse=True)][:len(zipf[ext.id][1])]
    assert len(zipf[ext.id][1]) == len(cmp._zipf[ext.id].counts) and cmp._zipf[ext.id].step == k
    assert "step 0 = cl100k" in cmp.curve_note.text() and "left out" not in cmp.curve_note.text()
    # the token streams: the extension at step k is cl100k and its first k new merges
    cmp.stream_a.setCurrentIndex(cmp.runs.index(ext))
    upper = cmp.views[0].session
    assert upper.step == o + k and upper.shown_step(upper.step) == k
    assert upper.tokenizer.encode_ordinary(text[:2000], upto=upper.step) == [
        r - (done.first_id - 100_256) if r >= done.first_id else r for r in enc.encode_ordinary(text[:2000])]
    cmp.step.setValue(1)
    assert upper.step == o + 1
    cmp.tabs.setCurrentIndex(0)
    qtbot.waitUntil(cmp.zipf_done, timeout=60_000)
    # a reopened extension run whose corpus at each step is not found again yet is named, with why
    assert "not known yet" in left_out(dataclasses.replace(ext, rewrites=None))
    cmp.grab().save(str(Path(out).with_name("compare.png")))


def test_rediscovery_of_cl100k_by_its_extension_starts_at_every_cl100k_token(qtbot, window, extended) -> None:
    text, out, done = extended
    window.corpus.set_text(text, name="robot logs", word_counts=False)
    dlg = extend_dialog(window)
    dlg._finished(done)
    dlg.close()
    ext = window.session.work
    _, page = open_rediscovery(qtbot, window, ext)
    assert page.compare()  # cl100k
    qtbot.waitUntil(lambda: not page.busy, timeout=120_000)
    r = page.result
    assert r is not None and r.n_reference == 100_000 and r.found_at(0) == 100_000 and r.n_steps == MERGES
    assert "(100,000 at step 0 = cl100k)" in page.summary.text() and "100.00%" in page.summary.text()
    assert page.shared.item(0, 1).text() == "cl100k" and page.shared.rowCount() == 500  # (the table's limit)
    enc = cut(out, done, MERGES)
    made = Counter(enc.decode_single_token_bytes(t) for t in enc.encode_ordinary(text))
    new = [enc.decode_single_token_bytes(done.first_id + j) for j in range(MERGES)]
    assert sorted((t.rank_here, t.occurrences) for t in r.lacking) == [(j + 1, made[b]) for j, b in enumerate(new)]
    assert page.card.curve.getOriginalDataset()[1].tolist() == [100_000.0] * (MERGES + 1)
    page.resize(1000, 700)
    page.grab().save(str(Path(out).with_name("rediscovery.png")))


def test_the_merge_diff_of_two_extensions_of_one_original_counts_their_new_merges(qtbot, window) -> None:
    """Two extensions of one original (the hand-built tiny table: abc as ab + c, and as a + bc): the merge diff
    names the divergence and the ranks as their timelines do (new merge 1, not the merge list's 3), and an
    extension's original merges by the original's name."""
    a = tiny_extension()
    b = tiny_extension()
    b.model = BPEModel("bytes", list(TINY.base), [*TINY.merges[:2], (97, 256)], pretokenizer="gpt2")
    b.records = records_for(b.model)
    window.session.load(a)
    window.session.load(b)
    cmp = open_compare(window, window.runs.store)
    qtbot.addWidget(cmp)
    cmp.diff_a.setCurrentIndex(cmp.runs.index(a))
    cmp.diff_b.setCurrentIndex(cmp.runs.index(b))
    assert cmp.diff is not None and cmp.diff.first_divergence == 3
    assert "First divergence at new merge 1</b> — the runs share tiny and their first 0 new merges" in (
        cmp.diff_summary.text())
    assert cmp.diff_rows(1) == [("ab + c", "1", "")] and cmp.diff_rows(2) == [("a + bc", "", "1")]
    t = tiny_extension()
    assert rank_text(t, 1) == "tiny 1" and rank_text(t, 3) == "1"
