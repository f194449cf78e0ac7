"""bpe_desktop.gui: the Qt (PySide6) window over :mod:`bpe_desktop.core`; see ARCHITECTURE.md for its parts.

It leaves everything that is true without a window to the core, and never imports the CLI."""
