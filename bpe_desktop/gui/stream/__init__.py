"""The token-stream view: the corpus cut into tokens at the current step, with each merge animated.

Qt-free parts (row source, layout maths, animation timing) sit beside the widgets that draw them."""
