"""Named window layouts (Learn, Train, Inspect) and where a new dock goes.

A layout is data: columns of stacks of docks, left to right, each column a share of the window's width and
each stack a share of its column's height; the docks of one stack share a tab area (the first one, or
``front``, in front).  A stack may name a *group* (``"@secondary"``) instead of a dock: every dock placed in
that group joins it as a tab, so panes added later (by other modules) find a place in every layout.

    layouts.place(window, "vocab", dock, group="secondary")   # add a dock to the window and its tab group
    layouts.apply(window, "Train")                            # rearrange every dock

Groups: ``centre`` (tabs beside the token stream), ``secondary`` (the why / plots tab area: panes a newcomer
does not need at first), ``inputs`` (beside the corpus and settings), ``bottom`` (beside the timeline).
A dock in no group and named by no stack goes to ``secondary``.

It only arranges docks; what is remembered between sessions is :mod:`.window_state`'s job, and which docks
exist is :mod:`.main_window`'s.
"""

from __future__ import annotations

import base64
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field

from PySide6 import QtCore, QtWidgets

GROUPS = ("centre", "secondary", "inputs", "bottom")
DEFAULT_LAYOUT = "Learn"
_A = QtCore.Qt.DockWidgetArea
_H, _V = QtCore.Qt.Orientation.Horizontal, QtCore.Qt.Orientation.Vertical


@dataclass(frozen=True)
class Stack:
    """Docks sharing one tab area: dock keys or ``@group`` names, in tab order."""

    members: tuple[str, ...]
    weight: int = 1  # share of the column's height
    front: str | None = None  # the tab shown first (default: the first present)


@dataclass(frozen=True)
class Column:
    stacks: tuple[Stack, ...]
    weight: int  # share of the window's width


@dataclass(frozen=True)
class Layout:
    name: str
    description: str
    columns: tuple[Column, ...]  # the first in the left dock area, the others side by side in the right one
    bottom: Stack = Stack(("timeline", "@bottom"))
    hidden: tuple[str, ...] = ()


LAYOUTS: dict[str, Layout] = {
    layout.name: layout
    for layout in (
        Layout("Learn", "the token stream in the middle; merges beside it; why and plots share a tab area",
               (Column((Stack(("corpus", "@inputs"), 45), Stack(("settings",), 55)), 20),
                Column((Stack(("tokens", "compare", "@centre"), front="tokens"),), 52),
                Column((Stack(("merges",), 50), Stack(("why", "plots", "@secondary"), 50)), 28))),
        Layout("Train", "settings and the plots in view while a run streams; the token stream stays central",
               (Column((Stack(("settings", "corpus", "@inputs"), front="settings"),), 21),
                Column((Stack(("tokens", "compare", "@centre"), front="tokens"),), 47),
                Column((Stack(("plots", "@secondary"), 58), Stack(("merges", "why"), 42)), 32))),
        Layout("Inspect", "merges and why beside the tokens (compare behind them); plots on the right",
               (Column((Stack(("merges",), 55), Stack(("why", "corpus", "settings", "@inputs"), 45, "why")), 27),
                Column((Stack(("tokens", "compare", "@centre"), front="tokens"),), 45),
                Column((Stack(("plots", "@secondary"),),), 28))),
    )
}


@dataclass
class WindowLayout:
    """What this module keeps per window: the docks' groups, the layout last applied, whether a remembered
    layout was restored (it keeps its own sizes) and the pending resize for when the window is shown."""

    groups: dict[str, str] = field(default_factory=dict)  # dock key -> group (see place)
    name: str = DEFAULT_LAYOUT
    restored: bool = False
    resize_on_show: QtCore.QObject | None = None


_STATE: weakref.WeakKeyDictionary[QtWidgets.QMainWindow, WindowLayout] = weakref.WeakKeyDictionary()


def state(window: QtWidgets.QMainWindow) -> WindowLayout:
    """The layout state of *window* (made on first use, gone with the window)."""
    st = _STATE.get(window)
    if st is None:
        st = _STATE[window] = WindowLayout()
    return st


def groups(window: QtWidgets.QMainWindow) -> dict[str, str]:
    """dock key -> group of the docks given to :func:`place`."""
    return state(window).groups


def docks(window: QtWidgets.QMainWindow) -> dict[str, QtWidgets.QDockWidget]:
    """The window's docks by key (``MainWindow.docks``)."""
    d: dict[str, QtWidgets.QDockWidget] | None = getattr(window, "docks", None)
    if d is None:
        raise TypeError("the window has no 'docks' dict -- layouts arrange a MainWindow's docks")
    return d


@dataclass(frozen=True)
class Captured:
    """The window's layout as a session saves it: Qt's ``saveState()`` in base64, and the named layout."""

    state: str
    name: str


def capture(window: QtWidgets.QMainWindow) -> Captured:
    """The layout on screen now (a change still pending -- a named layout, ``resizeDocks`` -- fitted first)."""
    lay = window.layout()
    if lay is not None:
        lay.activate()
    return Captured(base64.b64encode(bytes(window.saveState().data())).decode("ascii"), current(window))


def current(window: QtWidgets.QMainWindow) -> str:
    """The name of the layout last applied (``Learn`` if none)."""
    return state(window).name


def place(window: QtWidgets.QMainWindow, key: str, dock: QtWidgets.QDockWidget, group: str = "secondary") -> None:
    """Add *dock* to *window* under *key* and put it in the tab area of *group* (see the module docstring).

    The dock gets the object name ``dock_<key>`` (so that its place is remembered), is registered in
    ``window.docks`` (the View menu lists it) and goes where the current layout puts *group*.
    """
    if group not in GROUPS:
        raise ValueError(f"unknown dock group {group!r}; use one of {', '.join(GROUPS)}")
    dock.setObjectName(dock.objectName() or f"dock_{key}")
    docks(window)[key] = dock
    groups(window)[key] = group
    anchor = _anchor_for(window, LAYOUTS[current(window)], key)
    if anchor is None:
        window.addDockWidget(_A.RightDockWidgetArea, dock)
    else:
        window.addDockWidget(window.dockWidgetArea(anchor), dock)  # tabifying needs it docked first
        window.tabifyDockWidget(anchor, dock)
        dock.show()  # a dock made after the window was shown is hidden until shown
        anchor.raise_()  # the newcomer waits behind the tab that was in front


def _members(window: QtWidgets.QMainWindow, stack: Stack) -> Iterator[str]:
    present, g = docks(window), groups(window)
    for m in stack.members:
        if m.startswith("@"):
            yield from (k for k, grp in g.items() if grp == m[1:] and k in present)
        elif m in present:
            yield m


def _stacks(layout: Layout) -> Iterator[Stack]:
    for col in layout.columns:
        yield from col.stacks
    yield layout.bottom


def _anchor_for(window: QtWidgets.QMainWindow, layout: Layout, key: str) -> QtWidgets.QDockWidget | None:
    """The first dock already laid out in the stack that *key* (or its group) belongs to."""
    group = groups(window).get(key, "secondary")
    for stack in _stacks(layout):
        if key in stack.members or f"@{group}" in stack.members:
            for k in _members(window, stack):
                d = docks(window)[k]
                if k != key and window.dockWidgetArea(d) != _A.NoDockWidgetArea:
                    return d
    return None


def apply(window: QtWidgets.QMainWindow, name: str = DEFAULT_LAYOUT) -> None:
    """Arrange every dock of *window* as layout *name*; docks float no more and are shown (unless hidden)."""
    layout = LAYOUTS[name]
    all_docks = docks(window)
    for d in all_docks.values():
        d.setFloating(False)
        window.removeDockWidget(d)
    taken: set[str] = set()
    plan: list[list[list[str]]] = []  # columns -> stacks -> keys
    for col in layout.columns:
        stacks = []
        for st in col.stacks:
            keys = [k for k in _members(window, st) if k not in taken]
            taken.update(keys)
            stacks.append(keys)
        plan.append(stacks)
    bottom = [k for k in _members(window, layout.bottom) if k not in taken]
    taken.update(bottom)
    strays = [k for k in all_docks if k not in taken]  # no stack names them: the secondary tab area
    for col_i, col in enumerate(layout.columns):
        for st_i, st in enumerate(col.stacks):
            if "@secondary" in st.members:
                plan[col_i][st_i].extend(strays)
                strays = []
    if strays:
        plan[-1][-1].extend(strays)
    # splits first (splitting a tabbed dock would add a tab instead), then tabs
    col_anchors: list[QtWidgets.QDockWidget | None] = []
    for col_i, stacks in enumerate(plan):
        first = next((all_docks[s[0]] for s in stacks if s), None)
        col_anchors.append(first)
        if first is None:
            continue
        prev = next((a for a in reversed(col_anchors[1:col_i]) if a is not None), None)  # right area, to the left
        if col_i == 0:
            window.addDockWidget(_A.LeftDockWidgetArea, first)
        elif prev is None:
            window.addDockWidget(_A.RightDockWidgetArea, first)
        else:
            window.splitDockWidget(prev, first, _H)
    for stacks, anchor in zip(plan, col_anchors, strict=True):
        above = anchor
        for keys in stacks:
            if not keys or all_docks[keys[0]] is anchor:
                continue
            window.splitDockWidget(above, all_docks[keys[0]], _V)  # type: ignore[arg-type]
            above = all_docks[keys[0]]
    if bottom:
        window.addDockWidget(_A.BottomDockWidgetArea, all_docks[bottom[0]])
    for keys in [*(k for stacks in plan for k in stacks), bottom]:
        for k in keys[1:]:
            window.tabifyDockWidget(all_docks[keys[0]], all_docks[k])
    for d in all_docks.values():
        d.show()
    for k in layout.hidden:
        if k in all_docks:
            all_docks[k].hide()
    stacks_in_order = [s for c in layout.columns for s in c.stacks]
    for st, keys in zip(stacks_in_order, (k for stacks in plan for k in stacks), strict=True):
        if keys:
            all_docks[st.front if st.front in keys else keys[0]].raise_()
    state(window).name = name
    state(window).restored = False  # the sizes are this layout's now, not a remembered layout's
    if not window.isVisible():
        window.setMinimumSize(0, 0)  # tabifying laid the hidden window out; its size stays what it was given
    resize(window, layout, plan)


class _ResizeOnShow(QtCore.QObject):
    def eventFilter(self, obj: QtCore.QObject, ev: QtCore.QEvent) -> bool:
        if ev.type() == QtCore.QEvent.Type.Show and isinstance(obj, QtWidgets.QMainWindow):
            obj.removeEventFilter(self)
            st = state(obj)
            st.resize_on_show = None
            if not st.restored:  # a remembered layout keeps its own sizes
                resize(obj)
        return False


def resize(window: QtWidgets.QMainWindow, layout: Layout | None = None, plan: list[list[list[str]]] | None = None
           ) -> None:
    """Give the columns and stacks of *layout* (default: the current one) their shares of the window."""
    layout = layout or LAYOUTS[current(window)]
    all_docks = docks(window)
    if not window.isVisible():  # not laid out yet: the sizes would go astray; apply them when it is shown
        st = state(window)
        if st.resize_on_show is None:
            st.resize_on_show = _ResizeOnShow(window)
            window.installEventFilter(st.resize_on_show)
        return
    if plan is None:
        plan = [[[k for k in _members(window, st)] for st in col.stacks] for col in layout.columns]
    width = max(window.width(), 800)
    height = max(window.height() - 200, 300)  # menus, toolbar, timeline and status bar take the rest
    cols, widths = [], []
    for col, stacks in zip(layout.columns, plan, strict=True):
        first = next((s[0] for s in stacks if s), None)
        if first is not None:
            cols.append(all_docks[first])
            widths.append(col.weight)
        rows = [(all_docks[s[0]], st.weight) for st, s in zip(col.stacks, stacks, strict=True) if s]
        if len(rows) > 1:
            total = sum(w for _d, w in rows)
            window.resizeDocks([d for d, _w in rows], [int(height * w / total) for _d, w in rows], _V)
    total = sum(widths) or 1
    window.resizeDocks(cols, [int(width * w / total) for w in widths], _H)
