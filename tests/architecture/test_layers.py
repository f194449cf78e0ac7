"""Architecture rules that must not erode: the core never imports Qt; every module says what it does."""

from __future__ import annotations

import ast
import pathlib
import shutil
import subprocess

from support import ROOT

PKG = ROOT / "bpe_desktop"
QT = ("PySide6", "PyQt5", "PyQt6", "pyqtgraph", "qtpy", "superqt", "shiboken6")


def _imports(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
    return names


def test_core_never_imports_qt_or_gui() -> None:
    offenders = {}
    for path in (PKG / "core").rglob("*.py"):
        bad = {n for n in _imports(path) if n.split(".")[0] in QT or ".gui" in n or n.startswith("bpe_desktop.gui")}
        if bad:
            offenders[str(path.relative_to(PKG))] = bad
    assert offenders == {}


def test_import_linter_contract_holds() -> None:
    exe = shutil.which("lint-imports")
    assert exe is not None, "import-linter is part of the test extra: pip install -e '.[test]'"
    r = subprocess.run([exe], capture_output=True, text=True, cwd=PKG.parent, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_every_module_has_a_docstring() -> None:
    missing = [
        str(p.relative_to(PKG)) for p in PKG.rglob("*.py") if ast.get_docstring(ast.parse(p.read_text())) is None
    ]
    assert missing == []


def test_every_folder_of_modules_is_a_package_that_setup_finds() -> None:
    from setuptools import find_packages

    folders = {".".join(p.relative_to(PKG.parent).parts[:-1]) for p in PKG.rglob("*.py")}
    found = set(find_packages(str(PKG.parent), include=["bpe_desktop", "bpe_desktop.*"]))
    assert folders - found == set()  # a folder without __init__.py would be left out of the wheel


def test_resources_ship_as_a_package() -> None:
    import tomllib

    conf = tomllib.loads((PKG.parent / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert (PKG.parent / conf["package-dir"]["bpe_desktop.resources"]).is_dir()
    assert '"bpe_desktop.resources"' in (PKG.parent / "setup.py").read_text()


def test_no_module_over_450_lines() -> None:
    long = {str(p.relative_to(PKG)): n for p in PKG.rglob("*.py") if (n := len(p.read_text().splitlines())) > 450}
    assert long == {}
