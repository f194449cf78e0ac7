"""The GUI thread's longest stall for two Compare actions that read o200k: the Rediscovery tab's Compare (a run
against o200k) and Compare tokenizers → "Add reference…" of o200k's rank file (``o200k:FILE``), each the way
the window does it now (a helper thread, polled, or behind the modal progress dialog) against the same work on
the GUI thread (what the window did before: ``rediscovery.compute`` / ``compare.loading.read`` called here).

A 1 ms ``QTimer`` ticks on the GUI thread; the longest gap between two ticks is the longest stall ("now" runs
until the result is shown).

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_off_gui.py [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # bench_open_tokenizer's probe


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from bench_open_tokenizer import _ticking
    from PySide6 import QtCore

    from bpe_desktop.core import CorpusSource
    from bpe_desktop.core.config import TrainConfig
    from bpe_desktop.core.counting.pieces import count_text
    from bpe_desktop.core.formats.presets import PRESETS, bundled_data
    from bpe_desktop.core.training.trainer import Trainer
    from bpe_desktop.gui import app as gui_app
    from bpe_desktop.gui import resources
    from bpe_desktop.gui.compare import loading
    from bpe_desktop.gui.compare.panel import ComparePanel
    from bpe_desktop.gui.runs import rediscovery
    from bpe_desktop.gui.session import Session
    from bpe_desktop.gui.work import Work

    app = gui_app.make_app()

    def until(cond) -> None:  # type: ignore[no-untyped-def]
        while not cond():
            app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.WaitForMoreEvents, 5)

    text = resources.read_text(resources.ROBOT_LOGS)[:200_000]
    config = TrainConfig(mode="bytes", pretokenizer="cl100k", merges=1000)
    words = count_text(text, config)
    t = Trainer(words, config)
    run = Work(CorpusSource.from_text(text), config, t.model, t.run(), word_counts=words, name="logs")
    rank = os.path.join(tempfile.mkdtemp(), "o200k_base.tiktoken")
    with open(rank, "wb") as f:
        f.write(bundled_data(PRESETS["o200k"]))
    spec = f"o200k:{rank}"
    print("| action | where | seconds | GUI thread's longest stall (ms) |")
    print("|---|---|---|---|")
    for _ in range(args.rounds):
        page = rediscovery.RediscoveryPage([run])
        page.reference.setCurrentIndex(1)  # o200k
        page.show()
        for _ in range(20):
            app.processEvents()
        s, gap = _ticking(app, lambda: rediscovery.compute(run, "o200k"))
        print(f"| Rediscovery vs o200k | GUI thread (before) | {s:.2f} | {gap * 1000:.0f} |")
        s, gap = _ticking(app, lambda p=page: (p.compare(), until(lambda: not p.busy)))
        assert page.result is not None
        print(f"| Rediscovery vs o200k | helper thread (now) | {s:.2f} | {gap * 1000:.0f} |")
        page.close()
        panel = ComparePanel(Session())
        panel.resize(900, 700)
        panel.show()
        for _ in range(20):
            app.processEvents()
        until(lambda p=panel: not p.loading())
        s, gap = _ticking(app, lambda: loading.read(spec, None))
        print(f"| Add reference… o200k:FILE | GUI thread (before) | {s:.2f} | {gap * 1000:.0f} |")
        s, gap = _ticking(app, lambda p=panel: p.add_reference(spec, "o200k file"))
        print(f"| Add reference… o200k:FILE | behind the progress dialog (now) | {s:.2f} | {gap * 1000:.0f} |")
        panel.remove_reference("o200k file")
        s, gap = _ticking(app, lambda p=panel: (p.session.set_compare([spec]), until(lambda: not p.loading())))
        print(f"| a session's reference o200k:FILE | helper thread (now) | {s:.2f} | {gap * 1000:.0f} |")
        panel.close()
        panel.deleteLater()
        app.processEvents()


if __name__ == "__main__":
    main()
