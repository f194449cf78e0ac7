"""The log inspector's background job: load the tokenizers and inspect a log in a worker process, no Qt.

:func:`run` is the body of a *spawn* child (launched by :mod:`.runner`): it loads every
:class:`TokenizerChoice` (a file spec for :func:`bpe_desktop.core.formats.load_tokenizer`, or a model such as
the session's at its step), runs :func:`~bpe_desktop.core.logs.log_inspect.inspect_file` (or ``inspect_text`` on
pasted text) and sends typed messages on a pipe: :class:`Progress` (bytes, throttled), then :class:`Done`
(as a :class:`DoneHeader` and raw arrays: :func:`send_done` / :func:`recv_done`) or :class:`Failed`.  A
cancel event set by the window is polled between chunks (:class:`~bpe_desktop.core.errors.Cancelled` ends
the child quietly).

While the core encodes, a :class:`_Recorder` keeps what each tokenizer returned for the first
:data:`STRIP_CAP` bytes (token ids and byte offsets, :class:`~.strip_data.StripData`), so the window can draw
any line range of that head as token strips without loading a tokenizer or encoding anything itself.
:func:`installed_references` lists the well-known tokenizer files found on this machine.
It leaves drawing to :mod:`.panel` and the inspection itself to the core.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, Literal

import numpy as np

from ...core.choices import Mode
from ...core.errors import BpeError, Cancelled, CorpusError
from ...core.formats import load_tokenizer
from ...core.io.reading import read_head
from ...core.logs.log_inspect import Inspection, NamedTokenizer, inspect_file, inspect_text
from ...core.text.regex_budget import RegexBudget
from ...core.tokenizers.model import BPEModel
from ...core.tokenizers.rank_rule import RankRuleTokenizer
from ...core.tokenizers.tokenizer import UNKNOWN_ID, Tokenizer, TokenSpan
from ...core.views.labels import bytes_label, visible_text
from ..compare.sources import KNOWN_REFERENCES, keep_unknowns
from ..worker_priority import lower_priority
from .strip_data import StripData

#: token strips are kept for this many bytes at the head of the log (every line of a 2 MB log)
STRIP_CAP = 4 << 20
PROGRESS_SECONDS = 0.05


@dataclass(frozen=True)
class TokenizerChoice:
    """One tokenizer to inspect with: a *spec* for ``load_tokenizer`` or a *model* (with *upto* merges)."""

    name: str
    spec: str | None = None
    model: BPEModel | None = None
    upto: int | None = None
    pretokenizer: str | None = None  # for a rank file that holds none, as the user named it
    specials: tuple[str, ...] = ()
    rank_rule: bool = False  # *model* encoded by tiktoken's rank rule (an extended rank table), as the window does


@dataclass(frozen=True)
class InspectJob:
    """A log file (*path*) or a pasted *text*, and the tokenizers to inspect it with."""

    tokenizers: tuple[TokenizerChoice, ...]
    path: str | None = None
    text: str | None = None
    strip_cap: int = STRIP_CAP


@dataclass(frozen=True)
class Progress:
    stage: str  # "loading" (done/total: tokenizers) or "inspect" (bytes)
    done: int
    total: int


@dataclass(frozen=True)
class Done:
    inspection: Inspection
    head: bytes  # the first bytes of the text (whole lines, at most the job's strip_cap)
    strips: tuple[StripData, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Failed:
    message: str


@dataclass(frozen=True)
class DoneHeader:
    """The pickled part of a :class:`Done` on the pipe; the head and the strips' arrays follow as raw bytes
    (one unpickling of tens of MB would hold the GIL, and stall the window, for as long as it takes)."""

    inspection: Inspection
    strips: tuple[tuple[str, dict[int, str], int, str], ...]  # name, labels, n_base, dtype of the offsets


def send_done(conn: Connection, done: Done) -> None:
    """Send *done* as a :class:`DoneHeader`, then ``head``, then per strip its ids, starts and ends."""
    conn.send(DoneHeader(done.inspection, tuple((s.name, s.labels, s.n_base, s.starts.dtype.str)
                                                for s in done.strips)))
    conn.send_bytes(done.head)
    for s in done.strips:
        for arr in (s.ids.astype(np.int32), s.starts, s.ends):
            conn.send_bytes(np.ascontiguousarray(arr).data)


def recv_done(conn: Connection, header: DoneHeader) -> Done:
    """The :class:`Done` whose header was just received (reads the raw parts :func:`send_done` sent)."""
    head = conn.recv_bytes()
    strips = []
    for name, labels, n_base, dtype in header.strips:
        ids = np.frombuffer(conn.recv_bytes(), dtype=np.int32)
        starts = np.frombuffer(conn.recv_bytes(), dtype=dtype)
        ends = np.frombuffer(conn.recv_bytes(), dtype=dtype)
        strips.append(StripData(name, ids, starts, ends, labels, n_base))
    return Done(header.inspection, head, tuple(strips))


def installed_references() -> list[TokenizerChoice]:
    """cl100k_base, o200k_base and GPT-2 (r50k), whose rank files ship with bpe-desktop (their patterns and
    special tokens come with them, see :mod:`bpe_desktop.core.formats.presets`); a missing one is left out."""
    return [TokenizerChoice(k.name, spec) for k in KNOWN_REFERENCES if (spec := k.spec()) is not None]


def load_choice(choice: TokenizerChoice) -> NamedTokenizer:
    """The tokenizer a choice names (raises :class:`BpeError` for a file our readers refuse)."""
    if choice.model is not None:
        own = (RankRuleTokenizer if choice.rank_rule else Tokenizer)(choice.model, unknown="keep")
        return NamedTokenizer(choice.name, own, choice.upto)
    assert choice.spec is not None
    kwargs: dict[str, Any] = {}
    if choice.pretokenizer:
        kwargs["pretokenizer"] = choice.pretokenizer
    if choice.specials:
        kwargs["specials"] = choice.specials
    try:
        tok = load_tokenizer(choice.spec, **kwargs)
    except BpeError:
        raise
    except (OSError, ValueError, KeyError, UnicodeError) as e:  # a file none of our readers expected
        raise BpeError(f"{choice.spec}: not a tokenizer our formats read ({e})") from None
    return NamedTokenizer(choice.name, keep_unknowns(tok), choice.upto)


class _Recorder:
    """Forwards to a tokenizer and keeps its output for the chunks that start before *cap* bytes.

    The core asks ``encode_ordinary`` first where it can and falls back to ``encode_with_offsets`` on the
    same chunk: the last answer per chunk is the one kept.  Everything else is forwarded unchanged.
    """

    def __init__(self, tok: Any, cap: int) -> None:
        self._tok = tok
        self._cap = cap
        self._chunk: str | None = None
        self._base = 0
        self._next = 0
        self.chunks: list[tuple[int, str, Any]] = []  # (byte base, "ids"|"spans", data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tok, name)

    def _keep(self, text: str, kind: str, data: Any) -> None:
        if text is not self._chunk:
            self._chunk = text
            self._base = self._next
            self._next += len(text.encode("utf-8", "surrogateescape"))
        elif self.chunks and self.chunks[-1][0] == self._base:
            self.chunks.pop()
        if self._base < self._cap:
            self.chunks.append((self._base, kind, data))

    def encode_ordinary(self, text: str, upto: int | None = None, *, budget: RegexBudget | None = None) -> list[int]:
        ids = self._tok.encode_ordinary(text, upto, budget=budget)
        self._keep(text, "ids", ids)
        return ids

    def encode_with_offsets(self, text: str, *, upto: int | None = None,
                            allowed_special: Literal["all"] | Collection[str] = "all",
                            budget: RegexBudget | None = None) -> list[TokenSpan]:
        spans = self._tok.encode_with_offsets(text, upto=upto, allowed_special=allowed_special, budget=budget)
        self._keep(text, "spans", spans)
        return spans

    def strip(self, name: str) -> StripData:
        """Ids and byte offsets of every kept token, and a label per id."""
        tok = self._tok
        lengths: dict[int, int] = {}
        ids_parts, start_parts, end_parts = [], [], []
        for base, kind, data in self.chunks:
            if kind == "ids":
                ids = np.array(data, dtype=np.int64)
                for i in set(data) - lengths.keys():
                    lengths[i] = len(tok.token_bytes(i))
                lens = np.array([lengths[i] for i in data], dtype=np.int64)
                ends = np.cumsum(lens) + base
                starts = ends - lens
            else:
                ids = np.array([s.id for s in data], dtype=np.int64)
                starts = np.array([s.start for s in data], dtype=np.int64) + base
                ends = np.array([s.end for s in data], dtype=np.int64) + base
            ids_parts.append(ids)
            start_parts.append(starts)
            end_parts.append(ends)
        cat = (lambda parts: np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64))
        ids_all = cat(ids_parts)
        inner = getattr(tok, "inner", tok)
        chars = getattr(tok, "mode", Mode.BYTES) != Mode.BYTES
        labels: dict[int, str] = {}
        for i in np.unique(ids_all).tolist():
            if i == UNKNOWN_ID:
                continue
            labels[i] = visible_text(tok.token_str(i)) if chars else bytes_label(tok.token_bytes(i))
        n_base = 256 if not chars else int(getattr(getattr(inner, "model", None), "n_base", 256))
        small = np.int32 if self._next < 2**31 else np.int64  # half the bytes to send for any head we keep
        return StripData(name, ids_all.astype(np.int32), cat(start_parts).astype(small), cat(end_parts).astype(small),
                         labels, n_base)


def _head(job: InspectJob) -> bytes:
    """The first whole lines of the text, at most ``job.strip_cap`` bytes (one long line: cut there)."""
    if job.text is not None:
        data = job.text[: job.strip_cap].encode("utf-8", "surrogateescape")
    else:
        assert job.path is not None
        data = read_head(job.path, job.strip_cap + 1, error=CorpusError, what="log file")
    if len(data) > job.strip_cap:
        cut = data.rfind(b"\n", 0, job.strip_cap)
        data = data[: cut + 1] if cut >= 0 else data[: job.strip_cap]
    return data


def inspect_job(job: InspectJob, progress: Any = None, cancel: Any = None) -> Done:
    """The whole job in this process (what :func:`run` does in the child)."""
    named = []
    for k, choice in enumerate(job.tokenizers):
        if progress is not None:
            progress("loading", k, len(job.tokenizers))
        named.append(load_choice(choice))
        if cancel is not None and cancel():
            raise Cancelled()
    recorders = [_Recorder(nt.tokenizer, job.strip_cap) for nt in named]
    wrapped = [NamedTokenizer(nt.name, rec, nt.upto) for nt, rec in zip(named, recorders, strict=True)]
    if job.text is not None:
        result = inspect_text(job.text, wrapped, progress=progress, cancel=cancel)
    else:
        assert job.path is not None
        result = inspect_file(job.path, wrapped, progress=progress, cancel=cancel)
    head = _head(job)
    strips = tuple(rec.strip(nt.name).cut(len(head)) for rec, nt in zip(recorders, named, strict=True))
    return Done(result, head, strips)


def run_below_the_window(conn: Connection, job: InspectJob, cancel_event: Any) -> None:
    """:func:`run` as the child process's body, at the workers' priority (:mod:`..worker_priority`)."""
    lower_priority()
    run(conn, job, cancel_event)


def run(conn: Connection, job: InspectJob, cancel_event: Any) -> None:
    """The child process's body: :func:`inspect_job`, its progress and its result sent on *conn*."""
    last = [0.0]

    def progress(stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= PROGRESS_SECONDS or done >= total:
            last[0] = now
            conn.send(Progress(stage, done, total))

    try:
        send_done(conn, inspect_job(job, progress, cancel_event.is_set))
    except Cancelled:
        pass
    except BpeError as e:
        conn.send(Failed(str(e)))
    except MemoryError:
        conn.send(Failed("out of memory -- inspect a smaller part of the log"))
    except Exception as e:  # a bug: say what, do not die silently
        conn.send(Failed(f"inspection failed: {type(e).__name__}: {e}"))
    finally:
        conn.close()
