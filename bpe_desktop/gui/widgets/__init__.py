"""Small helpers the panes share: token labels, the bounded (LRU) cache, the GC policy.

No pane lives here (see :mod:`..panes`); plot colours are in :mod:`..plots.common`."""
