"""Help → Algorithm: the README's "The algorithm, exactly" section inside the program, rendered from its
Markdown (``QTextBrowser.setMarkdown``).

:data:`ALGORITHM_MD` is a copy of that section; ``tests/gui/test_help.py`` fails when README and this copy
differ, so the two are edited together.  It leaves out the rest of the README.
"""

from __future__ import annotations

from PySide6 import QtWidgets

TITLE = "The algorithm, exactly"

#: README.md's section "## The algorithm, exactly", without its heading (kept equal by a test)
ALGORITHM_MD = """\
- **Counting**: a pair's count is the number of adjacent positions, weighted by word counts, overlaps
  included (`aaaa` has three `a a`); a merge replaces occurrences left to right without overlaps, so the
  corpus shrinks by exactly the occurrences merged.
- **Modes**: `chars` — characters plus an end-of-word marker (`</w>` by default; a symbol of its own as in
  the seeds, or glued to the last character with `--glue-marker`, as subword-nmt 0.2 and HF do);
  `bytes` — the 256 UTF-8 bytes, never an unknown token, shown through GPT-2's byte-to-unicode mapping.
- **Pre-tokenization**: `none`, `whitespace` (the seeds), `subword-nmt` (spaces and newlines only, as
  subword-nmt splits), `gpt2`, `cl100k`, `o200k`, or any regular expression (errors give the position; a
  runaway pattern times out instead of hanging).
- **Tie-break rules**: `lexical` (highest count, then the smallest pair in string order — seed 000),
  `first-seen` (then the pair that occurs first in the corpus — seeds 001/002), `hf` (then the smallest
  pair of symbol ids — exactly HF tokenizers' `BpeTrainer`: the merge lists are identical, tested on
  Python's own documentation), `subword-nmt` (then the largest pair in string order — `learn_bpe`'s codes,
  line for line).
- **Encoding at step k** replays the first k merges in learned order; ids never change between steps.
- **Special tokens** are cut out of the training text and never merged; when encoding they are refused
  unless allowed, as tiktoken does.
"""


class AlgorithmDialog(QtWidgets.QDialog):
    """A resizable window with the algorithm's rules."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("algorithmHelp")
        self.setWindowTitle(TITLE)
        self.browser = QtWidgets.QTextBrowser(self)
        self.browser.setOpenExternalLinks(True)
        self.browser.setMarkdown(f"## {TITLE}\n\n{ALGORITHM_MD}")
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addWidget(self.browser, 1)
        lay.addWidget(buttons)
        self.resize(760, 440)
