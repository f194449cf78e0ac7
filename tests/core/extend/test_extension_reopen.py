"""An extension's rank file read back as an extension (:func:`bpe_desktop.core.extend.reopen.reopen`): opened as
``cl100k:FILE`` (or ``o200k:FILE``) it is the original's merges then the added ones, and encoded by tiktoken's rank
rule it gives tiktoken's ids for the same file read with the encoding's pattern and specials.  Hostile files: a
cl100k prefix with one rank changed, or cut short, is no extension (the bare file asks for a pattern, naming no
encoding); a gap among the added ranks, or an added token that is no merge, is refused with the reason."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
import tiktoken
import tiktoken.load
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.errors import FormatError, PretokenizerNeeded
from bpe_desktop.core.extend import start
from bpe_desktop.core.extend.reopen import Reopened, reopen
from bpe_desktop.core.formats import load
from bpe_desktop.core.formats.presets import PRESETS
from bpe_desktop.core.formats.tiktoken_file import dumps_ranks
from bpe_desktop.core.text.pretokenize import Pretokenizer
from bpe_desktop.core.tokenizers.rank_rule import RankRuleTokenizer
from bpe_desktop.core.tokenizers.ranks import RankTokenizer
from support import ASSIGNED_CHARS, ROBOT_SAMPLE_FILE

LINES = ROBOT_SAMPLE_FILE.read_text(encoding="utf-8").splitlines(keepends=True)
TRAIN, HELD = "".join(LINES[:300]), "".join(LINES[1500:1800])
MERGES = 40
FEW = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def tiktoken_encoding(path: Path, name: str) -> tiktoken.Encoding:
    p = PRESETS[name]
    pattern = Pretokenizer.from_spec(p.pretokenizer).pattern
    assert pattern is not None
    return tiktoken.Encoding(name=f"{name}-x", pat_str=pattern,
                             mergeable_ranks=tiktoken.load.load_tiktoken_bpe(str(path)), special_tokens=p.specials)


def file_ids(again: Reopened, ids: list[int]) -> list[int]:
    """Model ids as the file numbers them (the added tokens after the specials' gap)."""
    n = again.start + 256
    return [i + again.first_rank - n if i >= n else i for i in ids]


_MADE: dict[str, Path] = {}  # the extension file of each encoding, made once per test process


def extension_file(name: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    if name not in _MADE:
        ext = start(load(name), name, TRAIN, TrainConfig(mode="bytes", merges=MERGES))
        out = tmp_path_factory.mktemp("reopen") / f"{name}_ext.tiktoken"
        ext.save(str(out))
        _MADE[name] = out
    return _MADE[name]


@pytest.fixture(scope="module", params=["cl100k", "o200k"])
def reopened(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[
        str, Path, Reopened, tiktoken.Encoding]:
    name = request.param
    out = extension_file(name, tmp_path_factory)
    tok = load(f"{name}:{out}").tokenizer
    assert isinstance(tok, RankTokenizer)
    again = reopen(tok)
    assert again is not None
    return name, out, again, tiktoken_encoding(out, name)


def test_the_file_is_the_original_then_the_merges_it_adds(reopened) -> None:
    name, _, again, _ = reopened
    original = load(name).tokenizer
    assert isinstance(original, RankTokenizer)
    n = len(original.ranks)
    assert again.preset is PRESETS[name] and again.start == n - 256 and again.added == MERGES
    tokens = again.model.tokens
    assert len(tokens) == n + MERGES and all(original.ranks[tokens[i]] == i for i in range(n))  # its ids, its bytes
    assert again.first_rank == max(original.special_tokens.values()) + 1  # after the specials, as tiktoken numbers


def test_reopened_it_encodes_as_tiktoken_reading_the_file(reopened, topics_text: str) -> None:
    _, _, again, enc = reopened
    rule = RankRuleTokenizer(again.model, unknown="keep")
    for text in (HELD, TRAIN, topics_text[:20_000]):
        theirs = enc.encode_ordinary(text)
        assert file_ids(again, rule.encode(text)) == theirs
        assert any(i >= again.first_rank for i in theirs) or text is not TRAIN  # the added merges do act


@FEW
@given(st.lists(st.sampled_from(LINES[300:400]) | st.text(ASSIGNED_CHARS, max_size=40), max_size=6))
def test_any_text_encodes_as_tiktoken(reopened, parts: list[str]) -> None:
    _, _, again, enc = reopened
    text = "".join(parts)
    assert file_ids(again, RankRuleTokenizer(again.model, unknown="keep").encode(text)) == enc.encode_ordinary(text)


def test_the_bare_file_names_the_encoding_it_extends_even_from_a_worker(reopened) -> None:
    name, out, _, _ = reopened
    with pytest.raises(PretokenizerNeeded) as got:
        load(str(out))
    need = got.value
    assert need.extends == name and need.path == str(out) and f"open it as {name}:{out}" in str(need)
    back = pickle.loads(pickle.dumps(need))  # (the Extend dialog's worker sends it back to the window)
    assert (type(back), str(back), back.path, back.extends) == (PretokenizerNeeded, str(need), str(out), name)


def test_an_encoding_itself_or_read_with_other_specials_is_no_extension(reopened) -> None:
    name, out, _, _ = reopened
    assert reopen(load(name).tokenizer) is None
    other = load(str(out), pretokenizer=PRESETS[name].pretokenizer)  # the pattern alone: no specials, so not it
    assert isinstance(other.tokenizer, RankTokenizer) and reopen(other.tokenizer) is None


@pytest.fixture(scope="module")
def cl100k_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[bytes, int], Path]:
    """The hostile files are made from cl100k's extension (the same file ``reopened`` reads)."""
    out = extension_file("cl100k", tmp_path_factory)
    return dict(load(f"cl100k:{out}").tokenizer.ranks), out


def _write(tmp_path: Path, ranks: dict[bytes, int]) -> str:
    path = tmp_path / "hostile.tiktoken"
    path.write_bytes(dumps_ranks(ranks))
    return str(path)


def _one_rank_changed(ranks: dict[bytes, int]) -> dict[bytes, int]:
    by_rank = {r: t for t, r in ranks.items()}  # two of cl100k's tokens swapped: the checksum no longer matches
    return {**ranks, by_rank[5000]: 5001, by_rank[5001]: 5000}


def _cut_short(ranks: dict[bytes, int]) -> dict[bytes, int]:
    return {t: r for t, r in ranks.items() if r < 50_000}  # inside cl100k's own ranks


@pytest.mark.parametrize("damage", [_one_rank_changed, _cut_short])
def test_a_damaged_cl100k_part_is_no_extension(cl100k_file, tmp_path: Path, damage) -> None:
    ranks, _ = cl100k_file
    path = _write(tmp_path, damage(ranks))
    with pytest.raises(PretokenizerNeeded, match="is no known encoding") as got:
        load(path)  # the CLI's message: name a pattern (no encoding offered)
    assert got.value.extends == ""
    assert reopen(load(f"cl100k:{path}").tokenizer) is None


def test_a_gap_among_the_added_ranks_is_refused_naming_it(cl100k_file, tmp_path: Path) -> None:
    ranks, _ = cl100k_file
    first = min(r for r in ranks.values() if r > 100_276)
    path = _write(tmp_path, {t: r for t, r in ranks.items() if r != first + 3})
    with pytest.raises(PretokenizerNeeded) as got:
        load(path)
    assert got.value.extends == "cl100k"  # it still extends cl100k: the window offers it, then says why not
    with pytest.raises(FormatError, match=f"rank {first + 3} is missing"):
        reopen(load(f"cl100k:{path}").tokenizer)


def test_an_added_token_that_is_no_merge_is_refused_naming_it(cl100k_file, tmp_path: Path) -> None:
    ranks, _ = cl100k_file
    last = max(ranks.values())
    ranks = {t: r for t, r in ranks.items() if r != last}
    ranks[b"\x00\x01\x02\x03"] = last  # four bytes no two cl100k tokens make
    path = _write(tmp_path, ranks)
    with pytest.raises(FormatError, match=f"rank {last} .* is no merge of two tokens"):
        reopen(load(f"cl100k:{path}").tokenizer)
