"""Render the README's pictures: the whole window and each pane at 1440×900, in the light and the dark theme.

    QT_QPA_PLATFORM=offscreen python docs/make_screenshots.py [--out docs/screens]

Trains the bundled robot-log sample (300 merges, the worker process as the Train button does), then grabs the
window and every dock (plots: each tab) in the Learn layout, light then dark.  PNGs are written with Qt's
highest zlib level; ``export.png`` is the export dialog (``--export-only``: just that one).
``docs/window.png`` is made by ``--screenshot`` (see the README).  It changes nothing else.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PANES = ("tokens", "compare", "inspect", "vocab", "merges", "why", "runs", "plots", "corpus", "settings", "timeline")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default=str(ROOT / "docs" / "screens"))
    p.add_argument("--merges", type=int, default=300)
    p.add_argument("--export-only", action="store_true", help="only export.png (the export dialog, light)")
    args = p.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6 import QtWidgets

    from bpe_desktop.gui import app as gui_app
    from bpe_desktop.gui import layouts, resources
    from bpe_desktop.gui.widgets import theme

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    gui_app.make_app()
    theme.apply(theme.Scheme.LIGHT)
    w = gui_app.make_window(str(resources.ROBOT_LOGS), args.merges, remember_layout=False)
    w.resize(1440, 900)
    w.show()
    if not (w.train() and gui_app.wait_for_training(w)):
        print("training failed", file=sys.stderr)
        return 1
    gui_app._settle(w)

    def pump() -> None:
        for _ in range(8):
            QtWidgets.QApplication.processEvents()

    def settle_plots(timeout_s: float = 60.0) -> None:
        p, deadline = w.plots, time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            z, h = p.zipf.data, p.feed.history
            quality = p.tabs.currentWidget() is p.quality
            if (z is not None and z.step == w.session.step and h is not None and not h.pending
                    and not p._curves_dirty and not (quality and (p.quality.dirty or p.quality.feed.pending()))):
                break
            pump()
            time.sleep(0.01)
        pump()

    def save(widget: QtWidgets.QWidget, name: str) -> None:
        path = out / f"{name}.png"
        if not widget.grab().save(str(path), "PNG", 0):  # quality 0: smallest file
            raise SystemExit(f"could not write {path}")
        print(f"wrote {path} ({path.stat().st_size // 1024} KB)")

    def save_export_dialog() -> None:
        from bpe_desktop.gui.export_dialog import ExportDialog

        s = w.session
        d = ExportDialog(w, s.model, s.records, s.n_steps, os.path.join("~", "exports"))
        d.show()
        pump()
        save(d, "export")
        d.close()

    if args.export_only:
        save_export_dialog()
        w.close()
        return 0
    for scheme in (theme.Scheme.LIGHT, theme.Scheme.DARK):
        theme.apply(scheme)
        layouts.apply(w, "Learn")
        w.session.set_step(w.session.n_steps)
        pump()
        gui_app._settle(w)
        tag = scheme.value.lower()
        save(w, f"window-{tag}")
        for key in PANES:
            dock = w.docks[key]
            dock.raise_()
            pump()
            if key == "inspect" and w.inspector.done is None:  # the robot-log sample under yours and cl100k
                w.inspector.use_sample()
                if w.inspector.inspect():
                    deadline = time.monotonic() + 120
                    while w.inspector.done is None and time.monotonic() < deadline:
                        pump()
                        time.sleep(0.02)
                    pump()
            if key == "vocab":  # (it computes the audit in slices while on screen: wait for it)
                deadline = time.monotonic() + 60
                while w.vocab.busy and time.monotonic() < deadline:
                    pump()
                    time.sleep(0.01)
                pump()
            if key == "tokens":
                w.token_view.show_derivation(w.session.records[-1].token_id)
                pump()
            if key == "plots":  # (a plots pane behind another tab draws nothing: wait for it to catch up)
                for i, tab in enumerate(("pairs", "compression", "tradeoff", "quality")):
                    w.plots.tabs.setCurrentIndex(i)
                    settle_plots()
                    save(dock, f"plots-{tab}-{tag}")
                w.plots.tabs.setCurrentIndex(0)
                continue
            save(dock, f"{key}-{tag}")
        w.docks["tokens"].raise_()
        w.docks["why"].raise_()
    theme.apply(theme.Scheme.LIGHT)
    save_export_dialog()
    w.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
