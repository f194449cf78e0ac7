"""A hand-built extension run for window tests: a rank table bc, ab extended by abc (= ab + c).

tiktoken's rank rule makes abc from a + bc (its bytes' rank); a replay of the merges never does (a + bc is no
merge).  The extension trainer does not learn such a merge on its own (every search for one found none); a session
file can hold one, and the rank rule is what every pane encodes it by -- so a test on it fails for any pane that
replays."""

from __future__ import annotations

from bpe_desktop.core.counting.sources import CorpusSource
from bpe_desktop.core.tokenizers.model import RAW_BYTE_BASE, BPEModel
from bpe_desktop.gui.loaded import records_for, tokenizer_config
from bpe_desktop.gui.work import ExtensionOf, Work

TINY = BPEModel("bytes", list(RAW_BYTE_BASE), [(98, 99), (97, 98), (257, 99)], pretokenizer="gpt2")
TINY_TEXT = "abc abc abc\nab\n"


def tiny_extension() -> Work:
    """The TINY table's extension as a run, shown at its last step: its first two merges the original's ("tiny"),
    then abc."""
    work = Work.loaded(TINY, records_for(TINY), CorpusSource.from_text(TINY_TEXT, name="abc"),
                       tokenizer_config(TINY, Work.empty().config), "tiny extended", "tiktoken")
    work.extension = ExtensionOf("tiny", "tiny", 2, "ranks", added=1, corpus="abc")
    work.name = work.extension.name
    return work
