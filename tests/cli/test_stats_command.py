"""``bpe-desktop stats``: its CSV files equal the statistics computed in-process."""

from __future__ import annotations

import csv
import subprocess
import sys

import pytest

from bpe_desktop.cli import main
from bpe_desktop.core import CorpusSource, TrainConfig, Trainer, count_source
from bpe_desktop.core.measure.stats import SegmentationHistory, recount_pairs
from bpe_desktop.core.training.naive import merge_word
from bpe_desktop.core.training.trainer import word_symbols


def read_csv(path) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.reader(f))


@pytest.mark.parametrize("mode", ["chars", "bytes"])
def test_csv_files_match_in_process_stats(topics_file, tmp_path, mode) -> None:
    z, c, t = tmp_path / "z.csv", tmp_path / "c.csv", tmp_path / "t.csv"
    rc = main([
        "stats", str(topics_file), "--mode", mode, "--tie-break", "hf", "--merges", "200", "--step", "60",
        "--zipf", str(z), "--curve", str(c), "--tradeoff", str(t),
    ])
    assert rc == 0
    cfg = TrainConfig(mode=mode, pretokenizer="gpt2" if mode == "bytes" else "whitespace", tie_break="hf",
                      merges=200)
    wc = count_source(CorpusSource.from_files([topics_file]), cfg)
    trainer = Trainer(wc, cfg)
    recs = trainer.run()
    hist = SegmentationHistory(wc, trainer.model.truncated(60))

    zrows = read_csv(z)
    assert zrows[0] == ["rank", "left", "right", "count"]
    want = hist.zipf(60)
    assert [(int(r), a, b, int(n)) for r, a, b, n in zrows[1:]] == want.rows()
    # every adjacent pair at step 60, as a from-scratch count over the textbook replay gives it
    toks = trainer.model.tokens
    merges = [(toks[a], toks[b]) for a, b in trainer.model.merges[:60]]
    seg = []
    for w, n in wc.counts.items():
        s = tuple(word_symbols(w, cfg))
        for m in merges:
            s = merge_word(s, m)
        seg.append((s, n))
    text = hist.token_text
    by_text = {(text(hist._ids[a]), text(hist._ids[b])): n for (a, b), n in recount_pairs(seg).items()}
    assert {(a, b): int(n) for _, a, b, n in zrows[1:]} == by_text
    counts = [int(r[3]) for r in zrows[1:]]
    assert counts == sorted(counts, reverse=True)

    crows = read_csv(c)
    assert crows[0] == ["step", "symbols", "merged"]
    assert [int(r[0]) for r in crows[1:]] == list(range(61))
    assert int(crows[1][1]) == trainer.initial_symbols
    assert [int(r[1]) for r in crows[2:]] == [r.symbols_after for r in recs[:60]]
    assert [int(r[2]) for r in crows[2:]] == [r.merged for r in recs[:60]]

    trows = read_csv(t)
    assert trows[0] == ["step", "vocab_size", "tokens_per_word", "bytes_per_token"]
    assert [int(r[1]) for r in trows[2:]] == [r.vocab_size for r in recs[:60]]
    tr = hist.tradeoff(60)
    assert [float(r[2]) for r in trows[1:]] == pytest.approx(tr.tokens_per_word, rel=1e-5)
    assert [float(r[3]) for r in trows[1:]] == pytest.approx(tr.bytes_per_token, rel=1e-5)


def test_default_step_is_the_end_and_runs_as_a_program(tmp_path) -> None:
    words = tmp_path / "seed.txt"
    words.write_text("low 5\nlower 2\nnewest 6\nwidest 3\n", encoding="utf-8")
    z, c = tmp_path / "z.csv", tmp_path / "c.csv"
    out = subprocess.run(
        [sys.executable, "-m", "bpe_desktop", "stats", str(words), "--word-counts", "--merges", "7",
         "--zipf", str(z), "--curve", str(c)],
        capture_output=True, text=True, check=True,
    )
    assert "step 7 of 7 merges" in out.stdout
    assert [r[1] for r in read_csv(c)[1:]] == ["95", "86", "77", "68", "61", "54", "48", "42"]
    # after the seed's 7 merges: low </w> | low e r </w> | n ewest</w> | w i d est</w> (worked by hand)
    assert read_csv(z)[1:] == [
        ["1", "n", "ewest</w>", "6"], ["2", "low", "</w>", "5"], ["3", "d", "est</w>", "3"],
        ["4", "i", "d", "3"], ["5", "w", "i", "3"], ["6", "e", "r", "2"], ["7", "low", "e", "2"],
        ["8", "r", "</w>", "2"],
    ]


def test_user_errors_exit_2_with_the_fix(tmp_path, capsys) -> None:
    words = tmp_path / "seed.txt"
    words.write_text("low 5\nlower 2\n", encoding="utf-8")
    assert main(["stats", str(words), "--word-counts", "--step", "99", "--curve", str(tmp_path / "c.csv")]) == 2
    err = capsys.readouterr().err
    assert "past the end of training" in err and "--step" in err
    assert not (tmp_path / "c.csv").exists()
    assert main(["stats", str(words), "--word-counts"]) == 2
    assert "--zipf" in capsys.readouterr().err
    assert main(["stats", str(words), "--word-counts", "--zipf", str(tmp_path / "no" / "z.csv")]) == 2
    assert "does not exist" in capsys.readouterr().err
