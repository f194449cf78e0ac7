"""A word-count table kept as its parts behaves exactly as the dict built from the same parts (the oracle:
``dict.update`` of each part in turn), and iterating it never looks a key up again (counted, not timed)."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.counting.parted import PartedCounts
from bpe_desktop.core.counting.pieces import WordCounts
from bpe_desktop.core.measure.stats import SegmentationHistory
from bpe_desktop.core.training.trainer import Trainer

counts_dicts = st.dictionaries(st.text(min_size=0, max_size=5), st.integers(0, (1 << 63) - 1), max_size=40)


def cuts(counts: dict[str, int], sizes: list[int]) -> list[dict[str, int]]:
    """*counts* cut in order into parts of the given sizes (cycled; an empty part where a size is 0)."""
    items, parts, i = list(counts.items()), [], 0
    for n in sizes * (len(items) + 1):
        if i >= len(items):
            break
        parts.append(dict(items[i : i + n]))
        i += n
    return parts


@settings(max_examples=60, deadline=None)
@given(counts_dicts, st.lists(st.integers(0, 7), min_size=1, max_size=5).filter(any),
       st.lists(st.text(max_size=5), max_size=8))
def test_it_behaves_as_the_dict_built_from_its_parts(counts, sizes, probes) -> None:
    parts = cuts(counts, sizes)
    oracle: dict[str, int] = {}
    for p in parts:
        oracle.update(p)
    c = PartedCounts(parts)
    assert len(c) == len(oracle) and bool(c) == bool(oracle)
    assert list(c) == list(oracle) and list(c.keys()) == list(oracle.keys())
    assert list(c.items()) == list(oracle.items()) and list(c.values()) == list(oracle.values())
    assert list(reversed(c)) == list(reversed(oracle))
    assert list(reversed(c.items())) == list(reversed(oracle.items()))
    assert list(reversed(c.values())) == list(reversed(oracle.values()))
    assert len(c.items()) == len(oracle) and len(c.values()) == len(oracle)
    for k in [*probes, *list(oracle)[:5]]:
        assert (k in c) == (k in oracle) and (k in c.keys()) == (k in oracle.keys())
        assert c.get(k) == oracle.get(k) and c.get(k, -1) == oracle.get(k, -1)
        if k in oracle:
            assert c[k] == oracle[k] and (k, oracle[k]) in c.items() and (k, oracle[k] + 1) not in c.items()
        else:
            with pytest.raises(KeyError):
                c[k]
    assert c.keys() & set(probes) == oracle.keys() & set(probes)
    assert dict(c) == oracle and dict(c.items()) == oracle
    assert c == oracle and oracle == c and not (c != oracle)
    assert c == PartedCounts.cut(oracle, 3) and c == PartedCounts([oracle])
    assert c == PartedCounts(reversed(cuts(oracle, [2])))  # the same pieces cut and ordered otherwise: equal,
    # as two dicts of the same items in another order are
    if oracle:
        k = next(iter(oracle))
        assert c != {**oracle, k: oracle[k] + 1} and c != {kk: v for kk, v in oracle.items() if kk != k}
        assert c != PartedCounts([{**oracle, k: oracle[k] + 1}])
    assert c != [*oracle] and c != None  # noqa: E711  (not a mapping: never equal)
    back = pickle.loads(pickle.dumps(c, protocol=pickle.HIGHEST_PROTOCOL))
    assert isinstance(back, PartedCounts) and list(back.items()) == list(oracle.items())
    assert back.n_parts == len([p for p in parts if p])
    assert WordCounts(c, 7) == WordCounts(oracle, 7) and WordCounts(c).total == sum(oracle.values())


def test_it_is_read_only_and_unhashable_as_a_dict() -> None:
    c = PartedCounts([{"a": 1}])
    with pytest.raises(TypeError):
        c["b"] = 2  # type: ignore[index]
    with pytest.raises(TypeError):
        hash(c)
    with pytest.raises(ValueError, match="at least one piece"):
        PartedCounts.cut({"a": 1}, 0)


class Probed(dict[str, int]):
    """A part that counts the lookups made in it."""

    probes = 0

    def __contains__(self, key: object) -> bool:
        Probed.probes += 1
        return super().__contains__(key)

    def __getitem__(self, key: str) -> int:
        Probed.probes += 1
        return super().__getitem__(key)


def test_iterating_looks_no_key_up_again_and_a_copy_costs_a_few_lookups_a_piece() -> None:
    """``Mapping``'s own ``items()``/``values()`` would look every key up in every part (pieces x parts lookups);
    ``dict(table)`` looks every key up (through ``keys()`` and ``[]``), in order."""
    n, size = 700, 7
    c = PartedCounts(Probed(p) for p in cuts({f"w{i}": i for i in range(n)}, [size]))
    Probed.probes = 0
    assert sum(v for _, v in c.items()) == sum(c.values()) == WordCounts(c).total == sum(range(n))
    assert list(c) == list(c.keys()) == [k for k, _ in reversed(list(reversed(c.items())))]
    assert c == PartedCounts(cuts(dict(c.items()), [size]))  # (cut alike: compared part by part)
    assert Probed.probes == 0
    assert dict(c) == dict(c.items())
    assert Probed.probes <= 4 * n  # (each key: found in the last part found, else the next; n x parts would be 70,000)
    Probed.probes = 0
    assert c["w3"] == 3 and Probed.probes <= 2 * (n // size) + 2


def test_trainers_and_the_plots_history_take_it_as_the_dict() -> None:
    words = {w: i % 5 + 1 for i, w in enumerate("the cat sat on a mat then the bat ate that hat".split())}
    words |= {f"{w}s": 2 for w in list(words)}
    parted = PartedCounts.cut(words, 4)
    for mode in ("chars", "bytes"):
        config = TrainConfig(mode=mode, merges=30)
        for pure in (True, False):
            want = Trainer(dict(words), config, pure=pure).run()
            assert Trainer(WordCounts(parted), config, pure=pure, release=True).run() == want
        assert list(parted.items()) == list(words.items())  # (release empties a dict; it keeps a parted table)
        t = Trainer(dict(words), config)
        t.run()
        model = t.model
        h, hp = SegmentationHistory(words, model), SegmentationHistory(WordCounts(parted), model)
        for k in (0, 1, 7, 30):
            assert hp.zipf(k) == h.zipf(k)
