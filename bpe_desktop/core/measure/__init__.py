"""Judging a tokenizer: pair-frequency and compression statistics (:mod:`.stats`), quality metrics and
their curves, token counts, held-out text, reachability, the vocabulary audit and the diff of two runs.

It trains nothing and reads no tokenizer file.
"""
