"""The File menu's work: open a tokenizer, save it, export it at the current step in another tool's format
(HF, GPT-2, tiktoken, subword-nmt), export the merge list as CSV.

Each function asks for a path (unless given one), calls the core, and turns a :class:`BpeError` (or an
``OSError``) into a dialog: the window never crashes on a bad file.  Writes are atomic (the core's
writers use ``atomic_write``).  It builds no widgets of its own beyond standard dialogs.
"""

from __future__ import annotations

import os
from typing import Any

from PySide6 import QtCore, QtWidgets

from ..core import formats
from ..core.errors import BpeError, FormatError
from ..core.formats import save_model
from ..core.formats.csv_stats import steps_csv
from ..core.io.atomic import atomic_write
from ..core.records import MergeRecord
from ..core.tokenizers.model import BPEModel
from .session import Session
from .training.protocol import StopReason, TrainingState

TOKENIZER_FILTER = "bpe-desktop tokenizer (*.json);;All files (*)"
#: what Open tokenizer offers: every format the readers detect (a GPT-2 pair: pick either of its files)
OPEN_TOKENIZER_FILTER = (
    "Tokenizer files (*.json *.tiktoken *.bpe *.txt *.codes);;bpe-desktop or HF tokenizer (*.json);;"
    "tiktoken ranks (*.tiktoken);;GPT-2 vocab.json / encoder.json (*.json);;subword-nmt codes (*.codes *.txt);;"
    "All files (*)"
)


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


def read_tokenizer(parent: QtWidgets.QWidget, path: str | None = None
                   ) -> tuple[BPEModel, list[MergeRecord], str, str] | None:
    """Read and fully validate a tokenizer file (any format, through :func:`core.formats.load`) without
    touching the window: (model, records, path, format), or None after a dialog saying why it was refused."""
    if path is None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(parent, "Open tokenizer", "", OPEN_TOKENIZER_FILTER)
        if not path:
            return None
    # a big tokenizer (cl100k: 100k merges recovered from its ranks) takes a second: say so with the cursor
    QtWidgets.QApplication.setOverrideCursor(QtCore.Qt.CursorShape.WaitCursor)
    try:
        loaded = formats.load(path)
        reason = getattr(loaded.tokenizer, "plain_reason", None)  # a tokenizer.json beyond our pre-tokenizers
        if reason is not None:
            raise FormatError(f"{path}: the timeline replays merges with our pre-tokenizers, and this "
                              f"tokenizer.json has {reason}, which they cannot express -- add it under Compare "
                              "tokenizers or the Log inspector, which run its whole pipeline")
        model = loaded.model
        records = records_for(model, loaded.stats)
    except BpeError as e:
        message = str(e)
    except (TypeError, KeyError, ValueError, AttributeError, IndexError, UnicodeError, RecursionError) as e:
        message = f"{path}: malformed tokenizer file ({type(e).__name__}: {str(e)[:80]}) -- the file is damaged"
    else:
        return model, records, path, loaded.fmt
    finally:
        QtWidgets.QApplication.restoreOverrideCursor()
    show_error(parent, "Cannot open tokenizer", message)
    return None


def open_tokenizer(parent: QtWidgets.QWidget, session: Session, path: str | None = None) -> BPEModel | None:
    """Load a tokenizer file into the session (its merges become the timeline); a refused file changes
    nothing."""
    got = read_tokenizer(parent, path)
    if got is None:
        return None
    return apply_tokenizer(session, *got)


def apply_tokenizer(session: Session, model: BPEModel, records: list[MergeRecord], path: str, fmt: str = ""
                    ) -> BPEModel:
    """Put a model read by :func:`read_tokenizer` into the session."""
    first = records[0] if records else None
    session.initial_symbols = first.symbols_before if first is not None and first.merged else 0
    session.reset_model(model, records)
    session.loaded_format = fmt  # e.g. "tiktoken": its tokens are encoded by tiktoken's rank rule
    session.set_stop(StopReason.LOADED, f"loaded from {path}")
    session.set_state(TrainingState.FINISHED)
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


#: file-dialog filter -> (format for core.formats.save_model, writes a folder, default name)
EXPORT_FORMATS: dict[str, tuple[str, bool, str]] = {
    "HF tokenizers tokenizer.json (*.json)": ("hf", False, "tokenizer.json"),
    "GPT-2 vocab.json + merges.txt (a folder)": ("vocab-merges", True, "tokenizer"),
    "GPT-2 encoder.json + vocab.bpe (a folder)": ("gpt2", True, "tokenizer"),
    "tiktoken ranks (*.tiktoken)": ("tiktoken", False, "tokenizer.tiktoken"),
    "subword-nmt codes (*.codes *.txt)": ("subword-nmt", False, "codes.txt"),
    "bpe-desktop native (*.json)": ("native", False, "tokenizer.json"),
}


def export_tokenizer(
    parent: QtWidgets.QWidget, session: Session, path: str | None = None, fmt: str | None = None
) -> bool:
    """Write the tokenizer *as it is at the timeline's current step* (its first k merges) in another tool's
    format; a format that cannot express it says which can (the error comes from the core writer)."""
    step = session.step
    if step <= 0:
        show_error(parent, "Nothing to export", "The timeline is at step 0 (no merges) -- train, or move "
                   "the timeline to the step whose tokenizer you want.")
        return False
    if path is None or fmt is None:
        chosen, flt = QtWidgets.QFileDialog.getSaveFileName(
            parent, f"Export the tokenizer at step {step:,}", "tokenizer.json", ";;".join(EXPORT_FORMATS))
        if not chosen:
            return False
        fmt = EXPORT_FORMATS.get(flt, ("native", False, ""))[0]
        path = chosen
    folder = fmt in ("gpt2", "vocab-merges")
    try:
        if folder:
            os.makedirs(path, exist_ok=True)
        save_model(session.model.truncated(step), path, fmt, session.records[:step])
    except (BpeError, OSError) as e:
        show_error(parent, "Cannot export tokenizer", str(e))
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
