"""The plots pane: pair frequencies (Zipf), the compression curve and the vocabulary trade-off, fed a
slice at a time from :mod:`bpe_desktop.core.measure.stats`, which computes every number (nothing here does)."""
