"""The token-stream canvas: a virtualized, animated view of token boxes at the session's step.

:class:`TokenCanvas` is a :class:`QAbstractScrollArea` whose vertical scroll bar counts *rows*
(:mod:`.rows`).  A paint encodes and lays out (:mod:`.layout`) only the rows on screen
(``Tokenizer.encode_with_offsets(line, upto=k)``), cached per ``(row, step)`` and ``(row, step, width)`` in
least-recently-used caches of at most :data:`CACHE_ROWS` rows of atomic values, so a multi-megabyte corpus
scrolls smoothly and a jump between any two steps costs one screenful of encoding.  Stepping ``k -> k+1``
animates merge ``k+1`` (backwards for a split), timed by :mod:`.animation` and drawn by :mod:`.painting`; a
new screen's box pictures are drawn ahead of its paint (:mod:`.ahead`).
Rows are at most :data:`~.rows.MAX_ROW_CHARS` long (long lines are cut when loaded), and a custom
pre-tokenizer runs under a small regex budget per row (:mod:`..regex_guard`): a catastrophic pattern
stops the encoding, the canvas shows the error in place of the rows and emits ``regexFailed``.

It does not own the find box, the header or the derivation tree (:mod:`.view`), and it never changes the
session.
"""

from __future__ import annotations

from typing import NamedTuple, cast

from PySide6 import QtCore, QtGui, QtWidgets

from ...core.errors import RegexTimeout
from ...core.views.labels import id_label
from ...core.views.segmentation import (
    PACK,
    PackedSegments,
    Segment,
    segment_line_packed,
    segment_word_packed,
    unpack_segments,
)
from ..regex_guard import PAINT_BUDGET_S, paint_budget
from ..session import Session
from ..training.protocol import TrainingState
from ..widgets import theme
from ..widgets.lru import LRU
from .ahead import Ahead
from .animation import AnimationTiming, ease, lerp
from .layout import MARGIN, ROW_GAP, PackedLayout, layout_row
from .painting import BoxPainter, PixmapKey
from .queries import ScreenRows
from .row_caches import RowCaches
from .row_loader import RowLoader
from .rows import RowSource
from .tooltip import token_tooltip

#: rows kept by each of the segment and layout caches (least recently used rows are dropped first); a jump
#: needs one screenful (two steps of it while animating), so this keeps well over a hundred screens
CACHE_ROWS = 4_000

Visible = tuple[int, float, PackedLayout, PackedLayout | None, float]  # row, top, shown, other step, height


class Caches(NamedTuple):
    """The canvas's bounded caches (read them; the canvas fills and empties them)."""

    segments: LRU[tuple[int, int], PackedSegments]  # (row, step) -> packed segments
    layouts: LRU[tuple[int, int, int], PackedLayout]  # (row, step, width) -> packed layout
    pictures: LRU[PixmapKey, QtGui.QPixmap]  # (token id, label, pen kind, fill class) -> box picture


class TokenCanvas(QtWidgets.QAbstractScrollArea):
    """Rows of token boxes at the session's step. Signals: ``tokenClicked(int id)``, ``rowsChanged()``."""

    tokenClicked = QtCore.Signal(int)
    rowsChanged = QtCore.Signal()
    regexFailed = QtCore.Signal(str)  # the custom pattern ran out of its budget: the message

    def __init__(self, session: Session, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.viewport().setMouseTracking(True)
        self.verticalScrollBar().setSingleStep(1)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Expanding)
        self.rows = RowSource()
        self.loader = RowLoader(self._rows_ready, self)
        self._rc = RowCaches(CACHE_ROWS, session.model)  # encoded rows: segments, layouts, labels
        self.rows_encoded = 0  # how many (row, step) encodings were computed (tests, benchmarks)
        self.regex_error = ""  # set when the custom pattern timed out; cleared by a new model or corpus
        self.selected: int | None = None
        self._shown_step = session.step
        self.screen_rows = ScreenRows(self._compute_visible, lambda: self.boxes.box_h)  # the rows as last laid out
        self._prefix_w = 0.0
        self._word_w = self._count_w = 0.0
        # animation: the timing decides, a QVariantAnimation runs the progress 0..1
        self.animations_enabled = True
        self.timing = AnimationTiming()
        self._anim_lo = 0
        self._progress = 1.0
        self._anim = QtCore.QVariantAnimation(self)
        self._anim.setEasingCurve(QtCore.QEasingCurve.Type.Linear)
        self._anim.valueChanged.connect(self._on_anim_value)
        self._anim.finished.connect(self.viewport().update)
        self.animations_started = 0
        self.animations_skipped = 0
        self.boxes = BoxPainter(self.font(), self.palette())
        self.ahead = Ahead(self, self._compute_visible, self._latest_token)  # new screens: drawn ahead of the paint
        font = self.font()
        font.setPointSizeF(font.pointSizeF() * 1.1)  # token labels are short: a little larger reads better
        self.setFont(font)
        session.corpusChanged.connect(self.reload)
        session.displayTextChanged.connect(lambda _text: self.reload(keep_scroll=True))
        session.modelReset.connect(self._on_model_reset)
        # (not recordsAppended: merges after the step shown change nothing on screen; the followed step repaints)
        session.stepChanged.connect(self._on_step_changed)
        self.reload()

    # -- public API ---------------------------------------------------------------------------------
    @property
    def animating(self) -> bool:
        return self._anim.state() == QtCore.QAbstractAnimation.State.Running

    @property
    def shown_step(self) -> int:
        return self._shown_step

    @property
    def kind(self) -> str:
        """``"text"`` (a row per line) or ``"words"`` (a row per distinct word of a word-count table)."""
        return self.rows.kind

    @property
    def note(self) -> str:
        """What the rows leave out, or why there are none (e.g. "showing the first 4 MB ...")."""
        return self.rows.note

    @property
    def n_rows(self) -> int:
        return self.rows.n_rows

    @property
    def caches(self) -> Caches:
        return Caches(self._rc.segs, self._rc.layouts, self.boxes.pixmaps)

    def set_animation_duration(self, ms: int) -> None:
        """Duration of one merge animation (0 disables animations)."""
        self.timing.duration_ms = max(0, int(ms))

    def animation_duration(self) -> int:
        return self.timing.duration_ms

    @property
    def animation(self) -> QtCore.QVariantAnimation:
        """What runs a merge animation's progress (0..1): its duration and ``valueChanged`` (read them)."""
        return self._anim

    def set_play_speed(self, steps_per_second: float) -> None:
        """Fit the animation to a playback speed: it lasts 85% of one step (at most 600 ms)."""
        self.timing.set_play_speed(steps_per_second)

    def finish_animation(self) -> None:
        if self.animating:
            self._anim.stop()
        self._progress = 1.0
        self.viewport().update()

    def hold_animation_at(self, progress: float) -> None:
        """Pause the running merge animation and show it at *progress* (0..1) until the next change."""
        self._anim.pause()
        self._progress = min(1.0, max(0.0, float(progress)))
        self.screen_rows.clear()
        self.viewport().update()

    def row_text(self, row: int) -> str:
        return self.rows.row_text(row)

    def row_segments(self, row: int, step: int | None = None) -> list[Segment]:
        """The segments of *row* at *step* (default: the shown step); the encoding is cached."""
        return unpack_segments(self.row_packed(row, step))

    def row_ids(self, row: int, step: int | None = None) -> tuple[int | None, ...]:
        """The ids of the segments of *row* at *step* (None for the gaps between tokens), cached."""
        return self.row_packed(row, step)[0::PACK]

    def row_packed(self, row: int, step: int | None = None) -> PackedSegments:
        """The segments of *row* at *step* as the flat tuple the cache holds (least recently used rows go)."""
        step = self._shown_step if step is None else step
        key = (row, step)
        segs = self._rc.segs.hit(key)
        if segs is not None:
            return segs
        tok = self.session.tokenizer
        if self.regex_error:
            raise RegexTimeout(tok.pretokenizer.spec, PAINT_BUDGET_S)  # stays failed until a new model or corpus
        if self.rows.kind == "words":
            segs = segment_word_packed(tok, self.rows.words[row][0], step, self._rc.labels)
        else:
            try:
                segs = segment_line_packed(tok, self.rows.lines[row], step, self._rc.labels, paint_budget())
            except RegexTimeout as e:
                self._regex_failed(str(e))
                raise
        self.rows_encoded += 1
        self._rc.segs.put(key, segs)
        return segs

    def first_row(self) -> int:
        return self.verticalScrollBar().value()

    def scroll_to_row(self, row: int) -> None:
        self.verticalScrollBar().setValue(max(0, min(row, self.n_rows - 1)))
        self.viewport().update()

    def tooltip_text(self, seg: Segment) -> str:
        """What hovering a token says: text, id, merge rank, count when it was created."""
        return token_tooltip(self.session.model, self.session.records, seg, self._label)

    def select(self, token_id: int | None) -> None:
        self.selected = self.boxes.selected = token_id
        self.viewport().update()

    def color(self, token_id: int) -> QtGui.QColor:
        """Fill colour of a token: neutral for base symbols, a stable hue per merged token."""
        self.boxes.model = self.session.model
        return self.boxes.color(token_id)

    # -- session reactions --------------------------------------------------------------------------
    def reload(self, keep_scroll: bool = False) -> None:
        """Re-read the rows: the session's edited ``display_text`` if set, else its corpus source (a big file
        on a worker thread: :mod:`.row_loader`)."""
        self.loader.load(self.rows, self.session, self._model_trained(), keep_scroll)

    def _rows_ready(self, rows: RowSource, keep_scroll: bool) -> None:
        s = self.session
        same = rows.kind == self.rows.kind == "text" and rows.lines is self.rows.lines  # (a retrain: kept)
        self.rows = rows
        self._clear_caches(keep_base=same)
        self._shown_step = s.step
        self._setup_prefix()
        sb = self.verticalScrollBar()
        first = sb.value()
        sb.setRange(0, max(0, self.n_rows - 1))
        sb.setValue(min(first, max(0, self.n_rows - 1)) if keep_scroll else 0)
        self.rowsChanged.emit()
        self.ahead.start()

    def _regex_failed(self, message: str) -> None:
        self.regex_error = message
        QtCore.QTimer.singleShot(0, lambda m=message: self.regexFailed.emit(m))  # never a dialog inside a paint

    def _model_trained(self) -> bool:
        s = self.session
        return bool(s.records or s.initial_symbols or s.model.merges or s.preview_base)

    def _clear_caches(self, keep_base: bool = False) -> None:  # keep_base: step 0's stay (.row_caches)
        self.regex_error = ""
        self._rc.clear(self.session.model if keep_base else None)
        # (box pictures are kept: keyed by id, label and fill, they outlive a retrain -- less work at its start)
        self.screen_rows.clear()
        self._anim.stop()
        self._progress = 1.0

    def _on_model_reset(self) -> None:
        words_now = self.session.word_counts
        if self.session.display_text is not None:
            self.reload(keep_scroll=True)  # an edited text waits for a model ("press Train") or is re-tokenized
        elif self.kind == "words" and words_now is not None and len(words_now.counts) != len(self.rows.words):
            self.reload()
        self._clear_caches(keep_base=self._rc.new_model(self.session.model, self.session.work.pipeline))
        self.selected = self.boxes.selected = None
        self._shown_step = self.session.step
        self.ahead.start()

    def _on_step_changed(self, k: int) -> None:
        prev = self._shown_step
        if k == prev:
            return
        if self.animating:
            self._anim.stop()
        self._shown_step = k
        self.screen_rows.clear()
        streaming = self.session.state is TrainingState.TRAINING  # (a followed step: never animated, one frame)
        duration = self.timing.step_changed(prev, k, self.animations_enabled and self.isVisible() and not streaming)
        if duration:
            self._anim_lo, self._progress = min(k, prev), (0.0 if k > prev else 1.0)  # forward: 0 -> 1
            self._anim.setStartValue(self._progress)
            self._anim.setEndValue(1.0 - self._progress)
            self._anim.setDuration(duration)
            self.animations_started += 1
            self._anim.start()
        else:
            if abs(k - prev) == 1:
                self.animations_skipped += 1
            self._progress = 1.0
            if streaming and self.isVisible():
                return self.ahead.start()  # a followed step: encoded and drawn in turns of its own, then painted
        self.viewport().update()

    def _on_anim_value(self, value: float) -> None:
        self._progress = float(value)
        self.viewport().update()

    # -- metrics --------------------------------------------------------------------------------------
    def changeEvent(self, e: QtCore.QEvent) -> None:
        if e.type() in (QtCore.QEvent.Type.FontChange, QtCore.QEvent.Type.PaletteChange):
            self.boxes.setup(self.font(), self.palette())
            self._rc.layouts.clear()
            self._setup_prefix()
        super().changeEvent(e)

    def _label(self, token_id: int) -> str:
        lab = self._rc.labels.get(token_id)
        if lab is None:
            lab = self._rc.labels[token_id] = id_label(self.session.model, token_id)
        return lab

    def _setup_prefix(self) -> None:
        """Width of the left column: line numbers (text) or word and count (word table)."""
        words = self.rows.words if self.kind == "words" else None
        self._prefix_w, self._word_w, self._count_w = self.boxes.prefix_widths(words, self.n_rows)

    # -- layout ---------------------------------------------------------------------------------------
    def laid_out(self, row: int, step: int, width: int) -> bool:
        return (row, step, width) in self._rc.layouts

    def row_layout(self, row: int, step: int, width: int) -> PackedLayout:
        """*row* encoded at *step* and laid out *width* wide (cached)."""
        key = (row, step, width)
        lay = self._rc.layouts.hit(key)
        if lay is None:
            lay = layout_row(self.row_packed(row, step), self._prefix_w, width, self.boxes.box_h, self.boxes.width)
            self._rc.layouts.put(key, lay)
        return lay

    def _compute_visible(self) -> list[Visible]:
        """Lay out the rows on screen: (row, top, shown layout, the other step's layout while animating, height).

        Nothing when the custom pattern timed out (:attr:`regex_error`)."""
        if self.regex_error:
            self.screen_rows.clear()
            return []
        try:
            return self._lay_out_visible()
        except RegexTimeout:
            self.screen_rows.clear()
            return []

    def _lay_out_visible(self) -> list[Visible]:
        width = self.viewport().width()
        height = self.viewport().height()
        anim = self.animating or 0.0 < self._progress < 1.0
        lo = self._anim_lo
        p = ease(self._progress)
        out: list[Visible] = []
        top = float(MARGIN)
        row = self.first_row()
        n = self.n_rows
        while row < n and top < height:
            other: PackedLayout | None
            if anim:
                lay_lo = self.row_layout(row, lo, width)
                lay_hi = self.row_layout(row, lo + 1, width)
                shown, other = (lay_hi, lay_lo) if self._shown_step == lo + 1 else (lay_lo, lay_hi)
                h = lerp(lay_lo[0], lay_hi[0], p)
            else:
                shown = self.row_layout(row, self._shown_step, width)
                other = None
                h = shown[0]
            out.append((row, top, shown, other, h))
            top += h + ROW_GAP
            row += 1
        self.screen_rows.packed = [(r, t, lay) for r, t, lay, _, _ in out]
        fits = sum(1 for _, t, _, _, h in out if t + h <= height)
        sb = self.verticalScrollBar()
        sb.setPageStep(max(1, fits - 1))
        if row >= n and top <= height:  # the last row is on screen: no need to scroll further
            sb.setMaximum(min(sb.maximum(), self.first_row()))
        else:
            sb.setMaximum(max(sb.maximum(), self.first_row() + 1, n - max(1, fits)))
        return out

    # -- painting -------------------------------------------------------------------------------------
    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        painter = QtGui.QPainter(self.viewport())
        try:
            self._paint(painter)
        finally:
            painter.end()

    def _paint(self, painter: QtGui.QPainter) -> None:
        boxes = self.boxes
        boxes.set_view(self.devicePixelRatioF(), self.session.model, self.selected)
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        painter.setFont(self.font())
        pal = self.palette()
        painter.fillRect(self.viewport().rect(), pal.color(QtGui.QPalette.ColorRole.Base))
        rows = self._compute_visible()
        if not rows:
            painter.setPen(pal.color(QtGui.QPalette.ColorRole.PlaceholderText))
            msg = self.regex_error or self.note or "no corpus text to show -- type or open a corpus"
            if self.regex_error:
                painter.setPen(QtGui.QColor(theme.current().error))
            flags = QtCore.Qt.AlignmentFlag.AlignCenter | QtCore.Qt.TextFlag.TextWordWrap
            painter.drawText(self.viewport().rect().adjusted(24, 24, -24, -24), flags, msg)
            return
        latest = self._latest_token()
        text_col = pal.color(QtGui.QPalette.ColorRole.Text)
        dim = QtGui.QColor(text_col)
        dim.setAlphaF(0.45)
        words = self.kind == "words"
        for row, top, shown, other, _h in rows:
            if words:
                word, count = self.rows.words[row]
                boxes.paint_prefix_words(painter, top, word, count, self._word_w, self._count_w, dim, text_col)
            elif not self.rows.continues_line(row):
                boxes.paint_prefix_number(painter, top, self.rows.line_number(row), self._prefix_w, dim)
            if other is None:
                boxes.paint_boxes(painter, top, shown, latest, dim, text_col)
            else:
                lay_lo, lay_hi = (other, shown) if self._shown_step == self._anim_lo + 1 else (shown, other)
                boxes.paint_animated(painter, top, lay_lo, lay_hi, self._progress, latest, dim, text_col)

    def _latest_token(self) -> int | None:
        k = self._shown_step
        ids = self.session.model.merge_token_ids
        return ids[k - 1] if 0 < k <= len(ids) else None

    # -- interaction ----------------------------------------------------------------------------------
    def scrollContentsBy(self, dx: int, dy: int) -> None:
        self.screen_rows.clear()
        self.viewport().update()

    def resizeEvent(self, e: QtGui.QResizeEvent) -> None:
        self.screen_rows.clear()
        super().resizeEvent(e)

    def viewportEvent(self, e: QtCore.QEvent) -> bool:
        if e.type() == QtCore.QEvent.Type.ToolTip:
            he = cast(QtGui.QHelpEvent, e)
            hit = self.screen_rows.token_at(he.pos())
            if hit is None:
                QtWidgets.QToolTip.hideText()
            else:
                QtWidgets.QToolTip.showText(he.globalPos(), self.tooltip_text(hit[1]), self.viewport())
            return True
        return super().viewportEvent(e)

    def mousePressEvent(self, e: QtGui.QMouseEvent) -> None:
        if e.button() == QtCore.Qt.MouseButton.LeftButton:
            hit = self.screen_rows.token_at(e.position())
            self.select(None if hit is None else hit[1].id)
            if hit is not None and hit[1].id is not None:
                self.tokenClicked.emit(hit[1].id)
            e.accept()
            return
        super().mousePressEvent(e)
