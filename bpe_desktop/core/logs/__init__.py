"""Robot logs: the sample generator, the span classifier, line-aligned chunks, token boundaries and the
log inspector's reports (one log under several tokenizers, variants trained on it).

No GUI: the window's Log inspector and the ``inspect`` command are views over this.
"""
