"""HF's ``continuing_subword_prefix`` (``##``) carried by a merge list whose merges concatenate.

With a prefix, HF writes a word's first character as itself and every later one with the prefix (``h ##e
##y``), and a merge ``(a, b)`` makes ``a + b[len(prefix):]`` (``h ##e`` makes ``he``).  Our model makes a
merged token by concatenating its two parts, so each file token is held under a name of ours instead: a
token that continues a word (``##e``, ``##ey``) by its text without the prefix (``e``, ``ey``), and a token
that starts a word (``h``, ``he``) by :data:`START` + its text (``␂he``); then ``␂h + e = ␂he`` as HF's
``h + ##e = he``.  Whether a token starts or continues a word is its *role*: a merge's right part
continues one, a merged token has its left part's role, and a token no merge makes continues a word
exactly when it begins with the prefix.  Encoding is by ids (the file's text of each character is looked
up in the file's vocabulary, as HF does), so these names only keep the merges' arithmetic true.

Refused, with the token named: a merge whose right part does not begin with the prefix (HF would cut
the prefix's length off it regardless), a token that would need both roles (HF gives it one id, our
merges would need two), and two file tokens under one name of ours.  It reads nothing itself and does not
encode.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...errors import FormatError

#: what a word-starting token's name begins with (U+2402 SYMBOL FOR START OF TEXT)
START = "\u2402"


def made_token(a: str, b: str, prefix: str) -> str:
    """The token HF's merge of *a* and *b* makes.

    >>> made_token("h", "##e", "##"), made_token("##e", "##y", "##")
    ('he', '##ey')
    """
    return a + b[len(prefix):]


def file_text(name: str, prefix: str) -> str:
    """The file's text of a token from its name of ours (the inverse of :func:`prefixed_names`)."""
    return name[len(START):] if name.startswith(START) else prefix + name


def prefixed_names(
    vocab: Mapping[str, int], pairs: Sequence[tuple[str, str]], prefix: str, specials: set[str], source: str,
) -> dict[str, str]:
    """Each file token's name of ours (specials keep their text), as the module text says.

    >>> names = prefixed_names({"h": 0, "##e": 1, "he": 2}, [("h", "##e")], "##", set(), "x")
    >>> names == {"h": "\u2402h", "##e": "e", "he": "\u2402he"}
    True
    """
    role: dict[str, bool] = {}  # True: starts a word
    made = {made_token(a, b, prefix) for a, b in pairs}

    def role_of(t: str) -> bool:
        r = role.get(t)
        if r is None:
            r = role[t] = not (t.startswith(prefix) and len(t) > len(prefix))
        return r

    for n, (a, b) in enumerate(pairs, 1):
        if not b.startswith(prefix):
            raise FormatError(f"{source}: merge {n} ({a} {b}): its right part does not begin with the "
                              f"continuing_subword_prefix {prefix!r} -- HF would cut {len(prefix)} bytes off "
                              "it; the merges do not belong to this prefix")
        b_starts = role.get(b)
        if b_starts is None and b not in made:
            b_starts = role_of(b)
        if b_starts:
            raise FormatError(f"{source}: merge {n} ({a} {b}): {b!r} continues a word here but starts one "
                              "elsewhere in the merges -- HF gives it one id for both, which a merge list cannot "
                              "hold; this file cannot be read exactly")
        role[b] = False
        new = made_token(a, b, prefix)
        if a not in role and a in made:
            raise FormatError(f"{source}: merge {n} ({a} {b}) uses {a!r} before a merge makes it -- the merge "
                              "list is out of order")
        starts = role_of(a)
        if role.setdefault(new, starts) != starts:
            raise FormatError(f"{source}: merge {n} ({a} {b}) makes {new!r}, which elsewhere "
                              f"{'continues' if starts else 'starts'} a word -- HF gives it one id for both, "
                              "which a merge list cannot hold; this file cannot be read exactly")
    names: dict[str, str] = {}
    seen: dict[str, str] = {}
    for t in dict.fromkeys([*vocab, *(t for pair in pairs for t in pair)]):
        if t in specials:
            names[t] = t
            continue
        name = START + t if role_of(t) else t[len(prefix):]
        other = seen.setdefault(name, t)
        if other != t:
            raise FormatError(f"{source}: the tokens {other!r} and {t!r} cannot be told apart under the "
                              f"continuing_subword_prefix {prefix!r} -- this file cannot be read exactly")
        names[t] = name
    return names
