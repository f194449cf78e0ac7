"""kept_forbidden: the kept merges a branch's forbids name, in both modes, against the plain definition
(the ranks, among the first k, of the merges whose pair is forbidden or whose token the pattern matches)."""

from __future__ import annotations

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_desktop.core import TrainConfig, train
from bpe_desktop.core.text.byte_level import UNICODE_TO_BYTE
from bpe_desktop.core.training.branch import BranchPoint, kept_forbidden
from support import SEED_000

TEXT = {"low": 5, "lower": 2, "newest": 6, "widest": 3, "naïve café": 2, "tab\there": 1}
RUNS = {mode: train(TEXT if mode == "bytes" else SEED_000,
                    TrainConfig(mode=mode, pretokenizer="gpt2" if mode == "bytes" else "whitespace", merges=12))
        for mode in ("chars", "bytes")}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["chars", "bytes"]), st.integers(0, 12), st.sets(st.integers(0, 11), max_size=5),
       st.sampled_from([None, "e", "^l", "w$", r"\s", "é"]))
def test_kept_forbidden_names_exactly_the_forbidden_kept_merges(mode, k, picked, pattern) -> None:
    model, recs = RUNS[mode]
    pairs = model.merge_pairs_text()
    k = min(k, len(pairs))
    forbid = (*(pairs[i] for i in sorted(picked) if i < len(pairs)), ("zz", "qq"))  # and one pair never made
    point = BranchPoint.from_model(model, k, recs)
    got = kept_forbidden(point, TrainConfig(mode=mode, forbid=forbid, forbid_regex=pattern))

    def text(a: str, b: str) -> str:
        return bytes(UNICODE_TO_BYTE[c] for c in a + b).decode("utf-8", "replace") if mode == "bytes" else a + b

    want = [(r, p) for r, p in enumerate(pairs[:k], 1)
            if p in forbid or (pattern is not None and regex.search(pattern, text(*p)))]
    assert got == want
