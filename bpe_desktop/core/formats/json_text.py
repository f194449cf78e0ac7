"""JSON text that keeps every Python string exactly, file names that are not UTF-8 included.

On Linux a file name is bytes; Python gives a name that is not valid UTF-8 as a ``str`` holding lone
surrogates (``os.fsdecode``'s ``surrogateescape``: byte 0xFF becomes U+DCFF), which no UTF-8 file can
hold.  :func:`dumps` writes each surrogate as a JSON ``\\uXXXX`` escape, so the text is plain UTF-8 and
:func:`json.loads` gives back the very same string (and ``os.fsencode`` the very same bytes).  Everything
else is written as :func:`json.dumps` with ``ensure_ascii=False`` writes it.

>>> import json, os
>>> name = os.fsdecode(b"caf\\xe9.txt")
>>> text = dumps({"path": name})
>>> text.encode("utf-8") == text.encode("ascii")
True
>>> os.fsencode(json.loads(text)["path"])
b'caf\\xe9.txt'

It does not read JSON (:func:`json.loads` does) nor decide what is stored.
"""

from __future__ import annotations

import json
import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps(value: Any, **kwargs: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, **kwargs)`` with every surrogate escaped (see the module)."""
    text = json.dumps(value, ensure_ascii=False, **kwargs)
    try:
        text.encode("utf-8")  # the common case, and several times quicker than the search below
        return text
    except UnicodeEncodeError:
        return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)  # only inside strings: JSON allows it
