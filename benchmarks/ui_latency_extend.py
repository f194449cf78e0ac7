"""Window latency through the Log inspector's *Extend on this log…* flow on a big log (issue 25's "stays responsive").

Opens the real main window (1440×900, offscreen unless ``--platform xcb``), and drives it as a user would, through
the same slots the buttons call, while a 10 ms ``QTimer`` records the gaps between its ticks in the GUI thread (the
probe and the report of ``ui_latency.py``):

1. ``open log`` -- the Log inspector's dock raised, ``open_log(LOG)``;
2. ``inspect cl100k`` -- Inspect with the pane's default ticks (cl100k_base), until both tabs are filled
   (``--no-first-inspect`` skips it);
3. ``extend dialog`` -- the pane's "Extend on this log…" button clicked: the Extend dialog on that log, its defaults
   kept (cl100k) but for ``--merges`` and the file written (a temporary folder);
4. ``extend worker`` -- Extend pressed: the worker process learns the merges and writes the file;
5. ``show as run`` -- the dialog's own reaction to the result: the original's merges listed on the ``jobs`` helper
   thread behind a modal progress dialog, then ``session.load`` (``apply``) and the window showing the run;
6. ``compare`` -- "Compare in Log inspector" pressed: cl100k and the extension ticked, the log inspected by both in
   the worker, then ``result shown`` (both tabs filled) and ``idle`` (``--idle-s`` seconds more).

Prints one JSON object: p50/p99/max of the tick gaps over the whole flow, ticks over 16 and 33 ms, the same per
phase (a gap counts in the phase it started in), each phase's seconds, the ``--top`` longest gaps with the phases
they spanned, the GUI thread's CPU time in them (and the other threads' of this process, by name; and how long the
GUI thread was runnable but waited for a core, from ``/proc/thread-self/schedstat``), the instrumented
GUI-thread calls that ran inside them (``calls``: name, milliseconds, the GUI thread's CPU milliseconds in the
call and when it started in the gap; each pane's reaction to a run shown is one of them, :data:`PANE_SLOTS`), and
the figures the flow showed: tokens per line of the log under cl100k and under the extension (the inspector's
counts, and the extension job's own).  On a shared machine the longest gaps are often the GUI thread waiting
for a core: ``cpu_stalls`` lists, the same way, the ``--top`` gaps with the most GUI-thread CPU that are not
among the longest, and ``gaps_gui_cpu_over_16ms``/``_33ms`` and ``max_gui_cpu_ms`` count the gaps by that CPU.
``--profile FILE`` writes a cProfile of the GUI thread over the flow
(``python -m pstats FILE``); ``--profile-gap CALL FILE`` one from the timed call *CALL* (``Session.load``,
``compare_extension``...) to the next tick, i.e. what that one gap ran; ``--screenshot FILE.png`` grabs the window
at the end.

    python benchmarks/ui_latency_extend.py --log /tmp/log20.log [--merges 1000] [--platform offscreen|xcb]
        [--no-first-inspect] [--settle-s 1] [--idle-s 2] [--top 12] [--profile FILE]
        [--profile-gap CALL FILE] [--screenshot FILE.png]

``--platform xcb`` measures under a real X server: the one in ``DISPLAY``, or else an ``Xvfb`` the script starts.
Targets (issues 24/25): p99 <= 16 ms, max <= 33 ms under xcb and offscreen.
The log: ``bpe-desktop sample robotlogs --lines 180000 --seed 7 > /tmp/log20.log`` (19.9 MB).
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import ui_latency  # noqa: E402  (the probe's summary and Xvfb)

TIMEOUT_S = 900.0  # a ceiling for a stuck phase, not a speed limit


def _waited() -> float:
    """Seconds the calling thread has spent runnable but waiting for a core (the scheduler's run queue)."""
    try:
        with open("/proc/thread-self/schedstat", "rb") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def _thread_cpu() -> dict[str, float]:
    """CPU seconds so far of each of this process's threads but the main one, by name."""
    out = {}
    for t in threading.enumerate():
        if t is not threading.main_thread() and t.ident is not None:
            try:
                out[t.name] = time.clock_gettime(time.pthread_getcpuclockid(t.ident))
            except (OSError, ProcessLookupError):
                pass
    return out


class Recorder:
    """The tick gaps (with the GUI thread's CPU time in each), the phase marks and the timed calls."""

    def __init__(self) -> None:
        self.t0 = time.perf_counter()
        self.gaps: list[tuple[float, float, float, float]] = []  # (start, end, GUI-thread CPU s, process CPU s)
        self.waits: list[float] = []  # each gap's seconds the GUI thread waited for a core
        self.threads: list[dict[str, float]] = []  # each gap's CPU s by (other) thread name
        self.phases: list[tuple[float, str]] = []
        self.calls: list[tuple[float, float, str, float]] = []  # GUI-thread calls: (start, end, name, CPU s)
        self._last = (time.perf_counter(), time.thread_time(), time.process_time())
        self._last_wait = _waited()
        self.main = threading.main_thread()
        self.gap_profile: tuple[str, str] | None = None  # (call name, file): cProfile from that call to the next tick
        self._profiling: cProfile.Profile | None = None
        self._stop_profile = False

    def tick(self) -> None:
        if self._stop_profile and self._profiling is not None and self.gap_profile is not None:
            self._profiling.disable()
            self._profiling.dump_stats(self.gap_profile[1])
            self._profiling, self.gap_profile, self._stop_profile = None, None, False
        now, cpu, proc = time.perf_counter(), time.thread_time(), time.process_time()
        self.gaps.append((self._last[0], now, cpu - self._last[1], proc - self._last[2]))
        self._last = (now, cpu, proc)
        waited = _waited()
        self.waits.append(waited - self._last_wait)
        self._last_wait = waited
        by_thread = _thread_cpu()
        self.threads.append({k: v - self._by_thread.get(k, 0.0) for k, v in by_thread.items()})
        self._by_thread = by_thread

    def restart(self) -> None:
        self._last = (time.perf_counter(), time.thread_time(), time.process_time())
        self._last_wait = _waited()
        self._by_thread = _thread_cpu()

    def phase(self, label: str) -> None:
        self.phases.append((time.perf_counter(), label))

    def phase_at(self, t: float) -> str:
        label = self.phases[0][1] if self.phases else ""
        for when, name in self.phases:
            if when > t:
                break
            label = name
        return label

    def wrap(self, owner: Any, name: str, label: str | None = None, before: str | None = None,
             after: str | None = None) -> None:
        """Time ``owner.name`` when the GUI thread calls it; *before*/*after*: phase marks around it."""
        real = getattr(owner, name)
        rec = self

        @functools.wraps(real)
        def timed(*a: Any, **k: Any) -> Any:
            if threading.current_thread() is not rec.main:
                return real(*a, **k)
            if before:
                rec.phase(before)
            wanted = rec.gap_profile is not None and rec._profiling is None and (label or name) == rec.gap_profile[0]
            if wanted:
                rec._profiling = cProfile.Profile()
                rec._profiling.enable()
            t, cpu = time.perf_counter(), time.thread_time()
            try:
                return real(*a, **k)
            finally:
                rec.calls.append((t, time.perf_counter(), label or name, time.thread_time() - cpu))
                if wanted:
                    rec._stop_profile = True
                if after:
                    rec.phase(after)

        setattr(owner, name, timed)


def instrument(rec: Recorder) -> None:
    """The GUI-thread slots of the flow, timed (patched on the classes before the window connects them)."""
    from bpe_desktop.gui import main_window, session
    from bpe_desktop.gui.extend import dialog, show
    from bpe_desktop.gui.extend import open as extend_open
    from bpe_desktop.gui.inspect import differ_tab, lines, panel, tokens_tab

    lp = panel.LogInspector
    for name in ("open_log", "inspect", "_finished", "_progress"):
        rec.wrap(lp, name, f"LogInspector.{name}")
    rec.wrap(tokens_tab.TokensTab, "set_result", "TokensTab.set_result")
    rec.wrap(differ_tab.DifferTab, "set_done", "DifferTab.set_done")
    for cls in vars(lines).values():  # the line blocks' drawing, if any
        if isinstance(cls, type) and cls.__module__ == lines.__name__ and hasattr(cls, "paintEvent"):
            rec.wrap(cls, "paintEvent", f"{cls.__name__}.paintEvent")
    rec.wrap(dialog.ExtendDialog, "start", "ExtendDialog.start")
    rec.wrap(dialog.ExtendDialog, "_finished", "ExtendDialog._finished (contains the modal loop)",
             before="show as run: listing (modal)")
    rec.wrap(session.Session, "load", "Session.load", before="show as run: apply", after="run shown")
    rec.wrap(session, "encoder", "work.encoder (the shown run's encoder built)")
    rec.wrap(main_window, "extend_dialog", "extend_dialog (the dialog built)")
    rec.wrap(extend_open, "compare_extension", "compare_extension")
    rec.wrap(show, "show_extension", "show_extension (contains the modal loop)")
    try:  # (a tree before issue 25's fifth round has no held paint)
        from bpe_desktop.gui.widgets import repaint_hold
    except ImportError:
        pass
    else:
        rec.wrap(repaint_hold._Hold, "release", "the held paint released (it follows)")
        rec.wrap(repaint_hold._Hold, "_run_due", "after the held paint (the next piece)")
    _wrap_panes(rec)


#: each pane's reaction to a run shown (Session.load's signals), timed: (module under bpe_desktop.gui, class, methods)
PANE_SLOTS = [
    ("panes.corpus_editor", "CorpusEditor", ("_work_loaded", "_filled_late")),
    ("panes.settings", "SettingsPanel", ("set_config", "_update_banner")),
    ("panes.merge_list", "MergeTableModel", ("_reset",)),
    ("panes.merge_list", "MergeListPane", ("_update_count",)),
    ("panes.why", "WhyPanel", ("refresh",)),
    ("panes.timeline", "TimelinePane", ("_grow",)),
    ("panes.status_bar", "StatusBar", ("refresh",)),
    ("stream.view", "TokenStreamView", ("_on_model_reset",)),
    ("stream.canvas", "TokenCanvas", ("_on_model_reset",)),
    ("stream.follow_merge", "MergeFollower", ("_reset",)),
    ("plots.panel", "PlotsPanel", ("_on_reset",)),
    ("vocab.pane", "VocabPane", ("_on_reset",)),
    ("compare.panel", "ComparePanel", ("_model_reset",)),
    ("runs.store", "RunStore", ("_runs_changed",)),
    ("main_window", "MainWindow", ("_update_stale", "_update_actions")),
]


def _wrap_panes(rec: Recorder) -> None:
    import importlib

    for module, cls, names in PANE_SLOTS:
        owner = getattr(importlib.import_module(f"bpe_desktop.gui.{module}"), cls)
        for name in names:
            rec.wrap(owner, name, f"{cls}.{name}")


def run_flow(args: argparse.Namespace) -> dict[str, object]:
    from PySide6 import QtCore, QtWidgets

    from bpe_desktop.gui import app as gui_app

    rec = Recorder()
    if args.profile_gap:
        rec.gap_profile = (args.profile_gap[0], args.profile_gap[1])
    instrument(rec)
    gui_app.make_app()
    loop = QtCore.QEventLoop()
    w = gui_app.make_window(remember_layout=False)
    w.resize(1440, 900)
    w.show()
    w.plots  # noqa: B018 -- built after the first paint: built before measuring (as ui_latency.settled_window)
    QtCore.QTimer.singleShot(1000, loop.quit)
    loop.exec()

    def wait(pred: Callable[[], bool], what: str, timeout: float = TIMEOUT_S) -> None:
        t = time.perf_counter()
        poll = QtCore.QTimer()
        poll.setInterval(20)
        poll.timeout.connect(lambda: loop.quit() if pred() or time.perf_counter() - t > timeout else None)
        poll.start()
        if not pred():
            loop.exec()
        poll.stop()
        if not pred():
            raise RuntimeError(f"timed out waiting for {what}")

    def settle(seconds: float) -> None:
        QtCore.QTimer.singleShot(int(seconds * 1000), loop.quit)
        loop.exec()

    pane = w.inspector
    probe = QtCore.QTimer()
    probe.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
    probe.setInterval(10)
    probe.timeout.connect(rec.tick)
    profile = cProfile.Profile() if args.profile else None
    seconds: dict[str, float] = {}

    def timed_phase(label: str) -> None:
        rec.phase(label)
        seconds[label] = time.perf_counter()

    rec.restart()
    probe.start()
    if profile is not None:
        profile.enable()
    t_start = time.perf_counter()

    timed_phase("open log")
    dock = w.docks["inspect"]
    dock.show()
    dock.raise_()
    if not pane.open_log(args.log):
        raise RuntimeError(f"the inspector refused {args.log}")
    settle(0.5)

    def shown(done: object) -> bool:  # the result's both tabs filled (the second one a turn later)
        return (pane.done is done and done is not None and not pane.runner.running
                and pane.differ_tab.done is done)

    first: dict[str, float] = {}
    if not args.no_first_inspect:
        timed_phase("inspect cl100k")
        n_done = [0]
        pane.runner.finished.connect(lambda *_: n_done.__setitem__(0, n_done[0] + 1))
        if not pane.inspect():
            raise RuntimeError("Inspect refused to start")
        wait(lambda: n_done[0] >= 1, "the first inspection")
        rec.phase("inspect cl100k: result shown")
        wait(lambda: shown(pane.done), "the first result shown")
        settle(0.5)
        r = pane.done.inspection.reports[0]
        first = {"tokens": r.tokens, "lines": len(r.per_line)}

    timed_phase("extend dialog")
    button = next(b for b in pane.findChildren(QtWidgets.QPushButton) if b.text() == "Extend on this log…")
    button.click()
    dlg = w.findChild(QtWidgets.QDialog, "extend_dialog")
    if dlg is None:
        raise RuntimeError("no Extend dialog")
    out_dir = tempfile.mkdtemp(prefix="ui_latency_extend_")
    dlg.out.setText(os.path.join(out_dir, os.path.basename(dlg.out.text())))
    dlg.merges.setValue(args.merges)
    settle(0.3)

    timed_phase("extend worker")
    if not dlg.start():
        raise RuntimeError("Extend refused to start")
    wait(lambda: dlg.done_result is not None, "the extension")
    direct = QtCore.Qt.FindChildOption.FindDirectChildrenOnly  # (the window's whole tree: 1-2 ms in the gap)
    wait(lambda: (w.session.work.extension is not None and not w.findChildren(QtWidgets.QProgressDialog, "", direct))
         or "Not shown" in dlg.status.text(), "the extension shown as a run")
    if w.session.work.extension is None:
        raise RuntimeError(f"the extension was not shown as a run: {dlg.status.text()}")
    rec.phase("run shown: settling")
    settle(args.settle_s)

    timed_phase("compare")
    n_before = pane.runner.worker_pids[:]
    dlg.compare_button.click()
    wait(lambda: pane.runner.worker_pids != n_before and not pane.runner.running and pane.done is not None
         and len(pane.done.inspection.reports) == 2, "the comparison")
    rec.phase("compare: result shown")
    wait(lambda: shown(pane.done), "the comparison shown")
    timed_phase("idle")
    settle(args.idle_s)
    t_end = time.perf_counter()
    if profile is not None:
        profile.disable()
        profile.dump_stats(args.profile)
    probe.stop()
    if not w.isVisible():
        raise RuntimeError("the window was closed during the measurement")

    done = dlg.done_result
    reports = {r.name: r for r in pane.done.inspection.reports}
    figures = {name: {"tokens": r.tokens, "lines": len(r.per_line),
                      "tokens_per_line": round(r.tokens / max(len(r.per_line), 1), 3)} for name, r in reports.items()}
    if args.screenshot:
        w.grab().save(args.screenshot)
    dlg.close()
    labels = [lb for _, lb in rec.phases]
    phase_s = {}
    order = sorted(seconds, key=seconds.get)  # type: ignore[arg-type]
    for i, lb in enumerate(order):
        nxt = seconds[order[i + 1]] if i + 1 < len(order) else t_end
        phase_s[lb] = round(nxt - seconds[lb], 2)
    per_phase = {}
    for lb in dict.fromkeys(labels):
        per_phase[lb] = ui_latency._gaps_summary([(b - a) * 1000 for a, b, *_ in rec.gaps if rec.phase_at(a) == lb])
    allg = [(b - a) * 1000 for a, b, *_ in rec.gaps]
    top = sorted(range(len(rec.gaps)), key=lambda i: rec.gaps[i][0] - rec.gaps[i][1])[: args.top]
    by_cpu = sorted(range(len(rec.gaps)), key=lambda i: -rec.gaps[i][2])[: args.top]
    stalls, cpu_stalls = [], []
    for i in dict.fromkeys(top + by_cpu):
        a, b, cpu, proc = rec.gaps[i]
        others = {k: round(v * 1000, 1) for k, v in rec.threads[i].items() if v >= 0.0005}
        spanned = list(dict.fromkeys([rec.phase_at(a)] + [lb for t, lb in rec.phases if a < t < b]))
        inside = [(n, round((min(e, b) - max(s, a)) * 1000, 1), round(c * 1000, 1), round((s - a) * 1000, 1))
                  for s, e, n, c in rec.calls if s < b and e > a]
        (stalls if i in top else cpu_stalls).append({
                       "gap_ms": round((b - a) * 1000, 1), "gui_cpu_ms": round(cpu * 1000, 1),
                       "other_threads_cpu_ms": round((proc - cpu) * 1000, 1), "by_thread_ms": others,
                       "gui_waited_for_a_core_ms": round(rec.waits[i] * 1000, 1),
                       "at_s": round(a - t_start, 2), "phases": spanned,
                       "calls": [f"{n} {ms} ms (CPU {c}) at +{at}" for n, ms, c, at in inside
                                 if "modal loop" not in n]})
    cpu_stalls.sort(key=lambda x: -float(x["gui_cpu_ms"]))  # type: ignore[arg-type]
    cpu = [c * 1000 for _, _, c, _ in rec.gaps]
    return {**ui_latency._gaps_summary(allg), "phases": per_phase, "phase_s": phase_s, "stalls": stalls,
            "cpu_stalls": cpu_stalls, "gaps_gui_cpu_over_16ms": sum(c > 16 for c in cpu),
            "gaps_gui_cpu_over_33ms": sum(c > 33 for c in cpu), "max_gui_cpu_ms": round(max(cpu, default=0.0), 1),
            "first_inspect": first, "compare": figures,
            "extension": {"spec": done.spec, "made": done.made, "stop": done.stop_reason, "lines": done.lines,
                          "tokens_before": done.tokens_before, "tokens_after": done.tokens_after,
                          "tokens_per_line_before": round(done.tokens_before / max(done.lines, 1), 3),
                          "tokens_per_line_after": round(done.tokens_after / max(done.lines, 1), 3)},
            "flow_s": round(t_end - t_start, 2)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--log", default="/tmp/log20.log", help="the log to open (default /tmp/log20.log)")
    p.add_argument("--merges", type=int, default=1000, help="new merges (the dialog's default: 1,000)")
    p.add_argument("--platform", choices=("offscreen", "xcb"), default=None,
                   help="Qt platform (default: QT_QPA_PLATFORM or offscreen); xcb starts Xvfb when DISPLAY is unset")
    p.add_argument("--no-first-inspect", action="store_true", help="skip inspecting the log with cl100k first")
    p.add_argument("--idle-s", type=float, default=2.0, help="seconds recorded after the comparison is shown")
    p.add_argument("--settle-s", type=float, default=1.0, help="seconds between the run shown and Compare")
    p.add_argument("--top", type=int, default=12, help="how many of the longest gaps to list")
    p.add_argument("--profile", metavar="FILE", help="write a cProfile of the GUI thread over the flow")
    p.add_argument("--profile-gap", nargs=2, metavar=("CALL", "FILE"),
                   help="write a cProfile of the GUI thread from the first timed call CALL (as named in the stall "
                        "list, e.g. Session.load) to the next tick after it returns: what that tick gap ran")
    p.add_argument("--screenshot", metavar="FILE.png", help="grab the window after the flow")
    args = p.parse_args()
    if not os.path.isfile(args.log):
        p.error(f"{args.log}: no such file -- bpe-desktop sample robotlogs --lines 180000 --seed 7 > {args.log}")
    if args.platform:
        os.environ["QT_QPA_PLATFORM"] = args.platform
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    xvfb = None
    if os.environ["QT_QPA_PLATFORM"] == "xcb" and not os.environ.get("DISPLAY"):
        xvfb = ui_latency.start_xvfb("1440x900x24")
    try:
        result = run_flow(args)
    finally:
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait(10)
    result.update({"log": os.path.basename(args.log), "log_bytes": os.path.getsize(args.log), "merges": args.merges,
                   "qt_platform": os.environ.get("QT_QPA_PLATFORM"),
                   "load_avg": [round(x, 2) for x in os.getloadavg()]})
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
