"""Counting a corpus into a word-count table: the piece counter (:mod:`.pieces`), reading a source into
counts (:mod:`.sources`), GPT-2 pieces counted words first, several processes (``--jobs``), the ``count``
command's tables and a Dask bag.

It stops at the table the trainer starts from: no merges here.
"""
