"""The model (settings, base symbols, merges as id pairs) and the tokenizers built from it: a trained
model at any step, rank files (tiktoken), renumbered vocabularies, and the :class:`AnyTokenizer` protocol
they all satisfy.

No training and no file formats here (those are :mod:`..training` and :mod:`..formats`).
"""
