"""Find text the window cuts off: labels, buttons, table headers and dock titles too narrow for their text.

:func:`clipped` walks every widget of a window that is on screen (visible, with a non-empty visible region)
and compares the width its text needs (``fontMetrics().horizontalAdvance``, plus the style's margins) with the
width it has.  An :class:`~.widgets.elided_label.ElidedLabel` passes when what it paints fits and, if it is
cut, its tooltip holds the full text; a header section passes when it fits or its tooltip holds the text.
Word-wrapped labels are checked for height instead.  A status bar's message passes when it fits beside the
permanent widgets, or is drawn elided with "…" and its tooltip holds it; a tab bar's tab when its title fits,
or is elided with "…", keeps at least :data:`MIN_TAB_CHARS` characters and its tooltip holds the title.
Plots are checked by :func:`clipped_plot_items`: titles,
axis labels, text items and end points in every pyqtgraph view inside a tab.

It reports; it fixes nothing.  Used by the layout tests (tests/gui/test_layouts.py).
"""

from __future__ import annotations

from typing import NamedTuple

from PySide6 import QtCore, QtGui, QtWidgets

from bpe_desktop.gui.widgets.elided_label import ElidedLabel

SLACK_PX = 1  # rounding
MIN_TAB_CHARS = 4  # an elided tab shows at least this many characters before its "…" (not a sliver)


class Clipped(NamedTuple):
    kind: str  # label, button, header, dock title, status message, tab, plot
    where: str  # object names up the parent chain
    text: str
    need: int
    have: int

    def __str__(self) -> str:
        return f"{self.kind} {self.where}: {self.text!r} needs {self.need} px, has {self.have}"


def _where(w: QtCore.QObject) -> str:
    names: list[str] = []
    o: QtCore.QObject | None = w
    while o is not None and len(names) < 4:
        names.append(o.objectName() or type(o).__name__)
        o = o.parent()
    return "/".join(reversed(names))


def on_screen(w: QtWidgets.QWidget) -> bool:
    """Shown and not hidden behind something (a scroll area is covered by its own viewport: ask that)."""
    seen = w.viewport() if isinstance(w, QtWidgets.QAbstractScrollArea) else w
    return w.isVisible() and not seen.visibleRegion().isEmpty() and w.width() > 0


def _plain(text: str) -> str:
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


def _rich_width(label: QtWidgets.QLabel) -> int:
    doc = QtGui.QTextDocument()
    doc.setDefaultFont(label.font())
    doc.setDocumentMargin(0)
    doc.setHtml(label.text())
    return int(doc.idealWidth() + 0.999)


def _label(lab: QtWidgets.QLabel) -> Clipped | None:
    if isinstance(lab, ElidedLabel):
        shown = lab.shown_text()
        need = int(sum(lab._measure(p) for p in lab._shown) + 0.999)
        have = int(lab._room()) + 1
        if need > have + SLACK_PX:
            return Clipped("label", _where(lab), shown, need, have)
        if shown != lab.text() and lab.text() not in lab.toolTip():
            return Clipped("label (elided, no tooltip)", _where(lab), lab.text(), need, have)
        return None
    text = lab.text()
    if not text or (lab.pixmap() is not None and not lab.pixmap().isNull()):
        return None
    rect = lab.contentsRect()
    inset = 2 * lab.margin() + max(lab.indent(), 0)
    if lab.wordWrap():
        need_h = lab.heightForWidth(lab.width())
        if need_h > lab.height() + SLACK_PX:
            return Clipped("label (wrapped, height)", _where(lab), text, need_h, lab.height())
        return None
    rich = lab.textFormat() == QtCore.Qt.TextFormat.RichText or (
        lab.textFormat() == QtCore.Qt.TextFormat.AutoText and QtGui.Qt.mightBeRichText(text))
    need = _rich_width(lab) if rich else lab.fontMetrics().horizontalAdvance(text)
    have = rect.width() - inset
    if need > have + SLACK_PX:
        return Clipped("label", _where(lab), text, need, have)
    return None


def _button(b: QtWidgets.QAbstractButton) -> Clipped | None:
    text = _plain(b.text())
    if not text:
        return None
    if isinstance(b, QtWidgets.QToolButton) and b.toolButtonStyle() == QtCore.Qt.ToolButtonStyle.ToolButtonIconOnly:
        return None
    fm = b.fontMetrics()
    need = fm.horizontalAdvance(text)
    icon = 0 if b.icon().isNull() else b.iconSize().width() + 4
    if isinstance(b, (QtWidgets.QCheckBox, QtWidgets.QRadioButton)):
        extra = b.sizeHint().width() - fm.horizontalAdvance(text)  # indicator and spacing
    elif isinstance(b, QtWidgets.QPushButton):
        extra = 2 * b.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_ButtonMargin, None, b) + 4
    else:
        extra = 8
    if need + icon + extra > b.width() + SLACK_PX:
        return Clipped("button", _where(b), text, need + icon + extra, b.width())
    return None


def _header(h: QtWidgets.QHeaderView) -> list[Clipped]:
    out: list[Clipped] = []
    model = h.model()
    if model is None:
        return out
    orient = h.orientation()
    if orient != QtCore.Qt.Orientation.Horizontal:
        return out
    fm = QtGui.QFontMetrics(h.font())
    bold = QtGui.QFont(h.font())
    bold.setBold(True)  # the style sheet's header sections are bold
    fm = QtGui.QFontMetrics(bold)
    margin = 2 * h.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_HeaderMargin, None, h) + 12
    for i in range(h.count()):
        if h.isSectionHidden(i) or h.sectionSize(i) <= 0:
            continue
        text = model.headerData(i, orient, QtCore.Qt.ItemDataRole.DisplayRole)
        if not text:
            continue
        text = str(text)
        need = fm.horizontalAdvance(text) + margin
        # sections scrolled out of sight are not cut: only what the viewport shows
        if h.sectionViewportPosition(i) >= h.viewport().width():
            continue
        have = h.sectionSize(i)
        tip = model.headerData(i, orient, QtCore.Qt.ItemDataRole.ToolTipRole)
        if need > have + SLACK_PX and not (tip and text in str(tip)):
            out.append(Clipped("header", _where(h), text, need, have))
    return out


def _dock_title(d: QtWidgets.QDockWidget) -> Clipped | None:
    if d.isFloating() or d.titleBarWidget() is not None:
        return None
    main = d.parentWidget()
    if isinstance(main, QtWidgets.QMainWindow) and main.tabifiedDockWidgets(d):
        return None  # tabbed: the tab shows the title and the title bar is not drawn
    font = QtGui.QFont(d.font())
    fm = QtGui.QFontMetrics(font)
    need = fm.horizontalAdvance(d.windowTitle()) + 16
    button = d.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_DockWidgetTitleBarButtonMargin, None, d)
    icon = d.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_SmallIconSize, None, d)
    have = d.width() - 2 * (icon + 2 * button + 2)
    if need > have + SLACK_PX:
        return Clipped("dock title", _where(d), d.windowTitle(), need, have)
    return None


def _status_message(bar: QtWidgets.QStatusBar) -> Clipped | None:
    """The temporary message: drawn from the left edge to the first permanent widget (Qt hides the others)."""
    text = bar.currentMessage()
    if not text:
        return None
    shown = getattr(bar, "shown_message", lambda: text)()  # an eliding bar says what it drew
    right = [c.geometry().left() for c in bar.findChildren(QtWidgets.QWidget, options=QtCore.Qt.FindChildOption.
             FindDirectChildrenOnly) if c.isVisible() and not isinstance(c, QtWidgets.QSizeGrip)]
    have = (min(right) if right else bar.width()) - 8  # Qt draws the message 2 px in, and the layout spacing
    need = bar.fontMetrics().horizontalAdvance(shown)
    if need > have + SLACK_PX:
        return Clipped("status message", _where(bar), text, need, have)
    if shown != text and (not shown.endswith("…") or text not in bar.toolTip()):
        return Clipped("status message (elided, no tooltip)", _where(bar), text, need, have)
    return None


def _tabs(bar: QtWidgets.QTabBar) -> list[Clipped]:
    out: list[Clipped] = []
    fm = bar.fontMetrics()
    style = bar.style()
    pad = style.pixelMetric(QtWidgets.QStyle.PixelMetric.PM_TabBarTabHSpace, None, bar)
    arrows = [b.geometry().left() for b in bar.findChildren(QtWidgets.QToolButton) if b.isVisible()
              and b.parent() is bar]
    edge = min(arrows) if arrows else bar.width()  # scroll buttons cover the tabs behind them
    for i in range(bar.count()):
        text = _plain(bar.tabText(i))
        r = bar.tabRect(i)
        if not text or not bar.isTabVisible(i):
            continue
        if r.right() < 0 or r.left() >= edge:  # out of sight: reachable only with scroll buttons
            if not arrows:
                out.append(Clipped("tab (out of sight)", _where(bar), text, r.width(), 0))
            continue
        if r.right() >= edge:
            kind = "tab (under the scroll buttons)" if arrows else "tab (cut, no …)"
            out.append(Clipped(kind, _where(bar), text, r.width(), edge - r.left()))
            continue
        icon = 0 if bar.tabIcon(i).isNull() else bar.iconSize().width() + 4
        button = sum(b.width() for b in (bar.tabButton(i, side) for side in QtWidgets.QTabBar.ButtonPosition)
                     if b is not None and b.isVisible())
        room = r.width() - pad - icon - button
        need = fm.horizontalAdvance(text)
        if need <= room + SLACK_PX:
            continue
        elides = bar.elideMode() != QtCore.Qt.TextElideMode.ElideNone
        least = fm.horizontalAdvance(text[:MIN_TAB_CHARS] + "…")
        if not elides:
            out.append(Clipped("tab (cut, no …)", _where(bar), text, need, room))
        elif room + SLACK_PX < least:
            out.append(Clipped("tab (a sliver)", _where(bar), text, least, room))
        elif text not in (bar.tabToolTip(i) or ""):
            out.append(Clipped("tab (elided, no tooltip)", _where(bar), text, need, room))
    return out


def clipped(window: QtWidgets.QWidget) -> list[Clipped]:
    """Every text on screen in *window* that needs more room than it has (see the module docstring)."""
    out: list[Clipped] = []
    for w in window.findChildren(QtWidgets.QWidget):
        if not on_screen(w):
            continue
        if isinstance(w, QtWidgets.QLabel):
            c = _label(w)
        elif isinstance(w, QtWidgets.QAbstractButton):
            c = _button(w)
        elif isinstance(w, QtWidgets.QHeaderView):
            out.extend(_header(w))
            continue
        elif isinstance(w, QtWidgets.QDockWidget):
            c = _dock_title(w)
        elif isinstance(w, QtWidgets.QStatusBar):
            c = _status_message(w)
        elif isinstance(w, QtWidgets.QTabBar):
            out.extend(_tabs(w))
            continue
        else:
            continue
        if c is not None:
            out.append(c)
    return out


def clipped_plot_items(tab: QtWidgets.QWidget) -> list[Clipped]:
    """Texts and points drawn partly outside their plot's box or view, in every pyqtgraph view inside *tab*
    (a plot card itself, or a tab that holds one or more with its controls)."""
    import pyqtgraph as pg

    views = [tab] if isinstance(tab, pg.GraphicsView) else []
    views += [v for v in tab.findChildren(pg.GraphicsView) if on_screen(v)]
    out: list[Clipped] = []
    for view in views:
        out.extend(_clipped_in_view(view))
    return out


def _clipped_in_view(card: QtWidgets.QGraphicsView) -> list[Clipped]:
    import pyqtgraph as pg

    out: list[Clipped] = []
    view = card
    scene_rect = QtCore.QRectF(view.mapToScene(view.viewport().rect()).boundingRect())
    for item in view.scene().items():
        if not item.isVisible():
            continue
        if isinstance(item, pg.TextItem) and item.toPlainText().strip():
            m = item.textItem.document().documentMargin()  # blank round the glyphs
            r = item.textItem.sceneBoundingRect().adjusted(m, m, -m, -m)
            vb = item.parentItem()
            while vb is not None and not isinstance(vb, pg.ViewBox):
                vb = vb.parentItem()
            box = vb.sceneBoundingRect() if vb is not None else scene_rect
            if not box.adjusted(-SLACK_PX, -SLACK_PX, SLACK_PX, SLACK_PX).contains(r):
                out.append(Clipped("plot text", type(card).__name__, item.toPlainText(), int(r.right()),
                                   int(box.right())))
        elif isinstance(item, pg.LabelItem) and item.text:
            r = item.item.sceneBoundingRect()
            if not scene_rect.adjusted(-SLACK_PX, -SLACK_PX, SLACK_PX, SLACK_PX).contains(r):
                out.append(Clipped("plot label", type(card).__name__, item.text, int(r.width()),
                                   int(scene_rect.width())))
            elif r.width() > item.sceneBoundingRect().width() + SLACK_PX:
                out.append(Clipped("plot label", type(card).__name__, item.text, int(r.width()),
                                   int(item.sceneBoundingRect().width())))
    plots = [i for i in view.scene().items() if isinstance(i, pg.PlotItem)]
    for plot in plots:
        vb = plot.vb
        box = vb.sceneBoundingRect()
        for curve in plot.listDataItems():
            xs, ys = curve.getData()
            if xs is None or len(xs) == 0 or curve.opts.get("symbol") is None:
                continue
            for x, y in ((xs[-1], ys[-1]), (xs[0], ys[0])):
                p = vb.mapViewToScene(QtCore.QPointF(float(x), float(y)))
                half = float(curve.opts.get("symbolSize") or 0) / 2
                dot = QtCore.QRectF(p.x() - half, p.y() - half, 2 * half, 2 * half)
                if not box.adjusted(-SLACK_PX, -SLACK_PX, SLACK_PX, SLACK_PX).contains(dot):
                    out.append(Clipped("plot point", type(card).__name__, f"({x:g}, {y:g})", int(dot.right()),
                                       int(box.right())))
    return out
