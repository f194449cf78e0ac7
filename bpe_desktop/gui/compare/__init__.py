"""The compare pane: one text under several tokenizers (this run at its step, cl100k, files), side by side."""
