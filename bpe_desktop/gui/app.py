"""Start the window: ``bpe-desktop`` with no sub-command, or ``bpe-desktop --screenshot FILE``.

Without options it opens the main window on the bundled default corpus (the seeds' word counts: low 5,
lower 2, newest 6, widest 3; chars mode, lexical ties, 7 merges) under the start screen, which offers that
example (one click trains it), the samples and the user's own file.  ``--screenshot FILE`` trains (through
the same worker process as the window), renders the window offscreen and saves a PNG, showing nothing
interactive.  ``bpe-desktop SESSION_FILE`` (or ``--open SESSION_FILE``) opens a saved session instead
(with ``--screenshot``: renders it, nothing is trained); the interactive window autosaves and, after a
crash, offers to restore the autosave (``--restore`` restores it without asking).  It does not parse
training options beyond these few; the CLI sub-commands do that.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # Qt is imported only when the window is wanted (the CLI never loads it)
    from PySide6.QtWidgets import QApplication

    from .main_window import MainWindow

#: the GUI process's GIL switch interval (Python's default is 5 ms; see :func:`make_app`)
GUI_SWITCH_INTERVAL_S = 0.001


def _preset_names() -> list[str]:
    from .presets import PRESETS  # Qt-free

    return list(PRESETS)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="bpe-desktop", description="Watch byte-pair encoding learn a tokenizer. "
                                "Sub-commands (train, encode, ...) run without a window.")
    p.add_argument("--corpus", metavar="FILE", help="open this corpus instead of the seeds' word counts")
    p.add_argument("--preset", choices=list(_preset_names()), metavar="NAME",
                   help="training settings: " + ", ".join(repr(n) for n in _preset_names()))
    p.add_argument("--merges", type=int, metavar="N", help="number of merges to train")
    p.add_argument("--step", type=int, metavar="K", help="(with --screenshot) show the timeline at step K")
    p.add_argument("--screenshot", metavar="FILE.png", help="train, render the window offscreen, save a PNG, exit")
    p.add_argument("--size", default="1440x900", metavar="WxH", help="window size for --screenshot")
    p.add_argument("--untrained", action="store_true",
                   help="(with --screenshot) do not train: the window as it opens, start screen included")
    p.add_argument("session", nargs="?", metavar="SESSION_FILE", help="open this saved session")
    p.add_argument("--open", metavar="SESSION_FILE", dest="open_session",
                   help="open this saved session (same as the positional SESSION_FILE)")
    p.add_argument("--restore", action="store_true",
                   help="restore the autosave left by a crash without asking")
    p.add_argument("--theme", choices=("system", "light", "dark"), help="colour theme (default: the View → Theme "
                   "choice, else the system's)")
    p.add_argument("--layout", choices=("Learn", "Train", "Inspect"), help="arrange the panes as this named layout")
    return p


def make_app(argv: Sequence[str] = ()) -> QApplication:
    """The QApplication with the app's style, icon and names (created once)."""
    from PySide6 import QtGui, QtWidgets

    from . import qt_messages, resources

    # a helper thread running Python (reading a big corpus for display, autosaving) keeps the GIL up to the switch
    # interval whenever the GUI thread wants it: 1 ms instead of 5 (a Train press while the rows
    # were read waited for it, and the longest training stalls were shorter with 1 ms)
    sys.setswitchinterval(GUI_SWITCH_INTERVAL_S)
    existing = QtWidgets.QApplication.instance()
    if existing is not None:
        assert isinstance(existing, QtWidgets.QApplication)  # the window needs widgets, not a core application
        return existing
    qt_messages.install()  # the platform plugin's warnings are not the user's business
    app = QtWidgets.QApplication(["bpe-desktop", *argv])
    app.setApplicationName("bpe-desktop")
    app.setOrganizationName("bpe-desktop")
    app.setStyle("Fusion")
    app.setWindowIcon(QtGui.QIcon(str(resources.ICON)))
    from .widgets import theme

    theme.apply()  # palette and stylesheet: the saved View → Theme choice, else the system's scheme
    return app


def make_window(
    corpus: str | None = None, merges: int | None = None, *, preset: str | None = None, remember_layout: bool = True,
    start_screen: bool = True,
) -> MainWindow:
    """A main window loaded with *corpus* (or the default seed table) and the seed settings.

    A *preset* about a corpus (:data:`~.presets.PRESET_SAMPLES`) opens its sample when no *corpus* is given.
    Without either, the start screen (:mod:`.start.welcome`) offers the seed example, the samples and a file.

    With ``remember_layout`` the window reopens where and as the user left it (see :mod:`.window_state`).
    """
    from . import resources
    from .main_window import MainWindow
    from .presets import PRESET_SAMPLES, PRESETS

    w = MainWindow(remember_layout=remember_layout)
    if corpus:
        w.open_corpus(corpus)
    elif preset in PRESET_SAMPLES:  # a preset about a corpus brings it ("Robot logs": the robot-log sample)
        w.load_sample(PRESET_SAMPLES[preset])
    else:
        w.corpus.set_text(resources.read_text(resources.SEED_TABLE), name="seed word counts", word_counts=True)
    if preset is not None:
        w.settings.set_config(PRESETS[preset])
    if not corpus and preset is None and start_screen:
        from .start.welcome import StartScreen

        w.start_screen = StartScreen(w, w.token_view)
        w.docks["tokens"].raise_()  # the card lies on the token stream: in front of a restored layout's tabs
    if merges is not None:
        w.settings.merges.setValue(merges)
    w.keep_drafts()  # the untrained run is the corpus and settings shown
    w.sessions.mark_clean()  # a fresh window holds no work to lose
    return w


def wait_for_training(window: MainWindow, timeout_s: float = 600.0) -> bool:
    """Process events until the window's training run ends; True if it finished."""
    from PySide6 import QtCore, QtWidgets

    from .training.protocol import TrainingState

    session = window.session
    deadline = time.monotonic() + timeout_s
    while session.state.active and time.monotonic() < deadline:
        QtWidgets.QApplication.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 50)
        time.sleep(0.005)
    return session.state is TrainingState.FINISHED


def screenshot(args: argparse.Namespace) -> int:
    from . import file_actions

    errors: list[str] = []

    def report(_parent: object, title: str, message: str) -> None:  # no modal dialog without a user
        errors.append(f"{title}: {message}")
        sys.stderr.write(f"bpe-desktop: error: {title}: {message}\n")

    session_file = args.open_session or args.session
    if session_file and not os.path.isfile(session_file):
        sys.stderr.write(f"bpe-desktop: error: {session_file}: no such session file -- check the path\n")
        return 2
    if args.corpus and not os.path.isfile(args.corpus):
        sys.stderr.write(f"bpe-desktop: error: {args.corpus}: no such file -- check the path\n")
        return 2
    original = file_actions.show_error
    file_actions.show_error = report  # type: ignore[assignment]
    try:
        return _render(args, errors)
    finally:
        file_actions.show_error = original


def _settle(window: MainWindow, timeout_s: float = 30.0) -> None:
    """Let the panes finish their background work (the plots' statistics) so the picture shows the step."""
    from PySide6 import QtWidgets

    from .widgets.on_screen import on_screen

    session = window.session
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        z = window.plots.zipf.data
        if (z is not None and z.step == session.step) or not session.records or not on_screen(window.plots):
            break  # (a plots pane behind another tab draws nothing: nothing to wait for)
        QtWidgets.QApplication.processEvents()
        time.sleep(0.01)
    for _ in range(5):
        QtWidgets.QApplication.processEvents()
        time.sleep(0.02)


def _theme_and_layout(window: MainWindow, args: argparse.Namespace) -> None:
    from . import layouts
    from .widgets import theme

    if args.theme:
        theme.apply(theme.Scheme(args.theme.capitalize()))  # this run only: the saved choice is kept
    if args.layout:
        layouts.apply(window, args.layout)


def _render(args: argparse.Namespace, errors: list[str]) -> int:
    make_app()
    # the default layout, never the user's saved one: the same picture for everyone
    w = make_window(args.corpus, args.merges, preset=args.preset, remember_layout=False)
    width, height = (int(v) for v in args.size.lower().split("x"))
    w.resize(width, height)
    _theme_and_layout(w, args)
    w.show()
    w.sessions.interactive = False  # no question without a user
    session_file = args.open_session or args.session
    if args.restore:
        from .session_io.dialogs import RestoreAnswer

        w.sessions.offer_recovery(RestoreAnswer.RESTORE)
    if session_file:
        ok = w.sessions.open_session(session_file)
    elif args.restore:
        ok = bool(w.session.records)
    elif args.untrained:
        w.corpus.publish_display_text()
        ok = True
    else:
        ok = w.train() and wait_for_training(w)
    if args.step is not None:
        w.session.set_step(args.step)
    _settle(w, 5.0 if session_file or args.restore else 30.0)  # a file corpus restored is not counted: no plots
    saved = w.grab().save(args.screenshot)
    w.close()
    if not saved:
        sys.stderr.write(f"bpe-desktop: error: could not write {args.screenshot}\n")
        return 2
    if not ok or errors:
        return 1
    print(f"wrote {args.screenshot}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.screenshot:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        return screenshot(args)
    app = make_app()
    w = make_window(args.corpus, args.merges, preset=args.preset)
    _theme_and_layout(w, args)
    w.show()
    sessions = w.sessions
    sessions.enable(autosave=True, ask=True)
    from .session_io.dialogs import RestoreAnswer

    restored = sessions.offer_recovery(RestoreAnswer.RESTORE if args.restore else None)
    session_file = args.open_session or args.session
    if session_file and not restored:
        sessions.open_session(session_file)
    return int(app.exec())
