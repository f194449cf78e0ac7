"""The Log inspector pane: where a log's tokens go under several tokenizers, where they differ, and which
pre-tokenizer to train instead (issue 12's window half; the numbers come from ``core.logs.log_inspect``)."""
