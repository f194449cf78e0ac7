"""The installable program: ``--help``/``--version``, the console script, the desktop files, ``install.sh``,
the PyInstaller spec's plugin list, and the built bundle (when ``dist/bpe-desktop/`` exists)."""

from __future__ import annotations

import ast
import json
import os
import shutil
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from bpe_desktop import __version__
from bpe_desktop.cli import build_parser, subcommand_summaries
from bpe_desktop.core.formats import load_tokenizer
from support import ROOT

PKG = ROOT / "packaging"
BUNDLE_EXE = ROOT / "dist" / "bpe-desktop" / "bpe-desktop"
SEED_MERGES = [["e", "s"], ["es", "t"], ["est", "</w>"], ["l", "o"], ["lo", "w"], ["e", "w"], ["ew", "est</w>"]]


def _main(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([sys.executable, "-m", "bpe_desktop", *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=120)


def test_help_lists_the_window_options_and_every_registered_subcommand() -> None:
    r = _main("--help")
    assert r.returncode == 0, r.stderr
    for option in ("--corpus", "--preset", "--merges", "--screenshot", "--selftest", "--version"):
        assert option in r.stdout
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert sorted(n for n, _ in subcommand_summaries()) == sorted(sub.choices)  # every parser, none forgotten
    for name, text in subcommand_summaries():
        assert text, f"sub-command {name} has no help line"
        assert any(ln.split() == [name, *text.split()] for ln in r.stdout.splitlines()), (name, r.stdout)


def test_help_does_not_open_a_window_or_import_qt() -> None:
    code = ("import sys; from bpe_desktop.__main__ import main; main(['--help']); "
            "print('QT', any(m.startswith('PySide6') for m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.stdout.splitlines()[-1] == "QT False"


def test_version() -> None:
    r = _main("--version")
    assert (r.returncode, r.stdout.strip()) == (0, f"bpe-desktop {__version__}")


def _loaded_after(argv: list[str]) -> str:
    """The last line a fresh interpreter prints after ``main(argv)``: our CLI modules and numpy, if loaded."""
    code = (f"import sys\nfrom bpe_desktop.__main__ import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n"
            "    pass\nprint('LOADED', sorted(m for m in sys.modules\n"
            "                         if m.startswith('bpe_desktop.cli.') or m == 'numpy'))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    return r.stdout.splitlines()[-1] if r.stdout else r.stderr


def test_version_imports_no_sub_command() -> None:
    """``--version`` prints before any sub-command is parsed, so none is imported (numpy alone is 20 MiB)."""
    assert _loaded_after(["--version"]) == "LOADED []"


def test_help_imports_the_sub_commands_but_not_numpy() -> None:
    """``--help`` lists every sub-command, so each module is imported; none of them imports numpy for that
    (the inspect command's engine is imported when it runs)."""
    loaded = _loaded_after(["--help"])
    assert "'numpy'" not in loaded and "'bpe_desktop.cli.inspect'" in loaded, loaded


def test_cli_console_script_sits_beside_the_gui_entry_point() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["gui-scripts"]["bpe-desktop"] == "bpe_desktop.__main__:main"
    module, func = project["scripts"]["bpe-desktop-cli"].split(":")
    main = getattr(__import__(module, fromlist=[func]), func)
    with pytest.raises(SystemExit) as e:
        main(["--version"])  # argparse's version action exits 0
    assert e.value.code == 0


def test_desktop_entry_validates() -> None:
    exe = shutil.which("desktop-file-validate")
    if exe is None:
        pytest.skip("desktop-file-validate not installed (Debian: desktop-file-utils)")
    r = subprocess.run([exe, str(PKG / "bpe-desktop.desktop")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "error" not in r.stdout, r.stdout + r.stderr


def test_appstream_metainfo_validates() -> None:
    exe = shutil.which("appstreamcli")
    if exe is None:
        pytest.skip("appstreamcli not installed (Debian: appstream)")
    r = subprocess.run([exe, "validate", "--no-net", str(PKG / "io.github.bpe_desktop.metainfo.xml")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr


def test_install_user_and_uninstall_in_a_fresh_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    exe = tmp_path / "my apps" / "bpe desktop"
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    r = subprocess.run([str(PKG / "install.sh"), "--user", "--exec", str(exe)], capture_output=True, text=True,
                       env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    data = home / ".local" / "share"
    desktop = (data / "applications" / "bpe-desktop.desktop").read_text()
    assert f'Exec="{exe}"' in desktop.splitlines()
    assert f"TryExec={exe}" in desktop.splitlines()
    assert (data / "icons/hicolor/scalable/apps/bpe-desktop.svg").read_bytes() == \
        (ROOT / "resources/icons/bpe-desktop.svg").read_bytes()
    assert (data / "metainfo/io.github.bpe_desktop.metainfo.xml").is_file()
    if shutil.which("desktop-file-validate"):
        v = subprocess.run(["desktop-file-validate", str(data / "applications/bpe-desktop.desktop")],
                           capture_output=True, text=True, timeout=60)
        assert v.returncode == 0, v.stdout
    r = subprocess.run([str(PKG / "install.sh"), "--user", "--uninstall"], capture_output=True, text=True,
                       env=env, timeout=60)
    assert r.returncode == 0
    left = [p for p in data.rglob("*") if p.is_file() and "bpe" in p.name]
    assert left == []


def test_install_refuses_without_user_or_executable(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    r = subprocess.run([str(PKG / "install.sh")], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 2 and "--user" in r.stderr
    r = subprocess.run([str(PKG / "install.sh"), "--user", "--exec", str(tmp_path / "nope")],
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 2 and "no bpe-desktop executable found" in r.stderr
    assert not (tmp_path / ".local").exists()


def test_spec_keeps_qt_plugins_that_exist_in_the_installed_pyside6() -> None:
    """A PySide6 bump that renames a plugin would silently drop it from the bundle: catch it here."""
    import PySide6

    tree = ast.parse((PKG / "bpe-desktop.spec").read_text())
    kept = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                and getattr(n.targets[0], "id", "") == "QT_PLUGINS_KEPT")
    plugins = Path(PySide6.__file__).parent / "Qt" / "plugins"
    assert {"platforms/libqxcb.so", "platforms/libqoffscreen.so", "iconengines/libqsvgicon.so"} <= kept
    assert [p for p in sorted(kept) if not (plugins / p).is_file()] == []


def test_bundle_runs_a_cli_command(tmp_path: Path) -> None:
    if not BUNDLE_EXE.is_file():
        pytest.skip("no bundle: build it with packaging/build.sh (dist/bpe-desktop/bpe-desktop)")
    out = tmp_path / "seed.json"
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}  # nothing of this Python
    r = subprocess.run([str(BUNDLE_EXE), "train", str(ROOT / "resources/samples/seed_000.txt"), "--word-counts",
                        "--merges", "7", "--out", str(out)], capture_output=True, text=True, env=env,
                       cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(out.read_text())["merges"] == SEED_MERGES  # the seed's table, read back as a file
    tok = load_tokenizer(str(out))
    assert [tok.token_str(i) for i in tok.encode("lowest")] == ["low", "est</w>"]
    v = subprocess.run([str(BUNDLE_EXE), "--version"], capture_output=True, text=True, env=env, timeout=60)
    assert v.stdout.strip() == f"bpe-desktop {__version__}"



def test_bundle_holds_every_sub_command(tmp_path: Path) -> None:
    """The CLI imports its sub-command modules by name, which a bundle's import analysis cannot see: each one
    must still be in the bundle (it was not, once: 'No module named bpe_desktop.cli.train')."""
    if not BUNDLE_EXE.is_file():
        pytest.skip("no bundle: build it with packaging/build.sh (dist/bpe-desktop/bpe-desktop)")
    from bpe_desktop.cli import SUBCOMMANDS

    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    failed = {}
    for name in SUBCOMMANDS:
        r = subprocess.run([str(BUNDLE_EXE), name, "--help"], capture_output=True, text=True, env=env,
                           cwd=tmp_path, timeout=120)
        if r.returncode != 0 or "usage: bpe-desktop" not in r.stdout:
            failed[name] = r.stderr[-300:]
    assert failed == {}
