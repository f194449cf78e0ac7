"""GPT-2's file pair: ``encoder.json`` + ``vocab.bpe`` (OpenAI), or ``vocab.json`` + ``merges.txt`` (HF).

The vocabulary maps each token, written through GPT-2's byte-to-unicode mapping, to its id; the merges
file has a ``#version: 0.2`` header and one ``A B`` pair per line.  Specials (GPT-2's ``<|endoftext|>``)
are vocabulary entries that no merge makes.  Byte-level only: chars-mode models are refused.  The files
hold no pattern: they mean GPT-2's (``gpt2``), so models with another pattern are refused.  This module
does not guess which file is which from content (see :mod:`.detect`); it finds the partner by name.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Sequence

from ..choices import Mode
from ..errors import FormatError, WriteError
from ..io.atomic import check_writable, write_group
from ..text.byte_level import text_to_bytes
from ..tokenizers.model import BPEModel, token_text
from .textio import read_text, token_bytes
from .vocab_merges import model_from_vocab

PAIRS = (("encoder.json", "vocab.bpe"), ("vocab.json", "merges.txt"))


def find_pair(path: str) -> tuple[str, str]:
    """The (vocabulary, merges) files for a folder or either file of a pair."""
    if os.path.isdir(path):
        for v, m in PAIRS:
            if os.path.isfile(os.path.join(path, v)) and os.path.isfile(os.path.join(path, m)):
                return os.path.join(path, v), os.path.join(path, m)
        raise FormatError(f"{path}: the folder holds neither encoder.json + vocab.bpe nor vocab.json + merges.txt")
    folder, name = os.path.split(path)
    for v, m in PAIRS:
        if name in (v, m):
            pair = os.path.join(folder, v), os.path.join(folder, m)
            break
    else:
        if name.endswith(".json"):
            cands = [os.path.join(folder, m) for _, m in PAIRS]
            pair = path, next((c for c in cands if os.path.isfile(c)), cands[0])
        else:
            cands = [os.path.join(folder, v) for v, _ in PAIRS]
            pair = next((c for c in cands if os.path.isfile(c)), cands[0]), path
    for p in pair:
        if not os.path.isfile(p):
            raise FormatError(f"{p}: missing -- GPT-2 tokenizers need both {os.path.basename(pair[0])} and "
                              f"{os.path.basename(pair[1])} in the same folder")
    return pair


def has_partner(path: str) -> bool:
    """True if *path* is one file of a GPT-2 pair whose partner exists."""
    try:
        find_pair(path)
    except FormatError:
        return False
    return True


def parse_merges(text: str, source: str) -> list[tuple[str, str]]:
    """``A B`` lines after an optional ``#version`` header; blank lines are skipped."""
    out = []
    for n, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        if not line or (n == 1 and line.startswith("#version")):
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise FormatError(f"{source}: line {n}: expected two tokens separated by one space, got {line[:60]!r}")
        out.append((parts[0], parts[1]))
    return out


def loads(vocab_text: str, merges_text: str, vocab_src: str, merges_src: str) -> tuple[BPEModel, list[int] | None]:
    """Parse the two files' texts: the model and ``to_file`` (see :mod:`.vocab_merges`)."""
    try:
        raw = json.loads(vocab_text)
    except json.JSONDecodeError as e:
        raise FormatError(f"{vocab_src}: line {e.lineno}: not valid JSON ({e.msg})") from e
    if not isinstance(raw, dict) or not all(isinstance(k, str) and type(v) is int for k, v in raw.items()):
        raise FormatError(f"{vocab_src}: expected a JSON object mapping each token to an integer id")
    pairs = [(token_bytes(a, merges_src), token_bytes(b, merges_src)) for a, b in parse_merges(merges_text, merges_src)]
    made = {a + b for a, b in pairs}
    vocab: dict[bytes | str, int] = {}
    specials = []
    for t, i in raw.items():
        try:
            b = text_to_bytes(t)
        except KeyError:
            specials.append(t)
            vocab[t] = i
            continue
        if len(b) != 1 and b not in made:
            specials.append(t)  # e.g. <|endoftext|>: written in the alphabet, but no merge makes it
            vocab[t] = i
        else:
            vocab[b] = i
    return model_from_vocab(Mode.BYTES, vocab, pairs, f"{vocab_src}", specials, pretokenizer="gpt2")


def read(path: str | os.PathLike[str]) -> tuple[BPEModel, list[int] | None]:
    """Read a pair given its folder or either file: the model and the file's id table (or ``None``)."""
    v, m = find_pair(os.fspath(path))
    return loads(read_text(v), read_text(m), v, m)


def load(path: str | os.PathLike[str]) -> BPEModel:
    """Read a pair given its folder or either file (the model, in our id numbering)."""
    return read(path)[0]


def dumps(model: BPEModel, special_ids: dict[str, int] | None = None,
          file_ids: Sequence[int] | None = None) -> tuple[str, str]:
    """(vocabulary JSON, merges text) of a bytes-mode model; *file_ids* (the file's id of each token, by our
    id) numbers the tokens otherwise than we do (an extension keeps the original's ids)."""
    if model.mode != Mode.BYTES:
        raise FormatError(
            "GPT-2 vocab/merges files are byte-level: this is a chars-mode tokenizer -- write it as "
            "native, hf (tokenizer.json) or subword-nmt"
        )
    if model.pretokenizer != "gpt2":
        raise FormatError(
            f"GPT-2 vocab/merges files always mean GPT-2's pre-tokenization pattern, this tokenizer uses "
            f"{model.pretokenizer!r} -- write hf (tokenizer.json, which stores the pattern), native, or "
            "tiktoken (and give the pattern when reading it)"
        )
    vocab = {token_text(t): i if file_ids is None else file_ids[i] for i, t in enumerate(model.tokens)}
    vocab.update(special_ids if special_ids is not None else model.special_ids)
    merges = "#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in model.merge_pairs_text())
    return json.dumps(vocab, ensure_ascii=False), merges


def save(path: str | os.PathLike[str], model: BPEModel, flavor: str = "gpt2",
         special_ids: dict[str, int] | None = None, *, file_ids: Sequence[int] | None = None) -> tuple[str, str]:
    """Write into folder *path* (created if needed): ``encoder.json`` + ``vocab.bpe`` (flavor ``gpt2``)
    or ``vocab.json`` + ``merges.txt`` (flavor ``vocab-merges``).  A path ending in ``.json`` names the
    vocabulary file itself.  The two files are written as a unit (:func:`~..atomic.write_group`): both
    new or, on any error, both as before.  Returns the two paths written."""
    path = os.fspath(path)
    names = PAIRS[0] if flavor == "gpt2" else PAIRS[1]
    vtext, mtext = dumps(model, special_ids, file_ids)  # refuses before anything is created
    created = ""
    if path.endswith(".json") and not os.path.isdir(path):
        folder = os.path.dirname(path) or "."
        vpath, mpath = path, os.path.join(folder, names[1])
    else:
        check_writable(path, folder=True)  # a file of that name, or a missing parent: refused
        if not os.path.isdir(path):
            try:
                os.mkdir(path)
            except OSError as e:
                raise WriteError(f"cannot create the folder {path} ({e.strerror}) -- choose another path") from None
            created = path
        vpath, mpath = os.path.join(path, names[0]), os.path.join(path, names[1])
    try:
        write_group([(vpath, vtext), (mpath, mtext)])  # both files new, or both old
    except BaseException:
        if created:
            with contextlib.suppress(OSError):
                os.rmdir(created)
        raise
    return vpath, mpath
