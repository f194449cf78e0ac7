"""Step 0 before the trainer has counted: the text cut into its base symbols (characters with the end-of-word
marker, or bytes), so the token stream shows what training will start from -- not a blank before training,
nor every character as "unknown" while a new corpus is being counted.

:class:`BasePreview` watches the session: while nothing was trained or loaded, each new editor text (or a
change of settings) puts an empty model over that text's alphabet into the session
(``reset_model(..., preview=True)``, so ``session.preview_base``); when a run starts counting, the same over
the rows the token view shows.  The trainer's own model (``Started``) or an opened tokenizer replaces it.
It leaves out drawing (the canvas draws the rows as at any step) and never touches a trained model.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6 import QtCore

from ...core.choices import Mode
from ...core.config import TrainConfig
from ...core.errors import BpeError
from ...core.tokenizers.model import BPEModel
from ..session import Session
from ..training.protocol import TrainingState
from .rows import RowSource

#: characters of the shown rows scanned for the alphabet while counting (the whole of a big text would stall
#: the GUI thread; rows further down may show a rare character as unknown until the trainer's model arrives)
HEAD_CHARS = 256 << 10


def head_alphabet(rows: RowSource, mode: Mode) -> set[str]:
    """The characters of the first :data:`HEAD_CHARS` of the rows (bytes mode needs none: 256 bytes)."""
    if mode == Mode.BYTES:
        return set()
    out: set[str] = set()
    seen = 0
    for i in range(rows.n_rows):
        text = rows.row_text(i)
        out.update(text)
        seen += len(text)
        if seen >= HEAD_CHARS:
            break
    return out


class BasePreview(QtCore.QObject):
    """Keeps an untrained session's model at the base alphabet of the text shown (see the module docstring)."""

    def __init__(self, session: Session, config: Callable[[], TrainConfig], rows: RowSource | None = None,
                 parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._config = config
        self._rows = rows
        session.displayTextChanged.connect(self.refresh)
        session.trainingStateChanged.connect(self._state_changed)

    def _state_changed(self, state: TrainingState) -> None:
        """A run started counting: show its rows in base symbols until the trainer's model arrives."""
        s, rows = self.session, self._rows
        if state is not TrainingState.COUNTING or s.records or s.initial_symbols or rows is None:
            return
        text = s.source.text
        if text is not None:  # the run's own text (the rows may still show the previous corpus)
            alphabet = set() if s.config.mode == Mode.BYTES else set(text[:HEAD_CHARS])
        else:
            alphabet = head_alphabet(rows, s.config.mode)
        s.reset_model(BPEModel.empty(s.config, alphabet=alphabet), preview=True)

    def untrained(self) -> bool:
        s = self.session
        return (not s.records and s.state is TrainingState.IDLE and s.stop_reason is None
                and s.word_counts is None and (s.preview_base or not s.model.merges))

    def refresh(self, *_: object) -> None:
        s = self.session
        if s.display_text is None or not self.untrained():
            return
        try:
            cfg = self._config()
        except BpeError:
            return  # invalid settings: the settings pane says why; keep what is shown
        model = BPEModel.empty(cfg, alphabet=set(s.display_text))
        if s.preview_base and model.base == s.model.base and model.mode == s.model.mode:
            return
        s.reset_model(model, preview=True)
