"""Encoding with a tokenizer.json's whole pipeline (issue 23): ours vs ``tokenizers`` on 0.47 MB of pydoc
topics, 4,000-token BPEs trained here with ``tokenizers``.  Cold = first encode (empty piece cache).

    python benchmarks/bench_hf_pipeline.py
"""

from __future__ import annotations

import pydoc_data.topics
import tempfile
import time
from pathlib import Path

import tokenizers
from tokenizers import decoders, models, normalizers, pre_tokenizers, trainers

from bpe_desktop.core.formats import load_tokenizer


def main() -> None:
    corpus = list(pydoc_data.topics.topics.values())
    text = "".join(corpus[:200])
    configs = {
        "ByteLevel (plain: our replay)": dict(pre_tokenizer=pre_tokenizers.ByteLevel(add_prefix_space=False),
                                              decoder=decoders.ByteLevel()),
        "NFKC + ByteLevel(add_prefix_space)": dict(normalizer=normalizers.NFKC(),
                                                   pre_tokenizer=pre_tokenizers.ByteLevel(add_prefix_space=True),
                                                   decoder=decoders.ByteLevel()),
        "Metaspace + byte_fallback": dict(pre_tokenizer=pre_tokenizers.Metaspace(), decoder=decoders.Metaspace()),
    }
    d = Path(tempfile.mkdtemp())
    print(f"text: {len(text.encode()) / 1e6:.2f} MB")
    for name, kw in configs.items():
        fallback = "Metaspace" in name
        tok = tokenizers.Tokenizer(models.BPE(byte_fallback=fallback, unk_token="<unk>" if fallback else None))
        for k, v in kw.items():
            setattr(tok, k, v)
        tok.train_from_iterator(corpus, trainers.BpeTrainer(
            vocab_size=4000, show_progress=False, special_tokens=["<unk>"] if fallback else [],
            initial_alphabet=[] if fallback else pre_tokenizers.ByteLevel.alphabet()))
        p = d / "t.json"
        tok.save(str(p))
        ours = load_tokenizer(str(p))
        t = time.perf_counter()
        ids = ours.encode(text)
        cold = time.perf_counter() - t
        t = time.perf_counter()
        ours.encode(text)
        warm = time.perf_counter() - t
        t = time.perf_counter()
        ours.encode_with_offsets(text)
        offsets = time.perf_counter() - t
        t = time.perf_counter()
        want = tok.encode(text, add_special_tokens=False).ids
        hf = time.perf_counter() - t
        assert ids == want, name
        print(f"{name:38s} ours cold {cold:5.2f} s, warm {warm:5.2f} s, with offsets {offsets:5.2f} s; "
              f"tokenizers {hf:5.2f} s")


if __name__ == "__main__":
    main()
