"""The Extend dialog: pick a tokenizer (cl100k, o200k, GPT-2 or a file), a number of merges (with a minimum
frequency and pairs never merged, as training takes them) and where to write;
the extension runs in a spawn worker process (:mod:`.job`) so the window stays responsive; when it is done the
dialog says what changed, the extension becomes a run of the window (*show*: :mod:`.show`; the timeline starts
at the original and steps over the new merges), and it offers to compare the original and the extension in the
Log inspector.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor

from PySide6 import QtCore, QtWidgets

from ...core.choices import Mode
from ...core.counting.sources import CorpusSource
from ...core.errors import BpeError, PretokenizerNeeded
from .. import file_actions
from ..runs.forbid_edit import ForbidEditor
from ..training.process import main_module_hidden
from ..worker_priority import lower_priority
from .job import ExtendDone, ExtendJob, run

#: the tokenizers offered first (name shown, spec)
CHOICES = (("cl100k_base", "cl100k"), ("o200k_base", "o200k"), ("GPT-2 (r50k_base)", "gpt2"))
SUFFIX = {"cl100k": ".tiktoken", "o200k": ".tiktoken", "gpt2": ".tiktoken"}


class ExtendRunner(QtCore.QObject):
    """One extension at a time in a spawn worker process; ``finished(ExtendDone)`` or ``failed(str)``."""

    finished = QtCore.Signal(object)
    #: the file to extend is a rank file that extends a known encoding, read without its pattern (the
    #: :class:`PretokenizerNeeded` the worker raised): the dialog offers that encoding's reading
    patternless = QtCore.Signal(object)
    failed = QtCore.Signal(str)

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._pool: ProcessPoolExecutor | None = None
        self.worker_pids: list[int] = []  # tests: the work ran in another process

    @property
    def running(self) -> bool:
        return self._pool is not None

    def start(self, job: ExtendJob) -> None:
        self.shutdown()
        self._pool = pool = ProcessPoolExecutor(max_workers=1, mp_context=mp.get_context("spawn"),
                                                initializer=lower_priority)  # (below the window)
        with main_module_hidden():
            fut = pool.submit(run, job)
        self.worker_pids = list(getattr(pool, "_processes", {}) or ())
        fut.add_done_callback(self._done)  # on the pool's helper thread: signals queue to the GUI thread

    def _done(self, fut: Future[ExtendDone]) -> None:
        if fut.cancelled():
            return
        e = fut.exception()
        if e is None:
            self.finished.emit(fut.result())
        elif isinstance(e, PretokenizerNeeded) and e.extends:
            self.patternless.emit(e)
        elif isinstance(e, BpeError):
            self.failed.emit(str(e))
        else:
            self.failed.emit(f"the extension stopped ({type(e).__name__}: {str(e)[:200]})")

    def shutdown(self, *, stop: bool = True) -> None:
        """Let the worker go; *stop*: terminate it if it still runs (closing the dialog mid-extension)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            procs = list((getattr(pool, "_processes", None) or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for p in procs if stop else ():  # a running extension is not waited for
                if p.is_alive():
                    p.terminate()


class ExtendDialog(QtWidgets.QDialog):
    """Extend a tokenizer on the session's corpus; *compare(original spec, extension spec, corpus)* opens both in
    the Log inspector."""

    def __init__(self, parent: QtWidgets.QWidget | None, source: CorpusSource,
                 compare: Callable[[str, str, CorpusSource], object] | None = None,
                 show: Callable[[ExtendDone, CorpusSource], str] | None = None) -> None:
        super().__init__(parent)
        self._show = show
        self.setWindowTitle("Extend a tokenizer on this corpus")
        self.setObjectName("extend_dialog")
        self.source = source
        self._compare = compare
        self.done_result: ExtendDone | None = None
        self.runner = ExtendRunner(self)
        self.runner.finished.connect(self._finished)
        self.runner.failed.connect(self._failed)
        self.runner.patternless.connect(self._patternless)

        self.tokenizer = QtWidgets.QComboBox()
        for label, spec in CHOICES:
            self.tokenizer.addItem(label, spec)
        pick = QtWidgets.QPushButton("File…")
        pick.clicked.connect(self._pick_file)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.tokenizer, 1)
        row.addWidget(pick)
        self.merges = QtWidgets.QSpinBox()
        self.merges.setRange(0, 1_000_000)
        self.merges.setValue(1000)
        self.merges.setGroupSeparatorShown(True)
        self.merges.setToolTip("How many merges to add; fewer when the corpus runs out of pairs (merges stay "
                               "inside the tokenizer's own pieces)")
        self.min_freq = QtWidgets.QSpinBox()
        self.min_freq.setRange(1, 1_000_000_000)
        self.min_freq.setGroupSeparatorShown(True)
        self.min_freq.setToolTip("Stop when the best pair occurs fewer times than this")
        self.forbid = ForbidEditor(self, lines=2)
        self.forbid.set_mode(Mode.BYTES)  # (a chars-mode file's pairs are checked by the worker, naming the pair)
        self.out = QtWidgets.QLineEdit(os.path.join(os.path.expanduser("~"), "cl100k_extended.tiktoken"))
        browse = QtWidgets.QPushButton("Browse…")
        browse.clicked.connect(self._pick_out)
        out_row = QtWidgets.QHBoxLayout()
        out_row.addWidget(self.out, 1)
        out_row.addWidget(browse)
        self.tokenizer.currentIndexChanged.connect(self._default_out)
        self.status = QtWidgets.QLabel("The corpus is cut and segmented by the tokenizer itself; its ids stay, "
                                       "the new tokens get the next ones, and the file is written in its format.")
        self.status.setWordWrap(True)
        self.status.setMinimumHeight(self.status.fontMetrics().lineSpacing() * 5)  # the summary's four lines
        self.status.setAlignment(QtCore.Qt.AlignmentFlag.AlignTop | QtCore.Qt.AlignmentFlag.AlignLeft)
        self.status.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.start_button = QtWidgets.QPushButton("Extend")
        self.start_button.setDefault(True)
        self.start_button.clicked.connect(self.start)
        self.compare_button = QtWidgets.QPushButton("Compare in Log inspector")
        self.compare_button.setEnabled(False)
        self.compare_button.clicked.connect(self._compare_now)
        self.show_button = QtWidgets.QPushButton("Show as a run")
        self.show_button.setToolTip("The extension as a run of the window: its timeline starts at the original")
        self.show_button.setEnabled(False)
        self.show_button.clicked.connect(self._show_now)
        close = QtWidgets.QPushButton("Close")
        close.clicked.connect(self.reject)
        buttons = QtWidgets.QHBoxLayout()
        buttons.addStretch(1)
        for b in (self.start_button, self.show_button, self.compare_button, close):
            buttons.addWidget(b)
        form = QtWidgets.QFormLayout()
        form.addRow("Tokenizer", row)
        form.addRow("New merges", self.merges)
        form.addRow("Min frequency", self.min_freq)
        form.addRow("Forbid", self.forbid)
        form.addRow("Write to", out_row)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.status)
        lay.addLayout(buttons)
        self.resize(620, self.sizeHint().height())

    # -- choices ----------------------------------------------------------------------------------------------
    def spec(self) -> str:
        return str(self.tokenizer.currentData())

    def _default_out(self) -> None:
        spec = self.spec()
        folder = os.path.dirname(self.out.text()) or os.path.expanduser("~")
        base = os.path.basename(spec.rstrip("/\\")) or "tokenizer"
        stem, ext = os.path.splitext(base)
        name = f"{stem}_extended{SUFFIX.get(spec, ext or '')}" if spec in SUFFIX or ext else f"{base}_extended"
        self.out.setText(os.path.join(folder, name))

    def _pick_file(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Tokenizer to extend", "",
                                                        file_actions.OPEN_TOKENIZER_FILTER)
        if path:
            self.add_tokenizer_file(path)

    def add_tokenizer_file(self, path: str) -> None:
        """Offer the tokenizer *path* (a spec: ``cl100k:FILE`` too) and choose it (chosen again if offered)."""
        at = self.tokenizer.findData(path)
        if at < 0:
            self.tokenizer.addItem(os.path.basename(path), path)
            at = self.tokenizer.count() - 1
        self.tokenizer.setCurrentIndex(at)

    def _pick_out(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Write the extension to", self.out.text())
        if path:
            self.out.setText(path)

    # -- running ----------------------------------------------------------------------------------------------
    def job(self) -> ExtendJob:
        """What the dialog asks for (a BpeError for a forbid entry that does not read)."""
        src = self.source
        return ExtendJob(self.spec(), self.merges.value(), self.out.text().strip(),
                         text=src.text if not src.paths else None, paths=tuple(src.paths),
                         min_frequency=self.min_freq.value(), forbid=self.forbid.pairs(),
                         forbid_regex=self.forbid.pattern())

    def start(self) -> bool:
        try:
            job = self.job()
        except BpeError as e:
            file_actions.show_error(self, "Cannot extend", str(e))
            return False
        if self.source.word_counts:
            file_actions.show_error(self, "Cannot extend", "the corpus is a word-count table: an extension cuts "
                                    "the text with the tokenizer's own pre-tokenizer -- open the text itself")
            return False
        if not job.out:
            file_actions.show_error(self, "Cannot extend", "no file to write to -- choose where the extension goes")
            return False
        if job.text is not None and not job.text.strip():
            file_actions.show_error(self, "Cannot extend", "the corpus is empty -- type or paste some text, or "
                                    "open a file")
            return False
        self.done_result = None
        self.compare_button.setEnabled(False)
        self.show_button.setEnabled(False)
        self.start_button.setEnabled(False)
        self.status.setText(f"Extending {job.spec} with up to {job.merges:,} merges…")
        self.runner.start(job)
        return True

    def _finished(self, done: ExtendDone) -> None:
        self.runner.shutdown(stop=False)
        self.done_result = done
        self.start_button.setEnabled(True)
        self.compare_button.setEnabled(self._compare is not None)
        self._show_now()

    def _show_now(self) -> None:
        """Show the finished extension as a run of the window, or say why it is not (yet)."""
        done = self.done_result
        if done is None or self._show is None:
            return
        why = self._show(done, self.source)
        self.show_button.setEnabled(bool(why) and done.run is not None)
        shown = (f"Shown as a run: the timeline starts at {done.spec} (step 0) and steps over the new merges."
                 if not why else f"Not shown as a run: {why}")
        self.status.setText(f"{done.summary}\n\n{shown}")

    def _failed(self, message: str) -> None:
        self.runner.shutdown(stop=False)
        self.start_button.setEnabled(True)
        self.status.setText("Not extended.")
        file_actions.show_error(self, "Cannot extend", message)

    def _patternless(self, need: PretokenizerNeeded) -> None:
        """The chosen rank file extends a known encoding and holds no pattern: ask whether to read it as that
        encoding extended (never taken silently); yes: extend it so."""
        self.runner.shutdown(stop=False)
        self.start_button.setEnabled(True)
        again = file_actions.patternless(self, self.spec(), need)
        if again is None or again[1] is not None:
            self.status.setText("Not extended.")
            return
        self.tokenizer.setItemData(self.tokenizer.currentIndex(), again[0])
        self.start()

    def _compare_now(self) -> None:
        if self.done_result is not None and self._compare is not None:
            self._compare(self.done_result.spec, self.done_result.read_as, self.source)

    def done(self, r: int) -> None:  # closing: a running extension is stopped
        self.runner.shutdown()
        super().done(r)
