"""The vocabulary pane: every token at the timeline's step with its origin, use and flags (issue 13)."""
