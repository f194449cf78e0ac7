"""Reading a big session document a piece at a time, so the helper thread that does it holds the interpreter
lock only briefly at a time (the window's GUI thread keeps running): :func:`json_in_pieces` parses the
document's long ``"text"`` strings (a typed corpus, in the document and again in its run) in pieces cut
where no escape or UTF-8 character runs across, never decoding the whole file, and parses strings with the
same bytes once; :func:`decode` is ``data.decode("utf-8-sig")`` in pieces, for a document not shaped so.
Both give exactly what decoding and ``json.loads`` of the whole give, or say they cannot (then the whole is
parsed, for its own result or error).  It leaves out validating the document (:mod:`.session_file`).
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable
from typing import Any

from ..io import reading


def decode(data: bytes | bytearray, step: Callable[[int, int], None] | None) -> str:
    """``data.decode("utf-8-sig")``, in pieces when there is a *step* (the error's offsets are the file's)."""
    if step is None or len(data) <= reading.PIECE_BYTES:
        return data.decode("utf-8-sig")
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    parts = []
    view = memoryview(data)
    for at in range(0, len(data), reading.PIECE_BYTES):
        try:
            parts.append(decoder.decode(view[at:at + reading.PIECE_BYTES], final=at + reading.PIECE_BYTES >= len(data)))
        except UnicodeDecodeError:
            data.decode("utf-8-sig")  # the same error, with the offset in the whole file
            raise
        step(min(at + reading.PIECE_BYTES, len(data)), len(data))
    return "".join(parts)


_TEXT_KEY = b'"text": "'  # how dumps_session writes the corpus text (json.dumps, indent)
_PLACEHOLDER = "\x00the corpus text, parsed in pieces\x00"
_MAX_BACKSLASHES = 64  # a longer run of backslashes before a quote: parsed whole (bounded work per quote)
#: a place a JSON string's bytes may be cut: six bytes with no backslash before it (no escape, not even
#: ``\uXXXX`` or half a surrogate pair, runs across it) and no UTF-8 continuation byte after it
_CUT = re.compile(rb"[^\\]{6}(?![\x80-\xbf])")


def json_in_pieces(data: bytes | bytearray, step: Callable[[int, int], None]) -> Any:
    """``json.loads`` of the document *data*, its long ``"text"`` strings (a typed corpus: the document's own
    and again in its run's) parsed in pieces of about :data:`reading.PIECE_BYTES` bytes, each decoded and parsed in
    short calls (a helper thread holds the interpreter lock briefly), with ``step(done, total)`` after each;
    the document is never decoded whole, and strings with the same bytes are parsed once (one ``str``).
    None for anything not shaped so -- no long text, bytes that are not UTF-8, a damaged document: the
    caller parses it whole, so results and errors are those of decoding and ``json.loads`` of the whole."""
    spans: list[tuple[int, int]] = []  # (opening quote, closing quote) of each long text
    at = 0
    while (key := data.find(_TEXT_KEY, at)) >= 0:
        start = key + len(_TEXT_KEY) - 1
        end = _closing_quote(data, start + 1)
        if end < 0:
            return None
        if end - start >= reading.PIECE_BYTES:
            spans.append((start, end))
        at = end + 1
    if not spans:
        return None
    try:
        texts: dict[str, str] = {}  # placeholder -> the text parsed
        skeleton, at, total, done = [], 0, sum(e - s for s, e in spans), 0
        for i, (start, end) in enumerate(spans):
            placeholder = f"{_PLACEHOLDER}{i}"
            same = next((j for j, (s2, e2) in enumerate(spans[:i]) if _same_bytes(data, s2, e2, start, end)), None)
            if same is None:
                def progress(n: int, before: int = done) -> None:
                    step(before + n, total)

                texts[placeholder] = _string_in_pieces(data, start, end, progress)
            else:
                texts[placeholder] = texts[f"{_PLACEHOLDER}{same}"]
            done += end - start
            skeleton += [data[at:start], json.dumps(placeholder).encode()]
            at = end + 1
        skeleton.append(data[at:])
        raw = json.loads(b"".join(skeleton).decode("utf-8-sig"))
        return raw if _put_back(raw, texts) == len(spans) else None  # (each where it stood, once)
    except (ValueError, RecursionError):  # (json.JSONDecodeError and UnicodeDecodeError are ValueErrors)
        return None


def _string_in_pieces(data: bytes | bytearray, start: int, end: int, step: Callable[[int], None]) -> str:
    """The JSON string between the quotes at *start* and *end*, decoded and parsed a piece at a time."""
    parts = []
    at = start + 1
    while at < end:
        cut = _CUT.search(data, at + reading.PIECE_BYTES - 6, end) if end - at > reading.PIECE_BYTES else None
        to = end if cut is None else cut.end()
        parts.append(json.loads('"' + data[at:to].decode("utf-8") + '"'))
        at = to
        step(at - start)
    return "".join(parts)


def _same_bytes(data: bytes | bytearray, a: int, a_end: int, b: int, b_end: int) -> bool:
    """Whether ``data[a:a_end] == data[b:b_end]``, compared a piece at a time without copying."""
    if a_end - a != b_end - b:
        return False
    view, piece = memoryview(data), reading.PIECE_BYTES
    try:
        return all(view[a + k:min(a + k + piece, a_end)] == view[b + k:min(b + k + piece, b_end)]
                   for k in range(0, a_end - a, piece))
    finally:
        view.release()


def _put_back(raw: Any, texts: dict[str, str]) -> int:
    """Put each placeholder's text where it stands in *raw* (values in objects and arrays); how many were."""
    n = 0
    stack = [raw]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for k, v in list(items):
            if isinstance(v, str):
                if v in texts:
                    node[k] = texts[v]
                    n += 1
            elif isinstance(v, (dict, list)):
                stack.append(v)
    return n


def _backslashes_before(data: bytes | bytearray, i: int) -> int:
    """How many backslashes stand right before ``data[i]`` (at most :data:`_MAX_BACKSLASHES` + 1)."""
    n = 0
    while n <= _MAX_BACKSLASHES and i - n > 0 and data[i - n - 1] == 0x5C:
        n += 1
    return n


def _closing_quote(data: bytes | bytearray, i: int) -> int:
    """The index of the quote that ends the JSON string whose bytes start at *i*, or -1 (looked for a piece
    at a time: one search over a long text would hold the interpreter lock throughout)."""
    while i < len(data):
        q = data.find(b'"', i, i + reading.PIECE_BYTES)
        if q < 0:
            i += reading.PIECE_BYTES
            continue
        n = _backslashes_before(data, q)
        if n > _MAX_BACKSLASHES:
            return -1
        if n % 2 == 0:
            return q
        i = q + 1
    return -1
