"""The plots pane as the plots tests show it, and a trained session over counts held as a big corpus's."""

from __future__ import annotations

from bpe_desktop.core.counting.parted import PartedCounts
from bpe_desktop.core.counting.pieces import WordCounts
from bpe_desktop.gui.plots.panel import PlotsPanel
from bpe_desktop.gui.plots.remote_history import RemoteHistory
from bpe_desktop.gui.session import Session


def panel_for(qtbot, session: Session) -> PlotsPanel:
    """A plots pane over *session*, 900x600, shown (so it draws)."""
    p = PlotsPanel(session)
    qtbot.addWidget(p)
    p.resize(900, 600)
    p.show()
    return p


def session_of(trained, counts=None) -> Session:
    """A session with *trained*'s run (word counts *counts*, default its own), at its last step."""
    _text, wc, t, recs = trained
    s = Session()
    s.set_config(trained.config)
    s.set_counted(counts if counts is not None else wc, t.initial_symbols, None)
    s.reset_model(t.model.truncated(0))
    s.append_records(recs)
    s.set_step(s.n_steps)
    return s


def until(qtbot, r: RemoteHistory, condition) -> None:
    """Read *r*'s answers until *condition* holds."""
    qtbot.waitUntil(lambda: (r.poll(0.01) and False) or condition(), timeout=30_000)


def WordCountsParted(wc: WordCounts) -> WordCounts:
    """The word counts as the window holds a big corpus's: in parts."""
    return WordCounts(PartedCounts.cut(wc.counts, 97), wc.bytes_read)
