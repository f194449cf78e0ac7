"""The drawing surface of the token-stream view: a virtualized, animated canvas of token boxes.

:class:`TokenCanvas` is a :class:`QAbstractScrollArea` whose vertical scroll bar counts *rows* (text lines,
or the distinct words of a word-count table).  A paint encodes and lays out only the rows that are on
screen (``Tokenizer.encode_with_offsets(line, upto=k)``; the segments are cached per ``(row, step)`` and
the layouts per ``(row, step, width)``, both least-recently-used caches of at most :data:`CACHE_ROWS`
rows), so a multi-megabyte corpus scrolls smoothly and a jump between any two steps costs one screenful of
encoding.

The caches hold each row as flat tuples of ints, floats, str and None only (segments as
:data:`~bpe_desktop.core.segmentation.PackedSegments`, a layout as ``(height, segments, (x, y, w) * n)``):
Python's garbage collector untracks such tuples at their first collection, so thousands of cached rows add
nothing to what a full (generation-2) collection scans, and the view creates no long-lived tracked objects
per token that would make those collections come sooner.  The :class:`Box` / :class:`Segment` objects of
the query API (:meth:`TokenCanvas.visible_rows`, :meth:`TokenCanvas.row_segments`) are made on demand.

Stepping ``k -> k+1`` animates the merge ``k+1``: every visible occurrence of the pair glows, the two boxes
slide together and fuse into the new token; ``k+1 -> k`` plays the same animation backwards (a split).
The progress is a value 0..1 from a :class:`QVariantAnimation`; a paint interpolates the two layouts.
Jumps (more than one step) are not animated, and when steps arrive faster than the animation lasts the
duration shrinks to fit (below :data:`MIN_ANIMATION_MS` the animation is skipped), so the view never lags.

It does not own the find box, the header or the derivation tree (see :mod:`.token_view`), and it never
changes the session.
"""

from __future__ import annotations

import math
import os
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from ...core.corpus import parse_word_counts
from ...core.errors import BpeError
from ...core.segmentation import (
    PACK,
    PackedSegments,
    Segment,
    id_label,
    read_display_text,
    segment_line_packed,
    segment_word_packed,
    split_lines,
    token_hue,
    unpack_segments,
    visible_text,
)
from ...core.tokenizer import UNKNOWN_ID
from ..session import Session

#: animations shorter than this are skipped (the step is simply redrawn)
MIN_ANIMATION_MS = 50
#: default duration of one merge animation
DEFAULT_ANIMATION_MS = 450
#: rows kept by each of the segment and layout caches (least recently used rows are dropped first); a jump
#: needs one screenful (two steps of it while animating), so this keeps well over a hundred screens
CACHE_ROWS = 4_000
#: cached box pictures (~4 KB each), least recently drawn dropped first.  Each is a Qt wrapper object that a
#: full garbage collection scans (about 0.5 us each): enough for several screens, not the whole vocabulary.
BOX_PIXMAP_LIMIT = 1_500
_STATIC_LIMIT = 512  # prepared label texts (only drawn into new pictures and mid-animation); emptied when full
BOX_PIXMAP_MARGIN = 2  # transparent pixels round a cached box picture (room for the 2.2 px selection pen)

PAD_X = 4  # horizontal padding inside a box
GAP_X = 3  # space between boxes
GAP_Y = 4  # space between wrapped lines of one row
ROW_GAP = 7  # space between rows
MARGIN = 8


@dataclass(slots=True)
class Box:
    """One laid-out segment, relative to its row's top-left corner."""

    x: float
    y: float
    w: float
    seg: Segment


@dataclass(slots=True)
class RowLayout:
    boxes: list[Box]
    height: float


#: a cached layout: (height, packed segments, flat (x, y, w) per segment) -- atomic values only
PackedLayout = tuple[float, PackedSegments, tuple[float, ...]]


def _unpack_layout(lay: PackedLayout) -> RowLayout:
    height, segs, geom = lay
    return RowLayout(
        [Box(geom[3 * k], geom[3 * k + 1], geom[3 * k + 2], seg) for k, seg in enumerate(unpack_segments(segs))],
        height,
    )


@dataclass(slots=True)
class VisibleRow:
    """A row as last painted: index, top in viewport pixels, layout (at the shown step)."""

    row: int
    top: float
    layout: RowLayout


def _ease(t: float) -> float:
    t = min(1.0, max(0.0, t))
    return t * t * (3 - 2 * t)


def _lerp(a: float, b: float, t: float) -> float:
    return a + (b - a) * t


def _mix(
    x0: float, y0: float, w0: float, x1: float, y1: float, w1: float, t: float, top: float, h: float
) -> QtCore.QRectF:
    """The rectangle between (x0, y0, w0) and (x1, y1, w1) at t in 0..1, shifted down by *top*."""
    return QtCore.QRectF(x0 + (x1 - x0) * t, top + y0 + (y1 - y0) * t, w0 + (w1 - w0) * t, h)


class _LRU(OrderedDict):  # type: ignore[type-arg]
    """An ordered dict that forgets its least recently used entries beyond *limit*."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def hit(self, key: object) -> Any:
        """The value for *key* (marked as just used), or ``None``."""
        value = self.get(key)
        if value is not None:
            self.move_to_end(key)
        return value

    def put(self, key: object, value: object) -> None:
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.limit:
            self.popitem(last=False)


def _text_key(text: str | None, paths: tuple[str, ...], mode: str) -> tuple[object, ...] | None:
    """Identifies the text a canvas shows: the text itself (the same object compares in no time), or the files
    by path, size and modification time."""
    if text is not None:
        return ("text", text)
    try:
        return ("files", mode, *((p, os.stat(p).st_size, os.stat(p).st_mtime_ns) for p in paths))
    except OSError:
        return None


class TokenCanvas(QtWidgets.QAbstractScrollArea):
    """Rows of token boxes at the session's step. Signals: ``tokenClicked(int id)``, ``rowsChanged()``."""

    tokenClicked = QtCore.Signal(int)
    rowsChanged = QtCore.Signal()

    def __init__(self, session: Session, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.viewport().setMouseTracking(True)
        self.verticalScrollBar().setSingleStep(1)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Expanding)
        # rows
        self.kind = "text"  # "text" | "words"
        self._lines: list[str] = []
        self._words: list[tuple[str, int]] = []
        # what _lines were split from, so a retrain on the same corpus neither re-reads nor re-splits it
        self._lines_key: tuple[object, ...] | None = None
        self._lines_note = ""
        self.note = ""  # e.g. "showing the first 4 MB"
        # caches
        self._segs = _LRU(CACHE_ROWS)  # (row, step) -> PackedSegments
        self._layouts = _LRU(CACHE_ROWS)  # (row, step, width) -> PackedLayout
        self._labels: dict[int, str] = {}
        self._widths: dict[str, float] = {}
        # colours and pens are made when a picture is drawn (a few per jump), not kept per token id
        self._statics: dict[str, QtGui.QStaticText] = {}  # label -> prepared text (at most _STATIC_LIMIT)
        # (token id, label, pen kind 0 plain / 1 selected / 2 latest merge) -> the whole box, border and label
        self._box_pixmaps = _LRU(BOX_PIXMAP_LIMIT)  # (token id, label, kind) -> QPixmap
        self.box_pixmaps_made = 0  # (tests, benchmarks)
        self._pixmap_dpr = 1.0  # device pixel ratio the box pictures were drawn for
        self.rows_encoded = 0  # how many (row, step) encodings were computed (tests, benchmarks)
        # state
        self.selected: int | None = None
        self._shown_step = session.step
        self._visible: list[tuple[int, float, PackedLayout]] = []  # (row, top, layout) as last painted
        self._prefix_w = 0.0
        # animation
        self.animations_enabled = True
        self._duration_ms = DEFAULT_ANIMATION_MS
        self._last_change = 0.0
        self._anim_lo = 0
        self._progress = 1.0
        self._anim = QtCore.QVariantAnimation(self)
        self._anim.setEasingCurve(QtCore.QEasingCurve.Type.Linear)
        self._anim.valueChanged.connect(self._on_anim_value)
        self._anim.finished.connect(self.viewport().update)
        self.animations_started = 0
        self.animations_skipped = 0
        self._fm = QtGui.QFontMetricsF(self.font())
        self._setup_metrics()
        font = self.font()
        font.setPointSizeF(font.pointSizeF() * 1.1)  # token labels are short: a little larger reads better
        self.setFont(font)
        session.corpusChanged.connect(self.reload)
        session.displayTextChanged.connect(self._on_display_text_changed)
        session.modelReset.connect(self._on_model_reset)
        session.recordsAppended.connect(self._on_records_appended)
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
    def n_rows(self) -> int:
        return len(self._words) if self.kind == "words" else len(self._lines)

    def set_animation_duration(self, ms: int) -> None:
        """Duration of one merge animation (0 disables animations)."""
        self._duration_ms = max(0, int(ms))

    def animation_duration(self) -> int:
        return self._duration_ms

    def set_play_speed(self, steps_per_second: float) -> None:
        """Fit the animation to a playback speed: it lasts 85% of one step (at most 600 ms)."""
        if steps_per_second <= 0:
            self._duration_ms = DEFAULT_ANIMATION_MS
        else:
            self._duration_ms = int(min(600.0, 850.0 / steps_per_second))

    def finish_animation(self) -> None:
        if self.animating:
            self._anim.stop()
        self._progress = 1.0
        self.viewport().update()

    def row_text(self, row: int) -> str:
        return self._words[row][0] if self.kind == "words" else self._lines[row]

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
        segs = self._segs.hit(key)
        if segs is not None:
            return segs  # type: ignore[no-any-return]
        tok = self.session.tokenizer
        if self.kind == "words":
            segs = segment_word_packed(tok, self._words[row][0], step, self._labels)
        else:
            segs = segment_line_packed(tok, self._lines[row], step, self._labels)
        self.rows_encoded += 1
        self._segs.put(key, segs)
        return segs

    def first_row(self) -> int:
        return self.verticalScrollBar().value()

    def scroll_to_row(self, row: int) -> None:
        self.verticalScrollBar().setValue(max(0, min(row, self.n_rows - 1)))
        self.viewport().update()

    def visible_rows(self) -> list[VisibleRow]:
        """Rows on screen as laid out by the last paint (lays them out now if nothing was painted yet).

        The :class:`VisibleRow` s are made on each call from the packed cache (the canvas keeps none).
        """
        if not self._visible:
            self._compute_visible()
        return [VisibleRow(row, top, _unpack_layout(lay)) for row, top, lay in self._visible]

    def visible_tokens(self) -> list[list[str]]:
        """Token labels per visible row at the shown step (gaps between tokens left out)."""
        if not self._visible:
            self._compute_visible()
        return [
            [lab for i, lab in zip(segs[0::PACK], segs[3::PACK], strict=True) if i is not None]
            for _, _, (_, segs, _) in self._visible
        ]

    def visible_ids(self) -> list[list[int]]:
        if not self._visible:
            self._compute_visible()
        return [[i for i in segs[0::PACK] if i is not None] for _, _, (_, segs, _) in self._visible]

    def token_at(self, pos: QtCore.QPointF | QtCore.QPoint) -> tuple[int, Segment] | None:
        """(row, segment) of the token box under a viewport position, or None."""
        x, y = float(pos.x()), float(pos.y())
        h = self._box_h
        for vr in self.visible_rows():
            if not vr.top <= y <= vr.top + vr.layout.height:
                continue
            for b in vr.layout.boxes:
                if b.seg.id is not None and b.x <= x <= b.x + b.w and vr.top + b.y <= y <= vr.top + b.y + h:
                    return vr.row, b.seg
            return None
        return None

    def box_center(self, row: int, seg_index: int) -> QtCore.QPoint:
        """Viewport position of the centre of token number *seg_index* (gaps not counted) of a visible row."""
        for vr in self.visible_rows():
            if vr.row == row:
                boxes = [b for b in vr.layout.boxes if b.seg.id is not None]
                b = boxes[seg_index]
                return QtCore.QPoint(int(b.x + b.w / 2), int(vr.top + b.y + self._box_h / 2))
        raise IndexError(f"row {row} is not visible")

    def tooltip_text(self, seg: Segment) -> str:
        """What hovering a token says: text, id, merge rank, count when it was created."""
        i = seg.id
        if i is None:
            return ""
        if i == UNKNOWN_ID:
            return f"{seg.label}\nnot in this chars-mode alphabet (unknown)"
        model = self.session.model
        lines = [f"{seg.label}", f"id {i}"]
        if model.mode == "bytes" and i < len(model.tokens):
            lines[0] += "   bytes " + " ".join(f"{b:02x}" for b in model.tokens[i])  # type: ignore[union-attr]
        r = model.merge_rank_of(i)
        if r is None:
            lines.append("special token" if i >= len(model.tokens) else "base symbol")
        else:
            a, b = model.merges[r]
            lines.append(f"made by merge {r + 1}: {self._label(a)} + {self._label(b)}")
            if r < len(self.session.records):
                lines.append(f"count when created: {self.session.records[r].count:,}")
        return "\n".join(lines)

    def select(self, token_id: int | None) -> None:
        self.selected = token_id
        self.viewport().update()

    # -- session reactions --------------------------------------------------------------------------
    def reload(self, keep_scroll: bool = False) -> None:
        """Re-read the rows: the session's edited ``display_text`` if set, else its corpus source."""
        s = self.session
        src = s.source
        self.note = ""
        old_lines, old_words, old_kind = self._lines, self._words, self.kind
        self._lines, self._words = [], []
        edited = s.display_text is not None
        table = s.display_word_counts if edited else src.word_counts
        if edited and not self._model_trained():
            self.kind = "words" if table else "text"
            self.note = "press Train (F5) to cut this text into tokens"
        elif table:
            self.kind = "words"
            counts: dict[str, int] = {}
            if not edited and s.word_counts is not None:
                counts = s.word_counts.counts
            else:
                text = s.display_text if edited else src.text
                if text is None and src.paths:
                    text, cut = read_display_text(src.paths, s.config.mode)
                    if cut:
                        self.note = "showing the words in the first 4 MB of the table"
                try:
                    counts = parse_word_counts(text or "", "<editor>" if edited else src.name).counts
                except BpeError as e:
                    self.note = str(e)
                    if edited and old_kind == "words":  # mid-edit: keep showing the last table that parsed
                        counts = dict(old_words)
            self._words = list(counts.items())
        else:
            self.kind = "text"
            text = s.display_text if edited else src.text
            key = _text_key(text, src.paths, s.config.mode)
            if key is not None and key == self._lines_key:
                self._lines, self.note = old_lines, self._lines_note  # same text as shown: keep its rows
            else:
                if text is None and src.paths:
                    text, cut = read_display_text(src.paths, s.config.mode)
                    if cut:
                        self.note = "showing the first 4 MB of the corpus files"
                self._lines = split_lines(text or "")
                self._lines_key, self._lines_note = key, self.note
        if self.kind != "text":
            self._lines_key = None
        del old_lines
        self._clear_caches()
        self._shown_step = s.step
        self._setup_prefix()
        sb = self.verticalScrollBar()
        first = sb.value()
        sb.setRange(0, max(0, self.n_rows - 1))
        sb.setValue(min(first, max(0, self.n_rows - 1)) if keep_scroll else 0)
        self.rowsChanged.emit()
        self.viewport().update()

    def _model_trained(self) -> bool:
        s = self.session
        return bool(s.records or s.initial_symbols or s.model.merges)

    def _on_display_text_changed(self, _text: str = "") -> None:
        self.reload(keep_scroll=True)

    def _clear_caches(self) -> None:
        self._segs.clear()
        self._layouts.clear()
        self._labels.clear()
        self._box_pixmaps.clear()
        self._visible = []
        self._anim.stop()
        self._progress = 1.0

    def _on_model_reset(self) -> None:
        words_now = self.session.word_counts
        if self.session.display_text is not None:
            self.reload(keep_scroll=True)  # an edited text waits for a model ("press Train") or is re-tokenized
        elif self.kind == "words" and words_now is not None and len(words_now.counts) != len(self._words):
            self.reload()
        self._clear_caches()
        self.selected = None
        self._shown_step = self.session.step
        self.viewport().update()

    def _on_records_appended(self, first: int, last: int) -> None:
        # ids are stable and earlier steps unchanged: cached rows stay valid; labels of new ids are added lazily
        self.viewport().update()

    def _on_step_changed(self, k: int) -> None:
        prev = self._shown_step
        if k == prev:
            return
        now = time.monotonic()
        interval_ms = (now - self._last_change) * 1000.0
        self._last_change = now
        if self.animating:
            self._anim.stop()
        self._shown_step = k
        self._visible = []
        duration = self._duration_ms
        if interval_ms < duration * 1.25:  # steps come faster than the animation: shrink it to fit
            duration = int(interval_ms * 0.85)
        if abs(k - prev) == 1 and self.animations_enabled and duration >= MIN_ANIMATION_MS and self.isVisible():
            self._anim_lo = min(k, prev)
            forward = k > prev
            self._anim.setStartValue(0.0 if forward else 1.0)
            self._anim.setEndValue(1.0 if forward else 0.0)
            self._anim.setDuration(duration)
            self._progress = 0.0 if forward else 1.0
            self.animations_started += 1
            self._anim.start()
        else:
            if abs(k - prev) == 1:
                self.animations_skipped += 1
            self._progress = 1.0
        self.viewport().update()

    def _on_anim_value(self, value: object) -> None:
        self._progress = float(value)  # type: ignore[arg-type]
        self.viewport().update()

    # -- metrics and colours --------------------------------------------------------------------------
    def _setup_metrics(self) -> None:
        fm = QtGui.QFontMetricsF(self.font())
        self._fm = fm
        self._box_h = math.ceil(fm.height()) + 6
        self._ascent = fm.ascent()
        self._widths.clear()
        self._statics.clear()
        self._box_pixmaps.clear()
        self._text_dy = (self._box_h - fm.height()) / 2
        pal = self.palette()
        self._dark = pal.color(QtGui.QPalette.ColorRole.Base).lightness() < 128
        self._special_pens = (
            QtGui.QPen(QtGui.QColor("#ffb000" if self._dark else "#1f5fd6"), 2.2),  # selected token
            QtGui.QPen(QtGui.QColor("#f0f0f0" if self._dark else "#303030"), 1.6),  # made by the latest merge
        )

    def changeEvent(self, e: QtCore.QEvent) -> None:
        if e.type() in (QtCore.QEvent.Type.FontChange, QtCore.QEvent.Type.PaletteChange):
            self._setup_metrics()
            self._layouts.clear()
            self._box_pixmaps.clear()
            self._setup_prefix()
        super().changeEvent(e)

    def _width(self, label: str) -> float:
        w = self._widths.get(label)
        if w is None:
            w = self._widths[label] = self._fm.horizontalAdvance(label)
        return w

    def _label(self, token_id: int) -> str:
        lab = self._labels.get(token_id)
        if lab is None:
            lab = self._labels[token_id] = id_label(self.session.model, token_id)
        return lab

    def color(self, token_id: int) -> QtGui.QColor:
        """Fill colour of a token: neutral for base symbols, a stable hue per merged token."""
        model = self.session.model
        if token_id == UNKNOWN_ID:
            return QtGui.QColor("#5a2a2a" if self._dark else "#ffd6d6")
        if token_id < model.n_base:
            return QtGui.QColor("#3b3f45" if self._dark else "#eceef1")
        if token_id >= len(model.tokens):
            return QtGui.QColor("#555555" if self._dark else "#d9d9d9")
        h = token_hue(token_id)
        return QtGui.QColor.fromHslF(h, 0.55, 0.32) if self._dark else QtGui.QColor.fromHslF(h, 0.80, 0.84)

    def _setup_prefix(self) -> None:
        """Width of the left column: line numbers (text) or word and count (word table)."""
        fm = self._fm
        if self.kind == "words":
            sample = self._words[:2000]
            ww = max((fm.horizontalAdvance(visible_text(w)) for w, _ in sample), default=0)
            cw = max((fm.horizontalAdvance(f"{c:,}") for _, c in sample), default=0)
            self._word_w, self._count_w = ww, cw
            self._prefix_w = MARGIN + ww + 12 + cw + 16
        else:
            digits = len(str(max(1, self.n_rows)))
            self._prefix_w = MARGIN + fm.horizontalAdvance("9" * digits) + 12

    # -- layout ---------------------------------------------------------------------------------------
    def _layout(self, row: int, step: int, width: int) -> PackedLayout:
        key = (row, step, width)
        lay = self._layouts.hit(key)
        if lay is not None:
            return lay  # type: ignore[no-any-return]
        segs = self.row_packed(row, step)
        x0 = self._prefix_w
        right = max(width - MARGIN, x0 + 40)
        x, y = x0, 0.0
        h = self._box_h
        pad = 2 * PAD_X
        geom: list[float] = []
        add = geom.extend
        width_of = self._width
        for i, label in zip(segs[0::PACK], segs[3::PACK], strict=True):
            w = width_of(label) + (pad if i is not None else 0)
            if x + w > right and x > x0:
                x = x0
                y += h + GAP_Y
            add((x, y, w))
            x += w + GAP_X
        lay = (y + h, segs, tuple(geom))
        self._layouts.put(key, lay)
        return lay

    def _compute_visible(self) -> list[tuple[int, float, PackedLayout, PackedLayout | None, float]]:
        """Lay out the rows on screen: (row, top, shown layout, the other step's layout while animating, height)."""
        width = self.viewport().width()
        height = self.viewport().height()
        anim = self.animating or 0.0 < self._progress < 1.0
        lo = self._anim_lo
        p = _ease(self._progress)
        out: list[tuple[int, float, PackedLayout, PackedLayout | None, float]] = []
        top = float(MARGIN)
        row = self.first_row()
        n = self.n_rows
        while row < n and top < height:
            if anim:
                lay_lo = self._layout(row, lo, width)
                lay_hi = self._layout(row, lo + 1, width)
                shown, other = (lay_hi, lay_lo) if self._shown_step == lo + 1 else (lay_lo, lay_hi)
                h = _lerp(lay_lo[0], lay_hi[0], p)
            else:
                shown = self._layout(row, self._shown_step, width)
                other = None
                h = shown[0]
            out.append((row, top, shown, other, h))
            top += h + ROW_GAP
            row += 1
        self._visible = [(r, t, lay) for r, t, lay, _, _ in out]
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
        dpr = self.devicePixelRatioF()
        if dpr != self._pixmap_dpr:  # moved to a screen of another density: redraw the box pictures
            self._box_pixmaps.clear()
            self._pixmap_dpr = dpr
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        painter.setFont(self.font())
        pal = self.palette()
        painter.fillRect(self.viewport().rect(), pal.color(QtGui.QPalette.ColorRole.Base))
        rows = self._compute_visible()
        if not rows:
            painter.setPen(pal.color(QtGui.QPalette.ColorRole.PlaceholderText))
            msg = self.note or "no corpus text to show -- type or open a corpus"
            painter.drawText(self.viewport().rect(), QtCore.Qt.AlignmentFlag.AlignCenter, msg)
            return
        latest = self._latest_token()
        text_col = pal.color(QtGui.QPalette.ColorRole.Text)
        dim = QtGui.QColor(text_col)
        dim.setAlphaF(0.45)
        for row, top, shown, other, _h in rows:
            self._paint_prefix(painter, row, top, dim, text_col)
            if other is None:
                self._paint_boxes(painter, top, shown, latest, dim, text_col)
            else:
                lay_lo, lay_hi = (other, shown) if self._shown_step == self._anim_lo + 1 else (shown, other)
                self._paint_animated(painter, top, lay_lo, lay_hi, latest, dim, text_col)

    def _latest_token(self) -> int | None:
        k = self._shown_step
        ids = self.session.model.merge_token_ids
        return ids[k - 1] if 0 < k <= len(ids) else None

    def _paint_prefix(
        self, painter: QtGui.QPainter, row: int, top: float, dim: QtGui.QColor, text: QtGui.QColor
    ) -> None:
        y = top + (self._box_h + self._ascent - self._fm.descent()) / 2
        if self.kind == "words":
            word, count = self._words[row]
            painter.setPen(text)
            painter.drawText(QtCore.QPointF(MARGIN, y), visible_text(word))
            painter.setPen(dim)
            c = f"{count:,}"
            x = MARGIN + self._word_w + 12 + self._count_w - self._fm.horizontalAdvance(c)
            painter.drawText(QtCore.QPointF(x, y), c)
        else:
            painter.setPen(dim)
            num = str(row + 1)
            x = self._prefix_w - 12 - self._fm.horizontalAdvance(num)
            painter.drawText(QtCore.QPointF(x, y), num)

    def _pen(self, token_id: int, latest: int | None) -> QtGui.QPen:
        if token_id == self.selected:
            return self._special_pens[0]
        if token_id == latest:
            return self._special_pens[1]
        if token_id == UNKNOWN_ID:
            return QtGui.QPen(QtGui.QColor("#c03030"), 1.0, QtCore.Qt.PenStyle.DashLine)
        return QtGui.QPen(self.color(token_id).darker(70 if self._dark else 135), 1.0)

    def _static(self, label: str) -> QtGui.QStaticText:
        st = self._statics.get(label)
        if st is None:
            if len(self._statics) >= _STATIC_LIMIT:
                self._statics.clear()
            st = self._statics[label] = QtGui.QStaticText(label)
            st.setTextFormat(QtCore.Qt.TextFormat.PlainText)
            st.prepare(QtGui.QTransform(), self.font())
        return st

    def _draw_box(
        self, painter: QtGui.QPainter, rect: QtCore.QRectF, seg: Segment, latest: int | None,
        text: QtGui.QColor, opacity: float = 1.0,
    ) -> None:
        if opacity <= 0.01:
            return
        i = seg.id
        assert i is not None
        if opacity < 1.0:
            painter.setOpacity(opacity)
        if abs(rect.width() - self._width(seg.label) - 2 * PAD_X) < 0.01:  # its natural size: the cached picture
            painter.drawPixmap(
                QtCore.QPoint(int(rect.x() + 0.5) - BOX_PIXMAP_MARGIN, int(rect.y() + 0.5) - BOX_PIXMAP_MARGIN),
                self._box_pixmap(i, seg.label, latest, text),
            )
            if opacity < 1.0:
                painter.setOpacity(1.0)
            return
        painter.setPen(self._pen(i, latest))
        painter.setBrush(self.color(i))
        painter.drawRoundedRect(rect.adjusted(0.5, 0.5, -0.5, -0.5), 4, 4)
        painter.setPen(text)
        st = self._static(seg.label)
        painter.drawStaticText(
            QtCore.QPointF(rect.x() + (rect.width() - self._width(seg.label)) / 2, rect.y() + self._text_dy), st
        )
        if opacity < 1.0:
            painter.setOpacity(1.0)

    def _box_pixmap(self, i: int, label: str, latest: int | None, text: QtGui.QColor) -> QtGui.QPixmap:
        """The picture of a token box at its natural width (border, fill and label), drawn once and cached.

        Drawing a cached pixmap costs about a tenth of an antialiased rounded rectangle plus its text, and
        the same tokens recur on every screen and at every step.  The picture has a margin of
        :data:`BOX_PIXMAP_MARGIN` pixels all round so that the thicker selection border is not cut.
        """
        kind = 1 if i == self.selected else 2 if i == latest else 0
        key = (i, label, kind)
        pm = self._box_pixmaps.hit(key)
        if pm is not None:
            return pm  # type: ignore[no-any-return]
        m = BOX_PIXMAP_MARGIN
        w, h = self._width(label) + 2 * PAD_X, self._box_h
        dpr = self.devicePixelRatioF()
        pm = QtGui.QPixmap(math.ceil((w + 2 * m) * dpr), math.ceil((h + 2 * m) * dpr))
        pm.setDevicePixelRatio(dpr)
        pm.fill(QtCore.Qt.GlobalColor.transparent)
        p = QtGui.QPainter(pm)
        try:
            p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
            p.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing)
            p.setFont(self.font())
            p.setPen(self._pen(i, latest))
            p.setBrush(self.color(i))
            p.drawRoundedRect(QtCore.QRectF(m + 0.5, m + 0.5, w - 1, h - 1), 4, 4)
            p.setPen(text)
            p.drawStaticText(QtCore.QPointF(m + PAD_X, m + self._text_dy), self._static(label))
        finally:
            p.end()
        self._box_pixmaps.put(key, pm)
        self.box_pixmaps_made += 1
        return pm

    def _paint_boxes(
        self, painter: QtGui.QPainter, top: float, lay: PackedLayout, latest: int | None,
        dim: QtGui.QColor, text: QtGui.QColor,
    ) -> None:
        h = self._box_h
        m = BOX_PIXMAP_MARGIN
        cache = self._box_pixmaps
        touch = cache.move_to_end
        sel = self.selected
        draw = painter.drawPixmap
        point = QtCore.QPoint
        _, segs, geom = lay
        for i, label, x, y, w in zip(segs[0::PACK], segs[3::PACK], geom[0::3], geom[1::3], geom[2::3], strict=True):
            if i is None:
                painter.setPen(dim)
                painter.drawText(QtCore.QRectF(x, top + y, w, h), QtCore.Qt.AlignmentFlag.AlignCenter, label)
                continue
            key = (i, label, 1 if i == sel else 2 if i == latest else 0)
            pm = cache.get(key)
            if pm is None:
                pm = self._box_pixmap(i, label, latest, text)
            else:
                touch(key)  # least recently drawn pictures are dropped first
            draw(point(int(x + 0.5) - m, int(top + y + 0.5) - m), pm)

    def _paint_animated(
        self, painter: QtGui.QPainter, top: float, packed_lo: PackedLayout, packed_hi: PackedLayout,
        latest: int | None, dim: QtGui.QColor, text: QtGui.QColor,
    ) -> None:
        """Interpolate a row between step lo (progress 0) and lo+1 (progress 1)."""
        p = self._progress
        h = self._box_h
        if len(packed_lo[1]) == len(packed_hi[1]):  # the merge does not occur in this row
            self._paint_boxes(painter, top, packed_hi, latest, dim, text)
            return
        # the few rows the merge changes: Box objects for this paint only
        lay_lo, lay_hi = _unpack_layout(packed_lo), _unpack_layout(packed_hi)
        slide = _ease(p / 0.6)
        fuse = _ease((p - 0.55) / 0.45)
        glow = math.sin(math.pi * min(1.0, p / 0.9)) if p < 0.9 else 0.0
        lo_boxes = lay_lo.boxes
        by_span = {(b.seg.start, b.seg.end): i for i, b in enumerate(lo_boxes)}
        first_at: dict[int, int] = {}  # start -> index of the first token box there (a marker can be empty)
        for i, b in enumerate(lo_boxes):
            if b.seg.id is not None:
                first_at.setdefault(b.seg.start, i)
        glow_col = QtGui.QColor(255, 190, 0)
        for hb in lay_hi.boxes:
            same = by_span.get((hb.seg.start, hb.seg.end))
            if same is not None and lo_boxes[same].seg.id == hb.seg.id:
                lb = lo_boxes[same]
                if abs(lb.y - hb.y) < 1:
                    places = [(_mix(lb.x, lb.y, lb.w, hb.x, hb.y, hb.w, slide, top, h), 1.0)]
                else:
                    places = [(QtCore.QRectF(lb.x, top + lb.y, lb.w, h), 1.0 - fuse),
                              (QtCore.QRectF(hb.x, top + hb.y, hb.w, h), fuse)]
                for rect, alpha in places:
                    if hb.seg.id is None:
                        painter.setOpacity(alpha)
                        painter.setPen(dim)
                        painter.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter, hb.seg.label)
                        painter.setOpacity(1.0)
                    else:
                        self._draw_box(painter, rect, hb.seg, latest, text, alpha)
                continue
            li = first_at.get(hb.seg.start)
            if li is None or li + 1 >= len(lo_boxes) or hb.seg.id is None:
                continue
            lb, rb = lo_boxes[li], lo_boxes[li + 1]
            if rb.seg.id is None:
                continue
            wl = lb.w / (lb.w + rb.w)
            tl = QtCore.QRectF(hb.x, hb.y, hb.w * wl, h)
            tr = QtCore.QRectF(hb.x + hb.w * wl, hb.y, hb.w * (1 - wl), h)
            left = _mix(lb.x, lb.y, lb.w, tl.x(), tl.y(), tl.width(), slide, top, h)
            right = _mix(rb.x, rb.y, rb.w, tr.x(), tr.y(), tr.width(), slide, top, h)
            if glow > 0.01:
                g = QtGui.QColor(glow_col)
                g.setAlphaF(0.75 * glow)
                painter.setPen(QtCore.Qt.PenStyle.NoPen)
                painter.setBrush(g)
                for r in (left, right) if abs(left.y() - right.y()) > 1 else (left.united(right),):
                    painter.drawRoundedRect(r.adjusted(-4, -4, 4, 4), 7, 7)
            self._draw_box(painter, left, lb.seg, latest, text, 1.0 - fuse)
            self._draw_box(painter, right, rb.seg, latest, text, 1.0 - fuse)
            self._draw_box(painter, QtCore.QRectF(hb.x, top + hb.y, hb.w, h), hb.seg, latest, text, fuse)

    # -- interaction ----------------------------------------------------------------------------------
    def scrollContentsBy(self, dx: int, dy: int) -> None:
        self._visible = []
        self.viewport().update()

    def resizeEvent(self, e: QtGui.QResizeEvent) -> None:
        self._visible = []
        super().resizeEvent(e)

    def viewportEvent(self, e: QtCore.QEvent) -> bool:
        if e.type() == QtCore.QEvent.Type.ToolTip:
            he = e  # QHelpEvent
            hit = self.token_at(he.pos())  # type: ignore[attr-defined]
            if hit is None:
                QtWidgets.QToolTip.hideText()
            else:
                QtWidgets.QToolTip.showText(he.globalPos(), self.tooltip_text(hit[1]), self.viewport())  # type: ignore[attr-defined]
            return True
        return super().viewportEvent(e)

    def mousePressEvent(self, e: QtGui.QMouseEvent) -> None:
        if e.button() == QtCore.Qt.MouseButton.LeftButton:
            hit = self.token_at(e.position())
            self.select(None if hit is None else hit[1].id)
            if hit is not None and hit[1].id is not None:
                self.tokenClicked.emit(hit[1].id)
            e.accept()
            return
        super().mousePressEvent(e)
