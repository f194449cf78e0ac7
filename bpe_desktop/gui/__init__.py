"""bpe_desktop.gui: the Qt (PySide6) views over :mod:`bpe_desktop.core`. Each pane is its own widget."""
