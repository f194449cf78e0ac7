"""Small helpers the panes share: token labels, throttles, bounded caches, the GC policy, theme colours."""
