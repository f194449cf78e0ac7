"""Safe file writes (atomic replace, groups of files, checks before writing) and CSV text.

The lowest layer of the core with the errors: it knows nothing of text, counting or tokenizers.
"""
