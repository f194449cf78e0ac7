"""How tokens are written in the panes: the same visible glyphs as the token view, in both modes.

Records carry tokens as text (bytes-mode tokens through GPT-2's byte-to-character mapping, ``Ġthe``).  The
panes show them decoded instead (``·the``; bytes that are not whole UTF-8 characters as ``⟨e2 80⟩``), with
the glyphs of :mod:`bpe_desktop.core.views.labels`.  Display only: nothing here changes a model.
"""

from __future__ import annotations

from dataclasses import replace

from ...core.choices import Mode
from ...core.records import MergeRecord
from ...core.text.byte_level import text_to_bytes
from ...core.views.labels import bytes_label, visible_text


def token_label(text: str, mode: Mode) -> str:
    """Visible form of a record's token text.

    >>> token_label("Ġthe", "bytes"), token_label("est</w>", "chars")
    ('·the', 'est</w>')
    """
    if mode == Mode.BYTES:
        try:
            return bytes_label(text_to_bytes(text))
        except (KeyError, ValueError):
            return visible_text(text)
    return visible_text(text)


def token_plain(text: str, mode: Mode) -> str:
    """The token as the characters it stands for (for searching): ``Ġthe`` -> ``" the"``."""
    if mode == Mode.BYTES:
        try:
            return text_to_bytes(text).decode("utf-8", "replace")
        except (KeyError, ValueError):
            return text
    return text


def display_record(rec: MergeRecord, mode: Mode) -> MergeRecord:
    """A copy of *rec* whose texts are display labels (for :func:`~bpe_desktop.core.records.explain`)."""
    return replace(
        rec, left=token_label(rec.left, mode), right=token_label(rec.right, mode),
        token=token_label(rec.token, mode),
        contenders=tuple((token_label(a, mode), token_label(b, mode), c) for a, b, c in rec.contenders),
    )
