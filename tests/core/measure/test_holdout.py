"""Keeping the last lines of a corpus out of training: the two tables equal counting each part's text."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpe_desktop.core import CorpusSource, TrainConfig, count_text, train
from bpe_desktop.core.errors import ConfigError
from bpe_desktop.core.measure.holdout import count_with_holdout, split_text
from bpe_desktop.core.measure.quality import TextTotals, measure
from bpe_desktop.core.measure.quality_curves import HeldOutCurves
from bpe_desktop.core.measure.stats import finish
from bpe_desktop.core.tokenizers.tokenizer import Tokenizer


def test_files_hold_out_their_last_lines(topics_file: Path, tmp_path: Path) -> None:
    second = tmp_path / "second.txt"
    second.write_text("one more line\nand a last one without newline", encoding="utf-8")
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2")
    split = count_with_holdout(CorpusSource.from_files([topics_file, second]), cfg, 0.1)
    lines = [*topics_file.read_text(encoding="utf-8").splitlines(keepends=True),
             "one more line\n", "and a last one without newline"]
    n = round(len(lines) * 0.1)
    assert split.held_out_lines == n
    train_text, held_text = "".join(lines[:-n]), "".join(lines[-n:])
    assert split.train.counts == count_text(train_text, cfg).counts
    assert split.held_out.counts == count_text(held_text, cfg).counts
    assert split.train_totals == TextTotals.of_text(train_text)
    assert split.held_out_totals == TextTotals.of_text(held_text)


def test_text_and_tables_hold_out_their_last_lines() -> None:
    text = "".join(f"line {i} word{i}\n" for i in range(50))
    split = count_with_holdout(CorpusSource.from_text(text), TrainConfig(), 0.2)
    head, tail = split_text(text, 0.2)
    assert tail == "".join(f"line {i} word{i}\n" for i in range(40, 50))
    assert split.held_out.counts == count_text(tail, TrainConfig()).counts
    assert split.train.counts == count_text(head, TrainConfig()).counts
    table = "low 5\nlower 2\nnewest 6\nwidest 3\n"
    s = count_with_holdout(CorpusSource.from_text(table, word_counts=True), TrainConfig(), 0.25)
    assert s.train.counts == {"low": 5, "lower": 2, "newest": 6} and s.held_out.counts == {"widest": 3}
    assert s.held_out_totals == TextTotals(18, 3)


@pytest.mark.parametrize("share", [0, 1, -0.1, 1.5])
def test_a_share_outside_0_1_is_refused(share: float) -> None:
    with pytest.raises(ConfigError, match="between 0 and 1"):
        count_with_holdout(CorpusSource.from_text("a\nb\n"), TrainConfig(), share)


def test_held_out_part_curve_matches_a_fresh_encode(topics_text: str) -> None:
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", merges=200)
    split = count_with_holdout(CorpusSource.from_text(topics_text[:150_000]), cfg, 0.1)
    model, _ = train(split.train, cfg)
    curve = finish(HeldOutCurves(split.held_out.counts, split.held_out_totals, model).following())
    _, held = split_text(topics_text[:150_000], 0.1)
    tok = Tokenizer(model)
    for k in (0, 200):
        ids = [i for line in held.splitlines(keepends=True) for i in tok.encode_ordinary(line, upto=k)]
        m = measure(ids, TextTotals.of_text(held), model.vocab_size_at(k))
        assert curve.at(k).tokens == m.tokens
        assert curve.at(k).renyi_efficiency == pytest.approx(m.renyi_efficiency, rel=1e-9)


def test_sliced_counting_and_totals_equal_the_one_go_functions(topics_file, topics_text: str) -> None:
    from bpe_desktop.core.measure.holdout import count_with_totals, counting_with_totals, totaling
    from bpe_desktop.core.measure.stats import Sliced

    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2")
    for src in (CorpusSource.from_files([str(topics_file)]), CorpusSource.from_text(topics_text[:300_000])):
        job = Sliced(counting_with_totals(src, cfg, 4096))
        units = 0
        while not job.run(0.0):
            units += 1
        assert units > 10  # really cut into units
        assert job.result == count_with_totals(src, cfg)
        assert finish(totaling(src, "bytes", 4096)) == job.result[1]
    table = CorpusSource.from_text("low 5\nlower 2\n", word_counts=True)
    assert finish(counting_with_totals(table, TrainConfig())) == count_with_totals(table, TrainConfig())
    assert finish(totaling(table, "chars")) == TextTotals(25, 7)  # low x5, lower x2


def test_held_out_curves_started_in_units_equal_the_constructor(topics_text: str) -> None:
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", merges=40)
    model, _ = train(count_text(topics_text[:40_000], cfg).counts, cfg)
    held = count_text(topics_text[40_000:60_000], cfg).counts
    a = finish(HeldOutCurves(held, TextTotals(20_000, 3000), model).following())
    b = finish(finish(HeldOutCurves.starting(held, TextTotals(20_000, 3000), model)).following())
    assert a == b and len(a) == 41
