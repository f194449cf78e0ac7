"""The File menu's work: open a tokenizer, save it, export it at the current step in another tool's format
(HF, GPT-2, tiktoken, subword-nmt), export the merge list as CSV.

Each function asks for a path (unless given one), calls the core, and turns a :class:`BpeError` (or an
``OSError``) into a dialog: the window never crashes on a bad file.  Writes are atomic (the core's
writers use ``atomic_write``).  Its one dialog of its own is the export dialog (:mod:`.export_dialog`);
success is said in the status bar.
"""

from __future__ import annotations

import os

from PySide6 import QtCore, QtWidgets

from ..core import formats
from ..core.config import TrainConfig
from ..core.counting.sources import CorpusSource
from ..core.errors import BpeError, FormatError, PretokenizerNeeded
from ..core.extend.reopen import reopen
from ..core.formats import save_model
from ..core.formats.csv_stats import steps_csv
from ..core.formats.hf.pipeline import HFTokenizer
from ..core.formats.hf.pipeline_ref import PipelineRef
from ..core.formats.presets import KNOWN, is_bundled, split_spec
from ..core.io.atomic import atomic_write
from ..core.records import MergeRecord
from ..core.text.pretokenize import NAMED_PATTERNS
from ..core.tokenizers.model import BPEModel
from ..core.tokenizers.ranks import RankTokenizer
from ..core.tokenizers.renumber import RenumberedTokenizer
from .loaded import records_for, tokenizer_config
from .modal_job import Cancelled, Progress, run_modal
from .session import Session
from .wording import plural
from .work import ExtensionOf, Work

#: a tokenizer.json shown through its own pipeline: the file by reference, and that pipeline
Pipeline = tuple[PipelineRef, HFTokenizer]
#: what :func:`load_for_timeline` reads: (model, records, format, pipeline, what it extends)
ForTimeline = tuple[BPEModel, list[MergeRecord], str, Pipeline | None, ExtensionOf | None]
#: what :func:`read_tokenizer` gives :func:`apply_tokenizer`: (model, records, path, format, pipeline, extends)
ReadTokenizer = tuple[BPEModel, list[MergeRecord], str, str, Pipeline | None, ExtensionOf | None]

TOKENIZER_FILTER = "bpe-desktop tokenizer (*.json);;All files (*)"
#: what Open tokenizer offers: every format the readers detect (a GPT-2 pair: pick either of its files)
OPEN_TOKENIZER_FILTER = (
    "Tokenizer files (*.json *.tiktoken *.bpe *.txt *.codes *.model *.model.*);;bpe-desktop or HF tokenizer "
    "(*.json);;tiktoken ranks (*.tiktoken);;GPT-2 vocab.json / encoder.json (*.json);;subword-nmt codes "
    "(*.codes *.txt);;SentencePiece BPE model (*.model *.model.*);;Mistral tekken (*.json);;All files (*)"
)

#: File → Open well-known tokenizer: (label, spec); their files ship with bpe-desktop (core/formats/presets.py).
#: p50k is left out: its ranks leave a gap (50256), so it has no merge list to step through (the CLI encodes with it)
BUNDLED_TOKENIZERS = (("GPT-2 (r50k_base)", "gpt2"), ("cl100k_base (GPT-3.5/4)", "cl100k"),
                      ("o200k_base (GPT-4o)", "o200k"))


def show_error(parent: QtWidgets.QWidget | None, title: str, message: str) -> None:
    """The one way the window reports a user error (tests patch ``QMessageBox.critical``)."""
    QtWidgets.QMessageBox.critical(parent, title, message)


#: a tokenizer file bigger than this (or a bundled one) is read on a helper thread behind a progress dialog
BACKGROUND_BYTES = 1 << 20


def _read_in_background(spec: str) -> bool:
    _, path = split_spec(spec)
    if is_bundled(path):
        return True
    try:
        return os.path.getsize(path) > BACKGROUND_BYTES
    except OSError:
        return False


def load_for_timeline(spec: str, pretokenizer: str | None, progress: Progress) -> ForTimeline:
    """Read *spec* and build what the timeline shows: (model, records, format, pipeline, extends).  Qt-free (it
    runs on a helper thread for big files).  *pipeline*: a ``tokenizer.json`` whose pipeline our pre-tokenizers
    cannot express (a normalizer, Metaspace...) is shown through its own pipeline, kept by reference (None:
    our replay is its pipeline); a file whose ids neither would give (SentencePiece, CLIP) is refused.
    *extends*: for a rank file read as ``cl100k:FILE`` whose ranks extend cl100k's (what Extend writes), the
    original and its merges -- the run's timeline starts there, as an extension run's (None otherwise)."""
    progress.stage = f"Reading {os.path.basename(spec)}…"
    loaded = formats.load(spec, pretokenizer=pretokenizer)
    progress.check()
    if loaded.fmt == "sentencepiece":  # the timeline replays merges; this file encodes by piece scores
        raise BpeError(f"{spec}: a SentencePiece model encodes by piece scores after its own "
                       "normalization, not by replaying a merge list, so the timeline would show other "
                       "tokens -- open it in Compare tokenizers or the Log inspector, which use its own ids")
    reason = getattr(loaded.tokenizer, "plain_reason", None)  # a tokenizer.json beyond our pre-tokenizers
    pipeline: Pipeline | None = None
    if reason is not None and loaded.fmt == "hf":
        pipeline = PipelineRef.reading(spec)  # (the file by reference, and the pipeline read from that text)
    elif reason is not None:  # CLIP: its text cleaning is no tokenizer.json pipeline
        raise FormatError(f"{spec}: the timeline replays merges with our pre-tokenizers, and this "
                          f"file has {reason}, which they cannot express -- add it under Compare "
                          "tokenizers or the Log inspector, which run its whole pipeline")
    tok = loaded.tokenizer.inner if isinstance(loaded.tokenizer, RenumberedTokenizer) else loaded.tokenizer
    extension: ExtensionOf | None = None
    preset, path = split_spec(spec)
    if pipeline is not None:
        model = pipeline[1].model
    elif isinstance(tok, RankTokenizer) and not tok.has_model:  # (tekken: ranks under renumbered ids)
        progress.stage = f"Recovering the {tok.n_merges:,} merges of {os.path.basename(spec)} from its ranks…"
        again = reopen(tok, progress.step) if preset is not None and not is_bundled(path) else None
        if again is None:
            model = tok.recover(progress.step)
        else:  # the merges of cl100k, then those the file adds: "step 0 = cl100k"
            model = again.model
            name = again.preset.name
            extension = ExtensionOf(name, name, again.start, "ranks", added=again.added)
    else:
        model = loaded.model
    progress.stage, progress.total = "Listing the merges…", 0
    records = records_for(model, loaded.stats, progress.step)
    return model, records, loaded.fmt, pipeline, extension


def read_tokenizer(parent: QtWidgets.QWidget, path: str | None = None) -> ReadTokenizer | None:
    """Read and fully validate a tokenizer file (any format, through :func:`core.formats.load`) without
    touching the window: (model, records, path, format, pipeline, extends), or None after a dialog saying why it
    was refused (or after Cancel).  A big file is read on a helper thread behind a progress dialog
    (:mod:`.modal_job`).  A rank file without a pattern is read as the user chooses (:func:`patternless`)."""
    if path is None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(parent, "Open tokenizer", "", OPEN_TOKENIZER_FILTER)
        if not path:
            return None

    def read(spec: str, pretokenizer: str | None) -> ForTimeline:
        if _read_in_background(spec):
            return run_modal(parent, "Opening tokenizer", lambda p: load_for_timeline(spec, pretokenizer, p))
        QtWidgets.QApplication.setOverrideCursor(QtCore.Qt.CursorShape.WaitCursor)  # a small file: a moment
        try:
            return load_for_timeline(spec, pretokenizer, Progress())
        finally:
            QtWidgets.QApplication.restoreOverrideCursor()

    try:
        try:
            model, records, fmt, pipeline, extension = read(path, None)
        except PretokenizerNeeded as need:
            again = patternless(parent, path, need)
            if again is None:
                return None  # cancelled: nothing changes
            model, records, fmt, pipeline, extension = read(*again)
    except Cancelled:
        return None
    except BpeError as e:
        message = str(e)
    except (TypeError, KeyError, ValueError, AttributeError, IndexError, UnicodeError, RecursionError) as e:
        message = f"{path}: malformed tokenizer file ({type(e).__name__}: {str(e)[:80]}) -- the file is damaged"
    else:
        return model, records, path, fmt, pipeline, extension
    show_error(parent, "Cannot open tokenizer", message)
    return None


def patternless(parent: QtWidgets.QWidget | None, spec: str, need: PretokenizerNeeded) -> tuple[str, str | None] | None:
    """How to read *spec*, a rank file that holds no pattern (*need* says why): (spec, pretokenizer) to read it
    with, or None when the user declines.  A file whose ranks extend a known encoding's (what Extend writes) is
    offered as that encoding extended -- its pattern and special tokens, the one exact reading and the one the
    CLI's message names (``cl100k:FILE``) -- and opened so only if the user says yes; any other is read with the
    pattern the user names (:func:`ask_pretokenizer`).  Nothing is guessed."""
    if need.extends:
        _, path = split_spec(spec)
        encoding = next((p.encoding for p in KNOWN if p.name == need.extends), need.extends)
        head = str(need).split(" -- ")[0].split(": ", 1)[-1]
        answer = QtWidgets.QMessageBox.question(
            parent, "Open as an extension",
            f"{os.path.basename(path)}: {head}.\n\nOpen it with {encoding}'s pattern and special tokens, as "
            f"{encoding} extended (the command line reads it as {need.extends}:FILE)? Its timeline then starts at "
            f"{need.extends} (step 0) and steps over the merges it adds.",
            QtWidgets.QMessageBox.StandardButton.Open | QtWidgets.QMessageBox.StandardButton.Cancel,
            QtWidgets.QMessageBox.StandardButton.Open)
        if answer != QtWidgets.QMessageBox.StandardButton.Open:
            return None
        return f"{need.extends}:{path}", None
    pre = ask_pretokenizer(parent, str(need))
    return None if pre is None else (spec, pre)


def ask_pretokenizer(parent: QtWidgets.QWidget | None, why: str) -> str | None:
    """Ask which pattern splits the text for a file that holds none (a .tiktoken file that is no known
    encoding): a named pattern or a regular expression typed in; None when cancelled.  Never guessed."""
    names = [n for n in NAMED_PATTERNS if n != "none"]
    head = why.split(" -- ")[0]
    text, ok = QtWidgets.QInputDialog.getItem(
        parent, "Pre-tokenizer needed",
        f"{head}.\n\nWhich pattern splits the text before the ranks apply? Choose a named pattern or type a "
        "regular expression:", names, 0, True)
    return text if ok and text else None


def open_tokenizer(parent: QtWidgets.QWidget, session: Session, path: str | None = None) -> BPEModel | None:
    """Load a tokenizer file into the session (its merges become the timeline); a refused file changes
    nothing."""
    got = read_tokenizer(parent, path)
    if got is None:
        return None
    return apply_tokenizer(session, *got)


def apply_tokenizer(session: Session, model: BPEModel, records: list[MergeRecord], path: str, fmt: str = "",
                    pipeline: Pipeline | None = None, extension: ExtensionOf | None = None,
                    corpus: CorpusSource | None = None, base: TrainConfig | None = None) -> BPEModel:
    """Show a model read by :func:`read_tokenizer` as a run of its own (the shown run stays in the list),
    over *corpus* (default: the shown run's), with the settings it implies (the rest from *base*).  *fmt*,
    e.g. "tiktoken": its tokens are encoded by that library's rank rule; *pipeline*: the file's own pipeline
    encodes the text (the run keeps the file's path: a saved session reads it again); *extension*: the file
    extends that original (its timeline starts after the original's merges, encoded by tiktoken's rank rule)."""
    config = tokenizer_config(model, base if base is not None else session.config)
    if extension is not None:  # (the Merges box: the merges it adds, as for an extension made here)
        config = config.with_(merges=extension.added)
    work = Work.loaded(model, records, corpus if corpus is not None else session.source, config,
                       f"loaded from {path}", fmt, pipeline)
    work.opened_from = path
    if extension is not None:
        work.extension = extension
        work.name = f"{extension.label} + {plural(extension.added, 'merge')} ({os.path.basename(path)})"
        work.opened_from = f"{extension.spec}:{path}"
    session.load(work)
    return model


def pipeline_refusal(session: Session) -> str:
    """Why the shown run's merges cannot be written alone ("" when they can): a tokenizer.json shown through
    its own pipeline would lose its normalizer / pre-tokenizer in any file we write; an extended rank table
    its rank rule and its specials' ids."""
    w = session.work
    ext = w.extension
    if ext is not None and ext.rule == "ranks":
        return (f"This run extends {ext.label}'s rank table: tiktoken encodes it by the rank of each token's bytes, "
                f"with {ext.label}'s special tokens between its ids and the new ones, which a merge list written here "
                f"would not keep -- use the file Extend wrote (in {ext.label}'s own format), or extend {ext.label} "
                "again with as many merges as the step you want.")
    if w.pipeline is None or w.pipeline_ref is None:
        return ""
    return (f"This run is shown through the pipeline of {w.pipeline_ref.path} ({w.pipeline.plain_reason}), "
            "which no file we write holds: its merges alone would tokenize differently -- use that file "
            "itself, or File > Save session, which keeps it by reference.")


def save_tokenizer(parent: QtWidgets.QWidget, session: Session, path: str | None = None) -> bool:
    """Write the whole merge list in the native format (with the per-merge stats)."""
    if not session.model.merges:
        show_error(parent, "Nothing to save", "There are no merges yet -- train first, then save.")
        return False
    if refusal := pipeline_refusal(session):
        show_error(parent, "Cannot save tokenizer", refusal)
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


def confirm(parent: QtWidgets.QWidget | None, message: str) -> None:
    """Say in the main window's status bar that a write succeeded (and where)."""
    window = parent.window() if parent is not None else None
    if isinstance(window, QtWidgets.QMainWindow):
        window.statusBar().showMessage(message)


def export_tokenizer(
    parent: QtWidgets.QWidget, session: Session, path: str | None = None, fmt: str | None = None
) -> bool:
    """Write the tokenizer *as it is at the timeline's current step* (its first k merges) in another tool's
    format.  Without *path* and *fmt* the export dialog asks, offering only the formats the writer accepts
    (the others greyed with its reason); a refusal writes nothing (no folder either: the writer checks
    before it creates one, as ``convert`` does).  Success is confirmed in the status bar with the path."""
    step = session.step
    if step <= 0:
        show_error(parent, "Nothing to export", "The timeline is at step 0 (no merges) -- train, or move "
                   "the timeline to the step whose tokenizer you want.")
        return False
    if refusal := pipeline_refusal(session):
        show_error(parent, "Cannot export tokenizer", refusal)
        return False
    model, records = session.model.truncated(step), session.records[:step]
    if path is None or fmt is None:
        from .export_dialog import ExportDialog

        dialog = ExportDialog(parent, model, records, step, _last_folder[0] or QtCore.QDir.homePath(),
                              session.shown_step(step))
        if dialog.exec() != QtWidgets.QDialog.DialogCode.Accepted or (chosen := dialog.chosen()) is None:
            return False
        path, fmt = dialog.path.text().strip(), chosen.fmt
    try:
        save_model(model, path, fmt, records)
    except (BpeError, OSError) as e:
        show_error(parent, "Cannot export tokenizer", str(e))
        return False
    _last_folder[0] = os.path.dirname(os.path.abspath(path))
    confirm(parent, f"Exported the tokenizer at step {session.shown_step(step):,} as {fmt} to {path}")
    return True


_last_folder = [""]  # where the last export went: the next one starts there


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
    confirm(parent, f"Exported {len(session.records):,} merges as CSV to {path}")
    return True
