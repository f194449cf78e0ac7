"""Small things of the window seen on the way: one size rule with the CLI, ..."""

from __future__ import annotations

from bpe_desktop.core.io.sizes import format_bytes


def test_the_window_uses_the_cli_size_rule() -> None:
    from bpe_desktop.gui.inspect import panel
    from bpe_desktop.gui.panes import corpus_editor

    for n in (0, 999, 1_450_000, 1_520_435, 3 * 2**30):
        assert corpus_editor._size(n) == panel._size(n) == format_bytes(n)
