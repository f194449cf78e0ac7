"""The ``hf`` tie rule reproduces HF tokenizers' BpeTrainer merge list on real English text."""

from __future__ import annotations

import json

import pytest

from bpe_desktop.core import TrainConfig, train
from bpe_desktop.core.counting.sources import count_files


def _hf_merges(path: str, n_merges: int, specials: list[str]) -> list[tuple[str, str]]:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    trainer = trainers.BpeTrainer(
        vocab_size=256 + len(specials) + n_merges, min_frequency=0, show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), special_tokens=specials,
    )
    tok.train([path], trainer)
    merges = json.loads(tok.to_str())["model"]["merges"]
    return [tuple(m) if isinstance(m, list) else tuple(m.split(" ", 1)) for m in merges]


@pytest.mark.slow
@pytest.mark.parametrize("n_merges", [2000])
def test_hf_rule_matches_hf_bpe_trainer_on_pydoc_topics(topics_file, n_merges: int) -> None:
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=n_merges)
    model, _recs = train(count_files([topics_file], cfg), cfg)
    ours = model.merge_pairs_text()
    theirs = _hf_merges(str(topics_file), n_merges, [])
    assert len(ours) == n_merges
    first_diff = next((i for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b), None)
    assert first_diff is None, (first_diff, ours[first_diff], theirs[first_diff])
    assert ours == theirs


def test_hf_rule_matches_hf_on_stdlib_source_with_specials(tmp_path) -> None:
    """Specials take HF's first ids but shift every id alike, so they change no tie.

    (Where the special text occurs in the corpus the two differ by design: we never learn merges from a
    special token's letters, while HF's BpeTrainer trains on them as ordinary text.)
    """
    import inspect
    import json as json_module

    text = inspect.getsource(json_module.decoder) + inspect.getsource(json_module.encoder)
    path = tmp_path / "src.txt"
    path.write_text(text, encoding="utf-8")
    cfg = TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=300, specials=("<|endoftext|>",))
    model, _ = train(count_files([path], cfg), cfg)
    assert model.merge_pairs_text() == _hf_merges(str(path), 300, ["<|endoftext|>"])
