""":class:`HFTokenizer`: a ``tokenizer.json`` pipeline (added tokens, normalizer, pre-tokenizer, BPE model,
decoder) over our merge-list model, speaking the file's ids; an
:class:`~bpe_desktop.core.tokenizers.any_tokenizer.AnyTokenizer`.

``encode`` is HF's ``encode(text, add_special_tokens=False).ids``: added tokens, special or not, are cut out
of any text (the file says which strings they are, so ``allowed_special`` does not apply), the post-processor
(BOS/EOS templates), truncation and padding are not applied.  ``encode_ordinary`` is the same: HF has no
mode that reads an added token as text.  ``decode`` is HF's ``decode(ids, skip_special_tokens=False)``.
``upto=k`` replays only the first ``k`` merges, as for our own tokenizers.

Offsets (``encode_with_offsets``) are byte spans in ``text.encode()``: exact where the normalizer left the
text unchanged; where it changed characters, a token's span covers the whole original characters its
characters came from (an inserted prefix such as Metaspace's ``▁`` counts as part of the next character),
so neighbouring tokens can share a span.  It does not read the file (see :mod:`..hf_json`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ...choices import Mode
from ...text.pretokenize import Pretokenizer
from ...text.regex_budget import RegexBudget
from ...tokenizers.model import BPEModel
from ...tokenizers.tokenizer import UNKNOWN_ID, TokenSpan
from .added_tokens import AddedToken, AddedTokens
from .aligned import Aligned, Span
from .bpe_model import HFBPE
from .decoders import Decoder, text_bytes
from .pretokenizers import PreTokenizer

Part = Aligned | tuple[AddedToken, Span]


@dataclass(frozen=True)
class HFSplit(Pretokenizer):
    """The file's own added tokens + normalizer + pre-tokenizer, offered where a pre-tokenizer is asked for
    (the vocabulary checks of ``analyze`` split a token's text with it)."""

    owner: Any = field(default=None, compare=False, repr=False)

    def split(self, text: str, budget: RegexBudget | None = None) -> list[str]:
        return list(self.owner.pieces(text))

    def spans(self, text: str, budget: RegexBudget | None = None) -> Iterator[tuple[int, str]]:
        for p in self.owner.parts(text):
            if isinstance(p, Aligned):
                yield p.start(), p.text

    def __reduce__(self) -> tuple[Any, ...]:
        raise TypeError("the pre-tokenizer of a tokenizer.json is not picklable -- pass the file's path")


class ModelIdEncoder:
    """An :class:`HFTokenizer` in the model's (our) ids, unknown characters kept as id -1: what the vocabulary
    checks of ``analyze`` take (a :class:`~bpe_desktop.core.measure.reachability.PieceEncoder`)."""

    def __init__(self, tok: HFTokenizer) -> None:
        self.bpe = tok.bpe
        self.pretokenizer: Pretokenizer = tok.pretokenizer

    def encode_piece(self, piece: str, upto: int | None = None) -> list[int]:
        before = self.bpe.unknown
        self.bpe.unknown = "keep"
        try:
            return list(self.bpe.encode(piece, upto)[0])
        finally:
            self.bpe.unknown = before


class HFTokenizer:
    """A ``tokenizer.json`` as ``tokenizers`` runs it; ``to_file[our id]`` is the file's id."""

    def __init__(
        self, bpe: HFBPE, added: AddedTokens, pretokenize: PreTokenizer | None, decoder: Decoder | None,
        to_file: Sequence[int], *, name: str = "tokenizer.json", plain_reason: str | None = None,
        fast: bool = True,
    ) -> None:
        self.bpe = bpe
        self.added = added
        self.pretokenize = pretokenize
        self.decoder = decoder
        self.name = name
        self._to = [*to_file, UNKNOWN_ID]  # index -1 (UNKNOWN_ID) maps to itself
        self._from = {f: i for i, f in enumerate(to_file)}
        self._added_by_id = {t.id: t for t in added.tokens}
        #: why replaying the model's merges with its ``pretokenizer`` spec alone (what the window's timeline
        #: does) would not give the file's ids -- the component named -- or ``None`` when it would
        self.plain_reason = plain_reason
        # then our own replay is the file's pipeline (its added tokens are our specials): the fast path,
        # unless the caller knows better (WhitespaceSplit: Rust's whitespace lacks U+001C..U+001F)
        self._plain = fast and plain_reason is None and all(t.content in bpe.model.specials for t in added.tokens)
        self._pre: Pretokenizer = (Pretokenizer.from_spec(bpe.model.pretokenizer) if plain_reason is None
                                   else HFSplit("tokenizer.json", None, owner=self))

    # -- what every tokenizer offers --------------------------------------------------------------------
    @property
    def model(self) -> BPEModel:
        return self.bpe.model

    @property
    def mode(self) -> Mode:
        return self.bpe.model.mode

    @property
    def pretokenizer(self) -> Pretokenizer:
        """Our pattern when it is exactly the file's pipeline, else the file's pipeline itself (:class:`HFSplit`)."""
        return self._pre

    @property
    def piecewise(self) -> bool:
        """True when the pipeline is our pattern alone and each added token is cut out whole: no normalizer,
        no prefix, no token that holds whitespace or takes the spaces beside it (``lstrip``...)."""
        return self.plain_reason is None and all(
            not any(c.isspace() for c in t.content) and not (t.lstrip or t.rstrip or t.single_word)
            for t in self.added.tokens)

    @property
    def unknown(self) -> str:
        return self.bpe.unknown

    @unknown.setter
    def unknown(self, value: str) -> None:
        self.bpe.unknown = value
        self.bpe.inner.unknown = value  # type: ignore[assignment]

    @property
    def n_vocab(self) -> int:
        return max(self._to) + 1

    @property
    def n_merges(self) -> int:
        return len(self.bpe.model.merges)

    @property
    def special_tokens(self) -> dict[str, int]:
        """Every added token (HF cuts them all out of the text), by the file's id."""
        return {t.content: t.id for t in self.added.tokens}

    def file_id(self, ours: int) -> int:
        return self._to[ours]

    def _ours(self, i: int) -> int:
        return self._from.get(i, UNKNOWN_ID if i == UNKNOWN_ID else -2)

    def token_str(self, i: int) -> str:
        if i in self._added_by_id:
            return self.added.text_of[i]
        ours = self._ours(i)
        if ours == UNKNOWN_ID:
            return "<unk>"
        if not 0 <= ours < len(self.bpe.model.tokens):
            return "\ufffd"
        return self.bpe.token_text(ours) if self.bpe.prefix else self.bpe.model.token_str(ours)

    def token_bytes(self, i: int) -> bytes:
        """What token *i* stands for in a text on its own (the decoder's per-token rules)."""
        if i in self._added_by_id:
            return self.added.text_of[i].encode("utf-8")
        t = self._file_text(self._ours(i))
        if self.mode == Mode.BYTES:
            return text_bytes(t)
        out = self.decoder.one(t) if self.decoder is not None else t
        return out if isinstance(out, bytes) else out.encode("utf-8", "surrogateescape")

    # -- encoding -------------------------------------------------------------------------------------
    def parts(self, text: str) -> list[Part]:
        """The text as the model sees it: pre-tokenized pieces and added tokens, in order."""
        out: list[Part] = []
        run: list[Aligned] = []
        for part in self.added.extract(text):
            if isinstance(part, Aligned):
                run.append(part)
                continue
            out.extend(self._pieces(run))
            run = []
            out.append(part)
        out.extend(self._pieces(run))
        return out

    def _pieces(self, run: list[Aligned]) -> list[Aligned]:
        pieces = self.pretokenize(run) if self.pretokenize is not None and run else run
        return [p for p in pieces if p.text]

    def pieces(self, text: str) -> list[str]:
        """The pre-tokenized pieces of *text* (added tokens left out), as the model sees them."""
        return [p.text for p in self.parts(text) if isinstance(p, Aligned)]

    def encode_piece(self, piece: str, upto: int | None = None) -> list[int]:
        to = self._to
        return [to[i] for i in self.bpe.encode(piece, upto)[0]]

    def encode_ordinary(self, text: str, upto: int | None = None, *, budget: RegexBudget | None = None) -> list[int]:
        """HF's ids for *text* (added tokens cut out, as HF always does)."""
        to = self._to
        if self._plain:
            return [to[i] for i in self.bpe.inner.encode(text, upto=upto, allowed_special="all", budget=budget)]
        out: list[int] = []
        for part in self.parts(text):
            if isinstance(part, Aligned):
                out.extend(to[i] for i in self.bpe.encode(part.text, upto)[0])
            else:
                out.append(part[0].id)
        return out

    def encode(
        self,
        text: str,
        *,
        upto: int | None = None,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
        budget: RegexBudget | None = None,
    ) -> list[int]:
        """HF's ``encode(text, add_special_tokens=False).ids`` (the special arguments do not apply)."""
        return self.encode_ordinary(text, upto, budget=budget)

    def encode_with_offsets(
        self,
        text: str,
        *,
        upto: int | None = None,
        allowed_special: Literal["all"] | Collection[str] = "all",
        budget: RegexBudget | None = None,
    ) -> list[TokenSpan]:
        """Each token with its byte span in ``text.encode()`` (see the module text for normalized text)."""
        to = self._to
        if self._plain:
            return [TokenSpan(to[s.id], s.start, s.end) for s in self.bpe.inner.encode_with_offsets(
                text, upto=upto, allowed_special="all", budget=budget)]
        obyte: list[int] | None = None  # original char index -> byte offset, only for non-ASCII text
        if not text.isascii():
            obyte = [0]
            for ch in text:
                obyte.append(obyte[-1] + len(ch.encode("utf-8", "surrogateescape")))

        def ob(c: int) -> int:
            return c if obyte is None else obyte[c]

        spans: list[TokenSpan] = []
        for part in self.parts(text):
            if not isinstance(part, Aligned):
                spans.append(TokenSpan(part[0].id, ob(part[1][0]), ob(part[1][1])))
                continue
            p = part.text
            ids, lens = self.bpe.encode(p, upto)
            pbyte = [0]  # piece char index -> piece byte offset
            char_at: list[int] = []  # piece byte -> piece char index
            for k, ch in enumerate(p):
                n = len(ch.encode("utf-8", "surrogateescape"))
                pbyte.append(pbyte[-1] + n)
                char_at.extend([k] * n)
            b = 0
            for i, n in zip(ids, lens, strict=True):
                if n == 0:  # byte tokens of a prefix or suffix alone: an empty span where they stand
                    inside = b < len(char_at)
                    s0, e0 = part.char_span(char_at[b] if inside else len(p) - 1)
                    at = ob(s0) if inside else ob(e0)
                    spans.append(TokenSpan(to[i], at, at))
                    continue
                k0, k1 = char_at[b], char_at[b + n - 1]
                s0, e0 = part.char_span(k0)
                s1, e1 = part.char_span(k1)
                same0 = e0 == s0 + 1 and text[s0] == p[k0]
                same1 = e1 == s1 + 1 and text[s1] == p[k1]
                lo, hi = part.span(k0, k1 + 1)
                start = ob(s0) + (b - pbyte[k0]) if same0 else ob(lo)
                end = ob(s1) + (b + n - pbyte[k1]) if same1 else ob(hi)
                spans.append(TokenSpan(to[i], start, max(start, end)))
                b += n
        return spans

    # -- decoding -------------------------------------------------------------------------------------
    def _file_text(self, ours: int) -> str:
        """How the file writes our token *ours* (a vocabulary entry no merge makes is one of our specials)."""
        model = self.bpe.model
        n = len(model.tokens)
        if 0 <= ours < n:
            return self.bpe.token_text(ours)
        if n <= ours < n + len(model.specials):
            return model.specials[ours - n]
        return "\ufffd"

    def _token_texts(self, ids: Sequence[int]) -> list[str]:
        added = self.added.text_of
        return [added[i] if i in added else self._file_text(self._ours(i)) for i in ids]

    def decode(self, ids: Sequence[int], errors: str = "replace") -> str:
        """HF's ``decode(ids, skip_special_tokens=False)`` (an id the file lacks reads as U+FFFD)."""
        tokens = self._token_texts(ids)
        return self.decoder.decode(tokens) if self.decoder is not None else " ".join(tokens)

    def decode_bytes(self, ids: Sequence[int]) -> bytes:
        """Bytes-mode: the tokens' bytes joined (before UTF-8 decoding); otherwise the decoded text."""
        if self.mode == Mode.BYTES:
            return b"".join(self.token_bytes(i) for i in ids)
        return self.decode(ids).encode("utf-8", "surrogateescape")
