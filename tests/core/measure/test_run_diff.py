"""Comparing runs: the diff of a run with itself is empty; the seeds' runs under two tie rules differ exactly
where the seeds' text says they must; the CLI reads any tokenizer format and exits like Unix diff."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig, train
from bpe_desktop.core.measure.run_diff import MovedMerge, RankedMerge, diff_merges, diff_models
from bpe_desktop.core.training.branch import SettingChange
from support import SEED_000, SEED_001
from support.cli import run_cli

run = run_cli


# Seed 000 (low 5, lower 2, newest 6, widest 3), trained to the end under the lexical rule, is the seed's
# table for rounds 1-7 (e+s ... ew+est</w>), then n+ewest</w> 6, low+</w> 5, the widest ties at 3 taken in
# string order (d+est</w>, i+dest</w>, w+idest</w>) and the lower ties at 2 (e+r, er+</w>, low+er</w>).
SEED_000_LEXICAL = [
    ("e", "s"), ("es", "t"), ("est", "</w>"), ("l", "o"), ("lo", "w"), ("e", "w"), ("ew", "est</w>"),
    ("n", "ewest</w>"), ("low", "</w>"), ("d", "est</w>"), ("i", "dest</w>"), ("w", "idest</w>"), ("e", "r"),
    ("er", "</w>"), ("low", "er</w>"),
]
# Under first-seen the first five are the same (the 9-ties fall to e+s, es+t in newest's reading order, and
# l+o comes before o+w in low).  Round 6 ties n+e, e+w and w+est</w> at 6: newest reads n e first, so n+e,
# then ne+w and new+est</w>; low+</w> stays 9th; the widest ties go left to right (w+i, wi+d, wid+est</w>)
# and so do lower's (low+e, lowe+r, lower+</w>).
SEED_000_FIRST_SEEN = [
    ("e", "s"), ("es", "t"), ("est", "</w>"), ("l", "o"), ("lo", "w"), ("n", "e"), ("ne", "w"),
    ("new", "est</w>"), ("low", "</w>"), ("w", "i"), ("wi", "d"), ("wid", "est</w>"), ("low", "e"),
    ("lowe", "r"), ("lower", "</w>"),
]


def test_seed_000_lexical_and_first_seen_runs_diverge_at_merge_6() -> None:
    a, _ = train(SEED_000, TrainConfig(tie_break="lexical"))
    b, _ = train(SEED_000, TrainConfig(tie_break="first-seen"))
    assert a.merge_pairs_text() == SEED_000_LEXICAL and b.merge_pairs_text() == SEED_000_FIRST_SEEN
    d = diff_models(a, b)
    assert d.first_divergence == 6 and d.common_prefix == 5
    assert d.settings == (SettingChange("tie_break", "lexical", "first-seen"),)
    # low+</w> is 9th in both: common, not listed; every other merge from 6 on is one run's only
    assert d.only_a == tuple(RankedMerge(r, *SEED_000_LEXICAL[r - 1]) for r in (6, 7, 8, 10, 11, 12, 13, 14, 15))
    assert d.only_b == tuple(RankedMerge(r, *SEED_000_FIRST_SEEN[r - 1]) for r in (6, 7, 8, 10, 11, 12, 13, 14, 15))
    assert d.moved == ()


def test_seed_001_twelve_merges_differ_only_in_order() -> None:
    """Seed 001's 12 first-seen merges (its own listing) against the lexical rule.  Both make w+</w>, l+o, n+e,
    w+e, lo+w</w>, ne+w</w>, lo+we (the 4-tie lo+w</w>/ne+w</w> and the 3-ties fall the same way).  At merge 8
    ne+we, r+</w>, s+t and t+</w> tie at 3: first-seen takes r+</w> (in lower, the third word), lexical ne+we
    ("ne" < "r").  Lexical then takes r+</w>, s+t, st+</w>, and both end with lowe+r</w> (2, lowe < newe)."""
    a, _ = train(SEED_001, TrainConfig(merges=12, tie_break="lexical"))
    b, _ = train(SEED_001, TrainConfig(merges=12, tie_break="first-seen"))
    d = diff_models(a, b)
    assert d.first_divergence == 8
    assert d.only_a == d.only_b == ()
    assert d.moved == (MovedMerge("ne", "we", 8, 11), MovedMerge("r", "</w>", 9, 8), MovedMerge("s", "t", 10, 9),
                       MovedMerge("st", "</w>", 11, 10))


tables = st.dictionaries(st.text(alphabet="abcé", min_size=1, max_size=8), st.integers(1, 5), min_size=1,
                         max_size=10)


@settings(max_examples=40, deadline=None)
@given(table=tables, rule=st.sampled_from(["lexical", "first-seen", "hf"]), mode=st.sampled_from(["chars", "bytes"]),
       n=st.integers(0, 20))
def test_a_run_against_itself_is_identical_and_against_a_prefix_diverges_where_it_ends(table, rule, mode, n) -> None:
    model, _ = train(table, TrainConfig(mode=mode, tie_break=rule, merges=n))
    d = diff_models(model, model)
    assert d.identical and d.first_divergence is None and d.only_a == d.only_b == d.moved == d.settings == ()
    pairs = model.merge_pairs_text()
    if pairs:
        short = diff_merges(pairs[:-1], pairs)
        assert short.first_divergence == len(pairs) and short.only_b == (RankedMerge(len(pairs), *pairs[-1]),)


@settings(max_examples=200, deadline=None)
@given(a=st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("abc")), max_size=8),
       b=st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("abc")), max_size=8))
def test_every_merge_is_common_moved_or_only_in_one(a, b) -> None:
    d = diff_merges(a, b)
    for moved in d.moved:
        assert a[moved.rank_a - 1] == b[moved.rank_b - 1] == (moved.left, moved.right) and moved.rank_a != moved.rank_b
    # occurrence-matched: the n-th copy of a pair in A goes with the n-th in B; the rest is one side's only
    assert sorted(a[m.rank - 1] for m in d.only_a) == sorted(_minus(a, b))
    assert sorted(b[m.rank - 1] for m in d.only_b) == sorted(_minus(b, a))
    assert all((m.left, m.right) == a[m.rank - 1] for m in d.only_a)
    assert d.identical == (a == b)
    if not d.identical:
        r = d.first_divergence
        assert a[: r - 1] == b[: r - 1] and (len(a) < r or len(b) < r or a[r - 1] != b[r - 1])


def _minus(a, b):
    left = list(b)
    out = []
    for p in a:
        if p in left:
            left.remove(p)
        else:
            out.append(p)
    return out


# -- the command line ---------------------------------------------------------------------------------


def test_cli_diff_of_a_file_with_itself_and_with_its_hf_copy_is_empty(tmp_path) -> None:
    table = tmp_path / "words.txt"
    table.write_text("low 5\nlower 2\nnewest 6\nwidest 3\n", encoding="utf-8")
    a = tmp_path / "a.json"
    assert run("train", str(table), "--word-counts", "--glue-marker", "--out", str(a)).returncode == 0
    assert run("convert", str(a), str(tmp_path / "a.hf.json"), "--to", "hf").returncode == 0
    n = len(json.loads(a.read_text(encoding="utf-8"))["merges"])
    for other in (a, tmp_path / "a.hf.json"):
        r = run("diff", str(a), str(other))
        assert r.returncode == 0, r.stderr
        assert f"same {n} merges in the same order" in r.stdout
    r = run("diff", str(a), str(a), "--json")
    doc = json.loads(r.stdout)
    assert doc["identical"] and doc["first_divergence"] is None
    assert doc["only_a"] == doc["only_b"] == doc["moved"] == doc["settings"] == []


def test_cli_diff_of_the_seed_runs_under_two_rules(tmp_path) -> None:
    table = tmp_path / "words.txt"
    table.write_text("low 5\nlower 2\nnewest 6\nwidest 3\n", encoding="utf-8")
    for rule in ("lexical", "first-seen"):
        r = run("train", str(table), "--word-counts", "--tie-break", rule, "--out", str(tmp_path / f"{rule}.json"))
        assert r.returncode == 0, r.stderr
    r = run("diff", str(tmp_path / "lexical.json"), str(tmp_path / "first-seen.json"), "--json")
    assert r.returncode == 1  # like Unix diff: the runs differ
    doc = json.loads(r.stdout)
    assert doc["first_divergence"] == 6 and doc["merges_a"] == doc["merges_b"] == 15
    assert [(m["left"], m["right"]) for m in doc["only_a"]] == [SEED_000_LEXICAL[i - 1] for i in (6, 7, 8, 10, 11,
                                                                                                 12, 13, 14, 15)]
    assert [m["rank"] for m in doc["only_b"]] == [6, 7, 8, 10, 11, 12, 13, 14, 15]
    assert doc["settings"] == [{"name": "tie_break", "a": "lexical", "b": "first-seen"}]
    text = run("diff", str(tmp_path / "lexical.json"), str(tmp_path / "first-seen.json"), "--limit", "2").stdout
    assert "first divergence at merge 6 (the first 5 are the same)" in text
    assert "only in A (9):\n        6  e w\n        7  ew est</w>\n  … and 7 more" in text


def test_cli_diff_errors_are_one_line_and_exit_2(tmp_path) -> None:
    csv_file = tmp_path / "steps.csv"
    csv_file.write_text("rank,left,right\n1,a,b\n", encoding="utf-8")
    for args, msg in [
        (["diff", str(tmp_path / "missing.json"), str(csv_file)], "no such file"),
        (["diff", str(csv_file), str(csv_file)], "is a report, not a tokenizer"),
    ]:
        r = run(*args)
        assert r.returncode == 2, (args, r.stderr)
        assert msg in r.stderr and "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
