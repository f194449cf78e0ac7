"""A one-line label that never overflows: parts of lower priority are dropped first, then the text is elided,
and the full text is in the tooltip.

:class:`ElidedLabel` is a ``QLabel`` (so style sheets and object names work) that paints its own text.  Its
text is a list of :class:`Part` values — a piece of text, bold or monospace, and ``drop``: 0 keeps the part
as long as anything is shown, higher numbers are dropped first when the width is short.  ``setText(str)``
is one part.  :func:`fit_parts` is the choice, without Qt widgets (a measuring function is passed in).

Setting a new text repaints the label and relayouts nothing (unless its natural width changed and its
horizontal size policy asks for it) -- except that ``QLabel`` itself asks its parent's layout for a new
geometry on every text: a label whose text changes on every step sits in a :class:`LabelHost`.

It does not wrap or show rich text; use a word-wrapped ``QLabel`` for sentences.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from PySide6 import QtCore, QtGui, QtWidgets

ELLIPSIS = "…"


class Part(NamedTuple):
    text: str
    drop: int = 0  # 0: kept; higher numbers are dropped first
    bold: bool = False
    mono: bool = False


def fit_parts(parts: Sequence[Part], width: float, measure: Callable[[Part], float],
              elide: Callable[[Part, float], str]) -> list[Part]:
    """The parts to show in *width*: drop the highest ``drop`` levels until the rest fits, then elide the
    last parts (a part elided to nothing is left out).  ``measure(part)`` is its width, ``elide(part, w)``
    its text cut to *w* with an ellipsis ("" if nothing fits)."""
    shown = [p for p in parts if p.text]
    levels = sorted({p.drop for p in shown if p.drop > 0}, reverse=True)
    while sum(measure(p) for p in shown) > width and levels:
        level = levels.pop(0)
        shown = [p for p in shown if p.drop != level]
    while shown and sum(measure(p) for p in shown) > width:
        last = shown[-1]
        room = width - sum(measure(p) for p in shown[:-1])
        cut = elide(last, room) if room > 0 else ""
        if cut.endswith(ELLIPSIS):
            cut = cut[:-1].rstrip() + ELLIPSIS  # "ew…", not "ew …"
        if cut.strip(" ·:,+→" + ELLIPSIS):
            shown[-1] = last._replace(text=cut)
            break
        shown.pop()
        if shown and not shown[-1].text.endswith(ELLIPSIS):
            shown[-1] = shown[-1]._replace(text=shown[-1].text.rstrip(" ·:,") + ELLIPSIS)
    return shown


class ElidedLabel(QtWidgets.QLabel):
    """See the module docstring.  ``text()`` is the full text; :meth:`shown_text` what is painted."""

    def __init__(self, text: str = "", parent: QtWidgets.QWidget | None = None, *, min_chars: int = 6,
                 hint: str | None = None) -> None:
        """*hint*: a typical text whose width is the label's preferred width, whatever it shows (so a new text
        never relayouts); without it the preferred width is the text's own."""
        super().__init__(parent)
        self._hint = hint
        self._parts: list[Part] = []
        self._shown: list[Part] = []
        self._tip = ""
        self._min_chars = min_chars
        self._natural = 0.0
        self._fitted_for = -1
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Fixed)
        self.setText(text)

    # -- text -----------------------------------------------------------------------------------------
    def setText(self, text: str) -> None:
        self.set_parts([Part(text)])

    def clear(self) -> None:
        """No text (and, like :meth:`setText`, nothing happens when there was none: ``QLabel.clear`` would
        relayout the parent every time)."""
        self.set_parts([])

    def set_parts(self, parts: Sequence[Part]) -> None:
        parts = [p for p in parts if p.text]
        if parts == self._parts:
            return
        self._parts = parts
        natural = sum(self._measure(p) for p in parts)
        grew = natural != self._natural
        self._natural = natural
        self._fitted_for = -1
        if grew and self.relayouts_on_text:
            self.updateGeometry()
        self._fit()
        self.update()

    @property
    def relayouts_on_text(self) -> bool:
        """Whether a new text may relayout the window (only without a *hint* and with a size policy that
        asks for the text's width)."""
        return self._hint is None and self.sizePolicy().horizontalPolicy() != QtWidgets.QSizePolicy.Policy.Ignored

    def text(self) -> str:
        return "".join(p.text for p in self._parts)

    def shown_text(self) -> str:
        self._fit()
        return "".join(p.text for p in self._shown)

    def is_cut(self) -> bool:
        return self.shown_text() != self.text()

    def setToolTip(self, tip: str) -> None:
        """A tooltip of its own; when the text is cut the tooltip is the full text (then this one)."""
        self._tip = tip
        self._update_tip()

    def _update_tip(self) -> None:
        full = self.text()
        cut = "".join(p.text for p in self._shown) != full
        tip = full if cut and not self._tip else (f"{full}\n\n{self._tip}" if cut else self._tip)
        if tip != super().toolTip():
            super().setToolTip(tip)

    # -- geometry -------------------------------------------------------------------------------------
    def _fonts(self, p: Part) -> tuple[QtGui.QFont, QtGui.QFontMetricsF]:
        """The font of a part and its metrics (kept until the label's font changes)."""
        key = (p.bold, p.mono)
        cache = self.__dict__.setdefault("_font_cache", {})  # emptied when the font changes
        got = cache.get(key)
        if got is None:
            if p.mono:
                f = QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont)
                f.setPointSizeF(self.font().pointSizeF())
            else:
                f = QtGui.QFont(self.font())
            if p.bold:
                f.setBold(True)
            got = cache[key] = (f, QtGui.QFontMetricsF(f))
        return got

    def _font_for(self, p: Part) -> QtGui.QFont:
        return self._fonts(p)[0]

    def _measure(self, p: Part) -> float:
        widths = self.__dict__.setdefault("_widths", {})
        w = widths.get(p)
        if w is None:
            if len(widths) > 256:
                widths.clear()
            w = widths[p] = self._fonts(p)[1].horizontalAdvance(p.text)
        return w

    def _elide(self, p: Part, width: float) -> str:
        return self._fonts(p)[1].elidedText(p.text, QtCore.Qt.TextElideMode.ElideRight, width)

    def _room(self) -> float:
        m = self.contentsMargins()
        return float(self.width() - m.left() - m.right() - 2 * self.margin()) - 1.0

    def _fit(self) -> None:
        w = self.width()
        if w == self._fitted_for:
            return
        self._fitted_for = w
        self._shown = fit_parts(self._parts, self._room(), self._measure, self._elide)
        self._update_tip()

    def sizeHint(self) -> QtCore.QSize:
        m = self.contentsMargins()
        h = QtGui.QFontMetrics(self._font_for(Part("", bold=True))).height() + m.top() + m.bottom() + 2 * self.margin()
        natural = self._natural if self._hint is None else self._measure(Part(self._hint))
        return QtCore.QSize(int(natural) + 2 + m.left() + m.right() + 2 * self.margin(), h)

    def minimumSizeHint(self) -> QtCore.QSize:
        fm = self.fontMetrics()
        return QtCore.QSize(fm.horizontalAdvance("x" * self._min_chars + ELLIPSIS), self.sizeHint().height())

    def heightForWidth(self, _w: int) -> int:
        return -1

    def hasHeightForWidth(self) -> bool:
        return False

    def changeEvent(self, e: QtCore.QEvent) -> None:
        if e.type() in (QtCore.QEvent.Type.FontChange, QtCore.QEvent.Type.StyleChange):
            self.__dict__.pop("_widths", None)
            self.__dict__.pop("_font_cache", None)
            self._fitted_for = -1
        super().changeEvent(e)

    def resizeEvent(self, e: QtGui.QResizeEvent) -> None:
        super().resizeEvent(e)
        self._fit()

    def paintEvent(self, _e: QtGui.QPaintEvent) -> None:
        self._fit()
        p = QtGui.QPainter(self)
        r = self.contentsRect().adjusted(self.margin(), self.margin(), -self.margin(), -self.margin())
        p.setPen(self.palette().color(self.foregroundRole()))
        total = sum(self._measure(part) for part in self._shown)
        align = self.alignment()
        x = float(r.left())
        if align & QtCore.Qt.AlignmentFlag.AlignRight:
            x = r.right() - total
        elif align & QtCore.Qt.AlignmentFlag.AlignHCenter:
            x = r.left() + (r.width() - total) / 2
        for part in self._shown:
            f = self._fonts(part)[0]
            p.setFont(f)
            w = self._measure(part)
            p.drawText(QtCore.QRectF(x, r.top(), w + 1, r.height()),
                       int(QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignVCenter), part.text)
            x += w
        p.end()


class LabelHost(QtWidgets.QWidget):
    """Holds one label without a layout, so that a new text repaints it but relayouts nothing around it.

    Qt relayouts the parent's layout -- and, up the chain, the dock and the main window -- whenever a
    label's text changes unless its size is fixed both ways (``QLabel.setText`` calls ``updateGeometry``):
    every frame during playback for the token stream's header, every slice for the plots' status line.  The host
    takes whatever width its layout gives (the label elides) and the label's height, rechecked when the label
    asks for a new geometry (a font change).
    """

    def __init__(self, label: QtWidgets.QLabel, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = label
        label.setParent(self)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Fixed)
        self._height = label.sizeHint().height()
        self.setFixedHeight(self._height)

    def sizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(0, self._height)

    def minimumSizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(0, self._height)

    def event(self, e: QtCore.QEvent) -> bool:
        if e.type() == QtCore.QEvent.Type.LayoutRequest:  # the label asked for a new geometry: height only
            h = self.label.sizeHint().height()
            if h != self._height:
                self._height = h
                self.setFixedHeight(h)
        return super().event(e)

    def resizeEvent(self, e: QtGui.QResizeEvent) -> None:
        self.label.setGeometry(self.rect())
