"""A big corpus's plot statistics in the statistics process: the same numbers as the in-thread history (the
oracle: the core's SegmentationHistory on the same corpus), and hostile cases -- the process killed mid-build,
its owner gone (no orphan), answers of an older corpus arriving after a reset (never shown), a bad message.

Each test forces the process path on a small corpus (``PROCESS_PIECES`` 0); waits are bounded, never asserted.
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bpe_desktop.core import TrainConfig
from bpe_desktop.core.counting.parted import PartedCounts
from bpe_desktop.core.measure.stats import SegmentationHistory
from bpe_desktop.gui.plots import feed as feed_mod
from bpe_desktop.gui.plots.feed import building_note
from bpe_desktop.gui.plots.panel import PlotsPanel
from bpe_desktop.gui.plots.remote_history import RemoteHistory
from bpe_desktop.gui.plots.stats_protocol import Merges
from support.plots import WordCountsParted, panel_for, session_of, until

MERGES = 120
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def trained(topics_text, trained_on):
    return trained_on(topics_text, TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf", merges=MERGES))


@pytest.fixture
def in_process(monkeypatch):
    monkeypatch.setattr(feed_mod, "PROCESS_PIECES", 0)


def drawn(oracle: SegmentationHistory, k: int, model) -> object:
    """What the pair plot draws at step *k*: the whole table's same ranks, with the rank of the pair merged next."""
    return oracle.zipf(k).view(model.merges[k] if k < len(model.merges) else None)


def wait_zipf_at(qtbot, panel: PlotsPanel, step: int) -> None:
    qtbot.waitUntil(lambda: panel.zipf.data is not None and panel.zipf.data.step == step, timeout=30_000)


def exited(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")  # (a zombie has exited; its reaper may be slow)


def wait_exit(qtbot, pid: int) -> None:
    qtbot.waitUntil(lambda: exited(pid), timeout=20_000)


def test_the_process_gives_the_in_thread_history_s_numbers(qtbot, trained, in_process) -> None:
    _text, wc, t, _recs = trained
    s = session_of(trained, WordCountsParted(wc))
    panel = panel_for(qtbot, s)
    oracle = SegmentationHistory(wc, t.model)
    wait_zipf_at(qtbot, panel, MERGES)
    feed = panel.feed
    assert feed.history is None and feed.remote is not None and feed.remote.running  # (the process's numbers)
    assert panel.zipf.data == drawn(oracle, MERGES, t.model)
    for k in (0, 1, 37, 99):
        s.set_step(k)
        wait_zipf_at(qtbot, panel, k)
        assert panel.zipf.data == drawn(oracle, k, t.model), k
    assert feed.tradeoff() == oracle.tradeoff()  # (its corpus totals came from the process)
    pid = feed.remote.pid
    feed.close()
    wait_exit(qtbot, pid)


def many_words(n: int) -> dict[str, int]:
    return {f"w{i}": i % 13 + 1 for i in range(n)}


CHARS = "".join(map(chr, range(32, 127)))


def test_killed_mid_build_the_history_says_so_and_answers_nothing(qtbot) -> None:
    from bpe_desktop.core.tokenizers.model import BPEModel

    r = RemoteHistory()
    try:
        r.begin(PartedCounts.cut(many_words(100_000), 2048), BPEModel("chars", list(CHARS)))
        until(qtbot, r, lambda: r.built > 0)
        assert r.n_merges == -1 and r.built < r.pieces == 100_000  # reported building, not built
        assert building_note(r.pieces, r.built) == f"counting pairs in 100,000 pieces… {r.built // 1000} %"
        os.kill(r.pid, signal.SIGKILL)
        until(qtbot, r, lambda: "signal" in r.failure)  # (its exit code is known once it is reaped)
        assert r.failure == "the statistics process ended (killed by signal 9)"
        r.ask(0)
        assert r.poll(0.05) is False and r.answers == {} and r.n_merges == -1
    finally:
        r.close()


def test_killed_before_it_answered_the_plot_says_so_and_a_new_run_recovers(qtbot, trained, in_process) -> None:
    from bpe_desktop.gui.plots import stats_worker

    _text, wc, t, recs = trained
    s = session_of(trained)
    panel = panel_for(qtbot, s)
    feed = panel.feed
    qtbot.waitUntil(lambda: feed.remote is not None and feed.remote.pid is not None, timeout=20_000)
    pid = feed.remote.pid
    os.kill(pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: "statistics process ended (killed by signal 9)" in feed.note, timeout=20_000)
    assert "train again" in feed.note
    qtbot.waitUntil(lambda: "killed by signal 9" in panel.zipf.plot.titleLabel.text, timeout=10_000)
    s.set_step(10)  # a later step: refused with the same reason, never a stale or empty chart
    for _ in range(20):
        panel.refresh()
        assert feed.zipf(10, 0.01) is None and not feed.ready_for(10)
    assert "statistics process ended" in panel.zipf.plot.titleLabel.text
    s.reset_model(t.model.truncated(0))  # a new run: a new process, the right numbers
    s.append_records(recs)
    s.set_step(50)
    wait_zipf_at(qtbot, panel, 50)
    assert panel.zipf.data == drawn(SegmentationHistory(wc, t.model), 50, t.model)
    assert feed.remote.pid != pid and "ended" not in feed.note
    assert stats_worker.SLICE_S > 0  # (the module the child runs)
    new = feed.remote.pid
    feed.close()
    wait_exit(qtbot, new)


def answer_left_unread(qtbot, r: RemoteHistory, wc, model) -> None:
    """*r* started on *wc* with *model*'s merges, asked the last step, its answer in the pipe and not read yet."""
    r.begin(PartedCounts.cut(wc.counts, 50), model)
    r.follow(model.merges)
    until(qtbot, r, lambda: r.n_merges == MERGES)
    r.ask(MERGES)
    qtbot.waitUntil(lambda: r._launch.conn.poll(0), timeout=30_000)


def test_an_answer_for_the_old_corpus_arriving_after_a_reset_is_never_shown(qtbot, trained) -> None:
    _text, wc, t, _ = trained
    other = {w[::-1] + "x": c for w, c in list(wc.counts.items())[:300]}
    r = RemoteHistory()
    try:
        answer_left_unread(qtbot, r, wc, t.model)
        r.forget()
        r.begin(other, t.model.truncated(0))  # a new corpus, asked the same step
        r.ask(0)
        until(qtbot, r, lambda: 0 in r.answers)
        assert MERGES not in r.answers  # (the old corpus's answer was read and dropped)
        assert r.answers[0] == SegmentationHistory(other, t.model.truncated(0)).zipf(0).view()
    finally:
        r.close()


def test_a_merge_list_out_of_order_is_refused_with_its_reason(qtbot, trained) -> None:
    _text, wc, t, _ = trained
    failure = refused(qtbot, wc.counts, t.model,  # (the window never skips: a hostile one)
                      lambda r: r._queue(Merges(r.generation, 5, tuple(t.model.merges[5:9]))))
    assert failure == "merges from index 5 came when 0 were known"


def refused(qtbot, counts, model, hostile) -> str:
    """Why the process refused the generation of *counts* after *hostile(remote)*; nothing more is answered."""
    r = RemoteHistory()
    try:
        r.begin(counts, model)
        hostile(r)
        until(qtbot, r, lambda: bool(r.failure))
        r.follow(model.merges)
        r.ask(0)
        assert r.poll(0.05) is False and r.answers == {}  # nothing more is answered for it
        return r.failure
    finally:
        r.close()


def test_the_process_ends_with_its_owner(qtbot, trained) -> None:
    _text, wc, t, _ = trained

    def started() -> int:
        r = RemoteHistory()
        r.begin(wc.counts, t.model)
        qtbot.waitUntil(lambda: r.pid is not None, timeout=20_000)
        assert r.pid is not None
        return r.pid

    pid = started()
    gc.collect()  # its owner collected: the pipe closes, the process ends
    wait_exit(qtbot, pid)


def test_the_process_ends_when_the_window_s_process_is_killed(qtbot, tmp_path) -> None:
    script = tmp_path / "owner.py"
    script.write_text(textwrap.dedent("""
        import sys, time
        from bpe_desktop.core.tokenizers.model import BPEModel
        from bpe_desktop.gui.plots.remote_history import RemoteHistory
        r = RemoteHistory()
        r.begin({f"w{i}": i + 1 for i in range(100_000)}, BPEModel("chars", [chr(c) for c in range(32, 127)]))
        while not r.built:  # (building: reported some pieces, not all)
            r.poll(0.01)
            time.sleep(0.01)
        print(r.pid, r.n_merges, flush=True)
        time.sleep(60)
    """))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    owner = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=env)
    try:
        pid, n_merges = map(int, owner.stdout.readline().split())
        assert not exited(pid) and n_merges == -1  # mid-build
    finally:
        owner.kill()
        owner.wait()
    wait_exit(qtbot, pid)


def test_a_dropped_generation_is_forgotten_by_the_process() -> None:
    """(The process's reading, in this process over a pipe.)  After DROP nothing of the old corpus is kept or
    worked on; a later generation's messages are taken, an older one's ignored."""
    import multiprocessing as mp

    from bpe_desktop.core.tokenizers.model import BPEModel
    from bpe_desktop.gui.plots import stats_worker
    from bpe_desktop.gui.plots.stats_protocol import Begin, Control, CountsBlob

    ours, theirs = mp.Pipe(duplex=True)
    model = BPEModel("chars", list(CHARS))
    blob = CountsBlob(1, pickle.dumps({"ab": 2}))
    for msg in (Begin(1, model, 1), blob, Control.DROP, blob):
        ours.send(msg)
    assert stats_worker._read(theirs, None, 0.0) is None  # (the part after DROP belonged to no generation)
    for msg in (Begin(2, model, 2), blob, CountsBlob(2, pickle.dumps({"cd": 1}))):
        ours.send(msg)
    gen = stats_worker._read(theirs, None, 0.0)
    assert gen is not None and gen.generation == 2 and gen.parts == [{"cd": 1}] and gen.pieces == 1


def test_the_process_s_module_loads_no_qt() -> None:
    """What the spawn child imports (its module and every package above it) loads neither Qt nor pyqtgraph, so
    the window's GIL and memory are not shared with a second Qt (the import contract sees modules, not the
    packages' own ``__init__``)."""
    code = ("import sys, bpe_desktop.gui.plots.stats_worker\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout
    assert out.strip() == "[]"


def test_a_note_too_long_for_a_narrow_card_is_shortened_never_dropped(qtbot, trained) -> None:
    """A bare "Pair frequencies" over an empty chart reads as a corpus without pairs: narrowing the card drops the
    note's percentage first, then elides what is left."""
    s = session_of(trained)
    panel = panel_for(qtbot, s)
    panel._timer.stop()
    note = feed_mod.building_note(2_907_721, 1_000_000)
    short = "counting pairs in 2,907,721 pieces…"
    shown: list[str] = []
    for width in range(900, 150, -20):
        panel.resize(width, 400)
        qtbot.wait(5)
        panel.zipf.set_data(None, note=note)
        title = panel.zipf.plot.titleLabel.text
        if not shown or shown[-1] != title:
            shown.append(title)
    assert shown[:2] == [note, short] and len(shown) > 2, shown  # (each width saw one of them)
    assert all(t.startswith("counting pai") and t.endswith("…") for t in shown[2:]), shown  # elided


def stats_children() -> list[int]:
    import multiprocessing

    return [p.pid for p in multiprocessing.active_children() if p.name == "bpe-desktop-stats" and p.pid]


def test_a_closed_pane_ends_its_process_and_never_starts_another(qtbot, trained, in_process) -> None:
    s = session_of(trained)
    panel = panel_for(qtbot, s)
    feed = panel.feed
    qtbot.waitUntil(lambda: feed.remote is not None and feed.remote.pid is not None, timeout=20_000)
    pid = feed.remote.pid
    panel.close()  # (what pytest-qt does to a test's widget, and a pane on its own when closed)
    wait_exit(qtbot, pid)
    for _ in range(5):  # a timer of the pane's that fires once more starts nothing
        feed.advance(0.01)
        qtbot.wait(20)
    assert feed.remote is None and pid not in stats_children()


def _compare_with_a_process(qtbot, window, text):
    from bpe_desktop.gui.runs.install import open_compare
    from support.window import click_train, wait_finished

    window.corpus.set_text(text, name="topics")
    window.settings.merges.setValue(40)
    click_train(qtbot, window)
    wait_finished(qtbot, window)
    dlg = open_compare(window, window.runs.store)
    qtbot.waitUntil(lambda: any(f.remote is not None and f.remote.pid for f in dlg._feeds.values()), timeout=30_000)
    return dlg, [f.remote.pid for f in dlg._feeds.values() if f.remote is not None and f.remote.pid]


@pytest.mark.parametrize("closed", ["the dialog", "the window"])
def test_closing_compare_runs_or_its_window_ends_its_runs_processes(qtbot, window, topics_text, in_process,
                                                                    closed) -> None:
    dlg, pids = _compare_with_a_process(qtbot, window, topics_text[:20_000])
    (dlg if closed == "the dialog" else window).close()
    for pid in pids:
        wait_exit(qtbot, pid)
    assert not set(pids) & set(stats_children())


class _Served:
    """The statistics process's loop (``stats_worker._serve``) run on a thread of this process over a pipe, so a
    test can see which path it took; ``answer(step)`` reads up to the view answered for *step*."""

    def __init__(self) -> None:
        import multiprocessing as mp
        import threading

        from bpe_desktop.gui.plots import stats_worker

        self.ours, theirs = mp.Pipe(duplex=True)
        self.thread = threading.Thread(target=stats_worker.run, args=(theirs,), daemon=True)
        self.thread.start()
        self.seen: list[object] = []

    def send(self, *msgs: object) -> None:
        for msg in msgs:
            self.ours.send(msg)

    def answer(self, step: int, generation: int = 1):
        """The view answered for *step* (every message read is kept in :attr:`seen`)."""
        from bpe_desktop.gui.plots.stats_protocol import StatsFailed, ZipfShown

        while self.ours.poll(30):
            msg = self.ours.recv()
            self.seen.append(msg)
            assert not isinstance(msg, StatsFailed), msg
            if isinstance(msg, ZipfShown) and msg.view.step == step and msg.generation == generation:
                return msg.view
        raise AssertionError(f"no answer for step {step}")

    def close(self) -> None:
        from bpe_desktop.gui.plots.stats_protocol import Control

        self.ours.send(Control.STOP)
        self.thread.join(20)
        assert not self.thread.is_alive()


def kernel_path_taken(monkeypatch) -> list[bool]:
    """Whether each generation the process's loop (on a thread here) built took the kernel's path, in order."""
    from bpe_desktop.core.measure.stats import replayed
    from bpe_desktop.gui.plots import stats_worker

    taken: list[bool] = []

    class Spy(replayed.ReplayedCounts):
        def building(self):
            covered = yield from super().building()
            taken.append(covered)
            return covered

    monkeypatch.setattr(stats_worker, "ReplayedCounts", Spy)
    return taken


def test_the_process_replays_the_kernel_and_answers_the_history_s_numbers(trained, monkeypatch) -> None:
    """In the process's own loop: the kernel path is the one taken (bytes, GPT-2, hf), a step asked beyond the
    merges received is answered once they come, and every step (0, the last, backwards) is the oracle's."""
    from bpe_desktop.gui.plots.stats_protocol import Applied, AskZipf, Begin, CountsBlob

    _text, wc, t, _recs = trained
    taken = kernel_path_taken(monkeypatch)
    oracle = SegmentationHistory(wc, t.model)
    parts = PartedCounts.cut(wc.counts, 97).parts
    served = _Served()
    try:
        served.send(Begin(1, t.model.truncated(0), len(parts)), *(CountsBlob(1, pickle.dumps(p)) for p in parts))
        served.send(Merges(1, 0, tuple(t.model.merges[:40])), AskZipf(1, 90, t.model.merges[90]))  # (beyond 40)
        while not any(isinstance(m, Applied) and m.n_merges == 40 for m in served.seen):
            assert served.ours.poll(30)
            served.seen.append(served.ours.recv())
        assert not served.ours.poll(0.3)  # (90 not answered: the process has 40 merges)
        served.send(Merges(1, 40, tuple(t.model.merges[40:])))
        assert served.answer(90) == drawn(oracle, 90, t.model)
        for k in (MERGES, 0, 37, MERGES, 1, 99):
            served.send(AskZipf(1, k, t.model.merges[k] if k < MERGES else None))
            assert served.answer(k) == drawn(oracle, k, t.model), k
        served.send(AskZipf(1, 37, (10**6, 1)))  # (a pair that does not occur: no rank, the same numbers)
        assert served.answer(37) == oracle.zipf(37).view((10**6, 1)) and served.seen[-1].view.next_rank is None
        assert taken == [True]  # (the kernel's counts, not the pure history)
        last = [m for m in served.seen if isinstance(m, Applied)][-1]
        assert (last.n_merges, last.n_words, last.n_bytes) == (MERGES, oracle.n_words, oracle.n_bytes)
    finally:
        served.close()


def test_a_first_seen_run_keeps_the_pure_history_in_the_process(trained_on, topics_text, monkeypatch) -> None:
    from bpe_desktop.gui.plots.stats_protocol import AskZipf, Begin, CountsBlob

    _text, wc, t, _ = trained_on(topics_text[:20_000], TrainConfig(tie_break="first-seen", merges=30))
    taken = kernel_path_taken(monkeypatch)
    served = _Served()
    try:
        served.send(Begin(1, t.model.truncated(0), 1), CountsBlob(1, pickle.dumps(dict(wc.counts))),
                    Merges(1, 0, tuple(t.model.merges)), AskZipf(1, 30, t.model.merges[3]))
        assert served.answer(30) == SegmentationHistory(wc, t.model).zipf(30).view(t.model.merges[3])
        assert taken == [False]
    finally:
        served.close()


def test_another_run_s_merge_list_is_a_new_generation_and_nothing_of_the_old_is_shown(qtbot, trained,
                                                                                      trained_on) -> None:
    _text, wc, t, _ = trained
    _t2, wc2, t2, _ = trained_on(_text[:40_000], TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="lexical",
                                                           merges=MERGES))
    r = RemoteHistory()
    try:
        answer_left_unread(qtbot, r, wc, t.model)
        r.begin(PartedCounts.cut(wc2.counts, 50), t2.model)  # another run: its corpus and merge list
        r.follow(t2.model.merges)
        r.ask(MERGES)
        until(qtbot, r, lambda: MERGES in r.answers)
        assert r.answers == {MERGES: SegmentationHistory(wc2, t2.model).zipf(MERGES).view()}
        r.ask(3, t2.model.merges[3])
        until(qtbot, r, lambda: 3 in r.answers)
        assert r.answers[3] == drawn(SegmentationHistory(wc2, t2.model), 3, t2.model) and not r.failure
    finally:
        r.close()


def test_merges_that_do_not_fit_the_counts_are_refused_with_the_replay_s_reason(qtbot, trained, trained_on) -> None:
    _text, wc, t, _ = trained
    _t2, _wc2, t2, _ = trained_on("zzzz qqqq " * 50, TrainConfig(mode="bytes", pretokenizer="gpt2", tie_break="hf",
                                                                  merges=3))
    failure = refused(qtbot, wc.counts, t.model,  # (a hostile window: another corpus's merges for this one)
                      lambda r: r.follow(t2.model.merges))
    assert failure.startswith("merge 1 (") and "does not occur in this corpus" in failure


def test_killed_while_following_the_merges_it_says_so_and_answers_nothing(qtbot, trained) -> None:
    _text, wc, t, _ = trained
    r = RemoteHistory()
    try:
        r.begin(PartedCounts.cut(wc.counts, 50), t.model)
        until(qtbot, r, lambda: r.n_merges == 0)  # built, no merge yet
        r.follow(t.model.merges)
        r.ask(MERGES)  # (a replay of every merge, then the answer)
        os.kill(r.pid, signal.SIGKILL)
        until(qtbot, r, lambda: "signal" in r.failure)
        assert r.failure == "the statistics process ended (killed by signal 9)"
        if MERGES in r.answers:  # (answered before the signal landed: then exactly)
            assert r.answers[MERGES] == SegmentationHistory(wc, t.model).zipf(MERGES).view()
        r.ask(1)
        assert r.poll(0.05) is False and 1 not in r.answers
    finally:
        r.close()


