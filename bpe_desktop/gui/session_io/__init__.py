"""Sessions in the window: save and open whole sessions, autosave and crash recovery, File → Recent.

* :mod:`.document` -- what a session holds, captured from a window and applied to one (through
  :mod:`bpe_desktop.core.formats.session_file`), plus the hook other parts use to add their own fields.
* :mod:`.dialogs` -- the questions asked (corpus changed or gone, unsaved work, restore after a crash).
* :mod:`.recent` -- File → Recent (corpora, sessions, tokenizers) in ``QSettings``.
* :mod:`.autosave` -- autosave to the user's data folder and the crash check at start.
* :mod:`.autosave_files` -- (Qt-free) which autosave belongs to a live window, orphans, stale temporaries,
  and when an autosave may be deleted (only once its content is safe elsewhere).
* :mod:`.manager` -- :class:`SessionManager`, one per window: the File-menu actions, the modified marker,
  the ask-before-losing prompt.
"""

from .manager import SessionManager

__all__ = ["SessionManager"]
