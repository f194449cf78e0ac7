"""The inspector's exports as text, without Qt: per-line token counts and the per-category table as CSV.

* :func:`per_line_csv` -- ``line,<tokenizer>,...`` (the CLI's ``inspect --per-line`` columns);
* :func:`category_csv` -- one row per category: the text's bytes, then per tokenizer its tokens and share,
  then the tokenizers that need fewest tokens (``;``-joined), and a ``total`` row;
* :func:`write_text` -- an atomic write (:func:`bpe_desktop.core.io.atomic.atomic_write`).

The PNG of the view is the pane's own (``QWidget.grab``).  Nothing here draws.
"""

from __future__ import annotations

from ...core.io.atomic import atomic_write
from ...core.io.csv_table import csv_text
from ...core.logs.log_inspect import Inspection
from ...core.logs.logclass import Category


def per_line_csv(result: Inspection) -> str:
    """Tokens of every line (1-based) under every tokenizer."""
    names = [r.name for r in result.reports]
    n = len(result.reports[0].per_line) if result.reports else 0
    cols = [r.per_line.tolist() for r in result.reports]
    return csv_text(("line", *names), ((k + 1, *(c[k] for c in cols)) for k in range(n)))


def category_header(result: Inspection) -> tuple[str, ...]:
    names = [r.name for r in result.reports]
    return ("category", "text_bytes", *(f"{n} tokens" for n in names), *(f"{n} share" for n in names), "fewest")


def category_csv(result: Inspection) -> str:
    """Tokens per category per tokenizer, shares in 0..1, and the verdict."""
    reps = result.reports
    verdicts = {v.category: v for v in result.verdicts}
    rows: list[tuple[object, ...]] = []
    for c in Category:
        rows.append((c.label, result.category_bytes[c], *(r.categories[c] for r in reps),
                     *(round(r.share(c), 6) for r in reps), ";".join(verdicts[c].best) if len(reps) > 1 else ""))
    low = min((r.tokens for r in reps), default=0)
    rows.append(("total", result.n_bytes, *(r.tokens for r in reps), *(1.0 for _ in reps),
                 ";".join(r.name for r in reps if r.tokens == low) if len(reps) > 1 else ""))
    return csv_text(category_header(result), rows)


def write_text(path: str, text: str) -> None:
    """Write *text* to *path* atomically (raises :class:`~bpe_desktop.core.errors.WriteError`)."""
    with atomic_write(path) as f:
        f.write(text)
