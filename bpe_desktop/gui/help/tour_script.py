"""The lesson the tour tells, as data (Qt-free): the seeds' worked example (seed 000: low 5, lower 2,
newest 6, widest 3), its seven merges with the seed's explanation of each, and which pane each page is about.

A :class:`Page` names the dock to highlight and, for a merge page, the step to show and the merge the seed
expects (left, right, count) -- the tour checks the run against it and the tie sentence comes from the
run's own record (:func:`~bpe_desktop.core.records.explain`), so the page never claims what the run did not
do.  It leaves out widgets (:mod:`.tour`).
"""

from __future__ import annotations

from typing import NamedTuple

#: the seed's word counts, as the corpus pane's word-count table
SEED_TABLE = "low 5\nlower 2\nnewest 6\nwidest 3\n"


class Page(NamedTuple):
    title: str
    text: str  # HTML-light text (the tour adds the tie sentence of merge pages)
    dock: str  # key of the dock to highlight ("corpus", "settings", "tokens", "why", "merges", "timeline", ...)
    step: int | None = None  # the timeline's step on this page (None: leave it)
    merge: tuple[str, str, int] | None = None  # the seed's merge k: left, right, count
    shapes: tuple[str, str] = ("", "")  # the seed's table: what newest and low become


#: the seed's table, round by round: (left, right, count, newest becomes, low becomes, the seed's words)
SEED_ROUNDS: tuple[tuple[str, str, int, str, str, str], ...] = (
    ("e", "s", 9, "n e w es t </w>", "l o w </w>",
     "Count pairs. e+s occurs in newest (6) and widest (3): 9. s+t: 9. t+&lt;/w&gt;: 9. w+e occurs in lower (2) "
     "and newest (6): 8. l+o: 5 + 2 = 7. o+w: 7. Three pairs tie at 9; take the alphabetically first, e+s, "
     "and merge it. Now newest is n e w es t &lt;/w&gt; and widest is w i d es t &lt;/w&gt;."),
    ("es", "t", 9, "n e w est </w>", "l o w </w>",
     "es+t now has count 9, as does t+&lt;/w&gt;; es+t wins the tie."),
    ("est", "</w>", 9, "n e w est</w>", "l o w </w>",
     "est+&lt;/w&gt; has count 9 and wins outright. Notice what happened: the learner discovered the suffix "
     "“est” at the end of a word, just from counts."),
    ("l", "o", 7, "n e w est</w>", "lo w </w>",
     "l+o occurs in low (5) and lower (2): 7, as does o+w; l comes first in string order, so l+o wins."),
    ("lo", "w", 7, "n e w est</w>", "low </w>",
     "lo+w: 7 again (low and lower), ahead of the pairs of newest at 6. The whole word low is now one symbol "
     "before its end marker."),
    ("e", "w", 6, "n ew est</w>", "low </w>",
     "Three pairs of newest tie at 6: e+w, n+e and w+est&lt;/w&gt;; the alphabetically first, e+w, wins."),
    ("ew", "est</w>", 6, "n ewest</w>", "low </w>",
     "ew+est&lt;/w&gt; and n+ew tie at 6; ew sorts before n, so ew+est&lt;/w&gt; wins. Seven merges: the "
     "vocabulary grew by seven symbols, and the merge list is the tokenizer."),
)


def pages() -> list[Page]:
    """Every page of the tour, in order."""
    out = [
        Page("The corpus", "The tour trains the seeds' worked example: four words with their counts, "
             "<b>low 5, lower 2, newest 6, widest 3</b>. The corpus pane holds them as a word-count table; "
             "each word is spelled as characters plus the end-of-word marker, e.g. n e w e s t &lt;/w&gt;.",
             "corpus"),
        Page("The settings", "The seed's settings: <b>chars</b> mode, whitespace pre-tokenizer, the end marker "
             "&lt;/w&gt;, <b>7 merges</b>, and the <b>lexical</b> tie-break: of the pairs with the highest count, "
             "the smallest in string order wins. Other rules give other, equally valid merge lists.",
             "settings"),
        Page("Step 0", "At step 0 there are no merges yet: the token stream shows each word cut into its base "
             "symbols. Each merge will glue one pair of neighbours, in every word at once.", "tokens", step=0),
    ]
    for k, (a, b, count, newest, low, words) in enumerate(SEED_ROUNDS, 1):
        dock = "why" if k in (1, 2, 4, 6, 7) else "tokens"  # ties: the why pane lists the runner-ups
        out.append(Page(f"Merge {k}: {a} + {b}", words, dock, step=k, merge=(a, b, count), shapes=(newest, low)))
    out.append(Page("Encoding a new word", "“lowest” was not in the corpus. Replaying the merges in order "
                    "gives l o w es t &lt;/w&gt;, then … lo w est&lt;/w&gt;, then <b>low + est&lt;/w&gt;</b>: two "
                    "tokens built from pieces seen in different words. The merge list is the tokenizer: the "
                    "timeline moves through it, the merges pane lists it.", "merges", step=7))
    out.append(Page("Your turn: robot logs", "The same algorithm on real text: the bundled robot-log sample "
                    "with the <b>Robot logs</b> settings (bytes, cl100k pre-tokenizer, 1,000 merges). Press "
                    "<b>Train on robot logs</b> to load and train it, or Close to keep exploring the seed.",
                    "tokens"))
    return out
