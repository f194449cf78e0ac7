"""Byte counts as people read them: the one unit rule every size the program prints follows.

SI units (1 KB = 1,000 bytes, 1 MB = 1,000,000 bytes, as file managers and ``ls --si`` show them) and three
significant digits, rounded to nearest: 1,450,000 bytes is "1.45 MB", never "1.3 MB" or "1.4 MB".  It leaves
out binary units (MiB) and speeds.
"""

from __future__ import annotations

_UNITS = ("KB", "MB", "GB", "TB", "PB")


def format_bytes(n: int | float) -> str:
    """*n* bytes in the largest SI unit that keeps the figure at 1 or more, to three significant digits.

    >>> [format_bytes(n) for n in (0, 1, 999, 1000, 1_450_000, 886_340, 999_999, 12_345_678_901)]
    ['0 bytes', '1 byte', '999 bytes', '1.00 KB', '1.45 MB', '886 KB', '1.00 MB', '12.3 GB']
    """
    if n < 0:
        raise ValueError(f"a size cannot be negative: {n}")
    if n < 1000:
        n = round(n)
        return "1 byte" if n == 1 else f"{n} bytes"
    v = float(n)
    unit = ""
    for unit in _UNITS:
        v /= 1000
        text = _three_digits(v)
        if float(text) < 1000 or unit == _UNITS[-1]:
            return f"{text} {unit}"
    raise AssertionError("unreachable")  # pragma: no cover


def _three_digits(v: float) -> str:
    return f"{v:.2f}" if round(v, 2) < 10 else f"{v:.1f}" if round(v, 1) < 100 else f"{v:.0f}"
