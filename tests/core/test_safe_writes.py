"""Issue 10, items 2 and 3: safe writes, through the CLI (subprocess) and the core API.

Symlinks are followed (the link stays), folders and missing folders are refused before training, a
device stays a device, a full disk / read-only file system / permission denied is exit 2 with one line
and leaves the old files -- for single files and for GPT-2's two-file format alike.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import random
import stat
import subprocess
import sys
import textwrap

import pytest

from bpe_desktop.core.errors import WriteError
from bpe_desktop.core.io import atomic
from bpe_desktop.core.io.atomic import atomic_write, check_writable, write_group
from support import ROOT as REPO

ROOT = str(REPO)
WORDS = "low 5\nlower 2\nnewest 6\nwidest 3\n"


def cli(*args: str, cwd: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": ROOT}
    return subprocess.run([sys.executable, "-m", "bpe_desktop", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=600)


def train(cwd, out: str, *extra: str) -> subprocess.CompletedProcess[str]:
    if not os.path.exists(os.path.join(cwd, "w.txt")):
        with open(os.path.join(cwd, "w.txt"), "w") as f:
            f.write(WORDS)
    return cli("train", "w.txt", "--word-counts", "--merges", "3", "--progress", "jsonl", "--out", out, *extra,
               cwd=str(cwd))


def listing(folder) -> dict[str, str]:
    return {n: hashlib.md5(open(os.path.join(folder, n), "rb").read()).hexdigest()
            for n in sorted(os.listdir(folder)) if os.path.isfile(os.path.join(folder, n))}


def test_symlink_target_is_replaced_and_the_link_kept(tmp_path) -> None:
    (tmp_path / "real.json").write_text("old")
    os.symlink("real.json", tmp_path / "link.json")
    r = train(tmp_path, "link.json")
    assert r.returncode == 0, r.stderr
    assert os.path.islink(tmp_path / "link.json") and os.readlink(tmp_path / "link.json") == "real.json"
    assert json.loads((tmp_path / "real.json").read_text())["format"] == "bpe-desktop"
    os.symlink("new.json", tmp_path / "dangling.json")  # a dangling link: its target is created
    assert train(tmp_path, "dangling.json").returncode == 0
    assert os.path.islink(tmp_path / "dangling.json") and (tmp_path / "new.json").is_file()


@pytest.mark.parametrize("out", ["folder", "missing/x.json", "file.txt/x.json"])
def test_bad_out_paths_are_refused_before_training(tmp_path, out: str) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "file.txt").write_text("x")
    r = train(tmp_path, out)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr  # one line, no training progress
    assert "Traceback" not in r.stderr and out.split("/")[0] in r.stderr
    assert ("is a folder" if out == "folder" else "folder") in r.stderr
    steps = train(tmp_path, "ok.json", "--steps", "folder")
    assert steps.returncode == 2 and "is a folder" in steps.stderr and not (tmp_path / "ok.json").exists()
    stats = cli("stats", "w.txt", "--word-counts", "--progress", "jsonl", "--zipf", out, cwd=str(tmp_path))
    assert stats.returncode == 2 and stats.stderr.count("\n") == 1


@pytest.mark.skipif(not os.path.exists("/dev/full") or os.geteuid() != 0, reason="needs /dev/full and root")
def test_dev_full_stays_a_device_and_fails_cleanly(tmp_path) -> None:
    r = train(tmp_path, "/dev/full")
    assert r.returncode == 2 and "/dev/full" in r.stderr and "disk is full" in r.stderr
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
    r = train(tmp_path, "/dev/null")
    assert r.returncode == 0 and stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_fifo_without_reader_is_refused_not_waited_on(tmp_path) -> None:
    os.mkfifo(tmp_path / "pipe")
    r = train(tmp_path, "pipe")
    assert r.returncode == 2 and "no reader" in r.stderr
    assert stat.S_ISFIFO(os.stat(tmp_path / "pipe").st_mode)


@pytest.fixture
def small_disk(tmp_path):
    """A 64 KB tmpfs (skipped where mounting is not allowed)."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)], capture_output=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.decode().strip()}")
    yield mnt
    subprocess.run(["umount", "-l", str(mnt)], check=False)


def _big_native(tmp_path) -> str:
    rng = random.Random(1)
    words = ["".join(rng.choice("abcdefghijklmnop") for _ in range(rng.randint(3, 9))) for _ in range(3000)]
    (tmp_path / "big.txt").write_text(" ".join(rng.choice(words) for _ in range(40000)))
    r = cli("train", "big.txt", "--mode", "bytes", "--merges", "4000", "--out", "big.json", cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    return str(tmp_path / "big.json")


def test_full_disk_single_and_multi_file_leave_old_files(tmp_path, small_disk) -> None:
    big = _big_native(tmp_path)
    (tmp_path / "w.txt").write_text(WORDS)
    small = cli("train", "w.txt", "--mode", "bytes", "--merges", "5", "--out", "small.json", cwd=str(tmp_path))
    assert small.returncode == 0, small.stderr
    for fmt, out in (("gpt2", "g"), ("native", "t.json")):
        r = cli("convert", "small.json", str(small_disk / out), "--to", fmt, cwd=str(tmp_path))
        assert r.returncode == 0, r.stderr
    before = {d: listing(small_disk / d) for d in ("g",)} | {"top": listing(small_disk)}
    r = cli("convert", big, str(small_disk / "g"), "--to", "gpt2", cwd=str(tmp_path))
    assert r.returncode == 2 and "disk is full" in r.stderr and "Traceback" not in r.stderr
    r = cli("convert", big, str(small_disk / "t.json"), "--to", "native", cwd=str(tmp_path))
    assert r.returncode == 2 and "disk is full" in r.stderr
    after = {d: listing(small_disk / d) for d in ("g",)} | {"top": listing(small_disk)}
    assert after == before  # both GPT-2 files still the old pair, no temporary left anywhere
    assert sorted(os.listdir(small_disk / "g")) == ["encoder.json", "vocab.bpe"]


def test_read_only_file_system(tmp_path, small_disk) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    r = train(tmp_path, str(small_disk / "x.json"))
    assert r.returncode == 2 and "read-only" in r.stderr and r.stderr.count("\n") == 1  # before training


def test_permission_denied_as_a_non_root_user(tmp_path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    (tmp_path / "w.txt").write_text(WORDS)
    os.chmod(tmp_path, 0o755)
    if os.geteuid() != 0:
        os.chmod(folder, 0o555)
        r = cli("train", "w.txt", "--word-counts", "--out", str(folder / "x.json"), cwd=str(tmp_path))
    else:  # drop to nobody after importing (the interpreter may live where nobody cannot read)
        os.chmod(folder, 0o755)
        code = textwrap.dedent(f"""
            import os, sys
            from bpe_desktop.cli import main
            import bpe_desktop.core.formats, bpe_desktop.core.training.trainer, encodings.idna
            import bpe_desktop.cli.train, bpe_desktop.core.counting.parallel_count
            import bpe_desktop.core.counting.count_table
            import locale  # argparse's gettext imports it on use (regex, which imported it first, now waits)
            os.setgroups([]); os.setgid(65534); os.setuid(65534)
            sys.exit(main(["train", {str(tmp_path / 'w.txt')!r}, "--word-counts", "--out",
                           {str(folder / 'x.json')!r}]))
        """)
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": ROOT}, cwd="/")
    assert r.returncode == 2 and "permission denied" in r.stderr, r.stderr
    assert os.listdir(folder) == []


def test_write_group_is_all_or_nothing_when_the_second_file_fails(tmp_path, monkeypatch) -> None:
    a, b = tmp_path / "encoder.json", tmp_path / "vocab.bpe"
    a.write_text("old a")
    b.write_text("old b")
    real_fsync, calls = os.fsync, []

    def fsync(fd: int) -> None:
        calls.append(fd)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(WriteError, match="disk is full"):
        write_group([(a, "new a"), (b, "new b")])
    assert (a.read_text(), b.read_text()) == ("old a", "old b")
    assert sorted(os.listdir(tmp_path)) == ["encoder.json", "vocab.bpe"]
    monkeypatch.setattr(os, "fsync", real_fsync)

    real_replace, renames = os.replace, []

    def replace(src, dst) -> None:  # the second rename fails: the first is undone
        renames.append(dst)
        if len(renames) == 2:
            raise OSError(errno.EIO, "Input/output error")
        real_replace(src, dst)

    monkeypatch.setattr(atomic.os, "replace", replace)
    with pytest.raises(WriteError, match=r"vocab\.bpe"):
        write_group([(a, "new a"), (b, "new b")])
    monkeypatch.setattr(atomic.os, "replace", real_replace)
    assert (a.read_text(), b.read_text()) == ("old a", "old b")
    assert sorted(os.listdir(tmp_path)) == ["encoder.json", "vocab.bpe"]
    write_group([(a, "new a"), (b, b"new b")])
    assert (a.read_text(), b.read_text()) == ("new a", "new b")


def test_atomic_write_turns_enospc_into_one_error_and_keeps_the_old_file(tmp_path) -> None:
    target = tmp_path / "t.txt"
    target.write_text("old")
    os.chmod(target, 0o640)
    with pytest.raises(WriteError, match=r"t\.txt: the disk is full"), atomic_write(target) as f:
        f.write("half")
        raise OSError(errno.ENOSPC, "No space left on device")
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["t.txt"]
    with atomic_write(target) as f:
        f.write("new")
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640  # a replaced file keeps its permissions


def test_check_writable(tmp_path) -> None:
    check_writable(tmp_path / "new.json")
    with pytest.raises(WriteError, match="is a folder"):
        check_writable(tmp_path)
    with pytest.raises(WriteError, match="does not exist"):
        check_writable(tmp_path / "no" / "x")
    (tmp_path / "f").write_text("x")
    with pytest.raises(WriteError, match="it is a file"):
        check_writable(tmp_path / "f", folder=True)
    check_writable(tmp_path / "newdir", folder=True)
    assert sorted(os.listdir(tmp_path)) == ["f"]  # probes leave nothing behind


def test_convert_to_gpt2_refuses_a_file_path_and_a_missing_parent(tmp_path) -> None:
    (tmp_path / "w.txt").write_text(WORDS)
    assert cli("train", "w.txt", "--mode", "bytes", "--merges", "5", "--out", "t.json",
               cwd=str(tmp_path)).returncode == 0
    (tmp_path / "plain").write_text("x")
    r = cli("convert", "t.json", "plain", "--to", "gpt2", cwd=str(tmp_path))
    assert r.returncode == 2 and "it is a file" in r.stderr
    r = cli("convert", "t.json", "no/such/dir", "--to", "vocab-merges", cwd=str(tmp_path))
    assert r.returncode == 2 and "does not exist" in r.stderr
