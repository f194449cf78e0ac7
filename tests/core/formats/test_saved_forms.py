"""Saved files are byte-identical to those of the version before ``Mode``/``TieBreak`` became enums.

``saved_forms/`` holds every write format, a counts table and a session file, written by the checkout
before that change (``PYTHONPATH=<that checkout> python tests/core/formats/test_saved_forms.py DIR``).  The
tests write the same runs with this checkout and compare bytes, and load the old files back.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from bpe_desktop.core import TrainConfig, train
from bpe_desktop.core.counting.count_table import read_table, write_table
from bpe_desktop.core.errors import FormatError
from bpe_desktop.core.formats import WRITE_FORMATS, load, save_model
from bpe_desktop.core.formats.session_file import SessionCorpus, SessionDoc, dumps_session, load_session

GOLDEN = Path(__file__).parent / "saved_forms"
WORDS = {"low": 5, "lower": 2, "newest": 6, "widest": 3, "héllo": 2, " the": 4, "the": 3}
RUNS = {  # name -> settings, given as the text a file or the command line holds
    "chars-lexical": dict(mode="chars", tie_break="lexical", merges=12),
    "chars-glued-first-seen": dict(mode="chars", tie_break="first-seen", glue_marker=True, merges=12),
    "bytes-hf": dict(mode="bytes", tie_break="hf", pretokenizer="gpt2", merges=12, specials=("<s>",)),
}
ONLY = {"subword-nmt": "chars", "tiktoken": "bytes"}  # formats that hold one mode only


def write_all(folder: Path) -> list[Path]:
    """Write every run in every format it has, its counts table and a session file, into *folder*."""
    written = []
    for name, settings in RUNS.items():
        config = TrainConfig(**settings)
        model, records = train(WORDS, config)
        for fmt in WRITE_FORMATS:
            if ONLY.get(fmt, settings["mode"]) != settings["mode"]:
                continue
            path = folder / f"{name}.{fmt}"
            try:
                save_model(model, path, fmt, records)
            except FormatError:  # e.g. HF files cannot hold a marker of its own; the same in both versions
                continue
            written.append(path)
        write_table(folder / f"{name}.counts", dict(WORDS), config)
        doc = SessionDoc(SessionCorpus.from_text("low lower newest widest"), config, model, tuple(records), 5)
        (folder / f"{name}.session").write_text(dumps_session(doc), encoding="utf-8")
        written += [folder / f"{name}.counts", folder / f"{name}.session"]
    return written


SAVED_BY = re.compile(rb'"saved_by": "bpe-desktop [^"]*"')  # the program's version, which may move on


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): SAVED_BY.sub(b'"saved_by": "bpe-desktop"', p.read_bytes())
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_every_saved_form_is_byte_identical_to_the_old_version(tmp_path: Path) -> None:
    write_all(tmp_path)
    old, new = _files(GOLDEN), _files(tmp_path)
    assert len(old) >= 20  # every format of every run, not an empty folder
    assert sorted(new) == sorted(old)
    for name in old:
        assert new[name] == old[name], name


@pytest.mark.parametrize("name", list(RUNS))
def test_old_files_load_with_their_settings(name: str) -> None:
    settings = RUNS[name]
    loaded = load(GOLDEN / f"{name}.native")
    assert loaded.model.mode == settings["mode"] and loaded.model.mode is type(loaded.model.mode)(settings["mode"])
    assert loaded.model.tie_break == settings["tie_break"]
    doc = load_session(GOLDEN / f"{name}.session")
    assert doc.config == TrainConfig(**settings)
    assert doc.config.mode == settings["mode"] and doc.config.tie_break == settings["tie_break"]
    again = SAVED_BY.sub(b"", dumps_session(doc).encode("utf-8"))
    assert again == SAVED_BY.sub(b"", (GOLDEN / f"{name}.session").read_bytes())
    header, counts = read_table(str(GOLDEN / f"{name}.counts"))
    assert header.mode == settings["mode"] and counts == WORDS


if __name__ == "__main__":
    out = Path(sys.argv[1])
    os.makedirs(out, exist_ok=True)
    for p in write_all(out):
        print(p)
