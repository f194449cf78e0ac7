"""The token-stream pane: the corpus cut into token boxes at the current step, animated merge by merge.

:class:`TokenStreamView` puts together a header (the step and the merge that made it), a "find token"
box, the virtualized :class:`~.canvas.TokenCanvas` and, on the right, the derivation tree of the
token last clicked (which merges built it, down to characters or bytes).  Clicking a token also
highlights every occurrence of it on screen; the find box jumps to the next row that contains a token.

For a corpus given as files (no editor text) only the first
:data:`~bpe_desktop.core.views.segmentation.DISPLAY_LIMIT_BYTES` (4 MB) are shown.  Text edited after training
(``session.display_text``) is shown tokenized by the current model at the current step, without retraining.

It only observes the session; it never trains, moves the timeline or edits the corpus.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from ...core.errors import RegexTimeout
from ...core.views.labels import id_label
from ...core.views.token_search import find_token
from ..regex_guard import report_timeout
from ..session import Session
from ..widgets import theme
from ..widgets.derivation_tree import DerivationTree
from ..widgets.elided_label import ElidedLabel, LabelHost, Part
from ..widgets.on_screen import DockWatch, on_screen
from ..widgets.timers import one_shot
from .canvas import TokenCanvas

#: how many rows the find box encodes looking for the next occurrence before giving up
FIND_ROW_LIMIT = 20_000
FRAME_MS = 16  # one frame at 60 Hz: how long the stream's repaint waits when every pane changes at once


class TokenStreamView(QtWidgets.QWidget):
    """The token-stream pane (see the module docstring). Query API for tests: :meth:`visible_tokens`."""

    def __init__(self, session: Session, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.canvas = TokenCanvas(session, self)
        self.canvas.loader.visible = lambda: on_screen(self.canvas)  # a big file's rows read when they can be seen
        self._dock_watch = DockWatch(self, self.canvas.loader.resume)
        self._release = one_shot(self, FRAME_MS, lambda: self.canvas.viewport().setUpdatesEnabled(True))

        # a long header sheds its parts (see _update_header) and is elided at the pane's edge, full text in the
        # tooltip, rather than widening the window or running into the find box
        self.header = ElidedLabel("", self)
        self.header.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        self.find_box = QtWidgets.QLineEdit(self)
        self.find_box.setPlaceholderText("find token…  (e.g. est</w>, ·the, Ġthe)")
        self.find_box.setClearButtonEnabled(True)
        self.find_box.setMaximumWidth(260)
        self.find_status = ElidedLabel("", self, hint="row 000,000")

        self.tree = DerivationTree(self)
        self.tree_title = QtWidgets.QLabel("click a token to see how it was built", self)
        self.tree_title.setWordWrap(True)
        side = QtWidgets.QWidget(self)
        side.setMinimumWidth(220)  # the token column stays readable (merge and count take ~100 px)
        sl = QtWidgets.QVBoxLayout(side)
        sl.setContentsMargins(0, 0, 0, 0)
        sl.addWidget(self.tree_title)
        sl.addWidget(self.tree, 1)

        top = QtWidgets.QHBoxLayout()
        top.setContentsMargins(6, 4, 6, 2)
        top.addWidget(LabelHost(self.header), 1)  # a new header text relayouts nothing around it
        top.addWidget(self.find_status)
        top.addWidget(self.find_box)
        self.splitter = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("derivationSplitter")  # remembered with the layout (window_state)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.canvas)
        self.splitter.addWidget(side)
        self.splitter.setStretchFactor(0, 4)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([600, 260])
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addLayout(top)
        lay.addWidget(self.splitter, 1)

        self.find_box.returnPressed.connect(self.find_next)
        self.find_box.textChanged.connect(lambda _t: self.find_status.clear())
        self.canvas.tokenClicked.connect(self.show_derivation)
        self.canvas.regexFailed.connect(lambda msg: report_timeout(self, msg))
        session.stepChanged.connect(self._update_header)
        session.stepChanged.connect(lambda _k: self.find_status.clear())  # "3 on screen" was about the old step
        session.modelReset.connect(self._on_model_reset)
        session.countChanged.connect(self._update_header)
        session.corpusChanged.connect(self._update_header)
        session.displayTextChanged.connect(self._update_header)
        theme.notifier().changed.connect(self._theme_changed)
        self._update_header()

    def _theme_changed(self, _theme: object) -> None:
        """Recolour the derivation tree (its rows carry the token colours of the old theme)."""
        try:
            if self.tree.topLevelItemCount() and self.canvas.selected is not None:
                self.show_derivation(self.canvas.selected)
        except RuntimeError:  # the view is gone
            theme.notifier().changed.disconnect(self._theme_changed)

    # -- API used by the main window and tests --------------------------------------------------------
    @property
    def animating(self) -> bool:
        return self.canvas.animating

    def repaint_next_frame(self) -> None:
        """Hold the stream's repaint for one frame (:data:`FRAME_MS`).  A Train press changes every pane at once:
        the window's repaint is then split in two, the other panes now and the stream -- the largest part --
        next (split, the press's longest frame is shorter than its single repaint was)."""
        vp = self.canvas.viewport()
        if vp.updatesEnabled():
            vp.setUpdatesEnabled(False)  # (setUpdatesEnabled(True) repaints it)
            self._release.start()

    def visible_tokens(self) -> list[list[str]]:
        """Token labels per visible row, as laid out at the shown step."""
        return self.canvas.screen_rows.tokens()

    def set_play_speed(self, steps_per_second: float) -> None:
        """Let merge animations fit the playback speed (see :meth:`TokenCanvas.set_play_speed`)."""
        self.canvas.set_play_speed(steps_per_second)

    def set_animation_duration(self, ms: int) -> None:
        self.canvas.set_animation_duration(ms)

    # -- header ---------------------------------------------------------------------------------------
    def _update_header(self, *_: object) -> None:
        s = self.session
        k, n = s.step, s.n_steps
        # parts shed in this order when the pane is narrow: the count, the note, "merge k:", then the merge is
        # elided; "step k of n" stays
        parts = [Part(f"step {s.shown_step(k):,}", bold=True), Part(f" of {s.shown_step(n):,}")]
        if s.origin < k <= len(s.records):
            r = s.records[k - 1]
            parts += [Part("  ·  "), Part(f"merge {s.shown_step(k):,}: ", drop=3),
                      Part(_lab(s, r.left_id), mono=True), Part(" + "), Part(_lab(s, r.right_id), mono=True),
                      Part(" → "), Part(_lab(s, r.token_id), mono=True, bold=True),
                      Part(f"  (count {r.count:,})", drop=4)]
        elif k == 0:
            parts.append(Part("  ·  base symbols only (no merges yet)", drop=1))
        if self.canvas.note:
            parts.append(Part(f"  ·  {self.canvas.note}", drop=2))
        self.header.set_parts(parts)

    def _on_model_reset(self) -> None:
        self.tree.clear()
        self.tree_title.setText("click a token to see how it was built")
        self._update_header()

    # -- derivation tree ------------------------------------------------------------------------------
    def show_derivation(self, token_id: int) -> None:
        """Fill the side tree with the merges that built *token_id* and highlight its occurrences."""
        self.canvas.select(token_id)
        self.tree.clear()
        model = self.session.model
        if token_id < 0:
            self.tree_title.setText("an unknown character: it is not in this alphabet")
            return
        ink = QtGui.QColor(self.canvas.boxes.theme.token_text)  # readable on the box colours
        self.tree_title.setText(self.tree.fill(model, self.session.records, token_id,
                                               lambda node: self.canvas.color(node.id), ink))
        self.find_status.setText(f"{self._count_visible(token_id)} on screen")

    def derivation_items(self) -> list[tuple[int, str]]:
        """(depth, label) of every row of the derivation tree, depth first (for tests)."""
        return self.tree.items()

    def _count_visible(self, token_id: int) -> int:
        return sum(row.count(token_id) for row in self.canvas.screen_rows.ids())

    # -- find -----------------------------------------------------------------------------------------
    def find_next(self) -> int | None:
        """Select the token typed in the find box and scroll to the next row (after the top one) holding it.

        Returns the row found, or None.  Rows are pre-filtered by substring before being encoded.
        """
        query = self.find_box.text()
        model = self.session.model
        step = self.session.step
        tid = find_token(model, query, upto=step)
        if tid is None:
            self.find_status.setText(f"no token {query!r} at step {self.session.shown_step(step):,}" if query else "")
            return None
        self.show_derivation(tid)
        tok = self.session.tokenizer
        raw = tok.token_bytes(tid).decode("utf-8", "ignore").strip()
        canvas = self.canvas
        n = canvas.n_rows
        if n == 0:
            return None
        start = canvas.first_row()
        encoded = 0
        for off in range(1, n + 1):
            row = (start + off) % n if n > 1 else 0
            if raw and raw not in canvas.row_text(row):
                continue
            encoded += 1
            if encoded > FIND_ROW_LIMIT:
                break
            try:
                found = tid in canvas.row_ids(row, step)
            except RegexTimeout:
                self.find_status.setText("the custom pre-tokenizer timed out")
                return None
            if found:
                canvas.scroll_to_row(row)
                self.find_status.setText(f"line {canvas.rows.line_number(row):,}")
                return row
        self.find_status.setText(f"{query!r} not found in the shown text")
        return None


    def showEvent(self, e: QtGui.QShowEvent) -> None:
        super().showEvent(e)
        self._dock_watch.attach()  # (its dock brought to the front: the read that waited starts)
        if on_screen(self.canvas):
            self.canvas.loader.resume()


def _lab(session: Session, token_id: int) -> str:
    return id_label(session.model, token_id)
