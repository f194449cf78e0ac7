"""The window's panes: corpus editor, settings, merge list, timeline, why-this-merge, status bar.

Each pane observes the :class:`~bpe_desktop.gui.session.Session` and talks to no other pane.  The token
stream, plots and compare panes have packages of their own."""
