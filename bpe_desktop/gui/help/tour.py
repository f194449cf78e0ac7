"""Help → Tour: a bubble inside the main window that walks through the seeds' worked example on it.

It runs on a piece of work of its own (the seed's word counts and settings: ``Session.set_aside``), trains
it with the window's own Train, then steps the timeline through the seven merges, each with the seed's
explanation (:mod:`.tour_script`), the sentence
the run's own record gives for its tie (:func:`~bpe_desktop.core.records.explain`) and a coloured frame
(:class:`Highlight`) around the pane being talked about.  The bubble is a child of the main window, of one
size on every page (its buttons stay where they are: a long text scrolls), placed beside the framed pane
(:func:`bubble_spot`), never over it when the window has room.  Back, Next and Close move through it; the
last page offers to train on the robot-log sample.  Closing it gives the user's runs back as they were
(``Session.bring_back``: corpus, settings, merges, step; a run still training is stopped first, its
merges kept).  It leaves out the lesson text (:mod:`.tour_script`) and
training itself (the main window's).
"""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from ...core.counting.sources import CorpusSource
from ...core.records import explain
from ..presets import PRESETS, ROBOT_SAMPLE, SEED_CONFIG
from ..training.protocol import TrainingState
from ..work import Work
from .tour_script import SEED_TABLE, Page, pages

FRAME = QtGui.QColor("#f59e0b")  # amber: visible on light and dark panes alike
BUBBLE = QtCore.QSize(380, 300)  # every page's text fits (a test checks); narrow enough to sit beside a pane
GAP = 8  # between the bubble and the framed pane


def bubble_spot(window: QtCore.QRect, size: QtCore.QSize, avoid: QtCore.QRect | None, gap: int = GAP
                ) -> QtCore.QPoint:
    """Where a bubble of *size* goes in *window*: beside *avoid*, at least *gap* away (to its right, left,
    below or above, the first side with room), wholly inside *window*; when no side has room, the spot
    inside *window* that covers the least of *avoid* (one of the window's corners: the covered area is
    smallest at an end of each axis).  A bubble wider (taller) than the window starts at its left (top) edge.
    """
    w, h = size.width(), size.height()
    x_lo, y_lo = window.x(), window.y()
    x_hi, y_hi = max(x_lo, x_lo + window.width() - w), max(y_lo, y_lo + window.height() - h)

    def inside(x: int, y: int) -> QtCore.QPoint:
        return QtCore.QPoint(max(x_lo, min(x, x_hi)), max(y_lo, min(y, y_hi)))

    if avoid is None:
        return inside(x_hi, y_lo)
    ax, ay, aw, ah = avoid.x(), avoid.y(), avoid.width(), avoid.height()
    sides = ((ax + aw + gap, ay, ax + aw + gap <= x_hi), (ax - gap - w, ay, ax - gap - w >= x_lo),
             (ax, ay + ah + gap, ay + ah + gap <= y_hi), (ax, ay - gap - h, ay - gap - h >= y_lo))
    for x, y, room in sides:
        if room:
            return inside(x, y)

    def covered(p: QtCore.QPoint) -> int:
        r = QtCore.QRect(p, size).intersected(avoid)
        return r.width() * r.height() if r.isValid() else 0

    corners = [QtCore.QPoint(x, y) for y in (y_lo, y_hi) for x in (x_hi, x_lo)]
    return min(corners, key=covered)


class Highlight(QtWidgets.QWidget):
    """A coloured frame drawn over one widget of the window (mouse events pass through it)."""

    def __init__(self, window: QtWidgets.QWidget) -> None:
        super().__init__(window)
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_NoSystemBackground)
        self.target: QtWidgets.QWidget | None = None
        self.hide()

    def follow(self, target: QtWidgets.QWidget | None) -> None:
        if self.target is not None:
            self.target.removeEventFilter(self)
        self.target = target
        if target is None:
            self.hide()
            return
        target.installEventFilter(self)
        self._place()
        self.show()
        self.raise_()

    def _place(self) -> None:
        t, window = self.target, self.parentWidget()
        if t is None or window is None:
            return
        top_left = t.mapTo(window, QtCore.QPoint(0, 0))
        self.setGeometry(QtCore.QRect(top_left, t.size()))

    def eventFilter(self, obj: QtCore.QObject, e: QtCore.QEvent) -> bool:
        if obj is self.target and e.type() in (QtCore.QEvent.Type.Resize, QtCore.QEvent.Type.Move,
                                               QtCore.QEvent.Type.Show):
            self._place()
            self.raise_()
        return False

    def paintEvent(self, _e: QtGui.QPaintEvent) -> None:
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        p.setPen(QtGui.QPen(FRAME, 4))
        p.drawRoundedRect(QtCore.QRectF(self.rect()).adjusted(2, 2, -2, -2), 6, 6)
        p.end()


class TourDialog(QtWidgets.QDialog):
    """The tour window.  ``window`` is the main window (docks, corpus, settings, session, train)."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.setWindowFlags(QtCore.Qt.WindowType.Widget)  # a bubble inside the main window, not a window
        self.setAutoFillBackground(True)
        self.setFixedSize(BUBBLE)
        self.setObjectName("tour")
        self.setWindowTitle("Tour: BPE on four words")
        self.setModal(False)
        self.main = window
        self.session = window.session
        self.pages: list[Page] = pages()
        self.index = -1
        self.frame = Highlight(window)
        self.title = QtWidgets.QLabel(self)
        self.title.setObjectName("tourTitle")
        self.title.setStyleSheet("font-size: 13pt; font-weight: 600;")
        self.title.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.title.setWordWrap(True)
        self.body = QtWidgets.QLabel(self)
        self.body.setWordWrap(True)
        self.body.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.body.setAlignment(QtCore.Qt.AlignmentFlag.AlignTop | QtCore.Qt.AlignmentFlag.AlignLeft)
        self.body_area = QtWidgets.QScrollArea(self)  # the bubble keeps its size: a long text scrolls
        self.body_area.setWidget(self.body)
        self.body_area.setWidgetResizable(True)
        self.body_area.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.body_area.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.counter = QtWidgets.QLabel(self)
        self.back_btn = QtWidgets.QPushButton("Back", self)
        self.next_btn = QtWidgets.QPushButton("Next", self)
        self.next_btn.setDefault(True)
        self.robot_btn = QtWidgets.QPushButton("Train on robot logs", self)
        self.close_btn = QtWidgets.QPushButton("Close", self)
        keep = self.next_btn.sizePolicy()
        keep.setRetainSizeWhenHidden(True)  # the last page hides Next: Back and Close stay where they were
        self.next_btn.setSizePolicy(keep)
        offer = QtWidgets.QHBoxLayout()  # the last page's offer, on a line of its own above the buttons
        offer.addStretch(1)
        offer.addWidget(self.robot_btn)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.counter, 1)
        for b in (self.back_btn, self.next_btn, self.close_btn):
            row.addWidget(b)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addWidget(self.title)
        lay.addWidget(self.body_area, 1)
        lay.addLayout(offer)
        lay.addLayout(row)  # at the bottom of a bubble of fixed size: the buttons never move
        self.back_btn.clicked.connect(lambda: self.go(self.index - 1))
        self.next_btn.clicked.connect(lambda: self.go(self.index + 1))
        self.robot_btn.clicked.connect(self.train_robot_logs)
        self.close_btn.clicked.connect(self.close)
        self.session.trainingStateChanged.connect(self._state_changed)
        self.session.countChanged.connect(self._refresh_buttons)
        window.installEventFilter(self)  # a resized window places the bubble again

    def eventFilter(self, obj: QtCore.QObject, e: QtCore.QEvent) -> bool:
        if obj is self.main and e.type() == QtCore.QEvent.Type.Resize and self.isVisible():
            QtCore.QTimer.singleShot(0, self, lambda: self._place_beside(self.frame.target))  # (docks resized)
        return False

    def paintEvent(self, e: QtGui.QPaintEvent) -> None:
        super().paintEvent(e)
        p = QtGui.QPainter(self)
        p.setPen(QtGui.QPen(self.palette().color(QtGui.QPalette.ColorRole.Mid), 2))  # (the amber frames the pane)
        p.drawRect(QtCore.QRectF(self.rect()).adjusted(1, 1, -1, -1))
        p.end()

    # -- navigation ---------------------------------------------------------------------------------
    def start(self) -> None:
        w = self.main
        w.timeline.set_playing(False)
        w.controller.shutdown()  # a run still training is stopped (its merges kept) before it is set aside
        seed = CorpusSource.from_text(SEED_TABLE, word_counts=True, name="seed word counts")
        self.session.set_aside(Work.empty(seed, SEED_CONFIG))
        self.finished.connect(self._give_back)
        self.show()
        self.go(0)

    def _give_back(self, *_: object) -> None:
        """The user's work again, as it was when the tour began."""
        if not self.session.touring:
            return
        self.frame.follow(None)
        self.main.timeline.set_playing(False)
        self.main.controller.shutdown()
        self.session.bring_back()

    def go(self, index: int) -> None:
        index = max(0, min(index, len(self.pages) - 1))
        page = self.pages[index]
        forward = index > self.index
        self.index = index
        if forward:
            self._enter(page)
        if page.step is not None and self.trained:
            self.session.set_step(min(page.step, self.session.n_steps))
        dock = self.main.docks.get(page.dock)
        if dock is not None:
            dock.show()
            dock.raise_()
        self.frame.follow(dock)
        self._place_beside(dock)
        self.title.setText(escape(self._title(page)))
        self.body.setText(self._body(page))
        self.counter.setText(f"{index + 1} / {len(self.pages)}")
        self._refresh_buttons()

    @property
    def trained(self) -> bool:
        """The seed's run is in the window: finished, on the seed's table with the seed's settings."""
        s = self.session
        return (s.state is TrainingState.FINISHED and s.config == SEED_CONFIG and s.source.text == SEED_TABLE
                and bool(s.source.word_counts) and len(s.records) >= len([p for p in self.pages if p.merge]))

    def _enter(self, page: Page) -> None:
        """What a page does when reached going forward: load the seed, set its settings, train."""
        w = self.main
        if page.dock == "corpus":
            w.corpus.set_text(SEED_TABLE, name="seed word counts", word_counts=True)
        elif page.dock == "settings":
            w.settings.set_config(SEED_CONFIG)
        elif page.step == 0 and not self.trained:
            w.train()

    def _state_changed(self, state: TrainingState) -> None:
        page = self.pages[self.index] if self.index >= 0 else None
        if state is TrainingState.FINISHED and page is not None and page.step is not None and self.trained:
            self.session.set_step(page.step)  # the run ended on this page: show the page's step, not the last
        self._refresh_buttons()

    def _refresh_buttons(self, *_: object) -> None:
        last = self.index == len(self.pages) - 1
        page = self.pages[self.index] if self.index >= 0 else None
        waiting = page is not None and page.step == 0 and not self.trained
        self.back_btn.setEnabled(self.index > 0)
        self.next_btn.setEnabled(not last and not waiting)
        self.next_btn.setVisible(not last)
        self.robot_btn.setVisible(last)
        if waiting and page is not None:
            self.body.setText(self._body(page) + "<p><i>Training the seed… Next is enabled when it has "
                                                  "finished.</i></p>")
        elif page is not None and page.step == 0:
            self.body.setText(self._body(page))

    # -- text ---------------------------------------------------------------------------------------
    def _title(self, page: Page) -> str:
        if page.merge is None:
            return page.title
        a, b, count = page.merge
        return f"{page.title} → {a}{b} (count {count})"

    def _body(self, page: Page) -> str:
        text = f"<p>{page.text}</p>"
        if page.merge is None or page.step is None:
            return text
        s = self.session
        if page.step > len(s.records):
            return text + "<p><i>(the run has fewer merges: press Back to the start and train again)</i></p>"
        rec = s.records[page.step - 1]
        a, b, count = page.merge
        if (rec.left, rec.right, rec.count) != (a, b, count):
            text += (f"<p><b>This run differs from the seed:</b> its merge {page.step} is "
                     f"{escape(rec.left)} + {escape(rec.right)} ({rec.count}). Were the settings changed?</p>")
        text += f"<p><i>{escape(explain(rec, s.config.tie_break))}</i></p>"
        newest, low = page.shapes
        text += (f"<p>newest becomes <code>{escape(newest)}</code> &nbsp;·&nbsp; "
                 f"low becomes <code>{escape(low)}</code></p>")
        return text

    def shown_merge(self) -> tuple[str, str, int] | None:
        """The merge the current page shows in the window (from the session at its step), for tests."""
        s = self.session
        if not 0 < s.step <= len(s.records):
            return None
        r = s.records[s.step - 1]
        return (r.left, r.right, r.count)

    # -- the end ------------------------------------------------------------------------------------
    def train_robot_logs(self) -> None:
        w = self.main
        self.close()  # the user's work back first: the robot-log run joins it
        w.load_sample(ROBOT_SAMPLE)
        w.settings.set_config(PRESETS["Robot logs"])
        w.train()

    def closeEvent(self, e: QtGui.QCloseEvent) -> None:
        self.frame.follow(None)
        self._give_back()
        super().closeEvent(e)

    def _place_beside(self, avoid: QtWidgets.QWidget | None) -> None:
        """Beside the framed pane *avoid*, inside the window (:func:`bubble_spot`), above the docks."""
        target = None
        if avoid is not None and avoid.isVisible():
            target = QtCore.QRect(avoid.mapTo(self.main, QtCore.QPoint(0, 0)), avoid.size())
        self.move(bubble_spot(self._room(), self.size(), target))
        self.raise_()

    def _room(self) -> QtCore.QRect:
        """The window's panes' area: below its menu and tool bars, above its status bar."""
        w = self.main
        room = w.rect()
        bars = [b for b in (w.menuBar(), *w.findChildren(QtWidgets.QToolBar)) if b.isVisible()]
        top = max((b.geometry().bottom() + 1 for b in bars), default=room.top())
        bottom = w.statusBar().geometry().top() if w.statusBar().isVisible() else room.bottom() + 1
        return QtCore.QRect(room.left(), top, room.width(), max(1, bottom - top))
