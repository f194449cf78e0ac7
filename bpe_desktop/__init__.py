"""bpe-desktop: watch byte-pair encoding learn a tokenizer from your own text, merge by merge."""

__version__ = "0.1.0"
