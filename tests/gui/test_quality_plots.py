"""The quality tab of the plots pane with real widgets: its curves equal the core's metrics of the text
encoded from scratch at step k, on the training text and on a held-out file; α; export; the window's
"hold out the last 10 %" trains on the kept lines only."""

from __future__ import annotations

import copy
import csv
import math

import pytest

from bpe_desktop.core import CorpusSource, TrainConfig
from bpe_desktop.core.measure.holdout import count_with_holdout, split_text
from bpe_desktop.core.measure.quality import TextTotals, measure
from bpe_desktop.core.stopping import StopReason
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer
from bpe_desktop.gui.plots.panel import PlotsPanel
from bpe_desktop.gui.session import Session
from bpe_desktop.gui.training.protocol import TrainingState
from support import finished_session

CFG = TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=120)
METRICS = ("bytes_per_token", "fertility", "utilization", "shannon_efficiency", "renyi_efficiency")


@pytest.fixture(scope="module")
def trained(topics_text, trained_on):
    return trained_on(topics_text[:60_000], CFG)


def session_for(trained) -> Session:
    text, wc, t, recs = trained
    return finished_session(text, CFG, wc, t.model, recs)


def panel_for(qtbot, s: Session) -> PlotsPanel:
    p = PlotsPanel(s)
    qtbot.addWidget(p)
    p.resize(1000, 700)
    p.show()
    p.tabs.setCurrentWidget(p.quality)
    return p


def fresh(model, text: str, k: int, alpha: float = 2.5) -> tuple[float, ...]:
    """The metrics of *text* encoded from scratch (line by line, as training reads it) with k merges."""
    tok = Tokenizer(model, unknown="keep")
    ids = [i for line in text.splitlines(keepends=True) for i in tok.encode_ordinary(line, upto=k)]
    m = measure(ids, TextTotals.of_text(text), model.vocab_size_at(k), alpha)
    return tuple(getattr(m, a) for a in METRICS)


def drawn(panel: PlotsPanel, k: int, held: bool = False) -> tuple[float, ...]:
    out = []
    for a in METRICS:
        x, y = panel.quality.card.plotted(a, held)
        out.append(y[x.index(float(k))])
    return tuple(out)


def wait_curves(qtbot, panel: PlotsPanel, n: int, held: bool = False) -> None:
    def done() -> bool:
        f = panel.quality.feed
        curve = f.held_out_curve if held else f.training_curve
        return curve is not None and len(curve) == n and not panel.quality.dirty
    qtbot.waitUntil(done, timeout=30_000)


def test_training_curves_equal_the_core_metrics_at_step_k(qtbot, trained) -> None:
    text, _wc, t, _ = trained
    s = session_for(trained)
    panel = panel_for(qtbot, s)
    wait_curves(qtbot, panel, 121)
    for k in (0, 1, 50, 120):
        assert drawn(panel, k) == pytest.approx(fresh(t.model, text, k), rel=1e-9)
    s.set_step(50)  # the step marker and the readout follow the timeline
    assert all(line.value() == 50 for line in panel.quality.card.lines)
    assert "step 50" in panel.quality.card.readout.text
    # another Rényi order: the curve is recomputed with it
    panel.quality.alpha.setValue(1.5)
    qtbot.waitUntil(lambda: panel.quality.card.train is not None and panel.quality.card.train.alpha == 1.5
                    and len(panel.quality.card.train) == 121 and not panel.quality.dirty, timeout=30_000)
    assert drawn(panel, 77)[4] == pytest.approx(fresh(t.model, text, 77, 1.5)[4], rel=1e-9)
    assert "1.5" in panel.quality.card.plots["renyi_efficiency"].titleLabel.text


def test_held_out_file_curve(qtbot, trained, tmp_path) -> None:
    _text, _wc, t, _ = trained
    held = "Robots log their status every second.\nThe battery is low; returning to the dock.\n" * 20
    path = tmp_path / "held.txt"
    path.write_text(held, encoding="utf-8")
    s = session_for(trained)
    panel = panel_for(qtbot, s)
    panel.quality.choose_held_out(1, str(path))
    wait_curves(qtbot, panel, 121, held=True)
    for k in (0, 60, 120):
        assert drawn(panel, k, held=True) == pytest.approx(fresh(t.model, held, k), rel=1e-9)
    assert "held.txt" in panel.quality.card.readout.text
    out = tmp_path / "q.csv"
    panel.export("csv", out)
    rows = list(csv.reader(out.open(encoding="utf-8")))
    assert rows[0][:3] == ["text", "step", "vocab_size"]
    texts = {r[0] for r in rows[1:]}
    assert texts == {"training text", "held out: held.txt"} and len(rows) == 1 + 2 * 121
    panel.export("png", tmp_path / "q.png")
    panel.export("svg", tmp_path / "q.svg")
    assert (tmp_path / "q.png").stat().st_size > 1000 and "<svg" in (tmp_path / "q.svg").read_text()


def test_unreadable_held_out_file_is_a_note_not_a_crash(qtbot, trained, tmp_path) -> None:
    s = session_for(trained)
    panel = panel_for(qtbot, s)
    panel.quality.choose_held_out(1, str(tmp_path / "missing.txt"))
    qtbot.waitUntil(lambda: "cannot measure the held-out text" in panel.quality.info.text(), timeout=10_000)
    wait_curves(qtbot, panel, 121)
    assert panel.quality.feed.held_out_curve is None
    panel.quality.choose_held_out(1, str(tmp_path))  # a folder
    qtbot.waitUntil(lambda: "is a folder" in panel.quality.info.text(), timeout=10_000)
    panel.quality.choose_held_out(0)
    assert panel.quality.info.text() == "" and panel.session.holdout == 0.0


def test_loaded_tokenizer_follows_the_sessions_corpus(qtbot, trained) -> None:
    text, _wc, t, _ = trained
    s = Session()
    s.set_corpus(CorpusSource.from_text(text[:20_000]), CFG)
    from bpe_desktop.gui import file_actions

    s.reset_model(copy.deepcopy(t.model), file_actions.records_for(t.model))
    s.set_stop(StopReason.LOADED, "loaded")
    panel = panel_for(qtbot, s)
    wait_curves(qtbot, panel, 121)
    assert panel.quality.feed.train_label == "corpus"
    assert drawn(panel, 90) == pytest.approx(fresh(t.model, text[:20_000], 90), rel=1e-9)


def test_a_loaded_tokenizer_counts_a_file_corpus_in_small_units(qtbot, trained, tmp_path, monkeypatch) -> None:
    """The corpus of an opened tokenizer (an extension run's 20 MB log) is counted on the GUI thread between
    repaints: in units of at most COUNTING_UNIT_CHARS characters (plus the rest of a line), the curves unchanged."""
    from bpe_desktop.core.counting import pieces
    from bpe_desktop.core.measure.holdout import COUNTING_UNIT_CHARS
    from bpe_desktop.gui import file_actions

    text, _wc, t, _ = trained
    path = tmp_path / "corpus.txt"
    path.write_bytes(text.encode("utf-8"))
    units: list[int] = []
    real_add = pieces.PieceCounter.add_text

    def add_text(self: pieces.PieceCounter, chunk: str) -> None:
        units.append(len(chunk))
        real_add(self, chunk)

    monkeypatch.setattr(pieces.PieceCounter, "add_text", add_text)
    s = Session()
    s.set_corpus(CorpusSource.from_files([str(path)]), CFG)
    s.reset_model(copy.deepcopy(t.model), file_actions.records_for(t.model))
    s.set_stop(StopReason.LOADED, "loaded")
    panel = panel_for(qtbot, s)
    wait_curves(qtbot, panel, 121)
    longest = max(len(line) for line in text.splitlines(keepends=True))
    assert sum(units) == len(text) and len(units) >= len(text) // (COUNTING_UNIT_CHARS + longest)
    assert max(units) <= COUNTING_UNIT_CHARS + longest
    assert drawn(panel, 90) == pytest.approx(fresh(t.model, text, 90), rel=1e-9)


@pytest.mark.slow
def test_holding_out_the_last_lines_trains_on_the_rest(qtbot, window, topics_text) -> None:
    text = "".join(topics_text.splitlines(keepends=True)[:600])
    window.corpus.set_text(text, name="topics")
    window.settings.set_config(CFG.with_(merges=60))
    plots = window.plots
    plots.quality.choose_held_out(2)
    assert window.session.holdout == pytest.approx(0.1)
    assert window.train()
    qtbot.waitUntil(lambda: window.session.state is TrainingState.FINISHED, timeout=60_000)
    s = window.session
    split = count_with_holdout(CorpusSource.from_text(text), CFG, 0.1)
    assert s.word_counts.counts == split.train.counts  # trained on the first 90 % of the lines only
    assert s.held_out is not None and s.held_out.word_counts.counts == split.held_out.counts
    window.docks["plots"].raise_()  # behind another tab the pane draws nothing
    plots.tabs.setCurrentWidget(plots.quality)
    wait_curves(qtbot, plots, 61, held=True)
    _head, tail = split_text(text, 0.1)
    assert drawn(plots, 60, held=True) == pytest.approx(fresh(s.model, tail, 60), rel=1e-9)
    assert all(not math.isnan(v) for v in drawn(plots, 60))
