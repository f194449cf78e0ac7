"""The plots pane as the plots tests show it."""

from __future__ import annotations

from bpe_desktop.gui.plots.panel import PlotsPanel
from bpe_desktop.gui.session import Session


def panel_for(qtbot, session: Session) -> PlotsPanel:
    """A plots pane over *session*, 900x600, shown (so it draws)."""
    p = PlotsPanel(session)
    qtbot.addWidget(p)
    p.resize(900, 600)
    p.show()
    return p
