"""Help menu: the tour of the seeds' worked example, the algorithm text, the keyboard shortcuts."""
