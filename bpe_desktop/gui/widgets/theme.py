"""Light and dark themes: the window's palette, its stylesheet and every colour a pane paints with.

:data:`LIGHT` and :data:`DARK` are :class:`Theme` values (named colours); :func:`apply` installs one on the
application (a Fusion palette plus ``resources/styles/style.qss``, a template whose ``$name`` placeholders are
the theme's colours) and tells the panes through :func:`notifier`'s ``changed`` signal.  The choice is a
:class:`Scheme`: ``SYSTEM`` follows the desktop's colour scheme (Qt 6.5+ ``QStyleHints.colorScheme``, and its
``colorSchemeChanged`` signal), ``LIGHT`` and ``DARK`` override it (View → Theme, remembered in QSettings).

Token boxes: :func:`token_fill` gives a stable hue per token, light or dark so that the theme's
``token_text`` reads on it with a contrast of at least 4.5:1 (:func:`contrast`, WCAG's formula).

It holds colours only; which widget uses which is the widget's business (a pane that paints reads
:func:`current` when it paints; one styled by a stylesheet template uses :func:`style_widget`).
"""

from __future__ import annotations

import enum
import string
from dataclasses import asdict, dataclass

from PySide6 import QtCore, QtGui, QtWidgets


class Scheme(enum.Enum):
    SYSTEM = "System"
    LIGHT = "Light"
    DARK = "Dark"


@dataclass(frozen=True)
class Theme:
    name: str
    dark: bool
    window: str
    window_text: str
    base: str
    alt_base: str
    text: str
    muted: str  # secondary text
    faint: str  # captions, tick labels, future merges
    border: str
    panel: str  # dock titles, table headers
    hover: str
    button: str
    accent: str
    accent_hover: str
    accent_disabled: str
    accent_text: str
    selection: str
    selection_text: str
    banner_bg: str
    banner_fg: str
    banner_border: str
    error: str
    invalid_border: str
    invalid_bg: str
    info_bg: str
    info_border: str
    info_fg: str
    card: str
    rows_bg: str
    grid: str
    plot_bg: str
    plot_ink: str
    plot_grid: str
    plot_line: str
    plot_accent: str
    plot_fit: str
    plot_second: str
    token_text: str
    token_base: str  # base symbols
    token_unknown: str
    token_gap: str
    token_lightness: float  # HSL lightness / saturation of merged tokens' boxes
    token_saturation: float
    progress_bg: str
    progress_border: str
    progress_fill: str
    progress_busy: str
    select_pen: str
    latest_pen: str


LIGHT = Theme(
    name="Light", dark=False, window="#f5f6f8", window_text="#111827", base="#ffffff", alt_base="#f9fafb",
    text="#111827", muted="#4b5563", faint="#6b7280", border="#e5e7eb", panel="#eceef1", hover="#e5e7eb",
    button="#f3f4f6", accent="#2563eb", accent_hover="#1d4ed8", accent_disabled="#93c5fd", accent_text="#ffffff",
    selection="#dbeafe", selection_text="#111827", banner_bg="#fef3c7", banner_fg="#78350f",
    banner_border="#fcd34d", error="#b91c1c", invalid_border="#dc2626", invalid_bg="#fef2f2", info_bg="#eff6ff",
    info_border="#bfdbfe", info_fg="#1e3a8a", card="#ffffff", rows_bg="#f9fafb", grid="#eef0f3",
    plot_bg="#ffffff", plot_ink="#222222", plot_grid="#9a9a9a", plot_line="#1f5fa8", plot_accent="#d2492a",
    plot_fit="#6a9a3a", plot_second="#7a4fa0", token_text="#111827", token_base="#eceef1",
    token_unknown="#ffd6d6", token_gap="#9ca3af", token_lightness=0.84, token_saturation=0.80,
    progress_bg="#f9fafb", progress_border="#d1d5db", progress_fill="#93c5fd", progress_busy="#dbeafe",
    select_pen="#1f5fd6", latest_pen="#303030",
)

DARK = Theme(
    name="Dark", dark=True, window="#1f2227", window_text="#e5e7eb", base="#16181c", alt_base="#1c1f24",
    text="#e5e7eb", muted="#b4bac4", faint="#9aa1ad", border="#363a42", panel="#272a30", hover="#363a42",
    button="#2a2d33", accent="#2563eb", accent_hover="#1d4ed8", accent_disabled="#27406b", accent_text="#ffffff",
    selection="#1e3a5f", selection_text="#f3f4f6", banner_bg="#3b2f12", banner_fg="#fde68a",
    banner_border="#854d0e", error="#f87171", invalid_border="#ef4444", invalid_bg="#3b1d1d", info_bg="#172554",
    info_border="#1e40af", info_fg="#bfdbfe", card="#1c1f24", rows_bg="#16181c", grid="#2a2d33",
    plot_bg="#16181c", plot_ink="#e5e7eb", plot_grid="#7a808a", plot_line="#60a5fa", plot_accent="#f97316",
    plot_fit="#84cc16", plot_second="#c084fc", token_text="#f3f4f6", token_base="#3b3f45",
    token_unknown="#6b2a2a", token_gap="#6b7280", token_lightness=0.27, token_saturation=0.50,
    progress_bg="#1c1f24", progress_border="#4b5563", progress_fill="#1d4ed8", progress_busy="#1e3a5f",
    select_pen="#ffb000", latest_pen="#f0f0f0",
)

THEMES = {Scheme.LIGHT: LIGHT, Scheme.DARK: DARK}
_SETTINGS_KEY = "theme"


class _Notifier(QtCore.QObject):
    changed = QtCore.Signal(object)  # the new Theme


_state: dict[str, object] = {"theme": LIGHT, "scheme": Scheme.SYSTEM, "notifier": None, "following": False}


def notifier() -> _Notifier:
    n = _state["notifier"]
    if n is None:
        n = _state["notifier"] = _Notifier()
    return n  # type: ignore[return-value]


def current() -> Theme:
    """The theme installed last (:data:`LIGHT` before any)."""
    return _state["theme"]  # type: ignore[return-value]


def scheme() -> Scheme:
    return _state["scheme"]  # type: ignore[return-value]


def system_is_dark() -> bool:
    hints = QtGui.QGuiApplication.styleHints()
    return hints is not None and hints.colorScheme() == QtCore.Qt.ColorScheme.Dark


def resolve(choice: Scheme) -> Theme:
    if choice is Scheme.SYSTEM:
        return DARK if system_is_dark() else LIGHT
    return THEMES[choice]


def saved_scheme() -> Scheme:
    """The user's View → Theme choice (System unless set)."""
    value = QtCore.QSettings("bpe-desktop", "bpe-desktop").value(_SETTINGS_KEY, Scheme.SYSTEM.value)
    return next((s for s in Scheme if s.value == value), Scheme.SYSTEM)


def choose(choice: Scheme) -> Theme:
    """View → Theme: install *choice* and remember it."""
    s = QtCore.QSettings("bpe-desktop", "bpe-desktop")
    s.setValue(_SETTINGS_KEY, choice.value)
    s.sync()
    return apply(choice)


def apply(choice: Scheme | None = None) -> Theme:
    """Install the theme for *choice* (default: the saved choice) on the application; return it."""
    app = QtWidgets.QApplication.instance()
    choice = saved_scheme() if choice is None else choice
    theme = resolve(choice)
    _state["scheme"] = choice
    changed = theme is not _state["theme"] or not _state.get("installed")
    _state["theme"] = theme
    if isinstance(app, QtWidgets.QApplication) and changed:
        from .. import resources

        app.setPalette(palette(theme))
        app.setStyleSheet(stylesheet(resources.read_text(resources.STYLESHEET), theme))
        _state["installed"] = True
    if isinstance(app, QtWidgets.QApplication) and not _state["following"]:
        hints = QtGui.QGuiApplication.styleHints()
        if hints is not None:
            hints.colorSchemeChanged.connect(_system_changed)
            _state["following"] = True
    if changed:
        notifier().changed.emit(theme)
    return theme


def _system_changed(*_: object) -> None:
    if scheme() is Scheme.SYSTEM:
        apply(Scheme.SYSTEM)


def stylesheet(template: str, theme: Theme | None = None) -> str:
    """*template* with ``$name`` replaced by the theme's colour of that name."""
    t = theme or current()
    return string.Template(template).safe_substitute({k: v for k, v in asdict(t).items() if isinstance(v, str)})


class _Restyler(QtCore.QObject):
    """A child of a styled widget that gives it the template's stylesheet on every theme change.

    The notifier lives as long as the program: connecting it to a closure would keep the widget's Python
    object, and everything it references, alive after the widget is destroyed (closed windows and dialogs
    piled up).  A bound method of a child QObject is disconnected by Qt when the child goes with its widget."""

    def __init__(self, widget: QtWidgets.QWidget, template: str) -> None:
        super().__init__(widget)
        self._widget = widget
        self._template = template
        notifier().changed.connect(self.restyle)

    def restyle(self, t: Theme) -> None:
        self._widget.setStyleSheet(stylesheet(self._template, t))


def style_widget(widget: QtWidgets.QWidget, template: str) -> None:
    """Give *widget* the stylesheet *template* in the current theme, and again whenever the theme changes."""
    widget.setStyleSheet(stylesheet(template))
    _Restyler(widget, template)


def palette(theme: Theme) -> QtGui.QPalette:
    R = QtGui.QPalette.ColorRole
    C = QtGui.QColor
    p = QtGui.QPalette()
    for role, value in ((R.Window, theme.window), (R.WindowText, theme.window_text), (R.Base, theme.base),
                        (R.AlternateBase, theme.alt_base), (R.Text, theme.text), (R.Button, theme.button),
                        (R.ButtonText, theme.window_text), (R.ToolTipBase, theme.card), (R.ToolTipText, theme.text),
                        (R.Highlight, theme.accent), (R.HighlightedText, theme.accent_text),
                        (R.PlaceholderText, theme.faint), (R.Link, theme.plot_line), (R.BrightText, theme.error),
                        (R.Light, theme.hover), (R.Midlight, theme.border), (R.Mid, theme.faint),
                        (R.Dark, theme.muted), (R.Shadow, "#000000")):
        p.setColor(role, C(value))
    disabled = QtGui.QPalette.ColorGroup.Disabled
    for role in (R.WindowText, R.Text, R.ButtonText):
        p.setColor(disabled, role, C(theme.faint if theme.dark else "#9ca3af"))
    return p


def token_fill(hue: float, theme: Theme | None = None) -> QtGui.QColor:
    """Box colour of a merged token of stable *hue* (0..1) in *theme*."""
    t = theme or current()
    return QtGui.QColor.fromHslF(hue % 1.0, t.token_saturation, t.token_lightness)


def luminance(c: QtGui.QColor) -> float:
    def lin(v: float) -> float:
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF())


def contrast(a: QtGui.QColor, b: QtGui.QColor) -> float:
    """WCAG contrast ratio of two opaque colours (1 to 21; text wants 4.5 or more)."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)
