"""Reading and encoding other tools' tokenizers against their home libraries (issue 23): SentencePiece's
Mistral v1 ``.model`` against ``sentencepiece`` and mistral-common's ``tekken_240911.json`` against its
``Tekkenizer``, on the first 300 KB of ``pydoc_data.topics``; one process, cold caches, ids checked equal.

Run: ``python benchmarks/bench_other_formats.py`` (needs sentencepiece and mistral-common).
"""

from __future__ import annotations

import importlib.util
import pydoc_data.topics
import time
from pathlib import Path

import sentencepiece as spm
from mistral_common.tokens.tokenizers.tekken import Tekkenizer

from bpe_desktop.core.formats import load


def main() -> None:
    spec = importlib.util.find_spec("mistral_common")
    assert spec is not None and spec.submodule_search_locations
    data = Path(next(iter(spec.submodule_search_locations))) / "data"
    text = Path(pydoc_data.topics.__file__).read_text()[:300_000]
    print(f"text: {len(text.encode())} bytes")
    path = data / "tokenizer.model.v1"
    t0 = time.perf_counter()
    tok = load(str(path)).tokenizer
    t1 = time.perf_counter()
    ours = tok.encode(text)
    t2 = time.perf_counter()
    sp = spm.SentencePieceProcessor(model_file=str(path))
    t3 = time.perf_counter()
    theirs = sp.encode(text)
    t4 = time.perf_counter()
    print(f"sentencepiece v1: ours load {t1 - t0:.2f} s, encode {t2 - t1:.2f} s; sentencepiece load "
          f"{t3 - t2:.2f} s, encode {t4 - t3:.2f} s; {len(ours)} ids, equal {ours == theirs}")
    t0 = time.perf_counter()
    n = len(tok.model.merges)
    print(f"sentencepiece v1: merge list recovered ({n} merges) in {time.perf_counter() - t0:.2f} s")
    path = data / "tekken_240911.json"
    t0 = time.perf_counter()
    tk = load(str(path)).tokenizer
    t1 = time.perf_counter()
    ours = tk.encode(text)
    t2 = time.perf_counter()
    mc = Tekkenizer.from_file(path)
    t3 = time.perf_counter()
    theirs = mc.encode(text, bos=False, eos=False)
    t4 = time.perf_counter()
    print(f"tekken 240911: ours load {t1 - t0:.2f} s, encode {t2 - t1:.2f} s; mistral-common load "
          f"{t3 - t2:.2f} s, encode {t4 - t3:.2f} s; {len(ours)} ids, equal {ours == theirs}")


if __name__ == "__main__":
    main()
