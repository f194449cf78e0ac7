"""Types of the compiled counting loop (``_accumulate.c``; see ``word_first.py``)."""

from collections.abc import Callable

def accumulate(
    counted: dict[str, int], known: dict[str, list[str]], pieces_of: Callable[[str], list[str]],
    into: dict[str, int], room: int,
) -> int: ...
def count_fields(text: str, into: dict[str, int]) -> None: ...
