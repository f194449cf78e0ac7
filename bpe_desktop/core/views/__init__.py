"""What a token or a text looks like under a model: labels, segmentation into spans, how a token was
derived, and token search.

Presentation data only, without Qt: the GUI draws it.
"""
