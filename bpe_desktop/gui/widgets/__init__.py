"""Small helpers the panes share: token labels, the bounded (LRU) cache, the GC policy, the theme, one-line
labels that elide, whether a pane is on screen, the single-shot timer of throttled panes (``timers``) and the
trash that frees what a reset lets go of in later turns (``trash``).

No pane lives here (see :mod:`..panes`); plot colours are in :mod:`..plots.common`."""
