"""CSV text for any table of numbers and strings: the one CSV writer the statistics, the per-merge report
and the plots' exports share.  It leaves out which columns a table has (its caller) and writing files
(:mod:`.atomic`)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Sequence


def csv_text(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """CSV text (``\\n`` line ends, quoted where needed; floats with 6 significant digits).

    >>> csv_text(("a", "b"), [(1, 0.5), ("x,y", 2.0)])
    'a,b\\n1,0.5\\n"x,y",2\\n'
    """
    return "".join(csv_chunks(header, rows))


def csv_chunks(header: Sequence[str], rows: Iterable[Sequence[object]], every: int = 1 << 62) -> Iterator[str]:
    """:func:`csv_text` in pieces of *every* rows (the header with the first), for a table too long to hold
    as one text: ``"".join(csv_chunks(h, rows, n)) == csv_text(h, rows)`` for every *n*.

    >>> list(csv_chunks(("a",), [(1,), (2,), (3,)], 2))
    ['a\\n1\\n2\\n', '3\\n']
    """
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    n = 0
    for n, row in enumerate(rows, 1):
        w.writerow([f"{v:.6g}" if isinstance(v, float) else v for v in row])
        if n % every == 0:
            yield buf.getvalue()
            buf.seek(0)
            buf.truncate()
    if buf.tell():  # (the rows after the last full piece, or the header of a table without rows)
        yield buf.getvalue()
