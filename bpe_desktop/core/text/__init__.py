"""Text before counting: reading inputs in line-aligned chunks, lines, special tokens, pre-tokenizer
patterns and their time budgets, GPT-2's byte-to-unicode table, and text made visible for display.

No counting, no merges: everything here is true of a text without a tokenizer.
"""
