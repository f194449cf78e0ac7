"""CSV text for any table of numbers and strings: the one CSV writer the statistics, the per-merge report
and the plots' exports share.  It leaves out which columns a table has (its caller) and writing files
(:mod:`.atomic`)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence


def csv_text(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """CSV text (``\\n`` line ends, quoted where needed; floats with 6 significant digits).

    >>> csv_text(("a", "b"), [(1, 0.5), ("x,y", 2.0)])
    'a,b\\n1,0.5\\n"x,y",2\\n'
    """
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for row in rows:
        w.writerow([f"{v:.6g}" if isinstance(v, float) else v for v in row])
    return buf.getvalue()
