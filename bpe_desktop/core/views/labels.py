"""How tokens look on screen, without Qt: visible whitespace, bytes as text or hex, a label per token id,
and a stable colour hue per id.

* :func:`visible_text` makes whitespace visible without changing the width of the text (one glyph per
  character: ``·`` space, ``→`` tab, ``↵`` newline, ``␍`` carriage return, other control characters as
  ``␀``-style symbols); :func:`unvisible` undoes it;
* :func:`token_label` renders a token: chars-mode tokens as their text, bytes-mode tokens as UTF-8 when
  they hold whole characters and as hex (``⟨e2 80⟩``) for the bytes that do not; :func:`id_label` the
  same for any id of a model;
* :func:`token_hue` gives a stable colour (a hue in [0, 1)) per token id.

It leaves out cutting text into tokens (:mod:`.segmentation`) and drawing.
"""

from __future__ import annotations

from ..tokenizers.model import BPEModel, Token
from ..tokenizers.tokenizer import UNKNOWN_ID

_VISIBLE = {" ": "·", "\t": "→", "\n": "↵", "\r": "␍", "\x00": "␀", "\x7f": "␡", "\u00a0": "⍽"}
_VISIBLE_TABLE = str.maketrans(
    {**{chr(c): chr(0x2400 + c) for c in range(32)}, **_VISIBLE}
)
_UNVISIBLE_TABLE = {ord(v): k for k, v in _VISIBLE.items()}


def unvisible(text: str) -> str:
    """Undo :func:`visible_text` for the whitespace glyphs (what a user may type or paste back).

    >>> unvisible("a·b→c")
    'a b\\tc'
    """
    return text.translate(_UNVISIBLE_TABLE)


def visible_text(text: str) -> str:
    """Replace whitespace and control characters by one visible glyph each (same length).

    >>> visible_text("a b\\tc\\n")
    'a·b→c↵'
    """
    return text.translate(_VISIBLE_TABLE)


def bytes_label(data: bytes) -> str:
    """Show bytes as text where they are whole UTF-8 characters, as hex where they are not.

    >>> bytes_label(" é".encode())
    '·é'
    >>> bytes_label("é".encode()[:1])
    '⟨c3⟩'
    >>> bytes_label(b"a\\xe2\\x80")
    'a⟨e2 80⟩'
    """
    out: list[str] = []
    pos = 0
    n = len(data)
    while pos < n:
        try:
            out.append(visible_text(data[pos:].decode("utf-8")))
            break
        except UnicodeDecodeError as e:
            if e.start:
                out.append(visible_text(data[pos : pos + e.start].decode("utf-8")))
            bad_end = pos + max(e.end, e.start + 1)
            bad = data[pos + e.start : bad_end]
            # swallow following stray bytes into the same hex group
            while bad_end < n:
                try:
                    data[bad_end:].decode("utf-8")
                    break
                except UnicodeDecodeError as e2:
                    if e2.start != 0:
                        break
                    bad += data[bad_end : bad_end + max(e2.end, 1)]
                    bad_end += max(e2.end, 1)
            out.append("⟨" + " ".join(f"{b:02x}" for b in bad) + "⟩")
            pos = bad_end
    return "".join(out)


def token_label(token: Token) -> str:
    """The label of a token: visible text (chars mode) or :func:`bytes_label` (bytes mode).

    >>> token_label("est</w>"), token_label(b" the"), token_label(b"\\xe2\\x80")
    ('est</w>', '·the', '⟨e2 80⟩')
    """
    if isinstance(token, bytes):
        return bytes_label(token)
    return visible_text(token)


def id_label(model: BPEModel, token_id: int) -> str:
    """Label of any id of *model* (specials as written; ``<unk>`` for :data:`UNKNOWN_ID`)."""
    if token_id == UNKNOWN_ID:
        return "<unk>"
    tokens = model.tokens
    if 0 <= token_id < len(tokens):
        return token_label(tokens[token_id])
    return model.token_str(token_id)


_GOLDEN = 0.6180339887498949


def token_hue(token_id: int) -> float:
    """A stable hue in [0, 1) per token id; neighbouring ids get far-apart hues.

    >>> token_hue(0), round(token_hue(1), 3), token_hue(7) == token_hue(7)
    (0.0, 0.618, True)
    """
    return (token_id * _GOLDEN) % 1.0
