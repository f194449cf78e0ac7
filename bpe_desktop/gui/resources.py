"""Where the bundled files live (sample corpora, icon, stylesheet) and small helpers to read them.

It only locates and reads package data; it does not decide what to do with it (see :mod:`.presets`).
"""

from __future__ import annotations

from pathlib import Path


def _find_resources() -> Path:
    """The top-level ``resources/`` folder: beside the package in a checkout or editable install, or
    installed as the ``bpe_desktop.resources`` package data by a wheel (see ``package-dir`` in pyproject)."""
    checkout = Path(__file__).resolve().parents[2] / "resources"
    if checkout.is_dir():
        return checkout
    return Path(__file__).resolve().parents[1] / "resources"


RESOURCES = _find_resources()

SEED_TABLE = RESOURCES / "samples" / "seed_000.txt"  # low 5, lower 2, newest 6, widest 3
ROBOT_LOGS = RESOURCES / "samples" / "robotlogs_sample.txt"  # ~200 KB cut from the shared robot-log corpus
ICON = RESOURCES / "icons" / "bpe-desktop.svg"
STYLESHEET = RESOURCES / "styles" / "style.qss"


def read_text(path: Path) -> str:
    """The text of a bundled file (UTF-8)."""
    return path.read_text(encoding="utf-8")


def python_docs_text() -> str:
    """Python's own documentation text (``pydoc_data.topics``), present wherever Python is."""
    import pydoc_data.topics as topics

    return "\n\n".join(topics.topics.values())


#: standard-library modules whose source makes the "Python source" sample (~300 KB of ordinary Python)
PYTHON_SOURCE_MODULES = ("argparse", "textwrap", "json.decoder", "json.encoder", "dataclasses", "enum",
                         "difflib", "string", "shlex", "fractions")


def python_source_text() -> str:
    """The source of a few standard-library modules, where Python keeps its ``.py`` files (a frozen bundle
    may not: then the modules that have none are left out, and the sources of this package are used)."""
    import importlib.util
    from pathlib import Path as _P

    parts = []
    for name in PYTHON_SOURCE_MODULES:
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None else None
        if origin and origin.endswith(".py") and _P(origin).is_file():
            parts.append(_P(origin).read_text(encoding="utf-8"))
    if not parts:
        parts = [p.read_text(encoding="utf-8") for p in sorted(_P(__file__).parent.glob("*.py"))]
    return "\n\n".join(parts)
