"""Step 0 before any training: the corpus editor's text cut into its base symbols (characters with the
end-of-word marker, or bytes), so the token stream shows what training will start from instead of a blank.

:class:`BasePreview` watches the session: while nothing was trained or loaded, each new editor text (or a
change of settings) puts an empty model over that text's alphabet into the session and marks it
``session.preview_base``.  Training (``set_corpus``) or opening a tokenizer replaces it.  It leaves out
drawing (the canvas draws the rows as at any step) and never touches a trained model.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6 import QtCore

from ...core.config import TrainConfig
from ...core.errors import BpeError
from ...core.model import BPEModel
from ..session import Session
from ..training.protocol import TrainingState


class BasePreview(QtCore.QObject):
    """Keeps an untrained session's model at the base alphabet of the text shown (see the module docstring)."""

    def __init__(self, session: Session, config: Callable[[], TrainConfig], parent: QtCore.QObject | None = None
                 ) -> None:
        super().__init__(parent)
        self.session = session
        self._config = config
        session.displayTextChanged.connect(self.refresh)

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
        s.preview_base = True
        s.reset_model(model)
