"""The File menu's work: open a tokenizer, save it, export the merge list as CSV.

Each function asks for a path (unless given one), calls the core, and turns a :class:`BpeError` (or an
``OSError``) into a dialog: the window never crashes on a bad file.  Writes are atomic (the core's
writers use ``atomic_write``).  It builds no widgets of its own beyond standard dialogs.
"""

from __future__ import annotations

from typing import Any

from PySide6 import QtWidgets

from ..cli.train import steps_csv
from ..core.atomic import atomic_write
from ..core.errors import BpeError, FormatError
from ..core.formats import load_model, native, save_model
from ..core.model import BPEModel
from ..core.records import MergeRecord
from .session import Session

TOKENIZER_FILTER = "bpe-desktop tokenizer (*.json);;All files (*)"


def show_error(parent: QtWidgets.QWidget | None, title: str, message: str) -> None:
    """The one way the window reports a user error (tests patch ``QMessageBox.critical``)."""
    QtWidgets.QMessageBox.critical(parent, title, message)


def records_for(model: BPEModel, stats: list[dict[str, Any]] | None = None) -> list[MergeRecord]:
    """Merge records rebuilt from a loaded model, with the native file's per-merge stats when it has them
    (otherwise counts are 0: the file does not say why each merge was chosen)."""
    out = []
    usable = stats if stats and len(stats) == len(model.merges) else None
    for k, ((a, b), c) in enumerate(zip(model.merges, model.merge_token_ids, strict=True), 1):
        st = usable[k - 1] if usable else {}
        out.append(MergeRecord(
            rank=k, left=model.token_str(a), right=model.token_str(b), token=model.token_str(c),
            left_id=a, right_id=b, token_id=c, count=int(st.get("count", 0)), merged=int(st.get("merged", 0)),
            symbols_after=int(st.get("symbols_after", 0)), vocab_size=model.vocab_size_at(k),
            words_touched=int(st.get("words_touched", 0)),
            contenders=tuple((str(x), str(y), int(n)) for x, y, n in st.get("contenders", ())),
        ))
    return out


def _load(path: str) -> tuple[BPEModel, list[dict[str, Any]]]:
    """Any readable tokenizer file; the native format also gives back its training stats."""
    try:
        return native.load(path)
    except FormatError:
        return load_model(path), []


def open_tokenizer(parent: QtWidgets.QWidget, session: Session, path: str | None = None) -> BPEModel | None:
    """Load a tokenizer file into the session (its merges become the timeline)."""
    if path is None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(parent, "Open tokenizer", "", TOKENIZER_FILTER)
        if not path:
            return None
    try:
        model, stats = _load(path)
        records = records_for(model, stats)
    except BpeError as e:
        show_error(parent, "Cannot open tokenizer", str(e))
        return None
    first = records[0] if records else None
    session.initial_symbols = first.symbols_before if first is not None and first.merged else 0
    session.reset_model(model, records)
    session.stop_reason = f"loaded from {path}"
    session.set_state("finished")
    return model


def save_tokenizer(parent: QtWidgets.QWidget, session: Session, path: str | None = None) -> bool:
    """Write the whole merge list in the native format (with the per-merge stats)."""
    if not session.model.merges:
        show_error(parent, "Nothing to save", "There are no merges yet -- train first, then save.")
        return False
    if path is None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(parent, "Save tokenizer", "tokenizer.json",
                                                        TOKENIZER_FILTER)
        if not path:
            return False
    try:
        save_model(session.model, path, "native", session.records)
    except (BpeError, OSError) as e:
        show_error(parent, "Cannot save tokenizer", str(e))
        return False
    return True


def export_merges_csv(parent: QtWidgets.QWidget, session: Session, path: str | None = None) -> bool:
    """Write one CSV row per merge (the CLI's ``--steps`` format)."""
    if not session.records:
        show_error(parent, "Nothing to export", "There are no merges yet -- train first, then export.")
        return False
    if path is None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(parent, "Export merges", "merges.csv",
                                                        "CSV (*.csv);;All files (*)")
        if not path:
            return False
    try:
        with atomic_write(path) as f:
            f.write(steps_csv(session.records))
    except (BpeError, OSError) as e:
        show_error(parent, "Cannot export merges", str(e))
        return False
    return True
