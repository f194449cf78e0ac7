"""Session bookkeeping: appended records keep the model's derived tables exactly as a rebuild would."""

from __future__ import annotations

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.tokenizers.model import BPEModel
from bpe_desktop.core.training.trainer import Trainer
from bpe_desktop.gui.session import Session


def test_append_records_matches_a_rebuilt_model(qtbot, topics_text: str) -> None:
    t = Trainer({w: 1 for w in topics_text.split()[:20_000]}, TrainConfig(merges=600))
    recs = t.run()
    s = Session()
    s.reset_model(t.model.truncated(0))
    seen: list[tuple[int, int]] = []
    s.recordsAppended.connect(lambda a, b: seen.append((a, b)))
    for i in range(0, len(recs), 97):
        s.append_records(recs[i : i + 97])
        assert s.model.vocab_size_at(len(s.records)) == recs[len(s.records) - 1].vocab_size  # warm caches
        s.model.merge_rank_of(s.model.n_base)
    fresh = BPEModel(mode=t.model.mode, base=list(t.model.base), merges=list(t.model.merges))
    assert s.model.merges == fresh.merges
    assert s.model.tokens == fresh.tokens and s.model.token_ids == fresh.token_ids
    assert s.model.merge_token_ids == fresh.merge_token_ids
    assert [s.model.merge_rank_of(i) for i in range(len(fresh.tokens))] == \
        [fresh.merge_rank_of(i) for i in range(len(fresh.tokens))]
    assert seen[0] == (1, 97) and seen[-1][1] == len(recs)
    assert [r.token_id for r in recs] == s.model.merge_token_ids


def test_set_step_clamps_and_symbols_at(qtbot) -> None:
    t = Trainer({"low": 5, "lower": 2, "newest": 6, "widest": 3}, TrainConfig(merges=7))
    recs = t.run()
    s = Session()
    s.set_counted(s.word_counts, t.initial_symbols, s.held_out)
    s.reset_model(t.model.truncated(0), recs)
    s.set_step(99)
    assert s.step == 7 and s.work.symbols_at(7) == t.total_symbols
    s.set_step(-3)
    assert s.step == 0 and s.work.symbols_at(0) == t.initial_symbols
    s.set_config(TrainConfig(merges=7))
    assert s.work.target_merges == 7
