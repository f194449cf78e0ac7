"""The compare pane: how a text tokenizes under your tokenizer (at the timeline step) and well-known ones.

:class:`ComparePanel` has an editable text box (a "Sample" combo fills it: robot logs, English, Python code,
multilingual text with emoji), then the reference tick boxes, a summary line ("your tokenizer at step 812 uses
1.34× the tokens of cl100k_base on this text") and one :class:`~.compare_rows.TokenizerRow` per tokenizer:

1. yours -- ``session.tokenizer`` with ``upto=session.step``, following ``stepChanged``, ``modelReset`` and
   ``recordsAppended`` (throttled; nothing is encoded or laid out while the pane is off screen -- hidden,
   or a background tab of a dock, which Qt moves out of sight without hiding it);
2. references -- each of :data:`~.sources.KNOWN_REFERENCES` (cl100k_base ticked, o200k_base and gpt2),
   whose files ship with bpe-desktop, loaded the first time they are ticked and on screen -- on the
   ``references`` helper thread (:mod:`..helper_threads`), the row saying "Loading o200k_base…" until it is
   read; unticked meanwhile, the result is dropped; loaded once, a later tick reuses it (a missing one is
   named beside the tick boxes, the tooltip saying what to do); "Add reference…" reads any file or folder our
   formats read behind a modal progress dialog (:mod:`..modal_job`; a .tiktoken file that is no known encoding:
   it asks for the pattern; GPT-2's ``encoder.json`` + ``vocab.bpe`` folder gets the ``gpt2`` preset), the
   references an opened session names on the helper thread.  Load errors are dialogs.

Which references are ticked is the session's (``Session.compare``, saved with a session): a tick, an added or
removed reference sets it, and the pane follows it when it changes (a session opened).  Only the text in
the box is encoded (at most :data:`TEXT_LIMIT` characters), and results are cached per (tokenizer, step,
text).  It does not train, change the session otherwise, or download anything.
"""

from __future__ import annotations

import os

from PySide6 import QtCore, QtGui, QtWidgets

from ...core.errors import BpeError, PretokenizerNeeded, RegexTimeout
from ...core.formats.presets import split_spec
from .. import file_actions
from ..regex_guard import report_timeout, text_budget
from ..session import Session
from ..widgets.elided_label import ElidedLabel
from ..widgets.lru import LRU
from ..widgets.on_screen import DockWatch, on_screen
from ..widgets.timers import one_shot
from . import loading
from .rows import CACHE_SIZE, Reference, TokenizerRow
from .sources import (
    KNOWN_REFERENCES,
    SAMPLE_NAMES,
    Tokenized,
    describe,
    missing_hint,
    missing_line,
    missing_references,
    n_base_of,
    sample_text,
    spec_for_folder,
    tokenize_text,
)

#: at most this many characters of the box are tokenized (a pasted book would stall the window)
TEXT_LIMIT = 10_000
THROTTLE_MS = 120
OWN_NAME = "Your tokenizer"
CL100K_NAME = "cl100k_base"

# its colours (compareSummary, compareRow, ...) are in resources/styles/style.qss, per theme


class ComparePanel(QtWidgets.QWidget):
    def __init__(self, session: Session, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.references: list[Reference] = []
        self._loads = loading.BackgroundLoads(self, self._poll_loads)  # bundled references read off this thread
        self._own_cache: LRU[tuple[int, int, str], Tokenized] = LRU(CACHE_SIZE)  # (model, step, text)
        self._dirty = True
        self._timer = one_shot(self, THROTTLE_MS, self._refresh_if_shown)
        self._dock_watch = DockWatch(self, self._shown_again)  # the dock we sit in, watched for tab switches

        top = QtWidgets.QHBoxLayout()
        top.addWidget(QtWidgets.QLabel("Sample:"))
        self.sample_combo = QtWidgets.QComboBox()
        self.sample_combo.addItems(SAMPLE_NAMES)
        self.sample_combo.setToolTip("Fill the box with a sample text (you can edit it freely)")
        self.sample_combo.activated.connect(lambda i: self.set_sample(SAMPLE_NAMES[i]))
        top.addWidget(self.sample_combo)
        top.addStretch(1)
        self.add_button = QtWidgets.QToolButton()
        self.add_button.setText("Add reference…")
        self.add_button.setObjectName("addReference")
        self.add_button.setToolTip("Compare with a tokenizer file or folder (tokenizer.json, .tiktoken, "
                                   "GPT-2's encoder.json + vocab.bpe, vocab.json + merges.txt, codes, native)")
        self.add_button.setPopupMode(QtWidgets.QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        menu = QtWidgets.QMenu(self.add_button)
        menu.addAction("Tokenizer file…", self._add_file)
        menu.addAction("Tokenizer folder (GPT-2, vocab + merges)…", self._add_folder)
        self.add_button.setMenu(menu)
        self.add_button.clicked.connect(self._add_file)
        top.addWidget(self.add_button)

        self.editor = QtWidgets.QPlainTextEdit()
        self.editor.setObjectName("compareText")
        self.editor.setLineWrapMode(QtWidgets.QPlainTextEdit.LineWrapMode.NoWrap)
        self.editor.setPlaceholderText("Type or paste text to see how each tokenizer splits it")
        self.editor.setFont(QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont))
        self.editor.textChanged.connect(self._schedule)

        self.summary = QtWidgets.QLabel("")
        self.summary.setObjectName("compareSummary")
        self.summary.setWordWrap(True)

        self.own_row = TokenizerRow(OWN_NAME)
        self.rows_box = QtWidgets.QVBoxLayout()
        self.rows_box.setContentsMargins(0, 0, 0, 0)
        self.rows_box.setSpacing(6)
        self.rows_box.addWidget(self.own_row)
        self.ref_rows: dict[str, TokenizerRow] = {}
        holder = QtWidgets.QWidget()
        holder.setObjectName("compareRows")
        col = QtWidgets.QVBoxLayout(holder)
        col.setContentsMargins(4, 4, 4, 4)
        col.addLayout(self.rows_box)
        col.addStretch(1)
        self.rows_scroll = QtWidgets.QScrollArea()
        self.rows_scroll.setWidgetResizable(True)
        self.rows_scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # strips wrap
        self.rows_scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.rows_scroll.setWidget(holder)

        self.ref_bar = QtWidgets.QHBoxLayout()  # the references' tick boxes, above the summary and strips
        self.ref_bar.setContentsMargins(2, 2, 2, 2)
        self.ref_bar.addWidget(QtWidgets.QLabel("Compare with:"))
        missing = missing_references()
        self.no_refs = QtWidgets.QLabel("no reference yet -- Add… a tokenizer file")
        self.no_refs.setObjectName("compareDetail")
        self.ref_bar.addWidget(self.no_refs)
        self.missing_refs = ElidedLabel(missing_line(missing))
        self.missing_refs.setObjectName("missingReferences")
        self.missing_refs.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        self.missing_refs.setToolTip(missing_hint(missing))
        self.missing_refs.setVisible(bool(missing))
        self.ref_bar.addWidget(self.missing_refs, 1)
        bottom = QtWidgets.QWidget()
        bl = QtWidgets.QVBoxLayout(bottom)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.addLayout(self.ref_bar)
        bl.addWidget(self.summary)
        bl.addWidget(self.rows_scroll, 1)
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        split.addWidget(self.editor)
        split.addWidget(bottom)
        split.setStretchFactor(1, 1)
        split.setSizes([120, 400])
        split.setChildrenCollapsible(False)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addLayout(top)
        lay.addWidget(split, 1)

        for known in KNOWN_REFERENCES:  # loaded the first time the pane is shown with the row ticked
            spec = known.spec()
            if spec is not None:
                self._add_row(Reference(known.name, spec, enabled=known.ticked, removable=False))

        self._following = False  # set while the rows follow the session's ticks (they are not published)
        self._publish()
        session.stepChanged.connect(self._schedule)
        session.recordsAppended.connect(self._schedule)
        session.modelReset.connect(self._model_reset)
        session.compareChanged.connect(self._follow_session)
        self.set_sample(SAMPLE_NAMES[0])

    # -- text ---------------------------------------------------------------------------------------
    def set_sample(self, name: str) -> None:
        """Fill the box with the sample text *name* (one of :data:`SAMPLE_NAMES`)."""
        i = SAMPLE_NAMES.index(name)
        if self.sample_combo.currentIndex() != i:
            self.sample_combo.setCurrentIndex(i)
        self.editor.setPlainText(sample_text(name))

    def set_text(self, text: str) -> None:
        self.editor.setPlainText(text)

    def text(self) -> str:
        """The text being compared (the box's content, cut at :data:`TEXT_LIMIT` characters)."""
        return self.editor.toPlainText()[:TEXT_LIMIT]

    # -- references ---------------------------------------------------------------------------------
    def _add_row(self, ref: Reference) -> TokenizerRow:
        row = TokenizerRow(ref.name, checkable=True, checked=ref.enabled, removable=ref.removable)
        row.toggled.connect(lambda on, r=ref: self.set_reference_enabled(r.name, on))
        row.removeRequested.connect(lambda r=ref: self.remove_reference(r.name))
        self.references.append(ref)
        self.ref_rows[ref.name] = row
        self.rows_box.addWidget(row)
        if row.check is not None:
            self.ref_bar.insertWidget(self.ref_bar.count() - 1, row.check)
        self.no_refs.hide()
        row.setVisible(ref.enabled)
        if not ref.enabled:
            row.clear("Tick to compare (loads the tokenizer)")
        return row

    def reference(self, name: str) -> Reference | None:
        return next((r for r in self.references if r.name == name), None)

    def _load(self, ref: Reference) -> bool:
        """Load *ref* behind a progress dialog (it may ask for a pre-tokenizer); False: failed or cancelled."""
        return loading.load_now(self, ref, self._error)

    def _start_load(self, ref: Reference) -> None:
        """Read *ref* on the ``references`` helper thread (the row says so); :meth:`_poll_loads` takes it in."""
        if ref.tokenizer is None and self._loads.start(ref.name, ref.spec, ref.pretokenizer):
            self.ref_rows[ref.name].clear(f"Loading {ref.name}…", "reading the tokenizer")

    def loading(self) -> list[str]:
        """The names of the references being read on the helper thread now."""
        return self._loads.names()

    def _poll_loads(self) -> None:
        """Take in the loads that ended: kept if the row is still ticked, else dropped (unticked meanwhile)."""
        for name, future in self._loads.take_done():
            ref = self.reference(name)
            if ref is None or not ref.enabled:  # unticked or removed while it loaded: the result is discarded
                continue
            ok = True
            try:
                ref.tokenizer = future.result()
            except PretokenizerNeeded:  # (a session's rank file) ask on this thread, as an add does
                ok = self._load(ref)
            except loading.LOAD_ERRORS as e:
                self._error(*loading.failure(ref, e))
                ok = False
            if not ok and ref.removable:  # failed: an added reference (a session's) is dropped
                self.remove_reference(name)
            elif not ok:  # a bundled one unticked
                self.set_reference_enabled(name, False)
            self._schedule()

    def _error(self, title: str, message: str) -> None:
        file_actions.show_error(self, title, message)

    def set_reference_enabled(self, name: str, on: bool) -> bool:
        """Tick or untick a reference row; ticking reads the tokenizer the first time on a helper thread (the
        row says "Loading…" until :meth:`_poll_loads` takes it in; a failed read is a dialog and unticks it)."""
        ref = self.reference(name)
        if ref is None:
            return False
        row = self.ref_rows[name]
        ref.enabled = on
        if row.check is not None and row.check.isChecked() != on:
            row.check.blockSignals(True)
            row.check.setChecked(on)
            row.check.blockSignals(False)
        if not on:
            # a read under way goes on (a thread cannot be stopped midway); its result is dropped unless re-ticked
            row.clear("Tick to compare (loads the tokenizer)")
        elif ref.tokenizer is None:
            self._start_load(ref)
        row.setVisible(on)
        self._schedule()
        self._publish()
        return on

    def add_reference(self, spec: str, name: str | None = None, *, background: bool = False) -> bool:
        """Load *spec* (a path in any format we read, or ``PRESET:PATH``) and show it; a dialog if it fails.
        Read behind a modal progress dialog (:func:`.loading.load_now`), or with *background* on the helper
        thread, the row saying "Loading…" meanwhile (a read that fails then is a dialog and drops the row)."""
        if name is None:
            try:
                name = os.path.basename(os.path.normpath(split_spec(spec)[1])) or spec
            except BpeError as e:
                self._error("Cannot load reference", str(e))
                return False
        base, n = name, 2
        while self.reference(name) is not None or name == OWN_NAME:
            name, n = f"{base} ({n})", n + 1
        ref = Reference(name, spec)
        if not background and not self._load(ref):
            return False
        ref.enabled = True
        self._add_row(ref)
        if background:
            self._start_load(ref)
        self._schedule()
        self._publish()
        return True

    def remove_reference(self, name: str) -> None:
        ref = self.reference(name)
        if ref is None or not ref.removable:
            return
        self.references.remove(ref)
        row = self.ref_rows.pop(name)
        self.rows_box.removeWidget(row)
        if row.check is not None:
            self.ref_bar.removeWidget(row.check)
            row.check.deleteLater()
        row.deleteLater()
        self.no_refs.setVisible(not self.references)
        self._schedule()
        self._publish()

    def _publish(self) -> None:
        """The ticks as they are now become the session's (:attr:`Session.compare`)."""
        if not self._following:
            self.session.set_compare([r.spec for r in self.references if r.enabled])

    def _follow_session(self) -> None:
        """Tick what the session ticks (adding the references it names; one that does not load stays
        unticked), untick or drop the rest; then the session holds what the pane could do."""
        if self._following:
            return
        specs = self.session.compare
        self._following = True
        try:
            for ref in list(self.references):
                if ref.spec in specs:
                    continue
                if ref.removable:
                    self.remove_reference(ref.name)
                elif ref.enabled:
                    self.set_reference_enabled(ref.name, False)
            for spec in specs:
                found = next((r for r in self.references if r.spec == spec), None)
                if found is None:  # read on the helper thread, as a tick is (an o200k-sized file)
                    self.add_reference(spec, background=True)
                elif not found.enabled:
                    self.set_reference_enabled(found.name, True)
        finally:
            self._following = False
        self._publish()

    def _add_file(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(
            self, "Add reference tokenizer", "",
            "Tokenizer files (*.json *.tiktoken *.bpe *.txt *.codes);;All files (*)")
        if path:
            self.add_reference(path)

    def _add_folder(self) -> None:
        path = QtWidgets.QFileDialog.getExistingDirectory(self, "Add reference tokenizer folder")
        if path:
            self.add_reference(spec_for_folder(path), os.path.basename(os.path.normpath(path)))

    # -- updating -----------------------------------------------------------------------------------
    def _model_reset(self) -> None:
        self._own_cache.clear()
        self._schedule()

    def on_screen(self) -> bool:
        """True when some of the pane can be seen (not in a background tab: :func:`..widgets.on_screen.on_screen`)."""
        return on_screen(self)

    def _schedule(self, *_: object) -> None:
        self._dirty = True
        if not self._timer.isActive() and self.on_screen():
            self._timer.start()

    def _refresh_if_shown(self) -> None:
        if self.on_screen():
            self.refresh()

    def _shown_again(self) -> None:
        if self._dirty:  # brought to the front of its tab group
            self._timer.start(0)

    def showEvent(self, e: QtGui.QShowEvent) -> None:
        super().showEvent(e)
        self._dock_watch.attach()
        if self._dirty:
            self._timer.start(0)

    def own_result(self, text: str | None = None) -> Tokenized | None:
        """Your tokenizer on *text* (default: the box) at the session's step; None before any training."""
        s = self.session
        if not s.records:
            return None
        text = self.text() if text is None else text
        key = (id(s.model), s.step, text)
        res = self._own_cache.hit(key)
        if res is None:
            res = tokenize_text(s.tokenizer, text, s.step, text_budget("comparing tokenizers"))
            self._own_cache.put(key, res)
        return res

    def reference_result(self, name: str, text: str | None = None) -> Tokenized | None:
        """Reference *name* on *text* (default: the box); None if it is unticked or not loaded."""
        ref = self.reference(name)
        if ref is None or not ref.enabled or ref.tokenizer is None:
            return None
        text = self.text() if text is None else text
        res = ref.cache.hit(text)
        if res is None:
            res = tokenize_text(ref.tokenizer, text, budget=text_budget("comparing tokenizers"))
            ref.cache.put(text, res)
        return res

    def refresh(self) -> None:
        """Re-encode the text under every shown tokenizer (cached) and update rows and summary."""
        self._timer.stop()
        self._dirty = False
        text = self.text()
        s = self.session
        own = None
        if not s.records:
            self.own_row.clear("Train a tokenizer (F5) or open one to see how yours splits this text",
                               "not trained yet")
        else:
            try:
                own = self.own_result(text)
            except RegexTimeout as e:  # a catastrophic custom pattern: said here and in a dialog
                self.own_row.clear(str(e), "the custom pre-tokenizer timed out")
                report_timeout(self, str(e))
            if own is not None:
                where = f"step {s.shown_step(s.step):,} of {s.shown_step(s.n_steps):,} · {s.model.mode}"
                self.own_row.show_result(own, where, s.model.n_base)
        ratios: list[str] = []
        for ref in self.references:
            row = self.ref_rows[ref.name]
            if ref.enabled and ref.tokenizer is None:  # ticked from the start (cl100k): read off this thread
                self._start_load(ref)
            if not ref.enabled or ref.tokenizer is None:
                continue
            try:
                res = self.reference_result(ref.name, text)
            except BpeError as e:
                row.clear(str(e), "cannot encode this text")
                continue
            if res is None or ref.tokenizer is None:  # (a result means the tokenizer is loaded)
                continue
            row.show_result(res, describe(ref.tokenizer), n_base_of(ref.tokenizer))
            if own is not None and res.n_tokens:
                ratios.append(f"<b>{own.n_tokens / res.n_tokens:.2f}×</b> the tokens of {ref.name}")
        self.summary.setText(self._summary(text, own, ratios))

    def _summary(self, text: str, own: Tokenized | None, ratios: list[str]) -> str:
        cut = f" (its first {TEXT_LIMIT:,} characters)" if len(self.editor.toPlainText()) > TEXT_LIMIT else ""
        mine = f"Your tokenizer at step {self.session.shown_step(self.session.step):,} uses"
        if not text:
            return "Type or paste some text above."
        if own is None:
            return "Train a tokenizer to compare it with the references on this text."
        if not ratios:
            return f"{mine} <b>{own.n_tokens:,}</b> tokens on this text{cut}; tick a reference to compare."
        return f"{mine} " + ", ".join(ratios) + f" on this text{cut}."

    @property
    def rows(self) -> list[TokenizerRow]:
        return [self.own_row, *(self.ref_rows[r.name] for r in self.references)]

    def row(self, name: str) -> TokenizerRow:
        return self.own_row if name == OWN_NAME else self.ref_rows[name]

