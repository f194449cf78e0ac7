"""The compare pane: one text under several tokenizers (this run at its step, cl100k, files), side by side.

It leaves tokenizing to the core (any :class:`~bpe_desktop.core.tokenizers.any_tokenizer.AnyTokenizer`)."""
