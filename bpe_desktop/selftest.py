"""``bpe-desktop --selftest``: check that this installation (a checkout, a wheel or the frozen bundle) works.

It runs, in order, and stops at the first failure:

1. ``resources`` -- the seed table, the icon and the stylesheet are where the program looks for them;
2. ``trainer`` -- which path trains: the compiled kernel, or pure Python and why (never a failure: pure
   Python gives the same merges, slower);
3. ``worker`` -- the seeds' worked example (low 5, lower 2, newest 6, widest 3; chars mode, ``</w>``,
   lexical ties, 7 merges) trained by the window's training entry point in a *spawned* process (in the
   bundle: the frozen executable re-entered through ``multiprocessing.freeze_support``), which must not
   load Qt and must give the seven merges of seed 000 with their counts;
4. ``encode`` -- ``lowest`` under those merges is ``low | est</w>`` (the seed's "encoding a new word");
5. ``window`` -- the main window, offscreen unless ``QT_QPA_PLATFORM`` says otherwise, trains the same
   table through its own controller and worker process, gets the same merges, and renders: the picture
   has the window's size and is not blank, the title is the program's, the SVG icon renders (QtSvg and
   its plugins are present) and fonts exist.

It prints one line per check and a verdict; the exit status is 0 when every check passed, 1 otherwise
(the line says why).  The expected merges are the seed's published table, not this program's output.
It does not test the CLI or the file formats (the test suite does).
"""

from __future__ import annotations

import importlib
import multiprocessing as mp
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from .core.choices import Mode, TieBreak

# Seed 000 (../shared/seeds/000-bpe-lesson-worked-example.txt): the table "Round | Merge | Count".
EXPECTED_MERGES = [("e", "s", 9), ("es", "t", 9), ("est", "</w>", 9), ("l", "o", 7), ("lo", "w", 7),
                   ("e", "w", 6), ("ew", "est</w>", 6)]
EXPECTED_LOWEST = ["low", "est</w>"]
WORKER_TIMEOUT_S = 60.0
WINDOW_SIZE = (1280, 800)

# Every GUI module this file uses, imported lazily by _gui() (to repoint after a restructure of gui/):
GUI_MODULES = {
    "resources": "bpe_desktop.gui.resources",  # RESOURCES, SEED_TABLE, ICON, STYLESHEET, read_text
    "worker": "bpe_desktop.gui.training.worker",  # run(conn, source, config, paused): the training process's target
    "protocol": "bpe_desktop.gui.training.protocol",  # the typed messages worker <-> window
    "process": "bpe_desktop.gui.training.process",  # main_module_hidden(): the spawn precaution
    "app": "bpe_desktop.gui.app",  # make_app(), make_window(...), wait_for_training(window, timeout_s)
    "file_actions": "bpe_desktop.gui.file_actions",  # show_error (replaced: no modal dialog in a self-test)
}


class CheckFailed(Exception):
    """A check's reason for failing (one line)."""


def _gui(name: str) -> Any:
    """The GUI module *name* (imported on demand, so the CLI-only checks never load Qt)."""
    return importlib.import_module(GUI_MODULES[name])


def _merges(pairs: Sequence[tuple[str, str, int]]) -> str:
    return ", ".join(f"{a}+{b} {c}" for a, b, c in pairs)


def _compare_merges(got: list[tuple[str, str, int]], where: str) -> None:
    if got != EXPECTED_MERGES:
        raise CheckFailed(f"{where} gave {len(got)} merges [{_merges(got)}]; seed 000 has "
                          f"[{_merges(EXPECTED_MERGES)}]")


def _seed_config() -> object:
    from .core.config import TrainConfig

    return TrainConfig(mode=Mode.CHARS, pretokenizer="whitespace", end_of_word="</w>", tie_break=TieBreak.LEXICAL,
                       merges=len(EXPECTED_MERGES))


def check_resources(state: dict[str, object]) -> str:
    res = _gui("resources")
    missing = [str(p) for p in (res.SEED_TABLE, res.ICON, res.STYLESHEET) if not p.is_file()]
    if missing:
        raise CheckFailed(f"missing bundled file(s): {', '.join(missing)} (looked in {res.RESOURCES})")
    state["seed_text"] = res.read_text(res.SEED_TABLE)
    return f"seed table, icon and stylesheet in {res.RESOURCES}"


def check_trainer(state: dict[str, object]) -> str:
    from .core.config import TrainConfig
    from .core.training.kernel_trainer import path_name

    config = _seed_config()
    assert isinstance(config, TrainConfig)
    return path_name(config)


def check_worker(state: dict[str, object]) -> str:
    from .core.counting.sources import CorpusSource
    from .core.records import MergeRecord

    worker, proto, process = _gui("worker"), _gui("protocol"), _gui("process")
    source = CorpusSource.from_text(str(state["seed_text"]), word_counts=True, name="seed_000.txt")
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe(duplex=True)
    proc = ctx.Process(target=worker.run, args=(child, source, _seed_config(), False), daemon=True,
                       name="bpe-desktop-selftest-trainer")
    t0 = time.monotonic()
    with process.main_module_hidden():
        proc.start()
    child.close()  # the child's exit now closes the pipe: a dead worker reads as EOF, never a hang
    records: list[MergeRecord] = []
    model, qt_loaded, finished = None, None, ""
    try:
        while not finished:
            left = WORKER_TIMEOUT_S - (time.monotonic() - t0)
            if left <= 0 or not parent.poll(left):
                raise CheckFailed(f"the training process sent nothing for {WORKER_TIMEOUT_S:.0f} s")
            try:
                msg = parent.recv()
            except (EOFError, OSError):
                proc.join(2.0)
                raise CheckFailed(f"the training process ended without finishing (exit code {proc.exitcode}, "
                                  f"{len(records)} merges received)") from None
            if isinstance(msg, proto.Started):
                model, qt_loaded = msg.model, bool(msg.qt_loaded)
            elif isinstance(msg, proto.Records):
                records.extend(MergeRecord(*row) for row in msg.rows)
            elif isinstance(msg, proto.Finished):
                finished = msg.text or msg.reason.value
            elif isinstance(msg, proto.Failed):
                raise CheckFailed(f"the training process failed: {msg.message.splitlines()[0]}")
    finally:
        try:
            parent.send(proto.Command.STOP)  # an idle worker (it reached its merge limit) exits on stop
        except (OSError, EOFError):
            pass
        parent.close()
        proc.join(5.0)
        if proc.is_alive():
            proc.kill()
            proc.join(1.0)
    elapsed = time.monotonic() - t0
    _compare_merges([(r.left, r.right, r.count) for r in records], "the training process")
    if qt_loaded:
        raise CheckFailed("the training process loaded Qt (it must stay Qt-free)")
    assert model is not None
    model.extend_merges([(r.left_id, r.right_id) for r in records])
    state["model"] = model
    how = "frozen executable" if getattr(sys, "frozen", False) else "python"
    return (f"{len(records)} merges from a spawned training process ({how}, no Qt loaded, exit code "
            f"{proc.exitcode}) in {elapsed:.2f} s")


def check_encode(state: dict[str, object]) -> str:
    from .core.tokenizers.model import BPEModel
    from .core.tokenizers.tokenizer import Tokenizer

    model = state["model"]
    if not isinstance(model, BPEModel):
        raise CheckFailed("the training check left no model to encode with -- it failed first")
    tok = Tokenizer(model)
    got = [tok.token_str(i) for i in tok.encode("lowest")]
    if got != EXPECTED_LOWEST:
        raise CheckFailed(f"'lowest' encodes as {' | '.join(got)}; seed 000 says {' | '.join(EXPECTED_LOWEST)}")
    return f"'lowest' -> {' | '.join(got)}"


def _not_blank(image: object) -> tuple[int, float]:
    """Distinct colours on a sampling grid and the share of samples unlike the commonest colour."""
    w, h = image.width(), image.height()  # type: ignore[attr-defined]
    counts: dict[int, int] = {}
    for y in range(0, h, 4):
        for x in range(0, w, 4):
            rgb = image.pixel(x, y)  # type: ignore[attr-defined]
            counts[rgb] = counts.get(rgb, 0) + 1
    total = sum(counts.values())
    return len(counts), 1.0 - max(counts.values()) / total if total else 0.0


def check_window(state: dict[str, object]) -> str:
    platform = os.environ.setdefault("QT_QPA_PLATFORM", "offscreen").split(":")[0]
    display = {"xcb": "DISPLAY", "wayland": "WAYLAND_DISPLAY"}.get(platform)
    if display and not os.environ.get(display):  # else Qt aborts the process with a misleading message
        raise CheckFailed(f"QT_QPA_PLATFORM={platform} but {display} is not set -- run it inside your desktop "
                          "session, or unset QT_QPA_PLATFORM to render offscreen")
    app_mod, file_actions = _gui("app"), _gui("file_actions")
    from PySide6 import QtGui

    errors: list[str] = []
    original = file_actions.show_error
    file_actions.show_error = lambda _parent, title, message: errors.append(f"{title}: {message}")
    try:
        app = app_mod.make_app()
        families = QtGui.QFontDatabase.families()
        if not families:
            raise CheckFailed("Qt finds no fonts: text would not be drawn (install fontconfig and a font)")
        w = app_mod.make_window(remember_layout=False)  # the default corpus: the seed table
        try:
            w.resize(*WINDOW_SIZE)
            w.show()
            if not w.train():
                raise CheckFailed(f"the window refused to train: {'; '.join(errors)}")
            if not app_mod.wait_for_training(w, WORKER_TIMEOUT_S):
                raise CheckFailed(f"the window's training did not finish (state {w.session.state!r}"
                                  + (f": {'; '.join(errors)}" if errors else "") + ")")
            s = w.session
            _compare_merges([(r.left, r.right, r.count) for r in s.records], "the window's training")
            for _ in range(10):
                app.processEvents()
                time.sleep(0.02)
            image = w.grab().toImage()
            title = w.windowTitle()
            icon = app.windowIcon().pixmap(64, 64).toImage()
        finally:
            w.close()
    finally:
        file_actions.show_error = original
    if (image.width(), image.height()) != (w.width(), w.height()) or image.isNull():
        raise CheckFailed(f"rendered {image.width()}x{image.height()}, the window is {w.width()}x{w.height()}")
    colours, inked = _not_blank(image)
    if colours < 20 or inked < 0.05:
        raise CheckFailed(f"the rendered window is blank ({colours} colours, {inked:.1%} unlike the background)")
    if not title.startswith("bpe-desktop"):
        raise CheckFailed(f"the window title is {title!r}")
    _, icon_inked = _not_blank(icon)
    if icon.isNull() or icon_inked < 0.05:
        raise CheckFailed("the SVG icon does not render (QtSvg or its image plugin is missing)")
    if errors:
        raise CheckFailed("; ".join(errors))
    platform = QtGui.QGuiApplication.platformName()  # what Qt actually loaded
    return (f"trained {len(s.records)} merges through the window's controller; rendered "
            f"{image.width()}x{image.height()} on '{platform}', {colours} colours, {inked:.0%} drawn; "
            f"icon renders; {len(families)} font families")


CHECKS: list[tuple[str, Callable[[dict[str, object]], str]]] = [
    ("resources", check_resources), ("trainer", check_trainer), ("worker", check_worker), ("encode", check_encode),
    ("window", check_window),
]


def main(argv: Sequence[str] = ()) -> int:
    from . import __version__

    if argv:
        sys.stderr.write(f"bpe-desktop: error: --selftest takes no other arguments (got {' '.join(argv)})\n")
        return 2
    where = f"frozen bundle {os.path.dirname(sys.executable)}" if getattr(sys, "frozen", False) else (
        f"Python {sys.version.split()[0]}, {os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}")
    print(f"bpe-desktop {__version__} self-test ({where})", flush=True)
    t0 = time.monotonic()
    state: dict[str, object] = {}
    for name, check in CHECKS:
        try:
            detail = check(state)
        except CheckFailed as e:
            print(f"  FAIL  {name:<9} {e}", flush=True)
            print(f"self-test FAILED at '{name}': {e}", flush=True)
            return 1
        except Exception as e:  # a bug or a broken installation: say which check and what, not a traceback
            print(f"  FAIL  {name:<9} {type(e).__name__}: {e}", flush=True)
            print(f"self-test FAILED at '{name}': {type(e).__name__}: {e}", flush=True)
            return 1
        print(f"  ok    {name:<9} {detail}", flush=True)
    print(f"self-test passed in {time.monotonic() - t0:.1f} s", flush=True)
    return 0
