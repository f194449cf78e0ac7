"""Which merges built a token: its derivation tree down to the base symbols, and its length in them.

It leaves out labels beyond the tree's (:mod:`.labels`) and drawing the tree (the token view).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..tokenizers.model import BPEModel
from .labels import id_label


@dataclass
class DerivationNode:
    """A token in a derivation tree: made by merge ``rank`` (1-based) from ``children``, or a base symbol."""

    id: int
    label: str
    rank: int | None  # 1-based merge rank, None for base symbols
    children: list[DerivationNode] = field(default_factory=list)

    def leaves(self) -> list[str]:
        """Labels of the base symbols, left to right."""
        out: list[str] = []
        stack = [self]
        while stack:
            n = stack.pop()
            if n.children:
                stack.extend(reversed(n.children))
            else:
                out.append(n.label)
        return out

    def ranks(self) -> list[int]:
        """The merge ranks used, in the order the merges happened."""
        out: list[int] = []
        stack = [self]
        while stack:
            n = stack.pop()
            if n.rank is not None:
                out.append(n.rank)
            stack.extend(n.children)
        return sorted(out)


def derivation_tree(model: BPEModel, token_id: int, max_nodes: int = 4096) -> DerivationNode:
    """Unfold which merges built *token_id*, down to base symbols (iterative; at most *max_nodes* nodes).

    >>> from bpe_desktop.core import TrainConfig, train
    >>> model, _ = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, TrainConfig(merges=7))
    >>> tree = derivation_tree(model, model.token_ids["est</w>"])
    >>> tree.rank, [c.label for c in tree.children], tree.leaves(), tree.ranks()
    (3, ['est', '</w>'], ['e', 's', 't', '</w>'], [1, 2, 3])
    """

    def node(i: int) -> DerivationNode:
        r = model.merge_rank_of(i)
        return DerivationNode(i, id_label(model, i), None if r is None else r + 1)

    root = node(token_id)
    stack = [root]
    count = 1
    while stack and count < max_nodes:
        n = stack.pop()
        d = model.derivation(n.id)
        if d is None:
            continue
        n.children = [node(d[0]), node(d[1])]
        count += 2
        stack.extend(n.children)
    return root
