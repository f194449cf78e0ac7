"""CLIP's merges (open_clip's ``bpe_simple_vocab_16e6.txt.gz``), gzipped or not: our ids and decoded text
equal open_clip's own ``SimpleTokenizer`` on every test text.

The oracle is open_clip's ``tokenizer.py`` from its wheel (1.5 MB, fetched with pip into a temporary
folder; pip failing fails the test, never skips it).  Its module imports torch for tensors only, which
``encode``/``decode`` never touch, so a stand-in module takes torch's place (torch is not installed).
"""

from __future__ import annotations

import gzip
import importlib.util
import subprocess
import sys
import types
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core.errors import FormatError
from bpe_desktop.core.formats import load

WHEEL = "open_clip_torch==3.3.0"
TEXTS = {
    "plain": "a photo of a cat", "caps": "A PHOTO of THE Eiffel Tower, Paris!!",
    "multilingual": "Grüße aus Köln, naïve café! Привет, мир — 日本語のテキスト。 ΣΊΣΥΦΟΣ İstanbul ﬁne ½",
    "emoji": "I ❤️ BPE 🤖🚀✨ family 👩‍👩‍👧‍👦 flags 🇫🇷 skin 👍🏽 1️⃣",
    "html": "fish &amp; chips &amp;amp; &lt;b&gt; &#39;quoted&#39;", "mojibake": "cafÃ© â€œquotesâ€\x9d",
    "spaces": "  lead\n\n\tmid \u00a0 \u3000 end\x1c  ",
    "specials": "<start_of_text>hi<END_OF_TEXT> x<end_of_text>",
    "digits": "12345 3.14 ٣٤", "apostrophes": "it's we'll THEY'RE I'M don't", "empty": "",
    "combining": "e\u0301 a\u0308",
}


@pytest.fixture(scope="module")
def clip(tmp_path_factory) -> tuple[Any, Path]:
    """(open_clip's tokenizer module, its merges file)."""
    d = tmp_path_factory.mktemp("open_clip")
    r = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(d), WHEEL],
                       capture_output=True, text=True, check=False)
    wheels = list(d.glob("open_clip_torch-*.whl"))
    if r.returncode != 0 or not wheels:
        pytest.fail(f"pip download {WHEEL} failed: {r.stderr[-300:]}")
    with zipfile.ZipFile(wheels[0]) as z:
        z.extract("open_clip/tokenizer.py", d)
        z.extract("open_clip/bpe_simple_vocab_16e6.txt.gz", d)
    stand_in = types.ModuleType("torch")
    stand_in.__getattr__ = lambda name: type(name, (), {})  # torch.LongTensor...
    assert "torch" not in sys.modules
    sys.modules["torch"] = stand_in  # only while the module is imported: hypothesis looks for torch too
    try:
        spec = importlib.util.spec_from_file_location("open_clip_tokenizer", d / "open_clip" / "tokenizer.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        del sys.modules["torch"]
    return module, d / "open_clip" / "bpe_simple_vocab_16e6.txt.gz"


def _same(module: Any, merges: Path, spec: str, texts: dict[str, str]) -> None:
    ref = module.SimpleTokenizer(bpe_path=str(merges))
    loaded = load(spec)
    assert loaded.fmt == "clip"
    ours = loaded.tokenizer
    assert ours.n_vocab == len(ref.encoder)
    for name, text in texts.items():
        want = ref.encode(text)
        assert ours.encode(text) == want, name
        assert ours.decode(want) == ref.decode(want), name
        assert [s.id for s in ours.encode_with_offsets(text)] == want, name


def test_open_clips_own_file_gzipped_and_not(clip, tmp_path: Path) -> None:
    import pydoc_data.topics

    module, merges = clip
    texts = TEXTS | {f"topic-{k}": v[:3000] for k, v in list(pydoc_data.topics.topics.items())[:8]}
    _same(module, merges, str(merges), texts)  # recognised by its checksum
    plain = tmp_path / "bpe_simple_vocab_16e6.txt"
    plain.write_bytes(gzip.decompress(merges.read_bytes()))
    _same(module, merges, str(plain), TEXTS)


def test_a_small_clip_style_file_needs_the_clip_prefix(clip, tmp_path: Path) -> None:
    module, merges = clip
    lines = gzip.decompress(merges.read_bytes()).decode().split("\n")[:3001]
    small = tmp_path / "small.txt.gz"
    small.write_bytes(gzip.compress("\n".join(lines).encode()))
    _same(module, small, f"clip:{small}", TEXTS)
    try:
        fmt = load(str(small)).fmt
    except FormatError:
        fmt = "refused"
    assert fmt != "clip"  # the shape alone is never taken for CLIP


def test_clip_refuses_options_it_would_ignore(clip) -> None:
    _, merges = clip
    with pytest.raises(FormatError, match="drop --pretokenizer"):
        load(str(merges), pretokenizer="gpt2")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(st.characters(codec="utf-8"), max_size=40)
       | st.text(st.sampled_from("aA'sé\u0301 &amp;<end_of_text>Σ🤖 \n1"), max_size=30))
def test_random_texts_give_open_clips_ids(clip, text: str) -> None:
    module, merges = clip
    ref, ours = _pair(module, merges)
    want = ref.encode(text)
    assert ours.encode(text) == want
    assert ours.decode(want) == ref.decode(want)


_PAIRS: dict[str, tuple[Any, Any]] = {}


def _pair(module: Any, merges: Path) -> tuple[Any, Any]:
    """(open_clip's tokenizer, ours), built once for all the examples."""
    if str(merges) not in _PAIRS:
        _PAIRS[str(merges)] = module.SimpleTokenizer(bpe_path=str(merges)), load(str(merges)).tokenizer
    return _PAIRS[str(merges)]
