"""Training → Extend a tokenizer on this corpus…: the job a worker process runs (:mod:`.job`, Qt-free) and the
dialog that starts it and offers the before/after in the Log inspector (:mod:`.dialog`)."""
