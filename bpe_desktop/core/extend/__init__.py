"""Extending a production tokenizer: learn merges on a corpus on top of a loaded one, keep its ids, write it in
its own format (:mod:`.extension`).  The learning itself is :mod:`bpe_desktop.core.training.extend`."""

from .extension import (
    EXTENDABLE,
    Extension,
    ExtensionRun,
    corpus_pieces,
    count_files,
    prepare,
    rewrites_again,
    start,
)

__all__ = ["EXTENDABLE", "Extension", "ExtensionRun", "corpus_pieces", "count_files", "prepare", "rewrites_again",
           "start"]
