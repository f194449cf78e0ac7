"""The corpus pane: edit the training text or a word-count table in place, or open files.

The text is a plain-text table (``word count`` per line, as in the seeds) or running text; which one is
detected with :func:`~bpe_desktop.core.counting.pieces.looks_like_word_counts` until the user sets the toggle.
Files open from the menu or by drag-and-drop.  A file larger than ``LARGE_FILE_BYTES`` (or not valid
UTF-8, or holding a line longer than ``LONG_LINE_CHARS``: a text editor lays a long line out for a long
time) is shown as a read-only preview of its beginning, its long lines cut at ``LONG_LINE_CHARS``, and
:meth:`CorpusEditor.source` names the file so that the worker process reads all of it.  A text set here
(a session's, a run's) longer than ``LARGE_FILE_BYTES`` characters is shown the same way -- a read-only
preview, the whole text kept beside it for :meth:`CorpusEditor.text` and training -- because laying out
a text that large blocks the window for seconds (figures in benchmarks/RESULTS.md).  Edits reach the
session ~300 ms after the last key as its ``display_text`` (the token view shows them tokenized by the
current model); a previewed file is never pushed there.  A read-only preview is put in the editor in pieces:
its first :data:`PREVIEW_FIRST_CHARS` at once, the rest :data:`PREVIEW_APPEND_CHARS` a turn of the event loop
(a run's load sets the editor among every other pane's reset: the whole preview at once was a stall of its own).
When a run's corpus is shown as such a preview, what the pane *says* (:meth:`CorpusEditor.source`, the file named,
``edited``) changes with the run, and its widgets -- the preview's first piece, the notice, the title -- are filled
on a turn of their own before the window's paint (:func:`~..widgets.repaint_hold.hold_repaint`'s *first*: the
window is not painted in between).  :meth:`CorpusEditor.settle` fills them and puts the rest in now, and reading
the editor's text or setting another does.  It does not count or train.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6 import QtCore, QtGui, QtWidgets

from ...core.counting.count_table import is_table, parse_header
from ...core.counting.pieces import looks_like_word_counts
from ...core.counting.sources import CorpusSource
from ...core.errors import CorpusError
from ...core.io.sizes import format_bytes
from ...core.text.inputs import Input, read_head
from ..session import Session
from ..widgets.elided_label import ElidedLabel, Part
from ..widgets.repaint_hold import hold_repaint
from ..widgets.timers import one_shot
from ..wording import plural
from . import text_facts

LIVE_TEXT_MS = 300  # edits are shown in the token view this long after the last key
LARGE_FILE_BYTES = 2 << 20  # larger files: read-only preview, the worker reads the file
PREVIEW_BYTES = 256 << 10
LONG_LINE_CHARS = 10_000  # a line longer than this is cut in a preview (and makes a file a preview)
PREVIEW_FIRST_CHARS = 16 << 10  # a read-only preview's part put in the editor at once (whole lines) ...
PREVIEW_APPEND_CHARS = 32 << 10  # ... and the part appended on each later turn


def _longest_line(text: str) -> int:
    return max(map(len, text.split("\n"))) if text else 0


def _cut_long_lines(text: str) -> str:
    return "\n".join(ln if len(ln) <= LONG_LINE_CHARS else ln[:LONG_LINE_CHARS] + " …"
                     for ln in text.split("\n"))


def _piece_end(text: str, limit: int) -> int:
    """Where the first piece of *text* of at most *limit* characters ends: after a line when there is one,
    never between a CR and its LF (the editor reads the pair as one line break only in one piece)."""
    if len(text) <= limit:
        return len(text)
    cut = text.rfind("\n", 0, limit) + 1 or limit
    return cut - 1 if cut > 1 and text[cut - 1] == "\r" and text[cut : cut + 1] == "\n" else cut


def _file_bytes(path: str) -> int:
    """The file's size on disk (0 when it cannot be told: reading it then says why)."""
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _preview(text: str) -> str:
    """The first ``PREVIEW_BYTES`` characters of a large text, whole lines when it has any, long lines cut."""
    head = text[:PREVIEW_BYTES]
    head = head[: head.rfind("\n") + 1] or head
    return _cut_long_lines(head) if _longest_line(head) > LONG_LINE_CHARS else head


def corpus_of_file(path: str, word_counts: bool = False) -> CorpusSource:
    """The corpus the editor makes of the file at *path* (what :meth:`CorpusEditor.open_file` then gives
    :meth:`CorpusEditor.source`): a small clean UTF-8 file is its text, named after the file; a counts
    table, a large, non-UTF-8 or long-lined file, or one that cannot be read now, the file by reference."""
    try:
        if is_table(path):
            return CorpusSource.from_files([path], word_counts=True)
        size = os.path.getsize(path)
        if size <= LARGE_FILE_BYTES:
            with open(path, "rb") as f:
                text = f.read().decode("utf-8")
            if _longest_line(text) <= LONG_LINE_CHARS:
                return CorpusSource.from_text(text, word_counts=word_counts, name=os.path.basename(path))
    except (OSError, UnicodeDecodeError, CorpusError):
        pass
    return CorpusSource.from_files([os.fspath(path)], word_counts=word_counts)


def _size(n: int) -> str:
    return format_bytes(n)  # the program's one size rule


class _Editor(QtWidgets.QPlainTextEdit):
    """A plain-text editor that hands dropped files to its pane instead of inserting their names."""

    filesDropped = QtCore.Signal(list)

    def dragEnterEvent(self, e: QtGui.QDragEnterEvent) -> None:
        if e.mimeData().hasUrls():
            e.acceptProposedAction()
        else:
            super().dragEnterEvent(e)

    def dragMoveEvent(self, e: QtGui.QDragMoveEvent) -> None:
        if e.mimeData().hasUrls():
            e.acceptProposedAction()
        else:
            super().dragMoveEvent(e)

    def dropEvent(self, e: QtGui.QDropEvent) -> None:
        paths = [u.toLocalFile() for u in e.mimeData().urls() if u.isLocalFile()]
        if paths:
            e.acceptProposedAction()
            self.filesDropped.emit(paths)
        else:
            super().dropEvent(e)


class CorpusEditor(QtWidgets.QWidget):
    """Signals: ``edited()`` when the corpus (text, file or table toggle) changes; ``openFailed(str)``;
    ``tableOpened(TableHeader)`` when a counts table from ``bpe-desktop count`` is opened (the settings must
    then follow the table's mode, pre-tokenizer and special tokens)."""

    edited = QtCore.Signal()
    openFailed = QtCore.Signal(str)
    tableOpened = QtCore.Signal(object)

    def __init__(self, session: Session, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.path: str | None = None  # set when the trainer should read a file rather than the text
        self.name = "<editor>"
        self._user_toggled = False
        self._typed = False  # the text was typed or edited here since it was last set
        self._whole: str | None = None  # a large text set here, of which the editor shows a preview
        self._shown: str | None = None  # the editor's text as last read or set (None once it changes)
        self._rest = ""  # a read-only preview's part still to be appended to the editor
        self._fill_later = False  # a run's corpus is being shown: its preview's widgets are filled a turn later ...
        self._fills: list[Callable[[], None]] = []  # ... by these, in order (see _fill)
        self.title = ElidedLabel("", self)  # a long file name is elided, not widening the dock (and the window)
        self.title.setProperty("muted", True)
        self.title.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        self.table_toggle = QtWidgets.QCheckBox("word-count table", self)
        self.table_toggle.setToolTip("Each line is 'word count' (as in the seeds) instead of running text")
        self.editor = _Editor(self)
        self.editor.setFont(QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont))
        self.editor.setLineWrapMode(QtWidgets.QPlainTextEdit.LineWrapMode.NoWrap)
        self.editor.setPlaceholderText("Type or paste text here, or drop a file…")
        self.editor.setAcceptDrops(True)
        self.notice = QtWidgets.QLabel(self)
        self.notice.setObjectName("banner")
        self.notice.setWordWrap(True)
        self.notice.hide()
        top = QtWidgets.QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.table_toggle)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(top)
        lay.addWidget(self.notice)
        lay.addWidget(self.editor, 1)
        self._detect = QtCore.QTimer(self, singleShot=True, interval=300)
        self._detect.timeout.connect(self._auto_detect)
        self._live = QtCore.QTimer(self, singleShot=True, interval=LIVE_TEXT_MS)
        self._live.timeout.connect(self.publish_display_text)
        self._append_due = one_shot(self, 1, self._append_more)  # (1 ms: a turn of its own, see inspect/panel.py)
        self.editor.document().contentsChanged.connect(self._forget_shown)
        self.editor.textChanged.connect(self._text_changed)
        self.editor.filesDropped.connect(self._dropped)
        self.table_toggle.clicked.connect(self._toggled)
        session.workLoaded.connect(self._work_loaded)
        self._update_title()

    # -- public -------------------------------------------------------------------------------------
    def source(self) -> CorpusSource:
        """What the trainer should read: the file when one is previewed, else the editor's text."""
        table = self.table_toggle.isChecked()
        if self.path is not None:
            return CorpusSource.from_files([self.path], word_counts=table)
        return CorpusSource.from_text(self.text(), word_counts=table, name=self.name)

    def text(self) -> str:
        """The corpus text (all of it when the editor previews a large one; a file's preview otherwise)."""
        return self._whole if self._whole is not None else self._editor_text()

    def typed_source(self) -> CorpusSource | None:
        """The corpus, when its text was typed or edited here (and so exists nowhere else); else None."""
        return self.source() if self._typed and self.path is None else None

    def show_source(self, source: CorpusSource) -> None:
        """Show *source* (a run's corpus): its text, or its file (an unreadable file shows as missing)."""
        if source == self.source():
            return
        if source.paths:
            try:
                self.open_file(source.paths[0])
            except CorpusError:
                self.set_text("", name=os.path.basename(source.paths[0]) + " (missing)")
                return
            self.table_toggle.setChecked(source.word_counts)
            self._user_toggled = True
            self.edited.emit()
        else:
            self.set_text(source.text or "", name=source.name, word_counts=source.word_counts)

    def _work_loaded(self) -> None:
        w = self.session.work
        self._fill_later = True  # (a preview's widgets: a turn of their own, before the window's paint)
        try:
            self.show_source(w.draft or w.source)
        finally:
            self._fill_later = False
        self.publish_display_text()

    def set_text(self, text: str, name: str = "<editor>", word_counts: bool | None = None, *,
                 preview: bool = False) -> None:
        """Show *text* (editable); the table toggle follows *word_counts* or is detected.  *preview*: the
        caller makes it a read-only preview (a file's) once it is set, and says ``edited`` then."""
        self._fill_now()
        self._typed = False
        self.path = None
        self.name = name
        self._user_toggled = word_counts is not None
        self._whole = text if len(text) > LARGE_FILE_BYTES else None
        shown = text if self._whole is None else _preview(text)
        in_pieces = preview or self._whole is not None  # (a read-only preview)
        self.editor.setReadOnly(in_pieces)  # (at once: no key reaches the old text meanwhile)
        self._fill(lambda: self._put(shown, in_pieces), later=in_pieces)
        self._shown = None  # (the document's copy: it may differ from *shown*, e.g. in line separators)
        self.table_toggle.setChecked(looks_like_word_counts(shown) if word_counts is None else word_counts)
        if self._whole is not None:
            self._say(f"This text is {_size(text_facts.facts(text).n_bytes)}: a read-only "
                      f"preview of its first {_size(len(shown.encode('utf-8', 'surrogateescape')))} is "
                      "shown (a text this large is not edited here). Training reads the whole text.")
        elif not preview:  # (a preview's caller says what it is, and names the file in the title)
            self.notice.hide()
        if not preview:  # (else the caller says it once the file is named: the corpus is the file)
            self._fill(self._update_title, later=in_pieces)
            self._changed()

    def publish_display_text(self) -> None:
        """Hand the editor's text to the session for the token view (nothing for a previewed file)."""
        self._live.stop()
        if self.path is not None:
            self.session.set_display_text(None)
        else:
            self.session.set_display_text(self.text(), self.table_toggle.isChecked())

    def open_file(self, path: str) -> None:
        """Open a text file: small UTF-8 files become editable text, others a read-only preview; a counts
        table (``bpe-desktop count``) opens as a read-only preview the trainer reads as word counts."""
        if is_table(path):
            self._open_table(path)
            return
        # the text training reads: decompressed, a regular file only (a FIFO or a device is refused)
        compressed = Input(os.fspath(path), 0).compression
        big = not compressed and _file_bytes(path) > LARGE_FILE_BYTES  # (a preview's head is all it needs read)
        head, more = read_head(os.fspath(path), PREVIEW_BYTES if compressed or big else LARGE_FILE_BYTES)
        if more and not compressed:
            head = head[:PREVIEW_BYTES]
        large = more or bool(compressed)  # a compressed file is always a preview: training reads the file
        try:
            text = head.decode("utf-8")
            utf8 = True
        except UnicodeDecodeError:
            text = head.decode("utf-8", "replace")
            utf8 = large  # a cut may split a character: only small files must be clean
        name = os.path.basename(path)
        long_lines = _longest_line(text) > LONG_LINE_CHARS
        if not large and utf8 and not long_lines:
            self.set_text(text, name)
            return
        if more:
            text = text[: text.rfind("\n") + 1] or text
        self.set_text(_cut_long_lines(text[:PREVIEW_BYTES]) if long_lines else text, name, preview=True)
        self.path = os.fspath(path)
        why = ("is not valid UTF-8" if not utf8 else f"is compressed ({compressed})" if compressed
               else f"is {_size(os.path.getsize(path))}" if more
               else f"has lines longer than {LONG_LINE_CHARS:,} characters")
        cut = f" (lines cut at {LONG_LINE_CHARS:,} characters)" if long_lines else ""
        self._say(f"{name} {why}: this is a read-only preview of its first "
                  f"{_size(min(len(head), PREVIEW_BYTES))}{' of text' if compressed else ''}{cut}. "
                  "Training reads the whole file.")
        self._fill(self._update_title)
        self._changed()

    def settle(self) -> None:
        """Fill the widgets and put the rest of a read-only preview in the editor now (what it shows is then all
        of the preview)."""
        self._fill_now()
        self._append_due.stop()
        while self._rest:
            self._append_more(reschedule=False)

    # -- internals ----------------------------------------------------------------------------------
    def _fill(self, fill: Callable[[], None], later: bool = True) -> None:
        """Fill widgets by calling *fill*: now, or -- *later* while a run's corpus is shown -- on the turn the
        window holds its paint for (in order, after the fills asked for before)."""
        if not (later and self._fill_later):
            fill()
            return
        if not self._fills:
            hold_repaint(self, first=self._filled_late)
        self._fills.append(fill)

    def _filled_late(self) -> None:
        self._fill_now()
        if self._append_due.isActive():  # (the rest of the preview: after the paint, not in its turn)
            self._append_due.stop()
            hold_repaint(self, then=self._append_due.start)

    def _fill_now(self) -> None:
        fills, self._fills = self._fills, []
        for fill in fills:
            fill()

    def _say(self, notice: str) -> None:
        """Show *notice* above the preview (see :meth:`_fill`)."""
        def say() -> None:
            self.notice.setText(notice)
            self.notice.show()

        self._fill(say)

    def _put(self, shown: str, in_pieces: bool) -> None:
        """Set the editor's text to *shown*: at once, or (*in_pieces*, a read-only preview) its first whole
        lines now and the rest on later turns."""
        self._append_due.stop()
        cut = _piece_end(shown, PREVIEW_FIRST_CHARS) if in_pieces else len(shown)
        self._rest = shown[cut:]
        self.editor.blockSignals(True)
        self.editor.setPlainText(shown[:cut])
        self.editor.blockSignals(False)
        if self._rest:
            self._append_due.start()

    def _append_more(self, reschedule: bool = True) -> None:
        rest = self._rest
        cut = _piece_end(rest, PREVIEW_APPEND_CHARS)
        self._rest = rest[cut:]
        doc = self.editor.document()
        undo = doc.isUndoRedoEnabled()
        doc.setUndoRedoEnabled(False)  # (a read-only preview: nothing to undo)
        end = QtGui.QTextCursor(doc)
        end.movePosition(QtGui.QTextCursor.MoveOperation.End)
        self.editor.blockSignals(True)  # not an edit
        end.insertText(rest[:cut])
        self.editor.blockSignals(False)
        doc.setUndoRedoEnabled(undo)
        if self._rest and reschedule:
            self._append_due.start()

    def _editor_text(self) -> str:
        """The editor's text, copied out of its document once per change: a run's load asks for the
        corpus (``source()``) from many slots, and each copy of a preview-sized text takes a while."""
        if self._shown is None:
            self.settle()
            self._shown = self.editor.toPlainText()
        return self._shown

    def _forget_shown(self) -> None:
        self._shown = None

    def _open_table(self, path: str) -> None:
        head, _ = read_head(path, PREVIEW_BYTES)
        text = head.decode("utf-8", "replace")
        header = parse_header(text.split("\n", 1)[0], path)
        name = os.path.basename(path)
        self.set_text(text[: text.rfind("\n") + 1] or text, name, word_counts=True, preview=True)
        self.path = os.fspath(path)
        self._say(f"{name} is a counts table ({header.describe()}): training reads its word counts, "
                  "so the settings now use its mode, pre-tokenizer and special tokens.")
        self._fill(self._update_title)
        self._changed()
        self.tableOpened.emit(header)

    def _changed(self) -> None:
        self._live.start()
        self.edited.emit()

    def _dropped(self, paths: list[str]) -> None:
        try:
            self.open_file(paths[0])
        except CorpusError as e:
            self.openFailed.emit(str(e))

    def _text_changed(self) -> None:
        self._typed = True
        self._detect.start()
        self._live.start()
        self.edited.emit()

    def _auto_detect(self) -> None:
        if not self._user_toggled:
            self.table_toggle.setChecked(looks_like_word_counts(self._editor_text()[:PREVIEW_BYTES]))
        self._update_title()

    def _toggled(self) -> None:
        self._user_toggled = True
        self._update_title()
        self._live.start()
        self.edited.emit()

    def _update_title(self) -> None:
        kind = "word-count table" if self.table_toggle.isChecked() else "text"
        size = self.path and os.path.getsize(self.path)
        lines = text_facts.facts(self._whole).n_lines if self._whole is not None else self.editor.blockCount()
        extra = f" · {_size(size)} file" if size else f" · {plural(lines, 'line')}"
        # short of room, the kind goes first (the tick box says it too), then the size
        self.title.set_parts([Part(self.name), Part(f" · {kind}", drop=2), Part(extra, drop=1)])
        self.title.setToolTip(self.path or self.name)
