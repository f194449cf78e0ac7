"""Checks of a whole session document before any of it is used: nesting, types, ranges, paths, runs.

A session file is read in two passes: :func:`check_raw` walks the parsed JSON once and refuses anything
the window could not hold *exactly* -- nesting deeper than :data:`MAX_DEPTH`, a setting of the wrong type
or beyond what the window's boxes hold (:data:`LIMITS`; a value the window would clamp is refused, never
silently changed), a count beyond 64 bits, a path that is empty or holds a NUL byte, runs whose branch
origins point at themselves, at a run that is not there, or round in a cycle.  Only then is the
document built (:mod:`.session_file`), so opening a session either applies all of it or none of it.
Every refusal is a :class:`~bpe_desktop.core.errors.SessionError` that names the field and the fix.

It does not read files, build the document or check what a tokenizer holds (:mod:`.native` does that).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import SessionError

#: the largest value of each setting the window's settings pane can hold (its spin boxes; a test keeps them equal)
LIMITS: dict[str, int] = {"merges": 1_000_000, "vocab_size": 10_000_000, "min_frequency": 1_000_000_000}
MAX_COUNT = 2**63 - 1  # counts, sizes and times are 64-bit wherever they are shown or compared
MAX_DEPTH = 32  # a real session nests about 8 levels (runs > run > tokenizer > stats > contenders)
_STRINGS = ("mode", "pretokenizer", "end_of_word", "tie_break")


def fail(source: str, what: str, fix: str = "the session file is damaged") -> SessionError:
    return SessionError(f"{source}: {what} -- {fix}")


def strip_bom(text: str) -> str:
    """*text* without a leading UTF-8 byte order mark (some editors add one; JSON does not allow it)."""
    return text[1:] if text.startswith("\ufeff") else text


def check_depth(raw: Any, source: str) -> None:
    """Refuse JSON nested deeper than :data:`MAX_DEPTH` (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(raw, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise fail(source, f"the document is nested more than {MAX_DEPTH} levels deep (a session nests "
                       "about 8)", "the file is damaged or not a bpe-desktop session")
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)


def whole(value: Any, source: str, name: str, lo: int = 0, hi: int = MAX_COUNT, *, null: bool = False,
          fix: str = "the session file is damaged") -> None:
    """Refuse *value* unless it is an int (not a bool) in ``lo..hi`` (or None when *null*)."""
    if value is None and null:
        return
    if type(value) is not int:
        kind = "a whole number or null" if null else "a whole number"
        raise fail(source, f"{name} must be {kind}, not {_show(value)}")
    if not lo <= value <= hi:
        raise fail(source, f"{name} is {value:,}, outside {lo:,}..{hi:,}", fix)


def path(value: Any, source: str, name: str) -> None:
    """Refuse a path that is not text, is empty or holds a NUL byte (no file system accepts one)."""
    if not isinstance(value, str) or not value:
        raise fail(source, f"{name} must be a non-empty path, not {_show(value)}")
    if "\x00" in value:
        raise fail(source, f"{name} holds a NUL byte ({_show(value)}), which no file name can hold",
                   "correct the path in the session file")


def settings(s: Any, source: str, names: Sequence[str]) -> None:
    """Types and ranges of a ``settings`` object, before a :class:`~..config.TrainConfig` is built from it."""
    if not isinstance(s, dict):
        raise fail(source, f"settings must be an object, not {_show(s)}")
    unknown = sorted(set(s) - set(names))
    if unknown:
        raise fail(source, f"unknown setting(s) {', '.join(unknown)}", "remove them, or update bpe-desktop")
    for k in _STRINGS:
        if k in s and not isinstance(s[k], str):
            raise fail(source, f"settings.{k} must be text, not {_show(s[k])}")
    if "glue_marker" in s and type(s["glue_marker"]) is not bool:
        raise fail(source, f"settings.glue_marker must be true or false, not {_show(s['glue_marker'])}")
    too_big = "lower it in the file (the window trains up to that; the command line has no limit: bpe-desktop train)"
    for k, hi in LIMITS.items():
        if k in s:
            whole(s[k], source, f"settings.{k}", 1 if k == "min_frequency" else 0, hi, null=k != "min_frequency",
                  fix=too_big)
    specials = s.get("specials", [])
    if not isinstance(specials, list) or not all(isinstance(x, str) for x in specials):
        raise fail(source, f"settings.specials must be a list of texts, not {_show(specials)}")
    forbid = s.get("forbid", [])
    if not isinstance(forbid, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in forbid):
        raise fail(source, "settings.forbid must be a list of forbidden pairs [left, right] (texts), not "
                   f"{_show(forbid)}")
    if not (s.get("forbid_regex") is None or isinstance(s["forbid_regex"], str)):
        raise fail(source, f"settings.forbid_regex must be text or null, not {_show(s['forbid_regex'])}")


def corpus_files(files: Any, source: str, where: str = "corpus") -> None:
    """Each referenced corpus file: exactly path, size, mtime_ns and sha256, each of its kind."""
    if not isinstance(files, list) or not all(isinstance(f, dict) for f in files):
        raise fail(source, f"{where}.files must be a list of objects, not {_show(files)}")
    for k, f in enumerate(files):
        name = f"{where}.files[{k}]"
        if set(f) != {"path", "size", "mtime_ns", "sha256"}:
            raise fail(source, f"{name} needs exactly path, size, mtime_ns and sha256")
        path(f["path"], source, f"{name}.path")
        whole(f["size"], source, f"{name}.size")
        whole(f["mtime_ns"], source, f"{name}.mtime_ns")
        sha = f["sha256"]
        if not (isinstance(sha, str) and len(sha) == 64 and all(ch in "0123456789abcdef" for ch in sha)):
            raise fail(source, f"{name}.sha256 must be 64 hex digits, not {_show(sha)}")


def compare(specs: Any, source: str) -> None:
    if not isinstance(specs, list):
        raise fail(source, f"compare must be a list of tokenizer paths, not {_show(specs)}")
    for k, spec in enumerate(specs):
        path(spec, source, f"compare[{k}]")


def lineage(parents: Sequence[int | None], steps: Sequence[int | None], source: str) -> None:
    """Runs' branch origins: a parent is another run that exists, the origins form no cycle, and a branch
    says where it left its parent (``branch_step`` 0 or more)."""
    n = len(parents)
    for i, (p, step) in enumerate(zip(parents, steps, strict=True)):
        run = f"run {i + 1}"
        if p is None:
            continue
        if p == i:
            raise fail(source, f"{run} names itself as the run it branched from (parent {p})",
                       "set its parent to another run or to null")
        if not 0 <= p < n:
            raise fail(source, f"{run}: no run {p} to branch from (parent is an index into runs, 0..{n - 1}, or null)")
        if step is None:
            raise fail(source, f"{run} branched from run {p + 1} but has no branch_step")
    for i in range(n):  # follow the parents: a cycle comes back to a run already seen
        seen = {i}
        p = parents[i]
        while p is not None:
            if p in seen:
                ring = " -> ".join(str(r + 1) for r in sorted(seen))
                raise fail(source, f"the runs' branch origins go round in a cycle (runs {ring})",
                           "set the first run's parent to null")
            seen.add(p)
            p = parents[p]


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
