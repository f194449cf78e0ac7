"""The plots pane on an extension run (cl100k + a few merges learned on robot logs), in the real window: at two
steps of the timeline (0 = cl100k, and k new merges) the Pairs plot's pair counts, the Trade-off plot's points and
the Quality tab's curves (on the corpus and on a held-out file) equal a brute-force count over the text cut by
cl100k's own pattern (the ``regex`` module) with every piece encoded by the run's tokenizer at that step
(``session.tokenizer``: tiktoken's rank rule, which test_extension_run.py checks against tiktoken itself); the
plot's first pair is the pair the extension trainer merged next, with its record's count.  A run reopened from a
session (which does not keep the job's segmentation) gets it again off the GUI thread, equal to the job's, or
says why in the plots' place."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
import regex

from bpe_desktop.core.formats.presets import CL100K_SPECIALS
from bpe_desktop.core.measure.quality import TextTotals, measure
from bpe_desktop.core.text.pretokenize import Pretokenizer
from bpe_desktop.gui.extend.open import extend_dialog
from support import ROBOT_SAMPLE_FILE

MERGES = 5  # (the conftest's extended fixture: EXTENDED_MERGES)
METRICS = ("bytes_per_token", "fertility", "utilization", "shannon_efficiency", "renyi_efficiency")


def show(window, text, done) -> None:
    window.corpus.set_text(text, name="robot logs", word_counts=False)
    dlg = extend_dialog(window)
    dlg._finished(done)
    assert window.session.work.extension is not None, dlg.status.text()
    dlg.close()
    window.docks["plots"].show()
    window.docks["plots"].raise_()  # (a pane behind another tab draws nothing)


def brute(window, text: str) -> tuple[Counter[tuple[int, int]], Counter[int], int, int]:
    """Pair counts, token counts, pieces and their bytes of *text* at the session's step, by hand."""
    s = window.session
    pattern = Pretokenizer.from_spec("cl100k").pattern
    assert pattern is not None
    pieces = Counter(regex.findall(pattern, text))
    pairs: Counter[tuple[int, int]] = Counter()
    tokens: Counter[int] = Counter()
    for p, c in pieces.items():
        ids = s.tokenizer.encode_piece(p, upto=s.step)
        for a in itertools.pairwise(ids):
            pairs[a] += c
        for i in ids:
            tokens[i] += c
    n_bytes = sum(len(p.encode("utf-8")) * c for p, c in pieces.items())
    return pairs, tokens, sum(pieces.values()), n_bytes


def test_pairs_tradeoff_and_quality_plots_count_the_extension_segmentation(window, qtbot, extended,
                                                                          tmp_path) -> None:
    text, _, done = extended
    assert done.made == MERGES
    show(window, text, done)
    s, panel = window.session, window.plots
    o = s.origin
    assert o == 100_000
    for k in (0, 3):
        s.set_step(o + k)
        panel.tabs.setCurrentWidget(panel.zipf)
        qtbot.waitUntil(lambda k=k: panel.zipf.data is not None and panel.zipf.data.step == k, timeout=30_000)
        pairs, tokens, n_words, n_bytes = brute(window, text)
        z, whole = panel.zipf.data, panel.feed.history.zipf(k)  # (what it draws; every pair, as its CSV has)
        assert dict(zip(whole.pairs, whole.counts, strict=True)) == dict(pairs)  # every pair, in the model's ids
        assert z == whole.view(s.model.merges[o + k]) and z.n_pairs == len(pairs)
        assert sorted(panel.zipf.curve.getOriginalDataset()[1].tolist(), reverse=True) == sorted(pairs.values(),
                                                                                               reverse=True)
        rec = s.records[o + k]  # merge k + 1: the extension trainer ranked it by these counts
        assert whole.pairs[0] == s.model.merges[o + k] == (rec.left_id, rec.right_id) and z.counts[0] == rec.count
        assert panel.zipf.next_rank == 1  # the pair about to be merged is marked
        assert panel.status.text().startswith(f"step {k} of {MERGES}")

        t = panel.tradeoff.data
        assert t is not None and t.steps == list(range(MERGES + 1))
        n_tokens = sum(tokens.values())
        assert t.vocab_sizes[k] == 100_256 + k + len(CL100K_SPECIALS)
        assert t.tokens_per_word[k] == pytest.approx(n_tokens / n_words, rel=1e-12)
        assert t.bytes_per_token[k] == pytest.approx(n_bytes / n_tokens, rel=1e-12)
        assert panel.tradeoff.tpw_here.getOriginalDataset()[0].tolist() == [t.vocab_sizes[k]]

        panel.tabs.setCurrentWidget(panel.quality)
        feed = panel.quality.feed
        qtbot.waitUntil(lambda f=feed: f.training_curve is not None and len(f.training_curve) == MERGES + 1
                        and not panel.quality.dirty, timeout=30_000)
        want = measure(tokens, TextTotals.of_text(text), t.vocab_sizes[k])
        for a in METRICS:
            x, y = panel.quality.card.plotted(a)
            assert x == [float(j) for j in range(MERGES + 1)]  # the x axis: the steps the timeline shows
            assert y[k] == pytest.approx(getattr(want, a), rel=1e-9), (a, k)
        qtbot.waitUntil(lambda k=k: panel.quality.card.lines[0].value() == k, timeout=5_000)
        assert f"step {k}" in panel.quality.card.readout.text
    assert s.tokenizer.encode_ordinary(text, upto=o) and brute(window, text)[2] > 0

    # a held-out file: segmented at every step off the GUI thread, measured as the brute-force count says
    held = "".join(ROBOT_SAMPLE_FILE.read_text(encoding="utf-8").splitlines(keepends=True)[300:420])
    path = tmp_path / "held.log"
    path.write_text(held, encoding="utf-8")
    panel.quality.choose_held_out(1, str(path))
    feed = panel.quality.feed
    qtbot.waitUntil(lambda: feed.held_out_curve is not None and len(feed.held_out_curve) == MERGES + 1
                    and not panel.quality.dirty, timeout=60_000)
    for k in (0, 3):
        s.set_step(o + k)
        _, tokens, _, _ = brute(window, held)
        want = measure(tokens, TextTotals.of_text(held), s.model.vocab_size_at(o + k))
        for a in METRICS:
            x, y = panel.quality.card.plotted(a, held=True)
            assert x == [float(j) for j in range(MERGES + 1)]
            assert y[k] == pytest.approx(getattr(want, a), rel=1e-9), (a, k)
    assert "held out: held.log" in panel.quality.card.readout.text


def test_a_reopened_extension_run_finds_its_segmentation_again(window, qtbot, extended, tmp_path) -> None:
    """A saved session does not keep the job's segmentation: reopened, the run's corpus is segmented again off the
    GUI thread, equal to the job's, and the plots count it; a corpus the merges do not occur in says why."""
    import dataclasses

    text, _, done = extended
    assert done.run is not None and done.run.rewrites is not None
    show(window, text, done)
    path = tmp_path / "ext.bpe-session"
    assert window.sessions.save_to(str(path))
    assert window.sessions.open_session(str(path))
    s, panel = window.session, window.plots
    assert s.work.extension is not None
    s.set_step(s.origin + 2)
    qtbot.waitUntil(lambda: s.work.rewrites is not None, timeout=60_000)
    assert s.work.rewrites == done.run.rewrites
    panel.tabs.setCurrentWidget(panel.zipf)
    qtbot.waitUntil(lambda: panel.zipf.data is not None and panel.zipf.data.step == 2, timeout=30_000)
    whole = panel.feed.history.zipf(2)
    assert dict(zip(whole.pairs, whole.counts, strict=True)) == dict(brute(window, text)[0])
    assert panel.zipf.data == whole.view(s.model.merges[s.origin + 2])

    show(window, "hello world\n", dataclasses.replace(done, run=dataclasses.replace(done.run, rewrites=None)))
    panel.tabs.setCurrentWidget(panel.zipf)
    qtbot.waitUntil(lambda: "not the corpus the extension was learned on" in panel.zipf.plot.titleLabel.toolTip()
                    + panel.zipf.plot.titleLabel.text + panel.status.text(), timeout=60_000)
    panel.tabs.setCurrentWidget(panel.quality)
    qtbot.waitUntil(lambda: "no statistics for this extension" in panel.quality.info.text(), timeout=10_000)
    assert panel.quality.feed.training_curve is None and window.session.work.rewrites is None


def test_the_last_lines_are_no_held_out_text_of_an_extension_run(window, qtbot, extended) -> None:
    """An extension run was learned on every line of its corpus: the Quality tab's "last 10 % of lines (next run)"
    is offered disabled, naming why, and choosing it anyway changes nothing and says why (it did nothing)."""
    from PySide6 import QtCore

    from bpe_desktop.gui.plots.quality import LAST_LINES

    panel = window.plots
    tab = panel.quality
    tab.choose_held_out(LAST_LINES)  # on the run trained here: kept out of the next run
    assert window.session.holdout == pytest.approx(0.1) and tab.held_out.model().item(LAST_LINES).isEnabled()
    text, _, done = extended
    show(window, text, done)
    panel.tabs.setCurrentWidget(tab)
    item = tab.held_out.model().item(LAST_LINES)
    assert not item.isEnabled() and "extends cl100k" in item.data(QtCore.Qt.ItemDataRole.ToolTipRole)
    assert tab.held_out.itemText(LAST_LINES).endswith("-- not for an extension run")
    qtbot.waitUntil(lambda: "learned on every line" in tab.info.text(), timeout=10_000)  # (chosen before)
    tab.choose_held_out(0)
    assert window.session.holdout == 0.0 and "learned on every line" not in tab.info.text()
    tab.choose_held_out(LAST_LINES)  # refused: nothing changes, and the tab says why
    assert window.session.holdout == 0.0 and tab.held_out.currentIndex() == 0
    assert "extends cl100k and was learned on every line" in tab.info.text()
    assert "extends cl100k and was learned on every line" in tab.info.toolTip()  # (a narrow pane cuts the line)
    qtbot.waitUntil(lambda: tab.feed.training_curve is not None and not tab.dirty, timeout=30_000)
    assert tab.feed.held_out_curve is None and "extends cl100k" in tab.info.text()
