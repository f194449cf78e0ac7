"""The native tokenizer file: versioned JSON holding the settings, the merge list and per-merge stats.

This is the file the app saves and opens.  Base symbols are stored only in chars mode (bytes mode always
has the 256 bytes).  Tokens are written as text: bytes through GPT-2's mapping.  It does not hold ids of
its own: they are derived from the merge list on load.

Version 2 (what we write) is compact: one merge per line, and the per-merge statistics as columns (one
JSON array per statistic), written with the C JSON encoder, so saving costs a few percent of training.
Version 1 (pretty-printed, one stats object per merge) is still read.  Every document is checked against
the schema of its version before anything is built: a wrong type, a missing field or a newer version is a
:class:`~bpe_desktop.core.errors.FormatError` naming the field and the fix, never a ``TypeError``.

Not here: format detection (:mod:`.detect`) and turning stats back into records (the callers do that).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Sequence
from typing import Any, cast

from ..choices import ByteIds, Mode
from ..config import MODES, TIE_BREAKS
from ..errors import BpeError, FormatError
from ..io.atomic import atomic_write
from ..records import MergeRecord, RecordLog
from ..text.pretokenize import Pretokenizer
from ..tokenizers.model import BYTE_BASE, BPEModel, Token, token_text
from .textio import read_text, token_reader

FORMAT_NAME = "bpe-desktop"
VERSION = 2
READ_VERSIONS = (1, 2)

#: the integer statistics stored per merge (v1: keys of each stats object; v2: the columns)
INT_STATS = ("rank", "left_id", "right_id", "token_id", "count", "merged", "symbols_after", "vocab_size",
             "words_touched")
STATS = (*INT_STATS, "contenders")

_compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_needs_escape = re.compile('["\\\\\x00-\x1f]').search


def _string(token: str) -> str:
    """A JSON string; most tokens need no escaping, and skipping the encoder for them is 5x faster."""
    return _compact(token) if _needs_escape(token) else f'"{token}"'


#: records per slice of a stats column when writing: the document is written a slice at a time, so saving
#: holds one slice's JSON text, not the whole document's (32,000 merges' contenders are several MB of text);
#: the contenders' slices are smaller: the encoder holds a few hundred bytes of pieces per record for them
_SLICE = 2048
_SLICES = {"contenders": 256}


def _column(records: Sequence[MergeRecord] | Sequence[dict[str, Any]], name: str, start: int, stop: int) -> list[Any]:
    """Statistic *name* of ``records[start:stop]`` as JSON-ready values."""
    if isinstance(records, RecordLog):  # a long run's records, as columns
        return records.column(name, start, stop)
    part = records[start:stop]
    if isinstance(records[0], MergeRecord):  # one kind throughout: records or stats dicts
        recs = cast(Sequence[MergeRecord], part)
        if name == "contenders":
            return [r.contenders for r in recs]  # tuples encode as arrays
        return [getattr(r, name) for r in recs]
    dicts = cast(Sequence[dict[str, Any]], part)
    if name == "contenders":
        return [[list(c) for c in d.get("contenders", ())] for d in dicts]
    return [int(d.get(name, 0)) for d in dicts]


def _parts(model: BPEModel, records: Sequence[MergeRecord] | Sequence[dict[str, Any]] | None) -> Iterator[str]:
    """The document as consecutive pieces of text (:func:`dumps` joins them, :func:`save` writes them)."""
    settings = {
        "mode": model.mode, "pretokenizer": model.pretokenizer, "end_of_word": model.end_of_word,
        "glue_marker": model.glue_marker, "specials": list(model.specials), "tie_break": model.tie_break,
    }
    # bytes mode: null for GPT-2's byte order (what every file before byte_ids held), else the 256 in id order
    base = None if model.mode == Mode.BYTES and model.byte_ids == ByteIds.GPT2 else [token_text(t) for t in model.base]
    quoted = [_string(token_text(t)) for t in model.tokens]  # each token once, not once per merge it is in
    yield f'{{"format":"{FORMAT_NAME}","version":{VERSION},\n'
    yield f'"settings":{_compact(settings)},\n'
    yield f'"base":{_compact(base)},\n'
    yield '"merges":[\n'
    yield ",\n".join([f"[{quoted[a]},{quoted[b]}]" for a, b in model.merges])
    del quoted
    yield "]"
    if records:
        yield ',\n"stats":{\n'
        for i, name in enumerate(STATS):
            # one JSON array per statistic, encoded a slice at a time: "[" + the slices' items + "]" is the
            # text the encoder gives for the whole column
            yield (",\n" if i else "") + f'"{name}":['
            step = _SLICES.get(name, _SLICE)
            for start in range(0, len(records), step):
                text = _compact(_column(records, name, start, start + step))
                yield ("," if start else "") + text[1:-1]
            yield "]"
        yield "}"
    yield "}\n"


def dumps(model: BPEModel, records: Sequence[MergeRecord] | Sequence[dict[str, Any]] | None = None) -> str:
    """Serialise a model (and optionally its training records, or the stats another native file stored).

    >>> from bpe_desktop.core import TrainConfig, train
    >>> model, recs = train({"low": 5, "lower": 2}, TrainConfig(merges=2))
    >>> text = dumps(model, recs)
    >>> text.splitlines()[0]
    '{"format":"bpe-desktop","version":2,'
    >>> loads(text)[0].merge_pairs_text() == model.merge_pairs_text()
    True
    """
    return "".join(_parts(model, records))


def save(
    path: str | os.PathLike[str], model: BPEModel,
    records: Sequence[MergeRecord] | Sequence[dict[str, Any]] | None = None,
) -> None:
    """Write atomically, a piece at a time (what is held is one piece of the text, not the document)."""
    with atomic_write(path) as f:
        for part in _parts(model, records):
            f.write(part)


# -- the schema ---------------------------------------------------------------------------------------
class _Schema:
    """Checks one document; every refusal names the field (``settings.pretokenizer``) and the fix."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, field: str, expected: str, value: object) -> FormatError:
        shown = repr(value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        return FormatError(
            f"{self.source}: malformed native tokenizer file: {field} must be {expected}, not {shown} "
            "-- save the tokenizer again with bpe-desktop, or fix that field"
        )

    def obj(self, value: object, field: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(field, "an object", value)
        return value

    def array(self, value: object, field: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(field, "an array", value)
        return value

    def string(self, value: object, field: str) -> str:
        if not isinstance(value, str):
            raise self.fail(field, "a string", value)
        return value

    def integer(self, value: object, field: str) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(field, "a whole number", value)
        return value

    def required(self, doc: dict[str, Any], key: str, field: str) -> Any:
        if key not in doc:
            raise FormatError(f"{self.source}: malformed native tokenizer file: {field} is missing "
                              "-- save the tokenizer again with bpe-desktop, or add that field")
        return doc[key]

    def settings(self, s: object) -> dict[str, Any]:
        s = self.obj(s, "settings")
        mode = self.required(s, "mode", "settings.mode")
        if mode not in MODES:
            raise self.fail("settings.mode", "'chars' or 'bytes'", mode)
        pre = self.string(self.required(s, "pretokenizer", "settings.pretokenizer"), "settings.pretokenizer")
        try:
            Pretokenizer.from_spec(pre)
        except BpeError as e:
            raise FormatError(f"{self.source}: settings.pretokenizer: {e}") from None
        eow = self.string(s.get("end_of_word", ""), "settings.end_of_word")
        glue = s.get("glue_marker", False)
        if not isinstance(glue, bool):
            raise self.fail("settings.glue_marker", "true or false", glue)
        specials = self.array(s.get("specials", []), "settings.specials")
        for k, sp in enumerate(specials):
            if not isinstance(sp, str) or not sp:
                raise self.fail(f"settings.specials[{k}]", "a non-empty string", sp)
        if len(set(specials)) != len(specials):
            raise self.fail("settings.specials", "distinct strings", specials)
        tie = s.get("tie_break")
        if tie is not None and tie not in tuple(TIE_BREAKS):  # a tuple: *tie* may be any JSON value
            raise self.fail("settings.tie_break", f"null or one of {', '.join(TIE_BREAKS)}", tie)
        return {"mode": mode, "pretokenizer": pre, "end_of_word": eow, "glue_marker": glue,
                "specials": tuple(specials), "tie_break": tie}

    def merges(self, value: object) -> list[tuple[str, str]]:
        out = []
        for k, m in enumerate(self.array(value, "merges")):
            if not (isinstance(m, list) and len(m) == 2 and isinstance(m[0], str) and isinstance(m[1], str)):
                raise self.fail(f"merges[{k}]", "a pair of token strings", m)
            if not m[0] or not m[1]:
                raise self.fail(f"merges[{k}]", "a pair of non-empty token strings", m)
            out.append((m[0], m[1]))
        return out

    def contenders(self, value: object, field: str) -> list[list[Any]]:
        for j, c in enumerate(self.array(value, field)):
            if not (isinstance(c, list) and len(c) == 3 and isinstance(c[0], str) and isinstance(c[1], str)
                    and isinstance(c[2], int) and not isinstance(c[2], bool)):
                raise self.fail(f"{field}[{j}]", "[left, right, count]", c)
        return cast(list[list[Any]], value)  # each item checked above

    def stats_v1(self, value: object, n: int) -> list[dict[str, Any]]:
        rows = self.array(value, "stats")
        if rows and len(rows) != n:
            raise self.fail("stats", f"one entry per merge ({n})", f"{len(rows)} entries")
        for k, row in enumerate(rows):
            row = self.obj(row, f"stats[{k}]")
            for name in INT_STATS:
                if name in row:
                    self.integer(row[name], f"stats[{k}].{name}")
            if "contenders" in row:
                self.contenders(row["contenders"], f"stats[{k}].contenders")
        return rows

    def stats_v2(self, value: object, n: int) -> list[dict[str, Any]]:
        cols = self.obj(value, "stats")
        for name in STATS:
            col = self.array(self.required(cols, name, f"stats.{name}"), f"stats.{name}")
            if len(col) != n:
                raise self.fail(f"stats.{name}", f"one entry per merge ({n})", f"{len(col)} entries")
            for k, v in enumerate(col):
                if name == "contenders":
                    self.contenders(v, f"stats.contenders[{k}]")
                else:
                    self.integer(v, f"stats.{name}[{k}]")
        names = list(STATS)
        return [dict(zip(names, row, strict=True)) for row in zip(*(cols[c] for c in names), strict=True)]


def loads(text: str, source: str = "<text>") -> tuple[BPEModel, list[dict[str, Any]]]:
    """Parse a native file (version 1 or 2); returns the model and the per-merge stats (possibly empty).

    >>> loads('{"format": "bpe-desktop", "version": 2, "settings": {"mode": "bytes", "pretokenizer": 5}}')
    Traceback (most recent call last):
    ...
    bpe_desktop.core.errors.FormatError: <text>: malformed native tokenizer file: settings.pretokenizer must be \
a string, not 5 -- save the tokenizer again with bpe-desktop, or fix that field
    """
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise FormatError(
            f"{source}: line {e.lineno}: not valid JSON ({e.msg}) -- is this a bpe-desktop tokenizer file?"
        ) from e
    except RecursionError:
        raise FormatError(f"{source}: nested too deeply to be a bpe-desktop tokenizer file") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT_NAME:
        raise FormatError(f"{source}: not a bpe-desktop tokenizer file (no \"format\": \"{FORMAT_NAME}\")")
    schema = _Schema(source)
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise schema.fail("version", f"a version number ({', '.join(map(str, READ_VERSIONS))})", version)
    if version > VERSION:
        raise FormatError(
            f"{source}: native format version {version} is newer than this program reads (versions "
            f"{', '.join(map(str, READ_VERSIONS))}) -- update bpe-desktop to open it"
        )
    settings = schema.settings(schema.required(doc, "settings", "settings"))
    mode = settings.pop("mode")
    base_value = doc.get("base")
    base_list: list[Any] = []
    if mode == Mode.CHARS or base_value is not None:  # bytes mode: null is GPT-2's byte order
        base_list = schema.array(base_value, "base")
        for k, t in enumerate(base_list):
            if not isinstance(t, str) or not t:
                raise schema.fail(f"base[{k}]", "a non-empty string", t)
        if len(set(base_list)) != len(base_list):
            raise schema.fail("base", "distinct symbols", "a list with repeats")
    pairs_text = schema.merges(schema.required(doc, "merges", "merges"))
    n = len(pairs_text)
    raw_stats = doc.get("stats")
    if raw_stats is None:
        stats: list[dict[str, Any]] = []
    elif version == 1:
        stats = schema.stats_v1(raw_stats, n)
    else:
        stats = schema.stats_v2(raw_stats, n)
    try:
        conv = token_reader(mode == Mode.BYTES, source)
        if mode == Mode.BYTES and base_value is not None:
            base: list[Token] = [conv(t) for t in base_list]
            if sorted(base) != sorted(BYTE_BASE):
                raise schema.fail("base", "the 256 single bytes", "another list")
        else:
            base = list(BYTE_BASE) if mode == Mode.BYTES else list(base_list)
        pairs = [(conv(a), conv(b)) for a, b in pairs_text]
        model = BPEModel.from_token_pairs(mode, base, pairs, **settings)
    except BpeError:
        raise
    except (KeyError, TypeError, ValueError, IndexError) as e:  # the schema should have caught it first
        raise FormatError(f"{source}: malformed native tokenizer file ({type(e).__name__}: {e}) "
                          "-- save the tokenizer again with bpe-desktop") from e
    return model, stats


def load(path: str | os.PathLike[str]) -> tuple[BPEModel, list[dict[str, Any]]]:
    return loads(read_text(path), os.fspath(path))
