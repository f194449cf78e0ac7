"""HF's BPE model on one pre-tokenized piece (``BPE::tokenize``), over our merge list.

A piece becomes symbols as ``BPE::merge_word`` builds them: in bytes mode (a ``ByteLevel`` file) its UTF-8
bytes; otherwise its characters, every one but the first with ``continuing_subword_prefix`` before it and
the last one with ``end_of_word_suffix`` glued on, looked up by the file's text (:mod:`.subword_prefix`
says how our model names a prefixed file's tokens); a character the vocabulary lacks becomes the
``<0xNN>`` byte tokens of that text, prefix and suffix included as in HF (``byte_fallback``), else
``unk_token`` (consecutive ones fused with ``fuse_unk``), else it is refused (HF would drop it without a
word) or kept as id -1 when the caller asks for unknowns to be shown.  With ``ignore_merges`` a piece that
is itself in the vocabulary is that one token.  The merges are then replayed in order by the inner
:class:`Tokenizer`'s replay, which gives HF's result (lowest rank first, left to right).  Ids here are ours
(the model's); :mod:`.pipeline` maps them to the file's.  It does not split text into pieces.
"""

from __future__ import annotations

from ...choices import Mode
from ...errors import ConfigError
from ...tokenizers.model import BPEModel, text_token, token_text
from ...tokenizers.tokenizer import UNKNOWN_ID, Tokenizer
from .decoders import text_bytes
from .subword_prefix import START, file_text

_CACHE_LIMIT = 200_000


class HFBPE:
    """Encode pieces to (our ids, the number of piece bytes each covers)."""

    def __init__(
        self, model: BPEModel, *, byte_fallback: bool = False, unk: int | None = None, fuse_unk: bool = False,
        ignore_merges: bool = False, byte_chars: bool = False, prefix: str = "",
    ) -> None:
        self.model = model
        self.inner = Tokenizer(model)
        self.bytes_mode = model.mode == Mode.BYTES
        self.suffix = model.end_of_word if model.glue_marker else ""
        self.byte_fallback = byte_fallback
        self.unk = unk
        self.fuse_unk = fuse_unk
        self.ignore_merges = ignore_merges
        #: a chars-mode model over GPT-2's byte alphabet (CLIP: byte-level with an end-of-word suffix): a
        #: piece is mapped to that alphabet, one character per byte, before it becomes symbols
        self.byte_chars = byte_chars
        self.unknown = "error"  # or "keep": a character with no token becomes id -1
        self.prefix = prefix  # continuing_subword_prefix: our token names are not the file's texts
        self.texts = [file_text(text_token(t), prefix) for t in model.tokens] if prefix else None
        self.ids: dict[str | bytes, int] = {t: i for i, t in enumerate(self.texts or model.tokens)}
        self.made_at = [-1] * len(model.base) + [len(model.merges)] * (len(model.tokens) - len(model.base))
        for r, i in reversed(list(enumerate(model.merge_token_ids))):
            self.made_at[i] = r  # the first merge that makes the token
        # ignore_merges looks a piece up in the whole vocabulary (which may hold tokens no merge makes)
        self.whole = {self.token_text(i): i for i in range(len(model.tokens))} | model.special_ids
        self.made_at += [-1] * len(model.specials)
        self.byte_ids = [self.ids.get(f"<0x{b:02X}>") for b in range(256)]
        self._cache: dict[tuple[int, str], tuple[tuple[int, ...], tuple[int, ...]]] = {}

    def _limit(self, upto: int | None) -> int:
        n = len(self.model.merges)
        if upto is None:
            return n
        if upto < 0:
            raise ConfigError(f"upto must be 0 or more, not {upto}")
        return min(upto, n)

    def _exists(self, i: int | None, limit: int) -> bool:
        return i is not None and self.made_at[i] < limit

    def _symbols(self, piece: str, limit: int) -> tuple[list[int], list[int]]:
        """The symbol ids of *piece* and how many piece bytes each covers."""
        if self.bytes_mode:
            table = self.inner._byte_ids
            data = piece.encode("utf-8", "surrogateescape")
            return [table[b] for b in data], [1] * len(data)
        ids: list[int] = []
        lens: list[int] = []
        if self.byte_chars:
            piece = token_text(piece.encode("utf-8", "surrogateescape"))
        last = len(piece) - 1
        for k, c in enumerate(piece):
            n = 1 if self.byte_chars else len(c.encode("utf-8", "surrogateescape"))
            head = self.prefix if k else ""
            s = head + c + self.suffix if k == last else head + c
            i = self.ids.get(s)
            if self._exists(i, limit):
                ids.append(i)  # type: ignore[arg-type]
                lens.append(n)
                continue
            if self.byte_fallback:
                data = s.encode("utf-8", "surrogateescape")
                fb = [self.byte_ids[b] for b in data]
                if all(self._exists(j, limit) for j in fb):
                    ids.extend(fb)  # type: ignore[arg-type]
                    # the prefix's and suffix's bytes cover none of the piece (the character's cover one each)
                    h = len(head.encode("utf-8", "surrogateescape"))
                    lens.extend([0] * h + [1] * n + [0] * (len(data) - h - n))
                    continue
            if self.unk is not None:
                if self.fuse_unk and ids and ids[-1] == self.unk:
                    lens[-1] += n
                else:
                    ids.append(self.unk)
                    lens.append(n)
                continue
            if self.unknown == "keep":
                ids.append(UNKNOWN_ID)
                lens.append(n)
                continue
            raise ConfigError(f"the character {c!r} has no token in this tokenizer (no byte_fallback, no "
                              "unk_token) -- HF would drop it from the ids; remove it from the text")
        return ids, lens

    def encode(self, piece: str, upto: int | None = None) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(our ids, piece bytes per token) for one piece, with the first *upto* merges."""
        limit = self._limit(upto)
        key = (limit, piece)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        if self.ignore_merges:
            data = piece.encode("utf-8", "surrogateescape")
            whole = self.whole.get(token_text(data) if self.bytes_mode or self.byte_chars else piece)
            if self._exists(whole, limit):
                return self._store(key, ((whole,), (len(data),)))  # type: ignore[arg-type]
        syms, lens = self._symbols(piece, limit)
        if UNKNOWN_ID in syms:  # merge the known runs between unknowns
            merged: list[int] = []
            run: list[int] = []
            for s in [*syms, UNKNOWN_ID]:
                if s == UNKNOWN_ID:
                    merged.extend(self.inner._bpe(run, limit))
                    merged.append(s)
                    run = []
                else:
                    run.append(s)
            ids = merged[:-1]
        else:
            ids = self.inner._bpe(syms, limit)
        return self._store(key, (tuple(ids), self._token_lens(ids, syms, lens)))

    def _store(self, key: tuple[int, str], out: tuple[tuple[int, ...], tuple[int, ...]]) -> tuple[
            tuple[int, ...], tuple[int, ...]]:
        if len(self._cache) > _CACHE_LIMIT:
            self._cache.clear()
        self._cache[key] = out
        return out

    def _token_lens(self, ids: list[int], syms: list[int], lens: list[int]) -> tuple[int, ...]:
        """Piece bytes per token: a token is the concatenation of the symbols it was merged from."""
        tokens = self.model.tokens
        out: list[int] = []
        k = 0
        for i in ids:
            if i == UNKNOWN_ID or (self.unk is not None and i == self.unk):
                out.append(lens[k])
                k += 1
                continue
            want = len(tokens[i])
            got = n = 0
            while got < want and k < len(syms):
                s = syms[k]
                got += 1 if s == UNKNOWN_ID else len(tokens[s])
                n += lens[k]
                k += 1
            out.append(n)
        return tuple(out)

    def covered_bytes(self, i: int) -> int:
        """How many bytes of a piece our token *i* stands for (neither prefix nor suffix counts)."""
        t = text_token(self.model.tokens[i]).removeprefix(START) if self.prefix else token_text(self.model.tokens[i])
        if self.suffix and t.endswith(self.suffix):
            t = t[: -len(self.suffix)]
        return len(text_bytes(t)) if self.byte_chars or self.bytes_mode else len(t.encode("utf-8", "surrogateescape"))

    def merge_pairs_text(self) -> list[tuple[str, str]]:
        """The merges as the file writes them (a prefixed file: ``h ##e``, not our names for the tokens)."""
        return [(self.token_text(a), self.token_text(b)) for a, b in self.model.merges]

    def token_text(self, i: int) -> str:
        """How the file writes our token *i* (bytes through GPT-2's alphabet)."""
        return self.texts[i] if self.texts is not None else token_text(self.model.tokens[i])
