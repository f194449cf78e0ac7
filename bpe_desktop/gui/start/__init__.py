"""The ways into the program: the start screen and presets that bring their sample corpus."""
